/** The event-stream decoder's bounds (docs/api.md#memory-bounds), on the sources. */
import {
	createSseDecoder,
	SseLimitError,
	type SseMessage,
} from '../../../nodes/shared/stream/decode';
import { bytesInUse, stillAlive } from '../../helpers/heap';

const LIMIT = 1024;

function decode(chunks: Array<string | Uint8Array>, limit = LIMIT): SseMessage[] {
	const messages: SseMessage[] = [];
	const decoder = createSseDecoder((message) => messages.push(message), limit);
	for (const chunk of chunks) decoder.push(chunk);
	decoder.finish();
	return messages;
}

test('a line past the bound fails as its bytes arrive, before it ends', () => {
	const decoder = createSseDecoder(() => undefined, LIMIT);
	decoder.push('data: ');
	expect(() => {
		for (let i = 0; i < 100; i++) decoder.push('x'.repeat(100));
	}).toThrow(SseLimitError);
});

test('an event of many lines past the bound fails', () => {
	const line = `data: ${'y'.repeat(200)}\n`;
	expect(() => decode([line.repeat(10)])).toThrow(/event-stream event is larger than 1024 bytes/);
});

test('lines within the bound, split anywhere, with \\r\\n, \\r and \\n, decode as before', () => {
	const text = 'event: End\r\ndata: {"a":"é€"}\r\rdata: two\ndata: lines\n\n';
	const bytes = Buffer.from(text, 'utf8');
	for (let cut = 1; cut < bytes.length; cut++) {
		expect(decode([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual([
			{ event: 'End', data: '{"a":"é€"}' },
			{ event: 'message', data: 'two\nlines' },
		]);
	}
});

test("FrontendModelRequest's data is dropped unread, however large; the events around it pass", () => {
	const huge = `data: ${'z'.repeat(LIMIT * 50)}\n`;
	const messages = decode([
		'event: FrontendModelRequest\n',
		huge.slice(0, 3),
		huge.slice(3, 5000),
		huge.slice(5000),
		huge,
		'\n',
		'event: PartStartEvent\ndata: {"index":0}\n\n',
	]);
	expect(messages).toEqual([{ event: 'PartStartEvent', data: '{"index":0}' }]);
});

test('a comment line carries nothing, and is bounded like any line', () => {
	expect(decode([`: ${'k'.repeat(LIMIT / 2)}\n`, 'data: ok\n\n'])).toEqual([
		{ event: 'message', data: 'ok' },
	]);
	expect(() => decode([`: ${'k'.repeat(LIMIT * 10)}\n`, 'data: ok\n\n'])).toThrow(SseLimitError);
});

test("the echo's event line split anywhere, with CRLF, still drops its data; the rest is read whole", () => {
	const text =
		'event: PartStartEvent\r\ndata: {"a":1}\r\n\r\nevent: FrontendModelRequest\r\ndata: secret-1\r\ndata: secret-2\r\n\r\nevent: End\r\ndata: {}\r\n\r\n';
	for (let cut = 1; cut < text.length; cut++) {
		for (const second of [cut + 1, cut + 7, text.length]) {
			const chunks = [text.slice(0, cut), text.slice(cut, second), text.slice(second)];
			const messages = decode(chunks);
			expect(messages).toEqual([
				{ event: 'PartStartEvent', data: '{"a":1}' },
				{ event: 'End', data: '{}' },
			]);
			expect(JSON.stringify(messages)).not.toContain('secret');
		}
	}
});

test('line ends mixed around the echo (its data line in CRLF, the blank line in LF), cut anywhere', () => {
	const text =
		'event: FrontendModelRequest\r\ndata: secret\r\n\nevent: End\ndata: {}\n\nevent: Error\rdata: {"message":"x"}\r\r';
	for (let cut = 1; cut < text.length; cut++) {
		const messages = decode([text.slice(0, cut), text.slice(cut)]);
		expect(messages).toEqual([
			{ event: 'End', data: '{}' },
			{ event: 'Error', data: '{"message":"x"}' },
		]);
	}
});

test('the events around many echoes, in one text or byte by byte, are read whole', () => {
	const echo = 'event: FrontendModelRequest\ndata: {"files":"private"}\n\n';
	const part = (i: number) => `event: PartDeltaEvent\ndata: {"i":${i}}\n\n`;
	const text = Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? echo : '') + part(i)).join('');
	const expected = Array.from({ length: 20 }, (_, i) => ({
		event: 'PartDeltaEvent',
		data: `{"i":${i}}`,
	}));
	expect(decode([text])).toEqual(expected);
	expect(decode([...text])).toEqual(expected);
});

test('a byte order mark at the start is dropped', () => {
	expect(decode(['\ufeffdata: bom\n\n'])).toEqual([{ event: 'message', data: 'bom' }]);
});

describe('a line held across chunks costs its bytes, not the chunks it came in', () => {
	test('one byte per chunk: about a byte held per byte, not a Buffer per chunk', () => {
		const BYTES = 300_000;
		const decoder = createSseDecoder(() => undefined, LIMIT * LIMIT);
		const one = Buffer.from('x');
		const before = bytesInUse();
		decoder.push('data: ');
		for (let i = 0; i < BYTES; i++) decoder.push(one);
		// Generous: the held buffer doubles as it fills.
		expect(bytesInUse() - before).toBeLessThan(5 * BYTES);
		decoder.push('\n\n');
	});

	test('a held piece keeps none of the chunks (socket read buffers) it was cut from alive', async () => {
		const decoder = createSseDecoder(() => undefined, LIMIT * LIMIT);
		decoder.push('data: ');
		// Pushed by a function of its own: the awaiting test would keep its last values alive.
		const pushTenBytesOfEach = (count: number) =>
			Array.from({ length: count }, () => {
				const readBuffer = Buffer.alloc(64 * 1024, 'x');
				decoder.push(readBuffer.subarray(0, 10));
				return new WeakRef(readBuffer.buffer);
			});
		expect(await stillAlive(pushTenBytesOfEach(50))).toBe(0);
		decoder.push('\n\n');
	});
});
