/**
 * Bounds on what a response holds besides its characters (docs/api.md#memory-bounds), on the
 * sources: JSON texts of countless tiny values, streams of countless empty parts or tool calls,
 * error words of megabytes, which an item's error shows cut, and bodies in countless tiny chunks.
 */
import { parseJson, parseJsonObject, TooManyJsonValues } from '../../../nodes/shared/json';
import { HELD_ENTRY_CHARS, MAX_JSON_VALUES } from '../../../nodes/shared/limits';
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { StreamAnswerError } from '../../../nodes/shared/stream/answerFailure';
import { readAll, readErrorBody } from '../../../nodes/shared/transport/send';
import { bytesInUse } from '../../helpers/heap';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe('JSON of many values', () => {
	const tiny = (count: number) => `[${new Array<string>(count).fill('{}').join(',')}]`;

	test(`more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values are not parsed`, () => {
		expect(() => parseJson(tiny(MAX_JSON_VALUES))).toThrow(TooManyJsonValues);
		expect(parseJsonObject(`{"models": ${tiny(MAX_JSON_VALUES)}}`)).toBeUndefined();
	});

	test('up to the bound they are', () => {
		expect(parseJson(tiny(MAX_JSON_VALUES / 2 - 1))).toHaveLength(MAX_JSON_VALUES / 2 - 1);
	});

	test('commas, brackets and escaped quotes inside strings are not values', () => {
		const text = `${','.repeat(MAX_JSON_VALUES)}\\"[{${','.repeat(10)}`;
		expect(parseJson(JSON.stringify({ output: text }))).toEqual({ output: text });
	});

	test('a long answer text is one value, read fast', () => {
		const output = 'word, '.repeat(4_000_000);
		const started = performance.now();
		expect((parseJson(JSON.stringify({ output })) as { output: string }).output).toHaveLength(
			output.length,
		);
		// Wide: the string is skipped by one search for its closing quote.
		expect(performance.now() - started).toBeLessThan(2000);
	});

	test('text that is not JSON fails as JSON.parse fails', () => {
		expect(() => parseJson(`"${'x'.repeat(MAX_JSON_VALUES + 5)}`)).toThrow(SyntaxError);
	});
});

const LIMIT = 64_000;

