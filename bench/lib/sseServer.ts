/**
 * A tiny HTTP server for the streaming row: answers every POST /assistant/ask with the same
 * pre-built Server-Sent Events bytes, written in network-sized pieces with backpressure, and
 * records when each piece was handed to the socket (performance.now(), this process's clock).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface BuiltStream {
	/** The whole SSE body. */
	bytes: Buffer;
	/** The answer the text events add up to. */
	answer: string;
	/** Byte offset just past each text event (index = sequence number). */
	eventEnds: Float64Array;
	events: number;
	/** Tool calls told in the stream (each a call event and a result event), for the steps row. */
	toolCalls: number;
}

/** Width of the sequence number that starts every text chunk: `#0000123 `. */
export const SEQ_WIDTH = 7;

/**
 * `events` FrontendModelResponse events whose contents add up to `answerChars` ASCII characters,
 * then End. Each content starts with `#<sequence> ` so a streamed chunk says which event it was.
 */
/**
 * With `toolEvery`, a `FunctionToolCallEvent` and its `FunctionToolResultEvent` after every
 * `toolEvery` text events (docs/api.md#steps): steps to collect, nothing for the answer. With
 * `partsToo`, every piece is also told as a `PartDeltaEvent` of one text part, just before its
 * FrontendModelResponse (docs/api.md#assembling-the-answer: two sources of the same text).
 */
export function buildStream(
	events: number,
	answerChars: number,
	toolEvery = 0,
	partsToo = false,
): BuiltStream {
	const per = answerChars / events;
	if (!Number.isInteger(per) || per < SEQ_WIDTH + 2)
		throw new Error('answerChars must split evenly, ≥ 9 per event');
	const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit '.repeat(
		Math.ceil(per / 50) + 1,
	);
	const contents: string[] = [];
	const parts: string[] = [];
	const eventEnds = new Float64Array(events);
	let offset = 0;
	let toolCalls = 0;
	if (partsToo) {
		const start = { index: 0, part: { part_kind: 'text', content: '' } };
		parts.push(`event: PartStartEvent\ndata: ${JSON.stringify(start)}\n\n`);
		offset += parts[0].length;
	}
	for (let i = 0; i < events; i++) {
		const head = `#${String(i).padStart(SEQ_WIDTH - 1, '0')} `;
		const content = head + filler.slice(0, per - head.length);
		contents.push(content);
		if (partsToo) {
			const delta = { index: 0, delta: { part_delta_kind: 'text', content_delta: content } };
			const told = `event: PartDeltaEvent\ndata: ${JSON.stringify(delta)}\n\n`;
			parts.push(told);
			offset += told.length;
		}
		const event = `event: FrontendModelResponse\ndata: ${JSON.stringify({ content })}\n\n`;
		parts.push(event);
		offset += event.length; // ASCII: characters are bytes
		eventEnds[i] = offset;
		if (toolEvery > 0 && (i + 1) % toolEvery === 0) {
			const tool = toolEvents(toolCalls++);
			parts.push(tool);
			offset += tool.length;
		}
	}
	parts.push(`event: End\ndata: ${JSON.stringify({})}\n\n`);
	const text = parts.join('');
	return {
		bytes: Buffer.from(text, 'latin1'),
		answer: contents.join(''),
		eventEnds,
		events,
		toolCalls,
	};
}

/** A tool call and its result, as pydantic-ai's events tell them (about 400 bytes). */
function toolEvents(n: number): string {
	const ids = { tool_name: 'search_mail', tool_call_id: `call_${n}` };
	const call = { part_kind: 'tool-call', ...ids, args: { query: `invoices ${n}`, limit: 10 } };
	const result = {
		part_kind: 'tool-return',
		...ids,
		content: [{ from: 'ada@example.com', subject: `Invoice ${n}`, unread: true }],
	};
	return (
		`event: FunctionToolCallEvent\ndata: ${JSON.stringify({ part: call, event_kind: 'function_tool_call' })}\n\n` +
		`event: FunctionToolResultEvent\ndata: ${JSON.stringify({ result, event_kind: 'function_tool_result' })}\n\n`
	);
}

export interface WriteRecord {
	/** Byte offset just past the piece. */
	end: number;
	/** performance.now() when res.write() was called with it. */
	at: number;
}

export interface SseServer {
	baseUrl: string;
	/** Writes of the latest response. */
	writes: WriteRecord[];
	requests: number;
	close(): Promise<void>;
}

export const STREAM_MARK_HEADER = 'x-bench-stream';

export async function startSseServer(stream: BuiltStream, pieceBytes: number): Promise<SseServer> {
	const state = { writes: [] as WriteRecord[], requests: 0 };
	const server = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			if (req.method !== 'POST' || !req.url?.endsWith('/assistant/ask')) {
				res.writeHead(404).end();
				return;
			}
			state.requests++;
			const writes: WriteRecord[] = [];
			state.writes = writes;
			res.writeHead(200, {
				'content-type': 'text/event-stream',
				'cache-control': 'no-cache',
				'x-conversation-id': 'conv_bench',
				[STREAM_MARK_HEADER]: '1',
			});
			let offset = 0;
			const pump = () => {
				while (offset < stream.bytes.length) {
					const end = Math.min(stream.bytes.length, offset + pieceBytes);
					const piece = stream.bytes.subarray(offset, end);
					offset = end;
					writes.push({ end, at: performance.now() });
					if (!res.write(piece)) {
						res.once('drain', pump);
						return;
					}
				}
				res.end();
			};
			pump();
		});
	});
	const sockets = new Set<import('node:net').Socket>();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		get writes() {
			return state.writes;
		},
		get requests() {
			return state.requests;
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.destroy();
			}),
	};
}
