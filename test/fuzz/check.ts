/**
 * The exactly-once property over generated streams: whatever the dialect, the mix of sources and
 * the framing, each answer is assembled exactly once, the live deltas joined equal the streamed
 * text (never a piece twice, never one lost), End's output wins, and a stream that did not
 * answer fails the way docs/api.md#how-a-stream-ends says.
 */
import { isDeepStrictEqual } from 'node:util';

import { readAnswerFromChunks, StreamAnswerError } from '../../nodes/shared/stream/answer';
import { draw, type Draw } from './prng';
import { expectedSteps, expectedText, generateTurn, type GeneratedTurn } from './turn';
import { frame, noise, serialize, turnEvents, type Source, type WireEvent } from './wire';

export type Dialect = 'documented' | 'live' | 'mix';
type Outcome = 'answer' | 'end-output' | 'structured' | 'no-end' | 'error' | 'no-answer';

export interface FuzzCase {
	seed: number;
	dialect: Dialect;
	sources: Source[];
	outcome: Outcome;
	structured: boolean;
	chunks: Uint8Array[];
	/** The streamed text the live deltas must add up to (a prefix of it for an error). */
	streamedText: string;
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

export function makeCase(seed: number): FuzzCase {
	const d = draw(seed);
	const dialect = d.pick<Dialect>(['documented', 'live', 'mix']);
	const sources = sourcesOf(d, dialect);
	const roll = d.random();
	const outcome: Outcome =
		roll < 0.6
			? 'answer'
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
	const objectInEnd = structured && d.chance(0.5);
	const turn =
		structured && !objectInEnd
			? jsonTurn(d, object)
			: generateTurn(d, messageCountFor(d, sources), outcome !== 'no-answer');
	const streamedText = expectedText(turn);
	const thinking = d.chance(0.5);
	const steps = expectedSteps(
		turn,
		thinking,
		sources.some((source) => source !== 'content'),
	);

	const events: WireEvent[] = [];
	for (const answerEvent of turnEvents(d, turn, sources)) {
		if (d.chance(0.05)) events.push(noise(d));
		events.push(answerEvent);
	}
	const finalText = `Final answer ${seed}: 中文 ✓`;
	const endFields: Record<string, unknown> = {};
	if (d.chance(0.5)) endFields.conversation_id = `conv_${seed}`;
	if (outcome === 'end-output') endFields.output = finalText;
	if (objectInEnd) endFields.output = object;
	const nested = dialect === 'live' ? d.chance(0.7) : dialect === 'mix' && d.chance(0.5);
	const end: WireEvent = ['End', JSON.stringify(nested ? { data: endFields } : endFields)];
	const message = `Upstream failed (${seed}) — réessayez`;
	if (outcome === 'error') {
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
		events.push(end);
	}
	// Whatever follows the end of a stream means nothing.
	if (outcome !== 'no-end' && d.chance(0.1)) {
		events.push(['FrontendModelResponse', JSON.stringify({ content: 'after the end' })]);
	}
	const chunks = frame(d, Buffer.from(serialize(d, events), 'utf8'));
	const expected: FuzzCase['expected'] =
		outcome === 'no-end'
			? { failure: 'incomplete' }
			: outcome === 'error'
				? { failure: 'error-event', message }
				: outcome === 'no-answer'
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
		thinking,
		steps,
		expected,
	};
}

/** Undefined when the case holds; else what went wrong. */
export function checkCase(fuzzCase: FuzzCase): string | undefined {
	const deltas: string[] = [];
	let got: { output?: unknown; steps?: unknown; failure?: string; message?: string };
	try {
		const result = readAnswerFromChunks(fuzzCase.chunks, {
			structured: fuzzCase.structured,
			onText: (delta) => deltas.push(delta),
			steps: { thinking: fuzzCase.thinking },
		});
		got = { output: result.output, steps: result.steps };
	} catch (error) {
		if (!(error instanceof StreamAnswerError)) return `threw ${String(error)}`;
		got = { failure: error.failure, message: error.serverMessage };
	}
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
		return `${JSON.stringify(got)} instead of failure ${JSON.stringify(expected)}`;
	}
	if (fuzzCase.structured) {
		return deltas.length === 0 ? undefined : 'a structured answer was sent in pieces';
	}
	if (deltas.some((delta) => delta === '')) return 'an empty delta';
	const joined = deltas.join('');
	const whole = fuzzCase.outcome !== 'error';
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

export function runFuzz(cases: number, firstSeed: number): FuzzReport {
	const report: FuzzReport = {
		cases,
		failed: [],
		byDialect: { documented: 0, live: 0, mix: 0 },
		byOutcome: {},
		steps: 0,
	};
	for (let seed = firstSeed; seed < firstSeed + cases; seed++) {
		const fuzzCase = makeCase(seed);
		report.byDialect[fuzzCase.dialect]++;
		report.byOutcome[fuzzCase.outcome] = (report.byOutcome[fuzzCase.outcome] ?? 0) + 1;
		const problem = checkCase(fuzzCase);
		if ('output' in fuzzCase.expected) report.steps += fuzzCase.steps.length;
		if (problem) report.failed.push({ seed, problem });
	}
	return report;
}
