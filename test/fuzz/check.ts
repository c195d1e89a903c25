/**
 * The exactly-once property over generated streams: whatever the dialect, the mix of sources and
 * the framing, each answer is assembled exactly once, the live deltas joined equal the streamed
 * text (never a piece twice, never one lost), End's output wins, and a stream that did not
 * answer fails the way docs/api.md#how-a-stream-ends says.
 */
import { isDeepStrictEqual } from 'node:util';

import { readAnswerFromChunks } from '../../nodes/shared/stream/answer';
import { StreamAnswerError } from '../../nodes/shared/stream/answerFailure';
import { draw, type Draw } from './prng';
import {
	expectedSteps,
	expectedText,
	generateTurn,
	paragraphCount,
	type GeneratedTurn,
} from './turn';
import { frame, noise, serialize, turnEvents, type Source, type WireEvent } from './wire';
import {
	completed,
	ECHO_MARKER,
	echo,
	failed,
	outputToolEvents,
	runtimeChunk,
	turnEvents2026,
} from './wire2026';

export type Dialect = 'documented' | 'live' | 'mix' | '2026';
type Outcome =
	'answer' | 'end-output' | 'structured' | 'no-end' | 'error' | 'no-answer' | 'unreadable';

export interface FuzzCase {
	seed: number;
	dialect: Dialect;
	sources: Source[];
	outcome: Outcome;
	structured: boolean;
	chunks: Uint8Array[];
	/** The streamed text the live deltas must add up to (a prefix of it for an error). */
	streamedText: string;
	/** Blank lines within its messages: text parts thinking separates (generateTurn). */
	paragraphs: number;
	/** Include Thinking: thinking texts are steps too (docs/api.md#steps). */
	thinking: boolean;
	/** The steps an answered stream must give, each exactly once, in order. */
	steps: Array<Record<string, unknown>>;
	expected: { output: string | Record<string, unknown> } | { failure: string; message?: string };
}

const LIVE_SOURCES: Source[] = ['parts', 'snapshots', 'final-snapshot'];

function sourcesOf(d: Draw, dialect: Dialect): Source[] {
	if (dialect === 'documented') return ['content'];
	const live = LIVE_SOURCES.filter(() => d.chance(0.5));
	if (live.length === 0) live.push(d.pick(LIVE_SOURCES));
	return dialect === 'mix' ? ['content', ...live] : live;
}

/** Several messages only where the stream can show where a message begins. */
function messageCountFor(d: Draw, sources: Source[]): number {
	// The documented dialect alone has no messages: its text is one.
	return sources.some((source) => source !== 'content') ? d.pick([1, 1, 2, 3]) : 1;
}

/** A structured answer streamed as JSON text: one message, one text part. */
function jsonTurn(d: Draw, object: Record<string, unknown>): GeneratedTurn {
	const text = JSON.stringify(object);
	const pieces: string[] = [];
	for (let at = 0; at < text.length;) {
		const size = d.int(1, 6);
		pieces.push(text.slice(at, at + size));
		at += size;
	}
	const parts = d.chance(0.3) ? [{ kind: 'thinking' as const, pieces: ['hmm'] }] : [];
	return { messages: [[...parts, { kind: 'text', pieces }]] };
}

/** 2026: tools are function tools told by Part deltas and events, their results with `outcome`. */
function as2026(d: Draw, turn: GeneratedTurn): GeneratedTurn {
	for (const parts of turn.messages) {
		for (const part of parts) {
			const tool = part.tool;
			if (!tool) continue;
			Object.assign(tool, { partKind: 'tool-call', argsForm: 'delta', callEvent: true });
			if (tool.result) {
				// pydantic-ai's outcomes, and `error` as the field notes give it: each passed through.
				const outcome = d.pick(['success', 'failed', 'denied', 'interrupted', 'error']);
				tool.result = { ...tool.result, as: 'event', outcome };
			}
		}
	}
	return turn;
}

/** The 2026 runtime chunks and echo, scattered through a stream of another dialect. */
function sprinkle2026(d: Draw, events: WireEvent[]): void {
	const extra = [
		runtimeChunk('status', { status: 'dispatching' }),
		echo(d),
		runtimeChunk('persisted', { message_id: 'm1', runner_id: 'r-1' }),
	];
	for (const added of extra) events.splice(d.int(0, events.length), 0, added);
}

export interface CaseOptions {
	/**
	 * 2026: a model response after a tool round may open with deltas for an index the previous
	 * response used, its start not sent (only its new `metadata.zmid` tells the response apart).
	 */
	startlessAfterRound?: boolean;
}

