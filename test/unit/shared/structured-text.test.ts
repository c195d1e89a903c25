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
		[
			'a stray brace in the prose before it',
			'Objects open with { and close. Here: {"a": 1}',
			{ a: 1 },
		],
		['a stray brace and a quote before it', 'Use { for a 5" screen: {"a": 1}', { a: 1 }],
		['braces in the prose around it', 'A set {x} and { then {"a": 1} and }', { a: 1 }],
		['a stray brace between two objects', '{"a": 1} then { and {"a": 2}', { a: 2 }],
		[
			'a quoted brace in the prose before it',
			'The "{" character opens an object: {"a": 1}',
			{ a: 1 },
		],
		['a brace and a quote in the prose before it', 'Type {" to start a key. {"a": 1}', { a: 1 }],
		[
			'a brace and an unclosed key in the prose before it',
			'The key {"name} is wrong. {"a": 1}',
			{ a: 1 },
		],
		[
			'the start of an object in the prose before it',
			'A JSON object starts like {"key": and so on. Here is the answer: {"name": "Ada"}',
			{ name: 'Ada' },
		],
		[
			'a brace and many spaces in the prose before it',
			`{${' '.repeat(70)}is a lone brace. {"a": 1}`,
			{ a: 1 },
		],
	])('%s', (_name, text, expected) => {
		expect(objectFromText(text)).toEqual(expected);
	});

	test.each([
		['plain text', 'I could not do that.'],
		['a list', '[1, 2]'],
		['an object cut short', '{"a": 1, "b": '],
		[
			'an object cut short after an object nested in it',
			'Here: {"summary": {"title": "X"}, "body": "long text that was cut',
		],
		[
			'an object cut short after an array of objects nested in it',
			'{"name": "root", "children": [{"name": "leaf", "children": []}], "note": "the model stopped here',
		],
		[
			'an object that closes on no JSON, around an object',
			'Result: {"answer": {"name": "x"}, "items": [1, 2,],}',
		],
		['empty', ''],
	])('%s holds no object', (_name, text) => {
		expect(objectFromText(text)).toBeUndefined();
	});

	test.each([
		['unclosed braces', '{'.repeat(1_000_000)],
		['braces that close on no JSON', '{x}'.repeat(300_000)],
		['nested braces that close on no JSON', `${'{x'.repeat(200_000)}${'}'.repeat(200_000)}`],
		[
			'nested objects that close on no JSON',
			`${'{"a": '.repeat(100_000)}1${', }'.repeat(100_000)}`,
		],
	])('a text full of %s is read in linear time, the object after it found', (_name, prose) => {
		const started = Date.now();
		expect(objectFromText(`${prose} {"a": 1}`)).toEqual({ a: 1 });
		expect(Date.now() - started).toBeLessThan(2_000);
	});

	test('an object after one that closes on no JSON is the last, not one before it', () => {
		const nested = `${'{"a": '.repeat(100_000)}1${', }'.repeat(100_000)}`;
		expect(objectFromText(`{"first": 1} ${nested} {"last": 1}`)).toEqual({ last: 1 });
	});

	test('a text of braces and quotes opens no object: the one after it is found, in linear time', () => {
		// `{"{"{"…`: the third `{` stands where a colon must, so the text stops being JSON there;
		// the `{` read inside the key opens no object either, and so on to the object written last.
		const started = Date.now();
		expect(objectFromText(`${'{"'.repeat(500_000)} {"a": 1}`)).toEqual({ a: 1 });
		expect(Date.now() - started).toBeLessThan(2_000);
	});

	test('an object read inside a string of a malformed object is none of it', () => {
		// The first `{` reads `{"b": 1}` as structure nested in a span that closes on no JSON.
		expect(objectFromText('{"a": "{", "b": {"c": 1}, "d": [1,],}')).toBeUndefined();
	});

	test('a 17M-character text of braces (over the 2^24 entries a Map holds) is read', () => {
		const started = Date.now();
		expect(objectFromText('{'.repeat(17_000_000))).toBeUndefined();
		expect(Date.now() - started).toBeLessThan(10_000);
	}, 60_000);

	describe('when only the whole text may be the object (the chat model’s tool envelope)', () => {
		test.each([
			['one object', ' {"a": 1}\n', { a: 1 }],
			['one object in a code fence', '```json\n{"a": "x"}\n```', { a: 'x' }],
			[
				'one object in a code fence with CRLF line ends',
				'```json\r\n{"a": "x"}\r\n```',
				{ a: 'x' },
			],
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
