/**
 * Servers that never stop (docs/api.md#memory-bounds): one SSE `data:` line that never ends, one
 * event of one-character `data:` lines that never ends, or an answer that keeps growing, written
 * with backpressure (the server holds one chunk at a time) until the client hangs up or
 * `totalBytes` are out; or, for a JSON Schema ask, a model
 * response that calls a tool at index 0 with 1 MiB of arguments and then starts index 0 again as
 * a text part, over and over. Also an honest large answer. For the bounds suite and the bench row.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeParameters } from 'n8n-workflow';

import { runInChild, type ChildRunResult } from './engine-child';

export type StreamKind =
	| 'endless-line'
	| 'endless-data-lines'
	| 'endless-answer'
	| 'honest-answer'
	| 'tool-call-restarted-as-text';

export interface StreamServer {
	baseUrl: string;
	/** Bytes written to the last response so far. */
	written: () => number;
	close(): Promise<void>;
}

const CHUNK_CHARS = 256 * 1024;

function event(name: string, data: unknown): string {
	return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * `totalBytes`: of the line, of answer text or of events; the honest answer ends with End after
 * them, the restarted tool calls with `completed`.
 */
export async function startStreamServer(
	kind: StreamKind,
	totalBytes: number,
): Promise<StreamServer> {
	let written = 0;
	const piece = 'x'.repeat(CHUNK_CHARS);
	const server = http.createServer((request, response) => {
		request.resume();
		written = 0;
		response.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'x-conversation-id': 'con_boundstest000001',
		});
		let closed = false;
		response.on('close', () => (closed = true));
		const write = (text: string) =>
			new Promise<void>((resolve) => {
				written += Buffer.byteLength(text);
				if (response.write(text)) resolve();
				else response.once('drain', resolve);
			});
		void (async () => {
			if (kind === 'endless-line') {
				await write('data: ');
				while (!closed && written < totalBytes) await write(piece);
			} else if (kind === 'endless-data-lines') {
				// One event of ever more one-character data lines, never ended by a blank line.
				const lines = 'data:x\n'.repeat(CHUNK_CHARS / 8);
				await write('event: PartDeltaEvent\n');
				while (!closed && written < totalBytes) await write(lines);
			} else if (kind === 'tool-call-restarted-as-text') {
				const metadata = { zmid: 'z1', runner_id: 'r-1' };
				const filler = 'x'.repeat(1024 * 1024);
				for (let n = 0; !closed && written < totalBytes; n++) {
					await write(
						event('PartStartEvent', {
							index: 0,
							part: {
								part_kind: 'tool-call',
								tool_name: 'lookup',
								args: '',
								tool_call_id: `c${n}`,
							},
							metadata,
						}) +
							event('PartDeltaEvent', {
								index: 0,
								delta: { part_delta_kind: 'tool_call', args_delta: `{"q": "${filler}${n}"}` },
								metadata,
							}) +
							event('PartStartEvent', {
								index: 0,
								part: { part_kind: 'text', content: 'x' },
								metadata,
							}),
					);
				}
				if (!closed) await write(event('completed', { status: 'succeeded' }));
			} else {
				await write(
					event('PartStartEvent', { index: 0, part: { part_kind: 'text', content: '' } }),
				);
				let text = 0;
				while (!closed && text < totalBytes) {
					const size = Math.min(CHUNK_CHARS, totalBytes - text);
					text += size;
					await write(
						event('PartDeltaEvent', {
							index: 0,
							delta: { part_delta_kind: 'text', content_delta: piece.slice(0, size) },
						}),
					);
				}
				if (kind === 'honest-answer' && !closed) await write(event('End', {}));
			}
			response.end();
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		written: () => written,
		close: async () =>
			await new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * One Ask with no retries, in a fresh child process (engine-child.ts), against a server that
 * sends `kind` up to `bytes`: the child's result and how much the server wrote before the node
 * stopped reading. The bounds test and bench row 10 both measure this. `parameters` add to the
 * Ask's (a response format).
 */
export async function askAgainstStream(
	kind: StreamKind,
	bytes: number,
	token: string,
	parameters: INodeParameters = {},
): Promise<{ result: ChildRunResult; written: number }> {
	const server = await startStreamServer(kind, bytes);
	try {
		const [result] = await runInChild([
			{
				baseUrl: server.baseUrl,
				token,
				parameters: { operation: 'ask', input: 'Hello', options: { retries: 0 }, ...parameters },
			},
		]);
		return { result, written: server.written() };
	} finally {
		await server.close();
	}
}