/** Events that carry the answer, their data not readable: cut JSON, no index, no part. */
const UNREADABLE_EVENTS: WireEvent[] = [
	[
		'PartDeltaEvent',
		'{"index": 0, "delta": {"part_delta_kind": "text", "content_delta": "lost wor',
	],
	['PartStartEvent', JSON.stringify({ index: 0 })],
	['PartEndEvent', JSON.stringify({ index: -1, part: { part_kind: 'text', content: 'lost' } })],
	['FrontendModelResponse', '{"content": "lost'],
];

export function makeCase(seed: number, options: CaseOptions = {}): FuzzCase {
	const d = draw(seed);
	const dialect = d.pick<Dialect>(['documented', 'live', 'mix', '2026']);
	const is2026 = dialect === '2026';
	const sources: Source[] = is2026 ? ['parts'] : sourcesOf(d, dialect);
	const roll = d.random();
	const outcome: Outcome =
		roll < 0.57
			? 'answer'
			: roll < 0.6
				? 'unreadable'
				: roll < 0.72
					? 'end-output'
					: roll < 0.86
						? 'structured'
						: roll < 0.91
							? 'no-end'
							: roll < 0.96
								? 'error'
								: 'no-answer';
	const object = { summary: `s${seed} café 😀`, count: seed % 7, ok: d.chance(0.5) };
	const structured = outcome === 'structured';
	// Where the object comes: End's output, JSON text, or (2026) the output tool's arguments.
	const objectWhere = !structured
		? null
		: d.pick<'end' | 'text' | 'tool'>(is2026 ? ['end', 'text', 'tool'] : ['end', 'text']);
	const objectInEnd = objectWhere === 'end';
	const generated =
		objectWhere === 'text'
			? jsonTurn(d, object)
			: objectWhere === 'tool'
				? { messages: [d.chance(0.5) ? [{ kind: 'thinking' as const, pieces: ['hmm'] }] : []] }
				: generateTurn(
						d,
						messageCountFor(d, sources),
						outcome !== 'no-answer',
						!sources.includes('content'),
					);
	const turn = is2026 ? as2026(d, generated) : generated;
	const streamedText = expectedText(turn);
	const thinking = d.chance(0.5);
	const steps = expectedSteps(
		turn,
		thinking,
		sources.some((source) => source !== 'content'),
	);

	const events: WireEvent[] = [];
	const answerEvents = is2026
		? turnEvents2026(d, turn, options.startlessAfterRound)
		: turnEvents(d, turn, sources, true);
	if (objectWhere === 'tool')
		answerEvents.push(...outputToolEvents(d, object, turn.messages[0].length));
	for (const answerEvent of answerEvents) {
		if (d.chance(0.05)) events.push(noise(d));
		events.push(answerEvent);
	}
	const mixed2026 = dialect === 'mix' && d.chance(0.4);
	if (mixed2026) sprinkle2026(d, events);
	const finalText = `Final answer ${seed}: 中文 ✓`;
	const endFields: Record<string, unknown> = {};
	if (d.chance(0.5)) endFields.conversation_id = `conv_${seed}`;
	if (outcome === 'end-output') endFields.output = finalText;
	if (objectInEnd) endFields.output = object;
	const nested = dialect === 'live' ? d.chance(0.7) : dialect === 'mix' && d.chance(0.5);
	const end: WireEvent = ['End', JSON.stringify(nested ? { data: endFields } : endFields)];
	// 2026: `completed` ends the stream, after End when End carries the answer; a mixed stream
	// may end with it too when End would carry nothing.
	const endEvents: WireEvent[] =
		is2026 && endFields.output === undefined
			? [completed()]
			: is2026
				? [end, completed()]
				: mixed2026 && endFields.output === undefined && d.chance(0.5)
					? [completed()]
					: [end];
	const message = `Upstream failed (${seed}) — réessayez`;
	const runFailure = outcome === 'error' && (is2026 || (mixed2026 && d.chance(0.5)));
	if (runFailure) {
		const failure = d.chance(0.5) ? failed(message) : completed('failed', message);
		events.splice(d.int(0, events.length), events.length, failure);
	} else if (outcome === 'error') {
		const errorName =
			dialect === 'documented'
				? 'Error'
				: dialect === 'live'
					? 'SSEErrorEvent'
					: d.pick(['Error', 'SSEErrorEvent']);
		events.splice(d.int(0, events.length), events.length, [
			errorName,
			JSON.stringify({ message, turn_status: 'error' }),
		]);
	} else if (outcome !== 'no-end') {
		events.push(...endEvents);
	}
	if (outcome === 'unreadable') {
		// An answer's event whose data cannot be read, anywhere before the end: what it said is
		// not known, so the answer is never returned as whole (docs/api.md#how-a-stream-ends).
		events.splice(d.int(0, events.length - endEvents.length), 0, d.pick(UNREADABLE_EVENTS));
	}
	// Whatever follows the end of a stream means nothing.
	if (outcome !== 'no-end' && d.chance(0.1)) {
		events.push(['FrontendModelResponse', JSON.stringify({ content: 'after the end' })]);
	}
	const chunks = frame(d, Buffer.from(serialize(d, events), 'utf8'));
	const expected: FuzzCase['expected'] =
		outcome === 'no-end' || outcome === 'unreadable'
			? { failure: outcome === 'no-end' ? 'incomplete' : 'unreadable' }
			: outcome === 'error'
				? { failure: runFailure ? 'run-failed' : 'error-event', message }
				: // Whitespace alone is no answer either (docs/api.md#how-a-stream-ends).
					outcome === 'no-answer' || (outcome === 'answer' && !/\S/.test(streamedText))
					? { failure: 'no-answer' }
					: { output: structured ? object : outcome === 'end-output' ? finalText : streamedText };
	return {
		seed,
		dialect,
		sources,
		outcome,
		structured,
		chunks,
		streamedText,
		paragraphs: paragraphCount(turn),
		thinking,
		steps,
		expected,
	};
}

