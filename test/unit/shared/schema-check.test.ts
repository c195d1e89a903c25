/** Where a value breaks a JSON Schema: Ask's structured answer and the tools' arguments alike. */
import { schemaProblems } from '../../../nodes/shared/outputFormat/schemaCheck';

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
