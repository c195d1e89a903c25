/**
 * A structured answer that arrived as text (docs/api.md#ask-answer): parsed whole, or the last
 * complete JSON object in it; none is an error quoting the start.
 */
import { objectFromText, quotedStart } from '../../../nodes/shared/outputFormat/structuredText';

describe('a structured answer sent as text', () => {
	test.each([
		['one object', '{"a": 1}', { a: 1 }],
		['one object with spaces around it', '  \n{"a": {"b": [1, 2]}}\n ', { a: { b: [1, 2] } }],
		['an object and trailing text', '{"a": 1}\nHope this helps!', { a: 1 }],
		['text, then the object', 'Here you go: {"a": 1}', { a: 1 }],
		['several objects: the last complete one', '{"a": 1}{"a": 2}\n{"a": 3}', { a: 3 }],
		['in a code fence', '```json\n{"a": "x"}\n```', { a: 'x' }],
		['braces inside strings do not count', '{"a": "} { \\" }"} trailing', { a: '} { " }' }],
		['an object cut short after a whole one', '{"a": 1} {"a": 2, "b":', { a: 1 }],
	])('%s', (_name, text, expected) => {
		expect(objectFromText(text)).toEqual(expected);
	});

	test.each([
		['plain text', 'I could not do that.'],
		['a list', '[1, 2]'],
		['an object cut short', '{"a": 1, "b": '],
		['empty', ''],
	])('%s holds no object', (_name, text) => {
		expect(objectFromText(text)).toBeUndefined();
	});

	describe('when only the whole text may be the object (the chat model’s tool envelope)', () => {
		test.each([
			['one object', ' {"a": 1}\n', { a: 1 }],
			['one object in a code fence', '```json\n{"a": "x"}\n```', { a: 'x' }],
		])('%s is the object', (_name, text, expected) => {
			expect(objectFromText(text, 'whole')).toEqual(expected);
		});

		test.each([
			['text, then an object', 'The page says: {"a": 1}'],
			['an object, then text', '{"a": 1}\nHope this helps!'],
			['several objects', '{"a": 1}{"a": 2}'],
			['a fence with text after it', '```json\n{"a": 1}\n```\nAnd {"a": 2}'],
		])('%s holds none', (_name, text) => {
			expect(objectFromText(text, 'whole')).toBeUndefined();
		});
	});

	test('the error quotes the start of the text, on one line', () => {
		expect(quotedStart('Sorry,\nI cannot   answer that.')).toBe('"Sorry, I cannot answer that."');
		expect(quotedStart('x'.repeat(100))).toBe(`"${'x'.repeat(80)}…"`);
	});
});