/** Undefined when the case holds; else what went wrong. */
export function checkCase(fuzzCase: FuzzCase): string | undefined {
	const deltas: string[] = [];
	return checkAnswer(fuzzCase, deltas);
}

/** The request echo's private marker in anything the node gave: the answer, steps, pieces, error. */
function echoLeak(got: unknown, deltas: string[]): string | undefined {
	const where = JSON.stringify(got).includes(ECHO_MARKER)
		? 'the answer, its steps or its error'
		: deltas.some((delta) => delta.includes(ECHO_MARKER))
			? 'a streamed piece'
			: undefined;
	return where && `the request echo leaked into ${where}`;
}

function checkAnswer(fuzzCase: FuzzCase, deltas: string[]): string | undefined {
	let got: { output?: unknown; steps?: unknown; failure?: string; message?: string; text?: string };
	try {
		const result = readAnswerFromChunks(fuzzCase.chunks, {
			structured: fuzzCase.structured,
			onText: (delta) => deltas.push(delta),
			steps: { thinking: fuzzCase.thinking },
		});
		got = { output: result.output, steps: result.steps };
	} catch (error) {
		if (!(error instanceof StreamAnswerError)) return `threw ${String(error)}`;
		got = { failure: error.failure, message: error.serverMessage, text: error.message };
	}
	const leak = echoLeak(got, deltas);
	if (leak) return leak;
	const { expected } = fuzzCase;
	if ('output' in expected) {
		if (!isDeepStrictEqual(got.output, expected.output)) {
			return `output ${JSON.stringify(got.output ?? got)} instead of ${JSON.stringify(expected.output)}`;
		}
		// Every step exactly once, in order, beside the exactly-once answer.
		if (!isDeepStrictEqual(got.steps, fuzzCase.steps)) {
			return `steps ${JSON.stringify(got.steps)} instead of ${JSON.stringify(fuzzCase.steps)}`;
		}
	} else if (got.failure !== expected.failure || got.message !== expected.message) {
		const { failure, message } = got;
		return `${JSON.stringify({ failure, message })} instead of failure ${JSON.stringify(expected)}`;
	}
	if (fuzzCase.structured) {
		return deltas.length === 0 ? undefined : 'a structured answer was sent in pieces';
	}
	if (deltas.some((delta) => delta === '')) return 'an empty delta';
	const joined = deltas.join('');
	// An error, or an event that could not be read, stops the pieces where it came.
	const whole = fuzzCase.outcome !== 'error' && fuzzCase.outcome !== 'unreadable';
	if (whole ? joined !== fuzzCase.streamedText : !fuzzCase.streamedText.startsWith(joined)) {
		return `live deltas ${JSON.stringify(joined)} instead of ${JSON.stringify(fuzzCase.streamedText)}`;
	}
	return undefined;
}

export interface FuzzReport {
	cases: number;
	failed: Array<{ seed: number; problem: string }>;
	byDialect: Record<Dialect, number>;
	byOutcome: Record<string, number>;
	/** Steps checked in answered streams (each one exactly once). */
	steps: number;
}

export function runFuzz(cases: number, firstSeed: number, options: CaseOptions = {}): FuzzReport {
	const report: FuzzReport = {
		cases,
		failed: [],
		byDialect: { documented: 0, live: 0, mix: 0, 2026: 0 },
		byOutcome: {},
		steps: 0,
	};
	for (let seed = firstSeed; seed < firstSeed + cases; seed++) {
		const fuzzCase = makeCase(seed, options);
		report.byDialect[fuzzCase.dialect]++;
		report.byOutcome[fuzzCase.outcome] = (report.byOutcome[fuzzCase.outcome] ?? 0) + 1;
		const problem = checkCase(fuzzCase);
		if ('output' in fuzzCase.expected) report.steps += fuzzCase.steps.length;
		if (problem) report.failed.push({ seed, problem });
	}
	return report;
}