/** The error a stream read with an answer bound of LIMIT characters fails with. */
function failure(events: string[], steps = false, structured = false): StreamAnswerError {
	let caught: unknown;
	try {
		readAnswerFromChunks([events.join('')], {
			structured,
			answerLimitChars: LIMIT,
			steps: steps ? { thinking: false } : undefined,
		});
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(StreamAnswerError);
	return caught as StreamAnswerError;
}

describe('streams of many entries', () => {
	const limitEntries = LIMIT / HELD_ENTRY_CHARS;

	test('empty parts at ever new indexes count toward the answer bound', () => {
		const events = Array.from({ length: limitEntries + 10 }, (_, index) =>
			sse('PartStartEvent', { index, part: { part_kind: 'text', content: '' } }),
		);
		expect(failure(events).message).toMatch(/The answer grew past 64,000 characters/);
	});

	test('with Include Steps, tool calls of empty arguments count toward it too', () => {
		const events = Array.from({ length: limitEntries + 10 }, (_, i) =>
			sse('FunctionToolCallEvent', {
				part: { part_kind: 'tool-call', tool_name: 't', args: {}, tool_call_id: `c${i}` },
			}),
		);
		expect(failure(events, true).message).toMatch(/The answer grew past 64,000 characters/);
	});

	test('tool calls without ids are read in linear time', () => {
		const call = (i: number) =>
			sse('FunctionToolCallEvent', {
				part: { part_kind: 'tool-call', tool_name: 'search', args: { q: i } },
			});
		const events = Array.from({ length: 50_000 }, (_, i) => call(i));
		const started = performance.now();
		const result = readAnswerFromChunks([[...events, sse('End', { output: 'done' })].join('')], {
			structured: false,
			steps: { thinking: false },
		});
		expect(result.steps).toHaveLength(50_000);
		// Wide: before, each call was compared with every earlier one (about 7 s for 56,000).
		expect(performance.now() - started).toBeLessThan(1500);
	});
});

describe('all an answer holds counts toward the answer bound', () => {
	const succeeded = sse('completed', { status: 'succeeded' });
	const tooLarge = /The answer grew past 64,000 characters/;

	test.each([
		['text', 'x'.repeat(LIMIT + 1), false],
		['an object', { text: 'x'.repeat(LIMIT) }, true],
	])(
		"End's output as %s past the bound fails as the streamed text does",
		(_, output, structured) => {
			expect(failure([sse('End', { output })], false, structured).message).toMatch(tooLarge);
		},
	);

	test('the blank lines between messages count, not only their text', () => {
		// Each part at index 0 begins a new message: a third of the bound in text, the rest blank lines.
		const messages = Array.from({ length: LIMIT / 3 + 10 }, () =>
			sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'x' } }),
		);
		expect(failure([...messages, succeeded]).message).toMatch(tooLarge);
	});

	test.each([
		[
			'tool call ids',
			(i: number) =>
				sse('FunctionToolCallEvent', {
					part: {
						part_kind: 'tool-call',
						tool_name: 't',
						args: {},
						tool_call_id: `${i}${'i'.repeat(LIMIT / 4)}`,
					},
				}),
		],
		[
			"tool results' outcomes",
			(i: number) =>
				sse('FunctionToolResultEvent', {
					result: {
						part_kind: 'tool-return',
						tool_name: 't',
						content: null,
						tool_call_id: `c${i}`,
						outcome: 'o'.repeat(LIMIT / 4),
					},
				}),
		],
	])('with Include Steps, %s count', (_, step) => {
		const steps = Array.from({ length: 8 }, (__, i) => step(i));
		const answer = sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'ok' } });
		expect(failure([...steps, answer, succeeded], true).message).toMatch(tooLarge);
	});
});

describe('a thinking step of millions of characters (Include Steps with thinking)', () => {
	const LONG = 'x'.repeat(4_000_000);
	const many = (events: (i: number) => string[]) =>
		Array.from({ length: 2_000 }, (_, i) => events(i)).flat();
	const timedSteps = (events: string[]) => {
		const began = performance.now();
		const result = readAnswerFromChunks(
			[
				...events,
				sse('PartStartEvent', { index: 1, part: { part_kind: 'text', content: 'A.' } }),
				sse('completed', { status: 'succeeded' }),
			],
			{ structured: false, steps: { thinking: true } },
		);
		return { result, ms: performance.now() - began };
	};

	test('thinking deltas between snapshots of the thinking: each compares only what it tells', () => {
		const thinking = { part_kind: 'thinking', content: LONG };
		const { result, ms } = timedSteps([
			sse('PartStartEvent', { index: 0, part: thinking }),
			sse('PartEndEvent', { index: 0, part: thinking }),
			...many(() => [
				sse('PartDeltaEvent', {
					index: 0,
					delta: { part_delta_kind: 'thinking', content_delta: 'x' },
				}),
				sse('FrontendModelResponse', { parts: [{ part_kind: 'thinking', content: 'x' }] }),
			]),
		]);
		expect(result.steps).toEqual([{ type: 'thinking', content: `${LONG}${'x'.repeat(2_000)}` }]);
		// Wide: before, each snapshot compared the millions of characters (about 4 ms each here).
		expect(ms).toBeLessThan(2_000);
	});
});

