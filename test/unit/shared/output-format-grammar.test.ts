/**
 * The whole `output_format` grammar (docs/api.md#ask-request), checked before sending: each
 * problem names its path and the fix; a schema inside the grammar has none. The emulator's own
 * check (test/helpers/outputFormatSubset.js, what the service answers with a 422) agrees on
 * every schema here.
 */
import { toolEnvelopeSchema } from '../../../nodes/AssistantChatModel/toolEnvelope';
import { outputFormatProblems } from '../../../nodes/shared/outputFormat/outputFormatGrammar';
import { schemaFromExample } from '../../../nodes/shared/outputFormat/schemaFromExample';
import { validateOutputFormat } from '../../helpers/outputFormatSubset';

const address = {
	type: 'object',
	properties: { street: { type: 'string' }, city: { type: 'string' } },
	required: ['street', 'city'],
};

const accepted = {
	type: 'object',
	description: 'A contact',
	properties: {
		name: { type: 'string', description: 'Full name' },
		mood: { type: 'string', enum: ['happy', 'sad'] },
		age: { type: 'number' },
		active: { type: 'boolean' },
		tags: { type: 'array', items: { type: 'string' } },
		addresses: { type: 'array', items: address },
		address,
		empty: { type: 'object', properties: {}, required: [] },
	},
	required: ['name', 'address'],
};

interface ObjectSchema {
	properties?: Record<string, unknown>;
	required?: unknown;
	[keyword: string]: unknown;
}

/** `accepted` with `change` applied at the nested address (a copy: nothing shared). */
function withAddress(change: (schema: ObjectSchema) => void) {
	const schema = JSON.parse(JSON.stringify(accepted)) as { properties: { address: ObjectSchema } };
	change(schema.properties.address);
	return schema;
}

const paths = (schema: unknown) => outputFormatProblems(schema).map((problem) => problem.path);
const serviceRefuses = (schema: unknown) =>
	validateOutputFormat(schema, ['body', 'output_format']).length > 0;

describe('schemas inside the grammar pass', () => {
	test('every type, enum on a string, arrays of scalars and objects, descriptions, nesting', () => {
		expect(outputFormatProblems(accepted)).toEqual([]);
		expect(serviceRefuses(accepted)).toBe(false);
	});

	test('schemas derived from a JSON example are inside the grammar', () => {
		const schema = schemaFromExample({ a: 'x', b: [{ c: 1 }, { c: 2, d: true }], e: { f: [1] } });
		expect(outputFormatProblems(schema)).toEqual([]);
	});

	test("the chat model's tool envelope is inside the grammar", () => {
		const schema = toolEnvelopeSchema([
			{ name: 'calculator', description: 'Adds', parameters: { type: 'object', properties: {} } },
		]);
		expect(outputFormatProblems(schema)).toEqual([]);
	});
});

