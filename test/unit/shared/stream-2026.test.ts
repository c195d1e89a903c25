/**
 * The 2026 stream (docs/api.md#2026-stream-dialect): the live service's streams as its public
 * clients captured them (test/fixtures/captures/), replayed byte for byte and split anywhere,
 * and the events around them: `completed`, `failed`, the runtime chunks, the request echo that
 * must never leak, events this node does not know, a structured answer in an output tool, and
 * what pydantic-ai writes from 1.93 on.
 */
import fs from 'node:fs';
import path from 'node:path';

import {
	readAnswerFromChunks,
	type StreamAnswerOptions,
} from '../../../nodes/shared/stream/answer';
import { NO_ANSWER_MESSAGE, StreamAnswerError } from '../../../nodes/shared/stream/answerFailure';
import { createSseDecoder } from '../../../nodes/shared/stream/decode';
import { KNOWN_STREAM_EVENTS, STREAM_EVENT_NAMES } from '../../../nodes/shared/stream/events';
import { COMPLETED_SUCCEEDED } from '../../emulator/frames2026';
import { prng } from '../../fuzz/prng';

const CAPTURES = path.resolve(__dirname, '..', '..', 'fixtures', 'captures');
const capture = (name: string) => fs.readFileSync(path.join(CAPTURES, name));
const meta = (name: string) =>
	JSON.parse(fs.readFileSync(path.join(CAPTURES, `${name}.meta.json`), 'utf8')) as {
		summary: { assembledFullText: string };
	};

const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
// The `completed` of a turn that ended as it should, as the emulator sends it.
const COMPLETED = sse('completed', COMPLETED_SUCCEEDED);

/**
 * The answer a capture holds, read without the node's code: the text parts' first pieces and
 * deltas, in order, the model responses (one `zmid` each) that wrote text joined by a blank line.
 * Also the text without each part's first piece, as the capturing client read it.
 */
function expectedAnswer(bytes: Buffer): { answer: string; withoutFirstPieces: string } {
	const responses = new Map<string, { all: string; rest: string }>();
	for (const line of bytes.toString('utf8').split('\n')) {
		if (!line.startsWith('data: ')) continue;
		const data = JSON.parse(line.slice(6));
		const zmid = data.metadata?.zmid as string | undefined;
		if (!zmid) continue;
		const response = responses.get(zmid) ?? { all: '', rest: '' };
		responses.set(zmid, response);
		if (data.event_kind === 'part_start' && data.part.part_kind === 'text') {
			response.all += data.part.content;
		}
		if (data.event_kind === 'part_delta' && data.delta.part_delta_kind === 'text') {
			response.all += data.delta.content_delta;
			response.rest += data.delta.content_delta;
		}
	}
	const written = [...responses.values()].filter((response) => response.all);
	return {
		answer: written.map((response) => response.all).join('\n\n'),
		withoutFirstPieces: written.map((response) => response.rest).join(''),
	};
}

/** The bytes cut at `cuts` random places (UTF-8 characters and lines included). */
function splitAnywhere(bytes: Buffer, random: () => number, cuts: number): Buffer[] {
	const at = Array.from({ length: cuts }, () => Math.floor(random() * bytes.length)).sort(
		(a, b) => a - b,
	);
	const pieces: Buffer[] = [];
	let from = 0;
	for (const to of at) {
		pieces.push(bytes.subarray(from, to));
		from = to;
	}
	pieces.push(bytes.subarray(from));
	return pieces;
}

function read(chunks: Array<Buffer | string>, options: Partial<StreamAnswerOptions> = {}) {
	const pieces: string[] = [];
	const unknown: string[] = [];
	const result = readAnswerFromChunks(chunks, {
		structured: false,
		onText: (piece) => pieces.push(piece),
		onUnknownEvent: (name) => unknown.push(name),
		...options,
	});
	return { ...result, pieces, unknown };
}

