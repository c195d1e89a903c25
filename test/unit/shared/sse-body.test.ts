/**
 * Reading a response body as it arrives (nodes/shared/stream/sseBody.ts): messages handed on in
 * order, reading stopped at the reader's end, a body that breaks or closes early given to
 * `failureOf`, what the reader throws passed on as it is, the listeners gone afterwards; a last
 * event without its blank line read when the body was cut off from the other side (`cutOff`),
 * as at its clean end; for Node's Readable (read by its events) and any other byte iterable alike.
 */
import http from 'node:http';
import net from 'node:net';
import { PassThrough, Readable } from 'node:stream';

import type { SseMessage } from '../../../nodes/shared/stream/decode';
import { readSseBody } from '../../../nodes/shared/stream/sseBody';
import { bytesInUse } from '../../helpers/heap';

const event = (name: string, data: string) => `event: ${name}\ndata: ${data}\n\n`;

class Failure extends Error {
	constructor(readonly cause: unknown) {
		super('failure');
	}
}

function reading(body: AsyncIterable<Uint8Array | string>, stopAt?: string) {
	const messages: SseMessage[] = [];
	/** How many times the reader was told the body opens as a JSON answer. */
	const json = { openings: 0 };
	const done = readSseBody(body, undefined, {
		onMessage: (message) => {
			messages.push(message);
			return message.event !== stopAt;
		},
		failureOf: (error) => new Failure(error),
		onJson: () => (json.openings += 1),
	});
	return { messages, done, json };
}

describe('readSseBody', () => {
	it('hands on the messages of a Readable in order, however its chunks are cut', async () => {
		const text = event('a', '1') + event('b', '2') + event('c', '3');
		const body = new PassThrough();
		const { messages, done } = reading(body);
		for (let at = 0; at < text.length; at += 7) body.write(Buffer.from(text.slice(at, at + 7)));
		body.end();
		await done;
		expect(messages).toEqual([
			{ event: 'a', data: '1' },
			{ event: 'b', data: '2' },
			{ event: 'c', data: '3' },
		]);
		expect(body.listenerCount('data')).toBe(0);
	});

	it('stops at the reader’s end: later messages are not handed on, and the body is paused', async () => {
		const body = new PassThrough();
		const { messages, done } = reading(body, 'end');
		body.write(event('a', '1') + event('end', '{}') + event('after', 'x'));
		await done;
		body.write(event('later', 'y'));
		expect(messages.map((message) => message.event)).toEqual(['a', 'end']);
		expect(body.isPaused()).toBe(true);
		expect(body.listenerCount('data') + body.listenerCount('error')).toBe(0);
		body.destroy();
	});

	describe('past the answer’s end, with afterAnswer', () => {
		function readingOn(body: AsyncIterable<Uint8Array | string>) {
			const messages: SseMessage[] = [];
			let stop: (() => void) | undefined;
			let settled = false;
			const done = readSseBody(body, undefined, {
				onMessage: (message) => {
					messages.push(message);
					return message.event !== 'end';
				},
				failureOf: (error) => new Failure(error),
				afterAnswer: (stopWaiting) => (stop = stopWaiting),
			}).then(() => (settled = true));
			return { messages, done, stop: () => stop?.(), settled: () => settled };
		}

		it('reads the body on to its own end, handing nothing more on, and ends then', async () => {
			const body = new PassThrough();
			const { messages, done, settled } = readingOn(body);
			body.write(event('a', '1') + event('end', '{}') + 'data: {broken');
			await new Promise((resolve) => setImmediate(resolve));
			expect(settled()).toBe(false);
			body.end(event('after', 'x'));
			await done;
			expect(messages.map((message) => message.event)).toEqual(['a', 'end']);
			expect(body.readableEnded).toBe(true);
		});

		it('stops waiting when told to, when the body breaks, or past 64 KiB more', async () => {
			const told = new PassThrough();
			const waiting = readingOn(told);
			told.write(event('end', '{}'));
			await new Promise((resolve) => setImmediate(resolve));
			waiting.stop();
			await waiting.done;
			told.destroy();

			const broken = new PassThrough();
			const breaking = readingOn(broken);
			broken.write(event('end', '{}'));
			setImmediate(() => broken.destroy(new Error('reset after the answer')));
			await breaking.done;
			expect(breaking.messages).toHaveLength(1);

			const endless = new PassThrough();
			const flooding = readingOn(endless);
			endless.write(event('end', '{}'));
			for (let i = 0; i < 70; i++) endless.write(Buffer.alloc(1024, 0x78));
			await flooding.done;
			endless.destroy();
		});
	});

	it('gives a body that breaks to failureOf', async () => {
		const body = new PassThrough();
		const { messages, done } = reading(body);
		body.write(event('a', '1'));
		const broken = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		setImmediate(() => body.destroy(broken));
		const failure = await done.catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(Failure);
		expect((failure as Failure).cause).toBe(broken);
		expect(messages).toEqual([{ event: 'a', data: '1' }]);
	});

	it('gives a body closed before its end, without an error, to failureOf', async () => {
		const body = new PassThrough();
		const { done } = reading(body);
		body.write(event('a', '1'));
		setImmediate(() => body.destroy());
		const failure = await done.catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(Failure);
		expect((failure as Failure).cause).toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
	});

	it('passes on what the reader throws, as it is', async () => {
		const body = Readable.from([event('a', '1')]);
		const thrown = new Error('the workflow’s stream failed');
		const done = readSseBody(body, undefined, {
			onMessage: () => {
				throw thrown;
			},
			failureOf: (error) => new Failure(error),
		});
		await expect(done).rejects.toBe(thrown);
	});

	it('gives a message past the bound to failureOf', async () => {
		const body = Readable.from([`data: ${'x'.repeat(200)}`]);
		const done = readSseBody(body, 64, {
			onMessage: () => true,
			failureOf: (error) => new Failure(error),
		});
		const failure = await done.catch((error: unknown) => error);
		expect((failure as Failure).cause).toMatchObject({ name: 'SseLimitError', what: 'line' });
	});

	it('reads any other byte iterable the same way, to the end or the reader’s end', async () => {
		async function* chunks() {
			yield new TextEncoder().encode(event('a', '1'));
			yield event('end', '{}');
			throw new Error('never read: the reader had its end');
		}
		const { messages, done } = reading(chunks(), 'end');
		await done;
		expect(messages.map((message) => message.event)).toEqual(['a', 'end']);
		async function* broken() {
			yield event('a', '1');
			throw new Error('reset');
		}
		const failed = reading(broken());
		await expect(failed.done).rejects.toBeInstanceOf(Failure);
	});
});

