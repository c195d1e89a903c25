import { outputFormatProblems } from '../../../nodes/shared/outputFormat/outputFormatGrammar';
import {
	SchemaExampleError,
	schemaFromExample,
} from '../../../nodes/shared/outputFormat/schemaFromExample';

describe('a schema derived from a JSON example stays inside the service subset', () => {
	test('text, numbers, true/false, lists and nested objects; every field required', () => {
		// Alike in shape to the schema node.engine.test.ts expects: this proves the derivation, that
		// one that the node sends it; each states the schema its own example gives.
		expect(
			schemaFromExample({
				summary: 'One sentence',
				score: 3,
				urgent: false,
				tags: ['a'],
				author: { name: 'Ada', age: 36 },
			}),
		).toEqual({
			type: 'object',
			properties: {
				summary: { type: 'string' },
				score: { type: 'number' },
				urgent: { type: 'boolean' },
				tags: { type: 'array', items: { type: 'string' } },
				author: {
					type: 'object',
					properties: { name: { type: 'string' }, age: { type: 'number' } },
					required: ['name', 'age'],
				},
			},
			required: ['summary', 'score', 'urgent', 'tags', 'author'],
		});
	});

	test('objects in a list together give the element; fields missing from one are optional', () => {
		expect(schemaFromExample({ people: [{ name: 'Ada' }, { name: 'Alan', born: 1912 }] })).toEqual({
			type: 'object',
			properties: {
				people: {
					type: 'array',
					items: {
						type: 'object',
						properties: { name: { type: 'string' }, born: { type: 'number' } },
						required: ['name'],
					},
				},
			},
			required: ['people'],
		});
	});

	test.each([
		['a list at the root', [1], /must be an object/, ''],
		['text at the root', '"x"', /must be an object/, ''],
		['null', { a: null }, /"a" is null/, 'a'],
		['an empty list', { a: { tags: [] } }, /"a.tags" is an empty list/, 'a.tags'],
		['an empty object', { meta: {} }, /"meta" is an empty object/, 'meta'],
		['nothing at all', {}, /is an empty object/, ''],
		['null inside a list', { rows: [null] }, /"rows\[\]" is null/, 'rows[]'],
		[
			'a field named __proto__',
			JSON.parse('{"__proto__": "x", "b": "y"}') as unknown,
			/"__proto__" cannot be sent: rename the field/,
			'__proto__',
		],
		[
			"a field named __proto__ in one of a list's objects",
			JSON.parse('{"rows": [{"a": 1}, {"__proto__": 2}]}') as unknown,
			/"rows\[\]\.__proto__" cannot be sent/,
			'rows[].__proto__',
		],
		[
			'nesting deeper than the service accepts',
			nested(33),
			/is nested deeper than 32 levels: flatten the example/,
			Array.from({ length: 33 }, () => 'a').join('.'),
		],
	])('%s cannot give a schema: the path and what to change', (_name, example, message, path) => {
		let caught: unknown;
		try {
			schemaFromExample(example);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(SchemaExampleError);
		expect((caught as SchemaExampleError).message).toMatch(message);
		expect((caught as SchemaExampleError).path).toBe(path);
	});
});

/** An example whose text lies `levels` levels below its root: {"a": {"a": … "x"}}. */
function nested(levels: number): unknown {
	let value: unknown = 'x';
	for (let level = 0; level < levels; level++) value = { a: value };
	return value;
}

describe('an example the service would refuse is refused before anything is sent', () => {
	test('32 levels below the root are as deep as the grammar goes', () => {
		const schema = schemaFromExample(nested(32));
		expect(outputFormatProblems(schema)).toEqual([]);
		// One more, and the grammar refuses it as the example is refused.
		const deeper = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
		let holder = deeper;
		while ((holder.properties as { a: Record<string, unknown> }).a.type === 'object') {
			holder = (holder.properties as { a: Record<string, unknown> }).a;
		}
		holder.properties = {
			a: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
		};
		expect(outputFormatProblems(deeper)[0]?.message).toMatch(/nested deeper than 32 levels/);
	});

	test('an example nested a hundred thousand levels deep, or one that holds itself, fails naming the depth, not the stack', () => {
		const cyclic: Record<string, unknown> = { name: 'x' };
		cyclic.self = cyclic;
		for (const example of [nested(100_000), cyclic]) {
			expect(() => schemaFromExample(example)).toThrow(/is nested deeper than 32 levels/);
		}
	});

	test("fields that objects have by inheritance (toString, constructor) are fields like any other in a list's objects", () => {
		const schema = schemaFromExample({ rows: [{ a: 1 }, { toString: 'x', constructor: 2 }] });
		expect(schema.properties.rows).toEqual({
			type: 'array',
			items: {
				type: 'object',
				properties: {
					a: { type: 'number' },
					toString: { type: 'string' },
					constructor: { type: 'number' },
				},
				required: [],
			},
		});
	});
});
