/** Where a value breaks a JSON Schema: Ask's structured answer and the tools' arguments alike. */
import { parseJson } from '../../../nodes/shared/json';
import { outputFormatProblems } from '../../../nodes/shared/outputFormat/outputFormatGrammar';
import { schemaProblems } from '../../../nodes/shared/outputFormat/schemaCheck';
import { schemaFromExample } from '../../../nodes/shared/outputFormat/schemaFromExample';

const schema = {
	type: 'object',
	properties: {
		summary: { type: 'string' },
		sentiment: { type: 'string', enum: ['positive', 'negative'] },
		topics: { type: 'array', items: { type: 'string' } },
		note: { type: 'string' },
	},
	required: ['summary', 'sentiment', 'topics'],
};

describe('schemaProblems', () => {
	test('a matching value has none; an optional field may be null, a required one may not', () => {
		const answer = { summary: 'ok', sentiment: 'positive', topics: ['a'], note: null };
		expect(schemaProblems(answer, schema, '(answer)')).toEqual([]);
		expect(schemaProblems({ ...answer, summary: null }, schema, '(answer)')).toEqual([
			'summary: required',
		]);
	});

	test('each problem by its path: missing, of another type, outside the enum, in a list', () => {
		const answer = { sentiment: 'meh', topics: ['a', 3] };
		expect(schemaProblems(answer, schema, '(answer)')).toEqual([
			'summary: required',
			'sentiment: must be one of "positive", "negative"',
			'topics.1: expected string, got number',
		]);
		expect(schemaProblems([1], schema, '(answer)')).toEqual([
			'(answer): expected object, got array',
		]);
	});

	test('at most `limit` problems', () => {
		expect(schemaProblems({}, schema, '(answer)', 2)).toHaveLength(2);
	});
});

const schemaWith = (name: string) => ({
	type: 'object',
	properties: { [name]: { type: 'string' }, summary: { type: 'string' } },
	required: [name, 'summary'],
});

test.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'])(
	'a required field named %s that the answer lacks is a problem',
	(name) => {
		const schema = schemaWith(name);
		expect(outputFormatProblems(schema)).toEqual([]);
		expect(schemaProblems(parseJson('{"summary":"x"}'), schema, '(answer)')).toEqual([
			`${name}: required`,
		]);
	},
);

test('conforming answers pass: nested objects, arrays of objects, enums, descriptions, 1e3, -0', () => {
	const schema = {
		type: 'object',
		description: 'd',
		properties: {
			n: { type: 'number', description: 'n' },
			kind: { type: 'string', enum: ['a', 'b'], description: 'k' },
			list: {
				type: 'array',
				items: {
					type: 'object',
					properties: {
						x: { type: 'boolean' },
						deep: { type: 'object', properties: { y: { type: 'number' } }, required: ['y'] },
					},
					required: ['x', 'deep'],
				},
			},
		},
		required: ['n', 'kind', 'list'],
	};
	expect(outputFormatProblems(schema)).toEqual([]);
	for (const answer of [
		'{"n":1e3,"kind":"a","list":[{"x":true,"deep":{"y":-0}}]}',
		'{"n":-0,"kind":"b","list":[]}',
	]) {
		expect(schemaProblems(parseJson(answer), schema, '(answer)')).toEqual([]);
	}
	const example = {
		title: 'x',
		tags: ['a'],
		items: [{ a: 1 }, { a: 2, b: 'x' }],
		meta: { ok: true },
	};
	const fromExample = schemaFromExample(example);
	expect(
		schemaProblems(
			parseJson('{"title":"t","tags":[],"items":[{"a":1e2},{"a":-0,"b":"y"}],"meta":{"ok":false}}'),
			fromExample as unknown as Record<string, unknown>,
			'(answer)',
		),
	).toEqual([]);
});