describe('a body that holds a whole JSON answer, however it was declared (docs/api.md#how-a-stream-ends)', () => {
	const answer = JSON.stringify({ output: 'Hi, café', conversation_id: 'con_json' });

	it('is read whole, wherever its bytes are cut, after white space and a byte order mark: no message, its text the result', async () => {
		const bytes = Buffer.concat([Buffer.from('\ufeff \r\n\n'), Buffer.from(answer)]);
		for (const at of [1, 3, 4, 8, 12, bytes.length - 3]) {
			for (const body of [
				Readable.from([bytes.subarray(0, at), bytes.subarray(at)]),
				(async function* () {
					yield bytes.subarray(0, at);
					yield bytes.subarray(at);
				})(),
			]) {
				const { messages, done, json } = reading(body);
				await expect(done).resolves.toBe(answer);
				expect(messages).toEqual([]);
				expect(json.openings).toBe(1);
			}
		}
	});

	it('tells the reader it is JSON at its opening brace, before the rest has come', async () => {
		const body = new PassThrough();
		const { done, json } = reading(body);
		body.write(' \n');
		await new Promise((resolve) => setImmediate(resolve));
		expect(json.openings).toBe(0);
		body.write('{"output": "H');
		await new Promise((resolve) => setImmediate(resolve));
		expect(json.openings).toBe(1);
		body.end('i"}');
		await expect(done).resolves.toBe('{"output": "Hi"}');
		expect(json.openings).toBe(1);
	});

	it('an event stream, however it opens, resolves with nothing', async () => {
		for (const text of [
			event('a', '1'),
			`\n\n${event('a', '{"b": 1}')}`,
			`: {"x": 1}\n${event('a', '1')}`,
		]) {
			const { messages, done, json } = reading(Readable.from([text]));
			await expect(done).resolves.toBeUndefined();
			expect(messages).toEqual([{ event: 'a', data: expect.any(String) }]);
			expect(json.openings).toBe(0);
		}
	});

	it('past the bound, gives failureOf an SseLimitError for a JSON answer, holding no more of it', async () => {
		const body = new PassThrough();
		const done = readSseBody(body, 64, {
			onMessage: () => true,
			failureOf: (error) => new Failure(error),
		});
		body.write(`{"output": "${'x'.repeat(40)}`);
		body.write('y'.repeat(40));
		const failure = await done.catch((error: unknown) => error);
		expect((failure as Failure).cause).toMatchObject({
			name: 'SseLimitError',
			what: 'JSON answer',
			limitBytes: 64,
		});
		expect(String((failure as Failure).cause)).toContain('A JSON answer is larger than 64 bytes');
	});

	it('broken off, is a failure: no cut JSON is read as an answer', async () => {
		async function* broken() {
			yield '{"output": "Hi';
			throw new Error('reset');
		}
		const done = readSseBody(broken(), undefined, {
			onMessage: () => true,
			failureOf: (error) => new Failure(error),
			cutOff: () => true,
		});
		await expect(done).rejects.toBeInstanceOf(Failure);
	});
});

