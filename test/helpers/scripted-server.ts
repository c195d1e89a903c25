/**
 * A server that answers each request as a test scripts it: the n-th `POST /assistant/ask` and
 * the n-th conversation read each go to their own function. Every request is recorded.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedServer {
	baseUrl: string;
	/** `METHOD path` of every request, in order. */
	paths: string[];
	/** The parsed bodies of the asks, in order. */
	asks: Array<{ input?: string } | undefined>;
	close(): Promise<void>;
}

export async function serveScript(
	ask: (response: http.ServerResponse, n: number, body: { input?: string } | undefined) => void,
	read: (response: http.ServerResponse, n: number) => void,
): Promise<ScriptedServer> {
	const paths: string[] = [];
	const asks: ScriptedServer['asks'] = [];
	let reads = 0;
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			paths.push(`${request.method} ${request.url ?? ''}`);
			if (request.url === '/assistant/ask') {
				let body: { input?: string } | undefined;
				try {
					body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: string };
				} catch {
					body = undefined;
				}
				asks.push(body);
				ask(response, asks.length, body);
				return;
			}
			read(response, ++reads);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		paths,
		asks,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

export const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A conversation read's answer; read again after 20 ms while it is running. */
export function conversationJson(
	response: http.ServerResponse,
	state: string,
	messages: unknown[],
) {
	response.writeHead(200, { 'content-type': 'application/json', 'retry-after-ms': '20' });
	response.end(JSON.stringify({ state, messages }));
}

/** A conversation's turn: the user's `input`, and the assistant's `answer` when there is one. */
export function turn(input: string, answer?: string): unknown[] {
	const asked = { kind: 'request', parts: [{ part_kind: 'user-prompt', content: input }] };
	if (answer === undefined) return [asked];
	return [asked, { kind: 'response', parts: [{ part_kind: 'text', content: answer }] }];
}

/**
 * A server whose asks are answered by name: an ask whose input holds `#name#` goes to
 * `asks[name]`. `other` may answer any other request first (true when it did); the rest is a
 * 404.
 */
export async function serveNamedAsks(
	asks: Record<string, (response: http.ServerResponse) => void>,
	other?: (url: string, response: http.ServerResponse) => boolean,
): Promise<{ origin: string; close(): Promise<void> }> {
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const url = request.url ?? '';
			if (other?.(url, response)) return;
			if (url.endsWith('/assistant/ask')) {
				const { input } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string };
				const name = Object.keys(asks).find((key) => input.includes(`#${key}#`));
				if (name) {
					asks[name](response);
					return;
				}
			}
			response.writeHead(404, { 'Content-Type': 'application/json' });
			response.end(JSON.stringify({ detail: 'Not found' }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