describe('each problem names its path and the fix', () => {
	test.each([
		[
			'a nested object without required',
			withAddress((a) => delete a.required),
			'properties.address.required',
			/Add "required": \["street","city"\] to properties\.address/,
		],
		[
			'a root without required',
			{ type: 'object', properties: { a: { type: 'string' } } },
			'required',
			/Add "required": \["a"\] to the root/,
		],
		[
			'an integer',
			withAddress((a) => (a.properties!.zip = { type: 'integer' })),
			'properties.address.properties.zip.type',
			/Use "type": "number"/,
		],
		[
			'a nested object without properties',
			withAddress((a) => delete a.properties),
			'properties.address.properties',
			/List the fields of properties\.address/,
		],
		[
			'a property without a type',
			withAddress((a) => (a.properties!.city = { description: 'City' })),
			'properties.address.properties.city.type',
			/"string", "number", "boolean", "object" or "array"/,
		],
		[
			'a list of types (nullable)',
			withAddress((a) => (a.properties!.city = { type: ['string', 'null'] })),
			'properties.address.properties.city.type',
			/leave its name out of "required"/,
		],
		[
			'enum on a number',
			withAddress((a) => (a.properties!.floor = { type: 'number', enum: [1, 2] })),
			'properties.address.properties.floor.enum',
			/"type": "string" with the values as text, or remove "enum"/,
		],
		[
			'an enum value that is not text',
			withAddress((a) => (a.properties!.kind = { type: 'string', enum: ['home', 2] })),
			'properties.address.properties.kind.enum.1',
			/Write it as text/,
		],
		[
			'additionalProperties',
			withAddress((a) => (a.additionalProperties = false)),
			'properties.address.additionalProperties',
			/Remove "additionalProperties"/,
		],
		[
			'$schema at the root',
			{ ...accepted, $schema: 'https://json-schema.org/draft/2020-12/schema' },
			'$schema',
			/Remove "\$schema"/,
		],
		[
			'a format on a string',
			withAddress((a) => (a.properties!.city = { type: 'string', format: 'uri' })),
			'properties.address.properties.city.format',
			/Remove "format"/,
		],
		[
			'items on an object',
			withAddress((a) => (a.items = { type: 'string' })),
			'properties.address.items',
			/Set "type": "array" at properties\.address, or remove "items"/,
		],
		[
			'an array without items',
			withAddress((a) => (a.properties!.lines = { type: 'array' })),
			'properties.address.properties.lines.items',
			/Give properties\.address\.properties\.lines "items"/,
		],
		[
			'an object in an array without required',
			{
				type: 'object',
				properties: { list: { type: 'array', items: { type: 'object', properties: {} } } },
				required: ['list'],
			},
			'properties.list.items.required',
			/Add "required": \[\]/,
		],
		[
			'required naming a property that does not exist',
			withAddress((a) => (a.required = ['street', 'town'])),
			'properties.address.required.1',
			/List only names of properties\.address's properties/,
		],
		[
			'a root that is an array schema',
			{ type: 'array', items: { type: 'string' } },
			'type',
			/wrap other shapes in a property/,
		],
	])('%s', (_name, schema, path, fix) => {
		const [problem] = outputFormatProblems(schema);
		expect(problem.path).toBe(path);
		expect(problem.message).toContain(path === '$schema' || path === 'type' ? '' : path);
		expect(problem.fix).toMatch(fix);
		// What the node refuses, the service would have refused too (422).
		expect(serviceRefuses(schema)).toBe(true);
	});

	test('the message names the missing path in words a user can act on', () => {
		const [problem] = outputFormatProblems(withAddress((a) => delete a.required));
		expect(problem.message).toBe(
			'JSON Schema is missing properties.address.required: every object needs "required", the list of the properties the answer must have',
		);
	});

	test('a property named "__proto__" is refused before sending: it would not reach the service', () => {
		const schema = JSON.parse(
			'{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
		) as unknown;
		const [problem] = outputFormatProblems(schema);
		expect(problem).toEqual({
			path: 'properties.__proto__',
			message: 'JSON Schema: a property named "__proto__" (in the root) cannot be sent',
			fix: 'Rename the property, e.g. "proto".',
		});
	});

	test('every problem is found, in document order', () => {
		const schema = withAddress((a) => {
			delete a.required;
			a.properties!.zip = { type: 'integer' };
		});
		expect(paths(schema)).toEqual([
			'properties.address.properties.zip.type',
			'properties.address.required',
		]);
	});

	test('not an object, or nested too deep', () => {
		expect(paths('{"type": "object"}')).toEqual(['']);
		expect(paths(null)).toEqual(['']);
		let deep: Record<string, unknown> = { type: 'string' };
		for (let level = 0; level < 40; level += 1) {
			deep = { type: 'object', properties: { a: deep }, required: ['a'] };
		}
		expect(outputFormatProblems(deep)[0].message).toMatch(/nested deeper than 32 levels/);
	});
});