describe('a last event without its blank line, when the body is cut off (docs/api.md#how-a-stream-ends)', () => {
	const reset = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

	/** Reading as the transport does: `cutOff` says whether the failure came from the other side. */
	function readingCut(body: AsyncIterable<Uint8Array | string>, cutOff?: boolean) {
		const messages: SseMessage[] = [];
		const judged: unknown[] = [];
		const done = readSseBody(body, undefined, {
			onMessage: (message) => {
				messages.push(message);
				return message.event !== 'end';
			},
			failureOf: (error) => new Failure(error),
			...(cutOff === undefined
				? {}
				: {
						cutOff: (failure: unknown) => {
							judged.push(failure);
							return cutOff;
						},
					}),
		});
		return { messages, judged, done };
	}

	/** A Readable that gives `text`, then fails as a reset connection does. */
	function resetAfter(text: string) {
		const body = new PassThrough();
		body.write(text);
		setImmediate(() => body.destroy(reset()));
		return body;
	}

	test.each([
		['its blank line missing', `${event('a', '1')}event: end\ndata: {"status": "succeeded"}\n`],
		[
			'its data line’s end missing too',
			`${event('a', '1')}event: end\ndata: {"status": "succeeded"}`,
		],
		[
			'its lines ending in CRLF',
			`${event('a', '1')}event: end\r\ndata: {"status": "succeeded"}\r\n`,
		],
	])(
		'cut off from the other side, an event that ends the reading, %s: read, and the reading ends well',
		async (_name, text) => {
			const { messages, judged, done } = readingCut(resetAfter(text), true);
			await done;
			expect(messages.map((message) => message.event)).toEqual(['a', 'end']);
			expect(messages[1].data).toMatch(/^\{.*\}$/);
			// Judged by the failure the body's error became.
			expect(judged).toEqual([expect.any(Failure)]);
			expect((judged[0] as Failure).cause).toMatchObject({ code: 'ECONNRESET' });
		},
	);

	test('the same from any other byte iterable that throws', async () => {
		async function* chunks() {
			yield event('a', '1');
			yield 'event: end\ndata: {}\n';
			throw reset();
		}
		const { messages, done } = readingCut(chunks(), true);
		await done;
		expect(messages.map((message) => message.event)).toEqual(['a', 'end']);
	});

	test('an event that does not end the reading: handed on, as at a clean end, and the failure stands', async () => {
		const { messages, done } = readingCut(resetAfter(`event: more\ndata: {"text": "x"}\n`), true);
		const failure = await done.catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(Failure);
		expect((failure as Failure).cause).toMatchObject({ code: 'ECONNRESET' });
		expect(messages).toEqual([{ event: 'more', data: '{"text": "x"}' }]);
	});

	test.each([
		['cut inside its data', 'event: end\ndata: {"status": "succ', true],
		['data that is not JSON', 'event: end\ndata: done\n', true],
		['a body the reader stopped (cutOff false)', 'event: end\ndata: {}\n', false],
		['no cutOff given', 'event: end\ndata: {}\n', undefined],
	])('%s: not read, the failure stands', async (_name, text, cutOff) => {
		const { messages, done } = readingCut(resetAfter(event('a', '1') + text), cutOff);
		const failure = await done.catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(Failure);
		expect(messages.map((message) => message.event)).toEqual(['a']);
	});

	test('what the reader throws on it is passed on as it is', async () => {
		const thrown = new Error('the workflow’s stream failed');
		const done = readSseBody(resetAfter('event: end\ndata: {}\n'), undefined, {
			onMessage: () => {
				throw thrown;
			},
			failureOf: (error) => new Failure(error),
			cutOff: () => true,
		});
		await expect(done).rejects.toBe(thrown);
	});

	test.each(['a Readable', 'any other byte iterable'])(
		'%s that ends cleanly right after it: the reading ends at once, nothing left to read past the answer',
		async (kind) => {
			const text = 'event: end\ndata: {}\n';
			async function* chunks() {
				yield text;
			}
			const body = kind === 'a Readable' ? Readable.from([text]) : chunks();
			let waitedPastTheAnswer = false;
			const done = readSseBody(body, undefined, {
				onMessage: (message) => message.event !== 'end',
				failureOf: (error) => new Failure(error),
				// Never stopped: a reading that waited past the answer would not end.
				afterAnswer: () => (waitedPastTheAnswer = true),
			});
			const ended = await Promise.race([
				done.then(() => true),
				new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000)),
			]);
			expect(ended).toBe(true);
			expect(waitedPastTheAnswer).toBe(false);
		},
	);
});

