/**
 * Thinking deltas told without parsing them (nodes/shared/stream/thinkingDelta.ts): only an
 * unambiguous text qualifies, and reading a stream with them skipped gives the answer that
 * parsing every event gives (Include Steps parses every event: the reference).
 */
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { thinkingDeltaOf } from '../../../nodes/shared/stream/thinkingDelta';
import { readCapture } from '../../emulator/replay';

const delta = (kind: string, text: string, extra: Record<string, unknown> = {}) =>
	JSON.stringify({
		delta: { content_delta: text, part_delta_kind: kind, provider_details: null },
		event_kind: 'part_delta',
		index: 0,
		metadata: { zmid: 'm1', runner_id: 'r1' },
		...extra,
	});

describe('thinkingDeltaOf', () => {
	it('reads the index and the model response of a thinking delta, compact or spaced', () => {
		expect(thinkingDeltaOf(delta('thinking', 'Let me'))).toEqual({ index: 0, response: 'm1' });
		const spaced = JSON.stringify(JSON.parse(delta('thinking', 'x', { index: 3 })), null, 1);
		expect(thinkingDeltaOf(spaced)).toEqual({ index: 3, response: 'm1' });
		expect(thinkingDeltaOf(delta('thinking', 'x', { metadata: {} }))).toEqual({
			index: 0,
			response: undefined,
		});
	});

	it.each([
		['a text delta', delta('text', 'Hello')],
		['a tool call delta', delta('tool_call', '')],
		['no kind', JSON.stringify({ delta: { content_delta: 'x' }, index: 0 })],
		// The text's own kind is text; a nested field says thinking: two keys, parsed.
		[
			'a kind also named in a nested field',
			delta('text', 'Hello', { extra: { part_delta_kind: 'thinking' } }),
		],
		// Inside a string the key is escaped and does not count: the only real one is text.
		['the key quoted in the text', delta('text', '"part_delta_kind":"thinking"')],
		['no index', JSON.stringify({ delta: { part_delta_kind: 'thinking', content_delta: 'x' } })],
		['an index that is not a whole number', delta('thinking', 'x', { index: '0' })],
		['two indexes', delta('thinking', 'x', { other: { index: 1 } })],
		['two model responses', delta('thinking', 'x', { other: { zmid: 'm2' } })],
		['an empty model response', delta('thinking', 'x', { metadata: { zmid: '' } })],
	])('leaves %s to be parsed', (_name, data) => {
		expect(thinkingDeltaOf(data)).toBeUndefined();
	});
});

const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const start = (index: number, kind: string, content: string, zmid = 'm1') =>
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index,
		part: { part_kind: kind, content },
		metadata: { zmid },
	});

describe('a stream read with thinking deltas skipped', () => {
	const answerOf = (chunks: Array<string | Buffer>) =>
		readAnswerFromChunks(chunks, { structured: false }).output;
	const parsedAnswerOf = (chunks: Array<string | Buffer>) =>
		readAnswerFromChunks(chunks, { structured: false, steps: { thinking: true } }).output;

	it.each(['2026-08-09-summarize', '2026-08-09-research'])(
		'gives the answer of every event parsed: %s',
		(name) => {
			const { bytes } = readCapture(name);
			expect(answerOf([bytes])).toBe(parsedAnswerOf([bytes]));
		},
	);

	it('reads a delta that turns a thinking part into text, and one of another response', () => {
		const stream = [
			start(0, 'thinking', 'Hmm '),
			sse('PartDeltaEvent', delta('thinking', 'still thinking')),
			// The same index, now text: parsed, and read.
			sse('PartDeltaEvent', delta('text', 'Answer.')),
			// Index 0 of another model response, thinking, unannounced: a new message.
			sse('PartDeltaEvent', delta('thinking', 'again', { metadata: { zmid: 'm2' } })),
			start(1, 'text', 'Second.', 'm2'),
			sse('completed', { status: 'succeeded' }),
		];
		expect(answerOf(stream)).toBe('Answer.\n\nSecond.');
		expect(answerOf(stream)).toBe(parsedAnswerOf(stream));
	});

	it('keeps a text delta whose nested field names thinking', () => {
		const stream = [
			start(0, 'thinking', 'Hmm'),
			start(1, 'text', 'A'),
			sse(
				'PartDeltaEvent',
				delta('text', 'B', { index: 1, extra: { part_delta_kind: 'thinking' } }),
			),
			sse('completed', { status: 'succeeded' }),
		];
		expect(answerOf(stream)).toBe('AB');
	});
});