function failureOf(chunks: Array<Buffer | string>, structured = false): StreamAnswerError {
	let caught: unknown;
	try {
		readAnswerFromChunks(chunks, { structured });
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(StreamAnswerError);
	return caught as StreamAnswerError;
}

describe.each(['2026-08-09-summarize', '2026-08-09-research'])('the capture %s', (name) => {
	const bytes = capture(`${name}.sse`);
	const expected = expectedAnswer(bytes);

	it('is read whole: every piece of text once, the first piece of each part included', () => {
		const result = read([bytes]);
		expect(result.output).toBe(expected.answer);
		expect(result.pieces.join('')).toBe(expected.answer);
		expect(result.unknown).toEqual([]);
		// The capturing client's reading (first pieces dropped, cut at 500 characters) agrees.
		expect(expected.withoutFirstPieces.startsWith(meta(name).summary.assembledFullText)).toBe(true);
	});

	it('reads the same however the bytes are split', () => {
		const random = prng(name.length);
		for (let round = 0; round < 40; round++) {
			const chunks = splitAnywhere(bytes, random, 1 + Math.floor(random() * 200));
			expect(read(chunks).output).toBe(expected.answer);
		}
		// One byte at a time: every UTF-8 character and every line cut.
		const bytewise = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
		expect(read(bytewise).output).toBe(expected.answer);
	});

	it('carries only events this node knows', () => {
		const names = new Set(
			bytes
				.toString('utf8')
				.split('\n')
				.filter((line) => line.startsWith('event: '))
				.map((line) => line.slice(7)),
		);
		for (const event of names) expect(KNOWN_STREAM_EVENTS).toContain(event);
	});
});

describe('the research capture', () => {
	it("tells the bash call and its result, with the result's outcome, and no output-tool step", () => {
		const { steps } = read([capture('2026-08-09-research.sse')], {
			steps: { thinking: false },
		});
		expect(steps?.map((step) => step.type)).toEqual(['tool_call', 'tool_result']);
		const [call, result] = steps ?? [];
		expect(call).toMatchObject({ type: 'tool_call', tool_name: 'bash' });
		expect(call.type === 'tool_call' && typeof call.args.cmd).toBe('string');
		expect(result).toMatchObject({
			type: 'tool_result',
			tool_name: 'bash',
			outcome: 'success',
			tool_call_id: call.type === 'tool_call' ? call.tool_call_id : undefined,
		});
	});

	it("tells a call whose arguments did not fit with its retry prompt as its result, outcome 'error'", () => {
		const call = (id: string, args: string) => ({
			part_kind: 'tool-call',
			tool_name: 'bash',
			tool_call_id: id,
			args,
		});
		const retry = {
			part_kind: 'retry-prompt',
			tool_name: 'bash',
			tool_call_id: 'c1',
			content: [{ type: 'string_type', loc: ['cmd'], msg: 'Input should be a valid string' }],
		};
		const ok = { part_kind: 'tool-return', tool_name: 'bash', tool_call_id: 'c2', content: 'ok' };
		const round = (zmid: string, part: unknown, result: unknown) => [
			sse('PartStartEvent', { index: 0, part, metadata: { zmid } }),
			sse('FunctionToolCallEvent', { args_valid: zmid === 'r2', part, metadata: { zmid } }),
			sse('FunctionToolResultEvent', { result, metadata: { zmid } }),
		];
		const { steps } = read(
			[
				...round('r1', call('c1', '{"cmd": 5}'), retry),
				...round('r2', call('c2', '{"cmd": "ls"}'), ok),
				sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Done.' } }),
				COMPLETED,
			],
			{ steps: { thinking: false } },
		);
		expect(steps?.map((step) => [step.type, 'outcome' in step ? step.outcome : undefined])).toEqual(
			[
				['tool_call', undefined],
				['tool_result', 'error'],
				['tool_call', undefined],
				['tool_result', undefined],
			],
		);
		expect(steps?.[1]).toMatchObject({
			tool_name: 'bash',
			tool_call_id: 'c1',
			content: retry.content,
		});
	});

	it('tells the thinking when asked', () => {
		const { steps } = read([capture('2026-08-09-research.sse')], {
			steps: { thinking: true },
		});
		expect(steps?.filter((step) => step.type === 'thinking').length).toBeGreaterThan(0);
	});
});

describe('a failed run', () => {
	it('is the service\'s error, with its class and kind, never "incomplete"', () => {
		const error = failureOf([capture('2026-08-19-failed-unknown-model.sse')]);
		expect(error.failure).toBe('run-failed');
		expect(error.serverMessage).toBe('Unknown model: nonexistent-model-xyz');
		expect(error.message).toBe("The assistant's run failed: Unknown model: nonexistent-model-xyz");
		expect(error.run).toEqual({
			status: 'failed',
			errorType: 'UserError',
			failureKind: 'unknown_model',
		});
	});

	it('after answer text too: the text is not returned as the answer', () => {
		const events = [
			sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Half an' } }),
			sse('failed', { status: 'failed', error: 'The model stream was interrupted' }),
		];
		const error = failureOf(events);
		expect(error.failure).toBe('run-failed');
		expect(error.turnBegan).toBe(true);
	});

	it.each([
		[
			"its `detail` (FastAPI's shape)",
			'event: failed\ndata: {"status": "failed", "detail": "Model is disabled"}\n\n',
		],
		['its data, when that is text', 'event: failed\ndata: Model is disabled\n\n'],
		[
			'its `message`',
			'event: failed\ndata: {"status": "failed", "message": "Model is disabled"}\n\n',
		],
	])('without an `error`, is told in %s', (_name, event) => {
		const error = failureOf([event]);
		expect(error.failure).toBe('run-failed');
		expect(error.message).toBe("The assistant's run failed: Model is disabled");
	});

	it('is also a `completed` whose status is not `succeeded`', () => {
		const error = failureOf([
			sse('completed', { status: 'cancelled', error: null, error_type: null }),
		]);
		expect(error.failure).toBe('run-failed');
		expect(error.message).toBe(`The assistant's run failed: The run ended with status "cancelled"`);
	});

	it.each([
		['null', { status: null, error: 'Run crashed', error_type: 'InternalError' }],
		['absent', { error: 'Run crashed' }],
		['blank', { status: ' ', error: { message: 'Run crashed' } }],
		['absent', { error: { type: 'overloaded_error' } }, '{"type":"overloaded_error"}'],
		['null', { status: null, error: { code: 500 } }, '{"code":500}'],
		['absent', { error: ['Run crashed'] }, '["Run crashed"]'],
		['absent', { error: true }, 'true'],
		['absent', { error: 500 }, '500'],
	])(
		'is also a `completed` whose status is %s and that carries an error: the text before it is no answer',
		(_, completed, shown = 'Run crashed') => {
			const error = failureOf([
				sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Half an ans' } }),
				sse('completed', completed),
			]);
			expect(error.failure).toBe('run-failed');
			expect(error.message).toBe(`The assistant's run failed: ${shown}`);
		},
	);

	it.each([
		[
			'null',
			{ status: null, error: null, error_type: 'ProviderError', failure_kind: 'provider_error' },
			'ProviderError, provider_error',
		],
		['absent', { error_type: 'ProviderError' }, 'ProviderError'],
		['blank', { status: '', error: '', failure_kind: 'provider_error' }, 'provider_error'],
	])(
		'is also a `completed` whose status is %s and that names a failure class or kind without an error: the text before it is no answer',
		(_, completed, shown) => {
			const error = failureOf([
				sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Partial' } }),
				sse('completed', completed),
			]);
			expect(error.failure).toBe('run-failed');
			expect(error.message).toBe(`The assistant's run failed: ${shown}`);
		},
	);

	it.each(['SUCCEEDED', 'Succeeded', ' succeeded\n'])(
		'a `completed` whose status is %j ends the answer: `succeeded` is read in any letter case, white space around it aside',
		(status) => {
			const text = sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Hi' } });
			const completed = { ...COMPLETED_SUCCEEDED, status };
			expect(read([text, sse('completed', completed)]).output).toBe('Hi');
			// In the flat form too, its fields beside the name or under `data`.
			const flat = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
			expect(read([text, flat({ type: 'completed', ...completed })]).output).toBe('Hi');
			expect(read([text, flat({ type: 'completed', data: completed })]).output).toBe('Hi');
		},
	);

	it.each(['Cancelled', 'FAILED', 'succeeded_partially', 'not succeeded'])(
		'a `completed` whose status is %j, in whatever letters, is still the run’s failure',
		(status) => {
			const error = failureOf([
				sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Partial' } }),
				sse('completed', { ...COMPLETED_SUCCEEDED, status }),
			]);
			expect(error.failure).toBe('run-failed');
			expect(error.message).toBe(
				`The assistant's run failed: The run ended with status "${status}"`,
			);
		},
	);

	it('a `completed` with no status that names no failure (no error, class or kind) ends the answer', () => {
		const text = sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Hi' } });
		for (const error of [null, false, '', {}, []]) {
			expect(read([text, sse('completed', { status: null, error })]).output).toBe('Hi');
		}
		for (const empty of [null, '', ' ']) {
			const completed = { status: null, error: null, error_type: empty, failure_kind: empty };
			expect(read([text, sse('completed', completed)]).output).toBe('Hi');
		}
		expect(read([text, sse('completed', {})]).output).toBe('Hi');
	});

	it('is also a `completed` with no status whose error is the request echo: a failure, the echo not shown', () => {
		const echo = {
			type: 'FrontendModelRequest',
			kind: 'request',
			parts: [{ content: 'SECRET-FILE' }],
		};
		const error = failureOf([
			sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Partial' } }),
			sse('completed', { status: null, error: echo }),
		]);
		expect(error.failure).toBe('run-failed');
		expect(error.message).not.toContain('SECRET-FILE');
		expect(error.message).toContain('copy of the request');
	});

	it("reads the words of an `error` that is an object, as in the service's other error bodies", () => {
		const error = failureOf([
			sse('failed', {
				status: 'failed',
				error: { message: 'Rate limit reached for requests', code: 429 },
				error_type: 'ModelHTTPError',
			}),
		]);
		expect(error.serverMessage).toBe('Rate limit reached for requests');
		expect(error.message).toBe("The assistant's run failed: Rate limit reached for requests");
	});
});

describe('the request echo (FrontendModelRequest)', () => {
	const MARKER = 'PRIVATE-WORKSPACE-FILE-4f1c';
	const echo = sse('FrontendModelRequest', {
		messages: [{ role: 'system', content: `files: ${MARKER}` }],
		input: `${MARKER} the user's message`,
	});

	it('reaches no answer, no piece passed on and no step, in any position', () => {
		const bytes = capture('2026-08-09-research.sse').toString('utf8');
		const events = bytes.split('\n\n');
		const random = prng(7);
		for (let round = 0; round < 20; round++) {
			const at = Math.floor(random() * (events.length - 1));
			const withEcho = [...events.slice(0, at), echo.trimEnd(), ...events.slice(at)].join('\n\n');
			const result = read(splitAnywhere(Buffer.from(withEcho), random, 50), {
				steps: { thinking: true },
			});
			expect(JSON.stringify(result)).not.toContain(MARKER);
			expect(result.output).toBe(expectedAnswer(Buffer.from(bytes)).answer);
		}
	});

	it('is a known event: never reported as unknown, never quoted in an error', () => {
		const error = failureOf([echo]);
		expect(error.failure).toBe('incomplete');
		expect(error.unknownEvents).toEqual([]);
		expect(error.message).not.toContain(MARKER);
	});
});

describe('events this node does not know', () => {
	it('are named in the error when the stream ends without an end the node knows', () => {
		const events = [
			sse('RunStarted', { secret: 'data' }),
			sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Hi' } }),
			sse('TurnFinished', { status: 'ok' }),
			sse('TurnFinished', { status: 'ok' }),
		];
		const error = failureOf(events);
		expect(error.failure).toBe('incomplete');
		expect(error.unknownEvents).toEqual(['RunStarted', 'TurnFinished']);
		expect(error.message).toBe(
			'The stream ended before the answer was complete; it carried events this node does not know: RunStarted, TurnFinished',
		);
		expect(error.message).not.toContain('secret');
	});

	it('are told once each, by name only, and do not stop an answer that ends', () => {
		const result = read([
			sse('RunStarted', { a: 1 }),
			sse('RunStarted', { a: 2 }),
			sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Hello' } }),
			COMPLETED,
		]);
		expect(result.output).toBe('Hello');
		expect(result.unknown).toEqual(['RunStarted']);
	});

	it('are kept to ten names, each cut and without control characters', () => {
		const events = Array.from({ length: 50 }, (_, i) => sse(`Event${i}${'x'.repeat(200)}`, {}));
		events.push(sse('Bad\u0007Name', {}));
		const error = failureOf(events);
		expect(error.unknownEvents).toHaveLength(10);
		for (const name of error.unknownEvents) expect(name.length).toBeLessThanOrEqual(81);
	});

	it('are shown without bidi controls, which would reorder the text around them', () => {
		const bidi = ['\u202a', '\u202e', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c'];
		const error = failureOf(bidi.map((control, i) => sse(`Bidi${i}${control}gnp.exe`, {})));
		expect(error.unknownEvents).toEqual(bidi.map((_, i) => `Bidi${i}?gnp.exe`));
		expect(error.message).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
	});
});

describe('a 2026 stream that ends', () => {
	it('with `completed` and no text has not answered', () => {
		const error = failureOf([sse('AgentRuntimeStreamChunk', { type: 'status' }), COMPLETED]);
		expect(error.failure).toBe('no-answer');
		expect(error.message).toBe(NO_ANSWER_MESSAGE);
	});

	it('with `completed` after whitespace alone has not answered', () => {
		const part = { part_kind: 'text', content: ' \n ' };
		const error = failureOf([sse('PartStartEvent', { index: 0, part }), COMPLETED]);
		expect(error.failure).toBe('no-answer');
	});

	it('of many text parts, each in its own start, reads them in a time that grows with their number', () => {
		const parts = 100_000;
		const starts = Array.from({ length: parts }, (_, index) =>
			sse('PartStartEvent', { index, part: { part_kind: 'text', content: 'x' } }),
		);
		const began = Date.now();
		expect(read([starts.join(''), COMPLETED]).output).toBe('x'.repeat(parts));
		// Only a reading that looks at every earlier part for each new one fails this bound.
		expect(Date.now() - began).toBeLessThan(5_000);
	});

	it('with a part started again in the same model response: one message, no blank line', () => {
		const start = (content: string) =>
			sse('PartStartEvent', {
				event_kind: 'part_start',
				index: 0,
				part: { part_kind: 'text', content },
				metadata: { zmid: 'r1' },
			});
		expect(read([start('Hello'), start('Hello world'), COMPLETED]).output).toBe('Hello world');
	});

	describe('text the answer cannot place (docs/api.md#assembling-the-answer, 2)', () => {
		const start = (index: number, part_kind: string, content: string) =>
			sse('PartStartEvent', {
				event_kind: 'part_start',
				index,
				part: { part_kind, content },
				metadata: { zmid: 'r1' },
			});
		const delta = (index: number, content: string) =>
			sse('PartDeltaEvent', {
				delta: { content_delta: content, part_delta_kind: 'text' },
				event_kind: 'part_delta',
				index,
				metadata: { zmid: 'r1' },
			});
		const end = (index: number, content: string) =>
			sse('PartEndEvent', {
				event_kind: 'part_end',
				index,
				part: { part_kind: 'text', content },
				metadata: { zmid: 'r1' },
			});
		/** The failure, and what was passed on and named before it. */
		const failing = (events: string[]) => {
			const pieces: string[] = [];
			const unreadable: string[] = [];
			let caught: unknown;
			try {
				readAnswerFromChunks(events, {
					structured: false,
					onText: (piece) => pieces.push(piece),
					onUnreadableEvent: (name) => unreadable.push(name),
				});
			} catch (error) {
				caught = error;
			}
			expect(caught).toBeInstanceOf(StreamAnswerError);
			return { failure: caught as StreamAnswerError, pieces, unreadable };
		};

		it.each([
			[
				'text parts told out of order: an earlier one grows after a later one has text',
				[start(0, 'text', 'A'), start(1, 'text', 'B'), delta(0, 'a'), delta(1, 'b'), COMPLETED],
				'PartDeltaEvent',
				['A', 'B'],
			],
			[
				'the same across a thinking part',
				[
					start(0, 'text', 'A'),
					start(1, 'thinking', 'hmm'),
					start(2, 'text', 'B'),
					delta(0, 'a'),
					COMPLETED,
				],
				'PartDeltaEvent',
				['A', '\n\n', 'B'],
			],
			[
				'an earlier part ended with more text than its pieces told',
				[start(0, 'text', 'A'), start(1, 'text', 'B'), end(0, 'Aa'), COMPLETED],
				'PartEndEvent',
				['A', 'B'],
			],
			[
				'the last part started again with other, longer text',
				[start(0, 'text', 'Hello'), start(0, 'text', 'Goodbye, world'), COMPLETED],
				'PartStartEvent',
				['Hello'],
			],
		])(
			'%s: the answer would lack it, so it is not taken from the stream, and nothing more goes out',
			(_, events, name, passedOn) => {
				const { failure, pieces, unreadable } = failing(events);
				expect(failure.failure).toBe('unreadable');
				expect(failure.message).toBe(
					`The stream carried events this node could not read: ${name} (text out of place)`,
				);
				expect(unreadable).toEqual([`${name} (text out of place)`]);
				expect(pieces).toEqual(passedOn);
			},
		);

		it('an earlier part told again as it was, or a later part growing, is the answer as before', () => {
			expect(
				read([
					start(0, 'text', 'A'),
					start(1, 'text', 'B'),
					end(0, 'A'),
					delta(1, 'b'),
					end(1, 'Bb'),
					COMPLETED,
				]).output,
			).toBe('ABb');
			// Told again otherwise but no longer: nothing was left out of what was taken.
			expect(read([start(0, 'text', 'Hello'), start(0, 'text', 'Help'), COMPLETED]).output).toBe(
				'Hello',
			);
		});
	});

	describe('a text part told again while a later text part holds millions of characters', () => {
		const LONG = 'y'.repeat(4_000_000);
		const start = (index: number, content: string) =>
			sse('PartStartEvent', {
				index,
				part: { part_kind: 'text', content },
				metadata: { zmid: 'r1' },
			});
		const delta = (index: number, content: string) =>
			sse('PartDeltaEvent', {
				index,
				delta: { part_delta_kind: 'text', content_delta: content },
				metadata: { zmid: 'r1' },
			});
		/** Many small events, each telling again a part that `LONG` stands beside. */
		const timed = (events: string[]) => {
			const began = performance.now();
			const output = read(events).output;
			return { output, ms: performance.now() - began };
		};
		const many = (event: (i: number) => string) =>
			Array.from({ length: 2_000 }, (_, i) => event(i));

		it('an earlier part growing: its pieces cannot go before what was taken, so the answer is not taken from the stream; each costs only itself', () => {
			const began = performance.now();
			expect(() =>
				read([start(0, 'a'), start(1, LONG), ...many(() => delta(0, 'b')), COMPLETED]),
			).toThrow(
				'The stream carried events this node could not read: PartDeltaEvent (text out of place)',
			);
			// Wide: before, each delta copied and compared the whole text (about 4 ms each here).
			expect(performance.now() - began).toBeLessThan(2_000);
		});

		it('an earlier part started again: the same', () => {
			const { output, ms } = timed([
				start(0, 'a'),
				start(1, LONG),
				...many((i) => start(0, i % 2 ? 'a' : 'c')),
				COMPLETED,
			]);
			expect(output).toBe(`a${LONG}`);
			expect(ms).toBeLessThan(2_000);
		});

		it('the last part started again: compared where it stands, and what it adds is taken', () => {
			const { output, ms } = timed([
				start(0, LONG),
				start(1, 'a'),
				...many((i) => start(1, i % 2 ? 'a' : 'c')),
				start(1, 'ab'),
				COMPLETED,
			]);
			expect(output).toBe(`${LONG}ab`);
			expect(ms).toBeLessThan(2_000);
		});
	});

	it('after a tool round, with a response that names the same zmid again: a new message, nothing lost', () => {
		const start = (index: number, part: unknown) =>
			sse('PartStartEvent', { index, part, metadata: { zmid: 'r1' } });
		const call = { part_kind: 'tool-call', tool_name: 'bash', args: '{}', tool_call_id: 'c1' };
		const result = { part_kind: 'tool-return', tool_name: 'bash', tool_call_id: 'c1', content: '' };
		const events = [
			start(0, { part_kind: 'text', content: 'Let me look that up.' }),
			start(1, call),
			sse('FunctionToolCallEvent', { part: call, metadata: { zmid: 'r1' } }),
			sse('FunctionToolResultEvent', { result, metadata: { zmid: 'r1' } }),
			start(0, { part_kind: 'text', content: 'You have one note.' }),
			COMPLETED,
		];
		for (const steps of [undefined, { thinking: false }]) {
			expect(read(events, { steps }).output).toBe('Let me look that up.\n\nYou have one note.');
		}
	});

	it.each([
		['wrote text', 'Let me check.', 'Let me check.\n\nNo new mail.'],
		['wrote none', '', 'No new mail.'],
	])(
		'after a tool round (the first response %s), with a snapshot of the next response just before its Part events: one message, each piece once',
		(_, before, answer) => {
			const start = (index: number, part: unknown, zmid: string) =>
				sse('PartStartEvent', { index, part, metadata: { zmid } });
			const delta = (index: number, kind: string, content: string, zmid: string) =>
				sse('PartDeltaEvent', {
					index,
					delta: { part_delta_kind: kind, content_delta: content },
					metadata: { zmid },
				});
			const call = {
				part_kind: 'tool-call',
				tool_name: 'search_mail',
				args: '{}',
				tool_call_id: 'c1',
			};
			const result = { part_kind: 'tool-return', tool_name: 'search_mail', tool_call_id: 'c1' };
			const events = [
				start(0, { part_kind: before ? 'text' : 'thinking', content: before || 'Look.' }, 'z1'),
				start(1, call, 'z1'),
				sse('FunctionToolCallEvent', { part: call, metadata: { zmid: 'z1' } }),
				sse('FunctionToolResultEvent', { result, metadata: { zmid: 'z1' } }),
				sse('FrontendModelResponse', {
					parts: [
						{ part_kind: 'thinking', content: 'Nothing came.' },
						{ part_kind: 'text', content: 'No new mail.' },
					],
				}),
				start(0, { part_kind: 'thinking', content: 'Nothing' }, 'z2'),
				delta(0, 'thinking', ' came.', 'z2'),
				start(1, { part_kind: 'text', content: 'No new' }, 'z2'),
				delta(1, 'text', ' mail.', 'z2'),
				COMPLETED,
			];
			for (const steps of [undefined, { thinking: true }]) {
				const got = read(events, { steps });
				expect(got.output).toBe(answer);
				expect(got.pieces.join('')).toBe(answer);
			}
			const steps = read(events, { steps: { thinking: true } }).steps ?? [];
			expect(steps.filter((step) => step.type === 'thinking')).toEqual([
				...(before ? [] : [expect.objectContaining({ type: 'thinking', content: 'Look.' })]),
				expect.objectContaining({ type: 'thinking', content: 'Nothing came.' }),
			]);
		},
	);

	it('takes a whole answer given in one PartStartEvent', () => {
		const part = { part_kind: 'text', content: 'The whole answer.' };
		expect(read([sse('PartStartEvent', { index: 0, part }), COMPLETED]).output).toBe(
			'The whole answer.',
		);
	});

	it('takes a delta for an index whose start it never saw', () => {
		const delta = (index: number, content: string) =>
			sse('PartDeltaEvent', { index, delta: { part_delta_kind: 'text', content_delta: content } });
		expect(read([delta(1, 'Hello'), delta(1, ' there'), COMPLETED]).output).toBe('Hello there');
	});

	describe('a thinking part whose start it never saw, told in many deltas', () => {
		const zmid = 'zmid_thinking';
		const delta = (index: number, kind: string, content: string) =>
			sse('PartDeltaEvent', {
				index,
				delta: { part_delta_kind: kind, content_delta: content },
				event_kind: 'part_delta',
				metadata: { zmid },
			});
		const start = (index: number, content: string) =>
			sse('PartStartEvent', {
				index,
				part: { part_kind: 'text', content },
				event_kind: 'part_start',
				metadata: { zmid },
			});
		const thinking = (index: number, count: number) =>
			Array.from({ length: count }, (_, i) => delta(index, 'thinking', `t${i} `));

		it('is one part of one model response: one thinking step', () => {
			const { output, steps } = read(
				[...thinking(0, 50), start(1, 'The answer'), delta(1, 'text', ' is 42.'), COMPLETED],
				{ steps: { thinking: true } },
			);
			expect(output).toBe('The answer is 42.');
			const told = Array.from({ length: 50 }, (_, i) => `t${i} `).join('');
			expect(steps).toEqual([{ type: 'thinking', content: told }]);
		});

		it('between two pieces of a text part, opens no new message (no blank line)', () => {
			const events = [start(0, 'Hello'), ...thinking(1, 3), delta(0, 'text', ' world'), COMPLETED];
			expect(read(events).output).toBe('Hello world');
		});

		it("between the output tool's argument deltas, loses none of them", () => {
			const tool = (index: number, args: string, first: boolean) =>
				first
					? sse('PartStartEvent', {
							index,
							part: { part_kind: 'tool-call', tool_name: 'final_result', args, tool_call_id: 'c' },
							metadata: { zmid },
						})
					: sse('PartDeltaEvent', {
							index,
							delta: { part_delta_kind: 'tool_call', args_delta: args, tool_call_id: 'c' },
							metadata: { zmid },
						});
			const events = [
				...thinking(0, 1),
				tool(1, '', true),
				tool(1, '{"summary": "x",', false),
				...thinking(0, 2),
				tool(1, ' "count": 3}', false),
				COMPLETED,
			];
			expect(read(events, { structured: true }).output).toEqual({ summary: 'x', count: 3 });
		});
	});

	it('reads the flat form of `completed` and `failed` too', () => {
		const flat = (data: object) => `data: ${JSON.stringify(data)}\n\n`;
		const part = sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Hi' } });
		expect(read([part, flat({ type: 'completed', status: 'succeeded' })]).output).toBe('Hi');
		const error = failureOf([flat({ type: 'failed', data: { error: 'No model' } })]);
		expect(error.serverMessage).toBe('No model');
	});
});

describe('a structured answer in a 2026 stream (docs/api.md#structured-output-in-a-stream)', () => {
	const toolStart = (name: string, args: unknown) =>
		sse('PartStartEvent', {
			index: 0,
			part: { part_kind: 'tool-call', tool_name: name, args, tool_call_id: 'call_1' },
		});
	const argsDelta = (args: unknown) =>
		sse('PartDeltaEvent', {
			index: 0,
			delta: { part_delta_kind: 'tool_call', args_delta: args, tool_call_id: 'call_1' },
		});

	it.each([
		['a list', [1, 2], 'array'],
		['a number', 3, 'number'],
	])(
		'is not End’s output when that is %s: the item fails saying so, as the same answer sent as JSON does',
		(_name, output, received) => {
			const failure = failureOf([sse('End', { output }), COMPLETED], true);
			expect(failure.failure).toBe('not-an-object');
			expect(failure.message).toBe(
				`The assistant did not return an object for the JSON Schema: received ${received}`,
			);
		},
	);

	it("is the output tool's arguments, grown through args_delta", () => {
		const events = [
			toolStart('final_result', ''),
			argsDelta('{"city": "Pa'),
			argsDelta('ris", "sunny": true}'),
			COMPLETED,
		];
		expect(read(events, { structured: true }).output).toEqual({ city: 'Paris', sunny: true });
	});

	it("is the output tool's arguments given whole, as an object or as text", () => {
		expect(
			read([toolStart('final_result', { a: 1 }), COMPLETED], { structured: true }).output,
		).toEqual({
			a: 1,
		});
		expect(
			read([toolStart('final_result_Weather', '{"a": 2}'), COMPLETED], { structured: true }).output,
		).toEqual({ a: 2 });
	});

	it("prefers End's output, then the output tool, then the text", () => {
		const text = sse('PartStartEvent', {
			index: 1,
			part: { part_kind: 'text', content: '{"from": "text"}' },
		});
		const end = sse('End', { output: { from: 'end' } });
		const tool = toolStart('final_result', '{"from": "tool"}');
		expect(read([tool, text, end], { structured: true }).output).toEqual({ from: 'end' });
		expect(read([tool, text, COMPLETED], { structured: true }).output).toEqual({ from: 'tool' });
		expect(read([text, COMPLETED], { structured: true }).output).toEqual({ from: 'text' });
	});

	it("is the last model response's text when an earlier response wrote a sentence before its tool round", () => {
		const start = (zmid: string, index: number, part: unknown) =>
			sse('PartStartEvent', { index, part, metadata: { zmid } });
		const call = { part_kind: 'tool-call', tool_name: 'bash', args: '{}', tool_call_id: 'c1' };
		const events = [
			start('r1', 0, { part_kind: 'text', content: "I'll look {first}." }),
			start('r1', 1, call),
			sse('FunctionToolCallEvent', { part: call, metadata: { zmid: 'r1' } }),
			start('r2', 0, { part_kind: 'text', content: '{"found": true}' }),
			COMPLETED,
		];
		// The chat model's rule: the object must be the text whole.
		expect(read(events, { structured: true, textObject: 'whole' }).output).toEqual({
			found: true,
		});
		expect(read(events, { structured: true, textObject: 'last' }).output).toEqual({ found: true });
	});

	it("is the output tool's call in a snapshot, its arguments told whole", () => {
		const snapshot = (args: unknown) =>
			sse('FrontendModelResponse', {
				parts: [
					{ part_kind: 'tool-call', tool_name: 'final_result', args, tool_call_id: 'call_1' },
				],
			});
		for (const structured of [
			{ structured: true },
			{ structured: true, steps: { thinking: false } },
		]) {
			expect(read([snapshot({ a: 1 }), COMPLETED], structured).output).toEqual({ a: 1 });
			expect(read([snapshot('{"a": 2}'), sse('End', {})], structured).output).toEqual({ a: 2 });
			// The snapshot replaces what the Part events grew for the part; one lagging behind them
			// changes nothing.
			const grown = [toolStart('final_result', ''), argsDelta('{"a": 3')];
			expect(read([...grown, snapshot('{"a": 4}'), COMPLETED], structured).output).toEqual({
				a: 4,
			});
			expect(
				read([...grown, snapshot('{"a"'), argsDelta('}'), COMPLETED], structured).output,
			).toEqual({ a: 3 });
		}
	});

	describe('with a snapshot of the call among its Part events: the deltas after it go on where the Part events stood', () => {
		const meta = { metadata: { zmid: 'r1' } };
		const start = (name: string) =>
			sse('PartStartEvent', {
				index: 0,
				part: { part_kind: 'tool-call', tool_name: name, args: '', tool_call_id: 'call_1' },
				...meta,
			});
		const delta = (args: string, name?: string) =>
			sse('PartDeltaEvent', {
				index: 0,
				delta: {
					part_delta_kind: 'tool_call',
					args_delta: args,
					tool_name_delta: name ?? null,
					tool_call_id: 'call_1',
				},
				...meta,
			});
		const snapshot = (args: string) =>
			sse('FrontendModelResponse', {
				parts: [
					{ part_kind: 'tool-call', tool_name: 'final_result', args, tool_call_id: 'call_1' },
				],
			});
		const object = { city: 'Paris', sunny: true };

		it.each([
			[
				'as far as the Part events',
				[start('final_result'), delta('{"city": "Pa'), snapshot('{"city": "Pa')],
				[delta('ris", "sunny": true}')],
			],
			[
				'ahead of them, part of the way',
				[start('final_result'), delta('{"city": "Pa'), snapshot('{"city": "Paris", "su')],
				[delta('ris", "sunny'), delta('": true}')],
			],
			[
				'ahead of them, whole',
				[start('final_result'), delta('{"city": "Pa'), snapshot(JSON.stringify(object))],
				[delta('ris", "sunny": true}')],
			],
			[
				'before any Part event of the call',
				[snapshot('{"city": "Paris"'), start('final_result'), delta('{"city": "Paris"')],
				[delta(', "sunny": true}')],
			],
			[
				'its name whole where the name deltas have told a part of it',
				[start(''), delta('{"city": "Paris", ', 'final_'), snapshot('{"city": "Paris", ')],
				[delta('"sunny": true}', 'result')],
			],
			[
				'of the part before it started again',
				[start('final_result'), delta('{"city": "Rome"}'), snapshot('{"city": "Rome"}')],
				[start('final_result'), delta('{"city": "Paris", '), delta('"sunny": true}')],
			],
		])('%s: the object once, neither cut nor doubled', (_case, before, after) => {
			for (const options of [
				{ structured: true },
				{ structured: true, steps: { thinking: true } },
			]) {
				expect(read([...before, ...after, COMPLETED], options).output).toEqual(object);
			}
		});
	});

	it('is what a part started again in the same response (one zmid) tells: its arguments replace the part’s', () => {
		const start = (args: string) =>
			sse('PartStartEvent', {
				index: 0,
				part: { part_kind: 'tool-call', tool_name: 'final_result', args, tool_call_id: 'call_1' },
				metadata: { zmid: 'r1' },
			});
		const delta = (args: string) =>
			sse('PartDeltaEvent', {
				index: 0,
				delta: { part_delta_kind: 'tool_call', args_delta: args, tool_call_id: 'call_1' },
				metadata: { zmid: 'r1' },
			});
		const structured = { structured: true };
		expect(read([start('{"a": 1}'), start('{"a": 2}'), COMPLETED], structured).output).toEqual({
			a: 2,
		});
		const told = [start(''), delta('{"a": '), delta('3}')];
		expect(read([...told, ...told, COMPLETED], structured).output).toEqual({ a: 3 });
		expect(
			read([start('{"a": 4}'), start(''), delta('{"a": 5}'), COMPLETED], structured).output,
		).toEqual({ a: 5 });
	});

	it.each([
		['an empty name', { tool_name: '' }],
		['no name', {}],
	])(
		'is what a part started again with %s tells, its name grown again through tool_name_delta: the name is reset, not doubled',
		(_case, named) => {
			const start = () =>
				sse('PartStartEvent', {
					index: 0,
					part: { part_kind: 'tool-call', args: '', tool_call_id: 'call_1', ...named },
					metadata: { zmid: 'r1' },
				});
			const delta = (name: string | null, args: string) =>
				sse('PartDeltaEvent', {
					index: 0,
					delta: {
						part_delta_kind: 'tool_call',
						tool_name_delta: name,
						args_delta: args,
						tool_call_id: 'call_1',
					},
					metadata: { zmid: 'r1' },
				});
			const told = [start(), delta('final_', '{"a": '), delta('result', '1}')];
			for (const options of [
				{ structured: true },
				{ structured: true, steps: { thinking: true } },
			]) {
				expect(read([...told, ...told, COMPLETED], options).output).toEqual({ a: 1 });
				expect(
					read([...told, start(), delta('final_result', '{"a": 2}'), COMPLETED], options).output,
				).toEqual({ a: 2 });
			}
		},
	);

	it('is, of several output-tool calls, the first that matches the schema, else the first object', () => {
		const call = (index: number, args: unknown) =>
			sse('PartStartEvent', {
				index,
				part: {
					part_kind: 'tool-call',
					tool_name: 'final_result',
					args,
					tool_call_id: `c${index}`,
				},
			});
		const answerSchema = {
			type: 'object' as const,
			properties: { a: { type: 'number' as const } },
			required: ['a'],
		};
		const calls = [call(0, '{"b": 1}'), call(1, { a: 2 }), call(2, '{"a": 3}'), COMPLETED];
		expect(read(calls, { structured: true, answerSchema }).output).toEqual({ a: 2 });
		// Without a schema, or when none matches: the first object (the schema check names it).
		expect(read(calls, { structured: true }).output).toEqual({ b: 1 });
		expect(
			read([call(0, 'not json'), call(1, '{"b": 4}'), call(2, '{"b": 5}'), COMPLETED], {
				structured: true,
				answerSchema,
			}).output,
		).toEqual({ b: 4 });
	});

	it('is not taken from a tool that is not the output tool', () => {
		const error = failureOf([toolStart('bash', '{"cmd": "ls"}'), COMPLETED], true);
		expect(error.failure).toBe('no-answer');
	});

	it.each([
		['a list, as JSON text', '[1, 2, 3]', '"[1, 2, 3]"'],
		['a list', [1, 2, 3], '"[1,2,3]"'],
		['text that is no JSON', 'Paris, sunny', '"Paris, sunny"'],
		['an object cut short', '{"city": "Pa', '"{\\"city\\": \\"Pa"'],
	])(
		"given to the output tool as %s, with no text: the item fails quoting it, as a text answer's start (it answered)",
		(_name, args, quoted) => {
			const error = failureOf([toolStart('final_result', args), COMPLETED], true);
			expect(error.failure).toBe('not-an-object');
			expect(error.message).toBe(
				`The assistant did not return an object for the JSON Schema: its answer begins ${quoted}`,
			);
		},
	);

	it('an output tool given nothing is no answer', () => {
		expect(failureOf([toolStart('final_result', ''), COMPLETED], true).failure).toBe('no-answer');
	});
});

/**
 * What pydantic-ai writes from 1.93 (2026-05-08) and in 2.x (docs/api.md#steps,
 * docs/api.md#structured-output-in-a-stream): a tool's return under `part` (before, `result`),
 * and the output tool's own `OutputToolCallEvent` and `OutputToolResultEvent`.
 */
describe('pydantic-ai 1.93 and 2.x events', () => {
	const meta = (zmid: string) => ({ zmid, runner_id: 'r-1' });
	const call = {
		args: '{"cmd": "ls"}',
		part_kind: 'tool-call',
		tool_call_id: 'call_1',
		tool_name: 'bash',
	};
	const returned = (content: unknown, outcome = 'success') => ({
		content,
		metadata: null,
		outcome,
		part_kind: 'tool-return',
		timestamp: 't',
		tool_call_id: 'call_1',
		tool_kind: null,
		tool_name: 'bash',
	});
	const text = (content: string, zmid: string) =>
		sse('PartStartEvent', {
			index: 0,
			part: { part_kind: 'text', content },
			metadata: meta(zmid),
		});
	const steps = { steps: { thinking: false } };

	it.each(['success', 'failed', 'denied', 'interrupted'])(
		'a FunctionToolResultEvent with its return under `part` is the result step, outcome %s as sent',
		(outcome) => {
			const result = read(
				[
					sse('PartStartEvent', { index: 0, part: call, metadata: meta('z1') }),
					sse('FunctionToolCallEvent', { part: call, metadata: meta('z1') }),
					sse('FunctionToolResultEvent', {
						content: null,
						part: returned('a.txt', outcome),
						metadata: meta('z1'),
					}),
					text('One file.', 'z2'),
					COMPLETED,
				],
				steps,
			);
			expect(result.output).toBe('One file.');
			expect(result.steps).toEqual([
				{ type: 'tool_call', tool_name: 'bash', args: { cmd: 'ls' }, tool_call_id: 'call_1' },
				{
					type: 'tool_result',
					tool_name: 'bash',
					tool_call_id: 'call_1',
					content: 'a.txt',
					outcome,
				},
			]);
		},
	);

	it('a result event with both `part` and `result` is read at `part`, once', () => {
		const result = read(
			[
				sse('FunctionToolResultEvent', {
					part: returned('from part'),
					result: returned('from result'),
				}),
				text('Done.', 'z2'),
				COMPLETED,
			],
			steps,
		);
		expect(result.steps).toEqual([
			expect.objectContaining({ type: 'tool_result', content: 'from part' }),
		]);
	});

	const outputCall = (args: string, id = 'call_f') => ({
		args,
		part_kind: 'tool-call',
		tool_call_id: id,
		tool_name: 'final_result',
	});
	const outputRound = (args: string, zmid: string, content: unknown, kind = 'tool-return') =>
		sse('OutputToolCallEvent', {
			args_valid: kind === 'tool-return',
			event_kind: 'output_tool_call',
			part: outputCall(args),
			metadata: meta(zmid),
		}) +
		sse('OutputToolResultEvent', {
			event_kind: 'output_tool_result',
			part: { content, part_kind: kind, tool_call_id: 'call_f', tool_name: 'final_result' },
			metadata: meta(zmid),
		});

	it('the output tool’s events are known: the answer is its call’s arguments, no step, no unknown event', () => {
		const args = '{"summary": "One file."}';
		const result = read(
			[
				sse('PartStartEvent', { index: 0, part: outputCall(args), metadata: meta('z1') }),
				outputRound(args, 'z1', 'Final result processed.'),
				COMPLETED,
			],
			{ structured: true, ...steps },
		);
		expect(result.output).toEqual({ summary: 'One file.' });
		expect(result.steps).toEqual([]);
		expect(result.unknown).toEqual([]);
	});

	it('a call the output tool answered with a retry prompt is over: the next response’s call is the answer, under the same zmid too', () => {
		const rejected = '{"summary": 5}';
		const accepted = '{"summary": "One file."}';
		const result = read(
			[
				sse('PartStartEvent', { index: 0, part: outputCall(rejected), metadata: meta('z1') }),
				outputRound(rejected, 'z1', 'summary: expected string', 'retry-prompt'),
				sse('PartStartEvent', {
					index: 1,
					part: outputCall(accepted, 'call_g'),
					metadata: meta('z1'),
				}),
				COMPLETED,
			],
			{ structured: true, ...steps },
		);
		expect(result.output).toEqual({ summary: 'One file.' });
		expect(result.steps).toEqual([]);
	});

	it('their data is dropped as it streams, never held: an output object past the line bound is no failure', () => {
		const messages: Array<{ event: string; data: string }> = [];
		const decoder = createSseDecoder((message) => messages.push(message), 1024, STREAM_EVENT_NAMES);
		const big = JSON.stringify({ summary: 'x'.repeat(8192) });
		decoder.push(sse('OutputToolCallEvent', { part: outputCall(big) }));
		decoder.push(sse('OutputToolResultEvent', { part: { content: 'Final result processed.' } }));
		decoder.finish();
		expect(messages).toEqual([
			{ event: 'OutputToolCallEvent', data: '' },
			{ event: 'OutputToolResultEvent', data: '' },
		]);
	});
});
