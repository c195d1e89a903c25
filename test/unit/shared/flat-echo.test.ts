/**
 * An unread event in the flat form (docs/api.md#flat-stream-form: no `event:` line, the name
 * inside the JSON of a bare `data:` line) is dropped as it streams, as the same event named by an
 * `event:` line is (docs/api.md#memory-bounds): the request's echo (`FrontendModelRequest`, the
 * user's files and images) meets no bound, and the answer after it is read. The decoder tells it
 * by the leading key of the line's JSON, as the bytes arrive; every other line is bounded as
 * before.
 */
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import {
	createSseDecoder,
	SseLimitError,
	type SseMessage,
} from '../../../nodes/shared/stream/decode';
import { STREAM_EVENT_NAMES } from '../../../nodes/shared/stream/events';

const LIMIT = 1024;
const BIG = 'iVBORw0K'.repeat(LIMIT); // 8 KiB of base64: past the bound
const after = 'event: End\ndata: {}\n\n';

/** With the ask stream's names (unread events told by name, docs/api.md#streams). */
function decode(chunks: Array<string | Uint8Array>): SseMessage[] {
	const messages: SseMessage[] = [];
	const decoder = createSseDecoder((message) => messages.push(message), LIMIT, STREAM_EVENT_NAMES);
	for (const chunk of chunks) decoder.push(chunk);
	decoder.finish();
	return messages;
}

/** The body cut at every byte into two chunks, then in one-byte chunks. */
function everySplit(text: string): Array<Array<string | Uint8Array>> {
	const bytes = Buffer.from(text, 'utf8');
	const splits: Array<Array<string | Uint8Array>> = [[text]];
	for (let cut = 1; cut < 80; cut++) splits.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
	splits.push([...bytes].map((byte) => Uint8Array.of(byte)));
	return splits;
}

test.each([
	['{"type": "FrontendModelRequest", ', 'FrontendModelRequest'],
	['{"type":"FrontendModelRequest",', 'FrontendModelRequest'],
	['  {  \t"type"  :\t "FrontendModelRequest" , ', 'FrontendModelRequest'],
	['{"type": "AgentRuntimeStreamChunk", ', 'AgentRuntimeStreamChunk'],
])('data: %s… past the bound is skipped, told as %s, split anywhere', (opening, name) => {
	const body = `data: ${opening}"parts": "${BIG}"}\n\n${after}`;
	for (const chunks of everySplit(body)) {
		expect(decode(chunks)).toEqual([
			{ event: name, data: '' },
			{ event: 'End', data: '{}' },
		]);
	}
});

test('a flat echo first in the body, after a byte order mark, and of several data lines', () => {
	const body = `\uFEFFdata: {"type": "FrontendModelRequest",\ndata: "parts": "${BIG}"}\n\n${after}`;
	for (const chunks of everySplit(body)) {
		expect(decode(chunks)[0]).toEqual({ event: 'FrontendModelRequest', data: '' });
	}
	// Without the ask's names, the echo is not passed on at all (named, it is not either).
	const messages: SseMessage[] = [];
	const decoder = createSseDecoder((message) => messages.push(message), LIMIT);
	decoder.push(body);
	decoder.finish();
	expect(messages).toEqual([{ event: 'End', data: '{}' }]);
});

test.each([
	// The name under a later key: only the leading one can be read without holding the line.
	['a later key', `{"parts": "${BIG}", "type": "FrontendModelRequest"}`],
	['an escape in the name', `{"type": "Frontend\\u004dodelRequest", "parts": "${BIG}"}`],
	['an event that is read', `{"type": "FrontendModelResponse", "content": "${BIG}"}`],
	['a name that only begins so', `{"type": "FrontendModelRequestX", "parts": "${BIG}"}`],
	['no JSON', `FrontendModelRequest ${BIG}`],
	// flatEvent.ts names the event by a `type` after it first: only a leading `type` decides.
	['a leading event_kind', `{"event_kind": "final_result", "parts": "${BIG}"}`],
])('a flat line with %s is held and bounded as any other', (_, data) => {
	const body = `data: ${data}\n\n${after}`;
	// Whole, and with its opening in one-character chunks.
	expect(() => decode([body])).toThrow(SseLimitError);
	expect(() => decode([...body.slice(0, 100), body.slice(100)])).toThrow(SseLimitError);
});

test('within the bound, the flat form of events that are read passes as before', () => {
	// Led by an unread event's kind, then a `type` of an event that is read: read, by its type.
	const kindFirst =
		'data: {"event_kind":"final_result","type":"FrontendModelResponse","content":"Hello"}\n\n';
	expect(decode([kindFirst])).toEqual([
		{
			event: 'message',
			data: '{"event_kind":"final_result","type":"FrontendModelResponse","content":"Hello"}',
		},
	]);
	const flat = 'data: {"type": "FrontendModelResponse", "content": "Hi"}\n\n';
	expect(decode([flat])).toEqual([
		{ event: 'message', data: '{"type": "FrontendModelResponse", "content": "Hi"}' },
	]);
	// Named by an `event:` line, or a second data line: the data is that event's, not a flat one.
	const named = 'event: PartStartEvent\ndata: {"type": "FrontendModelRequest"}\n\n';
	expect(decode([named])).toEqual([
		{ event: 'PartStartEvent', data: '{"type": "FrontendModelRequest"}' },
	]);
	const second = 'data: [\ndata: {"type": "FrontendModelRequest"}]\n\n';
	expect(decode([second])).toEqual([
		{ event: 'message', data: '[\n{"type": "FrontendModelRequest"}]' },
	]);
});

test('a flat FrontendModelRequest of 65 MiB, then the answer: the answer is read, as after the same echo named by an `event:` line', () => {
	const image = 'iVBORw0K'.repeat((1 << 20) / 8); // 1 MiB of base64
	const chunks: string[] = [];
	// The echo, told flat: the name inside the JSON of a bare `data:` line.
	chunks.push(
		'data: {"type": "FrontendModelRequest", "parts": [{"part_kind": "user-prompt", "content": "![chart.png](data:image/png;base64,',
	);
	for (let i = 0; i < 65; i++) chunks.push(image);
	chunks.push(')"}]}\n\n');
	const sse = (event: string, data: unknown) =>
		`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
	const answer = [
		sse('PartStartEvent', {
			index: 0,
			part: { part_kind: 'text', content: 'The chart shows growth.' },
		}),
		sse('completed', { status: 'succeeded', error: null }),
	];
	// The same echo named by an `event:` line is dropped as it streams: the answer is read.
	const named = ['event: FrontendModelRequest\n', ...chunks, ...answer];
	expect(readAnswerFromChunks(named, { structured: false }).output).toBe('The chart shows growth.');
	// Told flat, the same echo.
	expect(readAnswerFromChunks([...chunks, ...answer], { structured: false }).output).toBe(
		'The chart shows growth.',
	);
});