describe('over a real socket', () => {
	test('a line in one-byte chunked-encoding chunks, a data event each: held at about its bytes', async () => {
		const BYTES = 300_000;
		const server = net.createServer((socket) => {
			socket.once('data', () => {
				const head =
					'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
				// The line never ends: within its bound, it is held.
				socket.write(`${head}6\r\ndata: \r\n${'1\r\nx\r\n'.repeat(BYTES)}`);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
		const { port } = server.address() as net.AddressInfo;
		const response = await new Promise<http.IncomingMessage>((resolve) =>
			http.get({ port, host: '127.0.0.1' }, resolve),
		);
		const before = bytesInUse();
		let chunks = 0;
		let bytes = 0;
		const arrived = new Promise<void>((resolve) =>
			response.on('data', (chunk: Buffer) => {
				chunks += 1;
				bytes += chunk.length;
				if (bytes === 'data: '.length + BYTES) resolve();
			}),
		);
		const done = readSseBody(response, undefined, {
			onMessage: () => true,
			failureOf: (error) => error,
		}).catch(() => undefined);
		await arrived;
		await new Promise((resolve) => setImmediate(resolve));
		const held = bytesInUse() - before;
		response.destroy();
		server.close();
		await done;
		// Node hands on each chunked-encoding chunk as it came.
		expect(chunks).toBeGreaterThan(BYTES);
		// Generous: before, each chunk was kept as a Buffer with its socket's read buffer.
		expect(held).toBeLessThan(5 * BYTES);
	});

	test('a chunked body whose connection is reset right after an event’s data line: the event read', async () => {
		const server = net.createServer((socket) => {
			socket.once('data', () => {
				const head =
					'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
				const text = 'event: end\ndata: {"status": "succeeded"}\n';
				// No last chunk: the connection is reset after the event's data line.
				socket.write(`${head}${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`, () =>
					setTimeout(() => socket.resetAndDestroy(), 20),
				);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
		const { port } = server.address() as net.AddressInfo;
		try {
			const response = await new Promise<http.IncomingMessage>((resolve) =>
				http
					.get({ port, host: '127.0.0.1' }, resolve)
					// The request reports the reset too; the body's report is the one read here.
					.on('error', () => undefined),
			);
			const messages: SseMessage[] = [];
			const failures: unknown[] = [];
			await readSseBody(response, undefined, {
				onMessage: (message) => {
					messages.push(message);
					return false;
				},
				failureOf: (error) => error,
				cutOff: (failure) => {
					failures.push(failure);
					return true;
				},
			});
			expect(messages).toEqual([{ event: 'end', data: '{"status": "succeeded"}' }]);
			// The reset reached the body as a failure, not as its end.
			expect(failures).toHaveLength(1);
		} finally {
			server.close();
		}
	});
});
