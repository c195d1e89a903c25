/**
 * Servers that answer each request as a test scripts it: serveRequests gives every request to one
 * function; serveScript sends the n-th `POST /assistant/ask` and the n-th conversation read each
 * to their own function and records every request; serveNamedAsks answers an ask by a name in
 * its input.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedRequests {
	origin: string;
	close(): Promise<void>;
}

/** A server that gives every request, once its body has come whole (as text), to `answer`. */
export async function serveRequests(
	answer: (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void,
): Promise<ServedRequests> {
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => answer(request, Buffer.concat(chunks).toString('utf8'), response));
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
	const { origin, close } = await serveRequests((request, text, response) => {
		paths.push(`${request.method} ${request.url ?? ''}`);
		if (request.url === '/assistant/ask') {
			let body: { input?: string } | undefined;
			try {
				body = JSON.parse(text) as { input?: string };
			} catch {
				body = undefined;
			}
			asks.push(body);
			ask(response, asks.length, body);
			return;
		}
		read(response, ++reads);
	});
	return { baseUrl: origin, paths, asks, close };
}

export const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * An ask's answer as the 2026 service writes it (the captures' headers): 200, an event stream whose
 * `x-conversation-id` names `conversation`, `body` whole.
 */
export function streamAnswer(response: http.ServerResponse, conversation: string, body: string) {
	response.writeHead(200, {
		'content-type': 'text/event-stream; charset=utf-8',
		'x-conversation-id': conversation,
	});
	response.end(body);
}

/** A conversation read refused, as the live service answered one kind of token (2026-09-20). */
export function refuseRead(response: http.ServerResponse) {
	response.writeHead(401, { 'content-type': 'application/json' });
	response.end('{"detail":"Not authenticated"}');
}

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
): Promise<ServedRequests> {
	return await serveRequests((request, body, response) => {
		const url = request.url ?? '';
		if (other?.(url, response)) return;
		if (url.endsWith('/assistant/ask')) {
			const { input } = JSON.parse(body) as { input: string };
			const name = Object.keys(asks).find((key) => input.includes(`#${key}#`));
			if (name) {
				asks[name](response);
				return;
			}
		}
		response.writeHead(404, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ detail: 'Not found' }));
	});
}