describe("the service's error words", () => {
	test.each([
		[
			'failed',
			{ status: 'failed', error: 'x'.repeat(1_000_000), error_type: 'y'.repeat(1_000_000) },
		],
		['Error', { message: 'x'.repeat(1_000_000) }],
	])('a %s event of a million characters becomes a message of 500 and a mark', (name, data) => {
		let caught: unknown;
		try {
			readAnswerFromChunks([sse(name, data)], { structured: false });
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(StreamAnswerError);
		const { message } = caught as StreamAnswerError;
		expect(message).toContain(`${'x'.repeat(500)}…`);
		expect(message.length).toBeLessThan(1200);
	});
});

describe('a stream whose events grow what is held', () => {
	const callStart = (args: unknown, zmid = 'm1') =>
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index: 0,
			part: { part_kind: 'tool-call', tool_name: 'final_result', tool_call_id: 'c1', args },
			metadata: { zmid },
		});
	const argsDelta = (args: unknown) =>
		sse('PartDeltaEvent', {
			event_kind: 'part_delta',
			index: 0,
			delta: { part_delta_kind: 'tool_call', args_delta: args },
			metadata: { zmid: 'm1' },
		});

	test.each([false, true])(
		'object arguments grown by 20,000 deltas: the object, in linear time (Include Steps %s)',
		(steps) => {
			const events = [callStart({})];
			for (let i = 0; i < 20_000; i++) events.push(argsDelta({ [`k${i}`]: i }));
			events.push(sse('completed', { status: 'succeeded' }));
			const started = performance.now();
			const result = readAnswerFromChunks([events.join('')], {
				structured: true,
				steps: steps ? { thinking: false } : undefined,
			});
			expect(Object.keys(result.output as object)).toHaveLength(20_000);
			// Wide: copying the object at every delta took over a minute.
			expect(performance.now() - started).toBeLessThan(3000);
		},
	);

	test('a "__proto__" key in object arguments is a field like any other', () => {
		const result = readAnswerFromChunks(
			[
				callStart({ a: 1 }) +
					argsDelta(JSON.parse('{"__proto__": {"polluted": true}, "b": 2}')) +
					sse('completed', { status: 'succeeded' }),
			],
			{ structured: true },
		);
		expect(JSON.stringify(result.output)).toBe('{"a":1,"__proto__":{"polluted":true},"b":2}');
		expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
	});

	test.each([
		[
			'PartStartEvent',
			(text: string) => ({
				event_kind: 'part_start',
				index: 0,
				part: { part_kind: 'text', content: text },
				metadata: { zmid: 'm' },
			}),
		],
		['FrontendModelResponse', (text: string) => ({ content: text })],
	] as const)('a whole answer of 12 million characters in one %s is read', (name, data) => {
		const answer = 'z'.repeat(12_000_000);
		const result = readAnswerFromChunks(
			[sse(name, data(answer)), sse('completed', { status: 'succeeded' })],
			{ structured: false },
		);
		expect(result.output).toBe(answer);
	});
});

describe('a body read whole in one-byte chunks holds about its bytes, not an object per chunk', () => {
	/** What reading `bytes` one-byte chunks with `read` holds once they are in, per byte. */
	async function heldPerByte(
		read: (body: AsyncIterable<Buffer>) => Promise<string>,
		bytes: number,
	) {
		let held = 0;
		async function* body() {
			const before = bytesInUse();
			for (let i = 1; i < bytes; i++) yield Buffer.from('x');
			// Before the last: readErrorBody reads no further than its bound.
			held = bytesInUse() - before;
			yield Buffer.from('x');
		}
		expect(await read(body())).toBe('x'.repeat(bytes));
		return held / bytes;
	}

	// Generous: the held buffer doubles as it fills; a Buffer per chunk cost about 100 a byte.
	test('a JSON body (readAll)', async () => {
		expect(await heldPerByte((body) => readAll(body, 64 * 1024 * 1024), 300_000)).toBeLessThan(5);
	});

	test("an error body's first 64 KiB (readErrorBody)", async () => {
		expect(await heldPerByte(readErrorBody, 64 * 1024)).toBeLessThan(5);
	});
});
