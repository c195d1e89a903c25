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
