/**
 * Real HTTP servers on loopback for the redirect suites (docs/api.md#redirects): the service at
 * the Base URL (`home`) and servers of other origins, each recording every request it gets
 * (with its Authorization header) and answering every API path with a valid answer that names
 * it (`HOME`, `OTHER-PORT`, `OTHER-HOST`), so that any answer from another origin that became
 * output would show.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
	method: string;
	path: string;
	authorization: string | undefined;
	body: string;
}

/** Answers a request itself (returns true), or leaves it to the server's API answers. */
export type Intercept = (
	request: http.IncomingMessage,
	response: http.ServerResponse,
	body: string,
) => boolean;

export interface TestServer {
	/** `http://host:port`. */
	origin: string;
	/** The marker in every answer it gives. */
	marker: string;
	seen: Seen[];
	intercept: Intercept | undefined;
	close(): Promise<void>;
}

export const CONVERSATION_ID = 'con_redirecttest00001';

/** A server at `host` (127.0.0.1, 127.0.0.2, …), on `port` or any free one. */
export async function startServer(marker: string, host = '127.0.0.1', port = 0) {
	const server: TestServer = {
		origin: '',
		marker,
		seen: [],
		intercept: undefined,
		close: async () =>
			await new Promise<void>((resolve) => {
				httpServer.closeAllConnections();
				httpServer.close(() => resolve());
			}),
	};
	const httpServer = http.createServer(recordingHandler(server));
	await new Promise<void>((resolve, reject) => {
		httpServer.once('error', reject);
		httpServer.listen(port, host, () => resolve());
	});
	const address = httpServer.address() as AddressInfo;
	server.origin = `http://${host}:${address.port}`;
	return server;
}

/**
 * What `server` does with a request: records it, lets its intercept answer, or gives the API's
 * answer naming it.
 */
export function recordingHandler(
	server: Omit<TestServer, 'origin' | 'close'>,
): http.RequestListener {
	return (request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			server.seen.push({
				method: request.method ?? '',
				path: request.url ?? '',
				authorization: request.headers.authorization,
				body,
			});
			if (server.intercept?.(request, response, body)) return;
			answer(server.marker, request.url ?? '', response);
		});
	};
}

/** A valid answer of the API for `path` (any prefix), naming the server. */
function answer(marker: string, path: string, response: http.ServerResponse): void {
	const json = (body: unknown) => {
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify(body));
	};
	if (path.endsWith('/models/available')) {
		return json({
			models: [
				{
					model_name: `vendor:${marker}`,
					label: marker,
					vendor: 'Vendor',
					description: null,
					type: null,
					context_window: null,
					is_byok: false,
				},
			],
		});
	}
	if (path.endsWith('/personas/available')) {
		return json({ personas: [{ id: marker, name: marker, prompt: '', model: null, image: null }] });
	}
	if (path.includes('/conversations/')) {
		return json({
			state: 'idle',
			messages: [
				{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: 'Hello' }] },
				{ kind: 'response', parts: [{ part_kind: 'text', content: `Answer from ${marker}` }] },
			],
		});
	}
	if (path.endsWith('/assistant/ask')) {
		response.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'x-conversation-id': CONVERSATION_ID,
		});
		response.end(
			sse('PartStartEvent', {
				index: 0,
				part: { part_kind: 'text', content: `Answer from ${marker}` },
			}) + sse('End', {}),
		);
		return;
	}
	response.writeHead(404, { 'Content-Type': 'application/json' });
	response.end(JSON.stringify({ detail: 'Not Found' }));
}

export function sse(event: string, data: unknown): string {
	return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Answers with a redirect to `location`. */
/**
 * An accepted ask whose stream breaks off: the conversation's header, one runtime event, then the
 * connection dropped (the node then reads the conversation).
 */
export function breakStreamAfterAccept(response: http.ServerResponse): true {
	response.writeHead(200, {
		'Content-Type': 'text/event-stream',
		'x-conversation-id': CONVERSATION_ID,
	});
	response.write(sse('AgentRuntimeStreamChunk', { type: 'status' }));
	setTimeout(() => response.socket?.destroy(), 20);
	return true;
}

export function redirect(response: http.ServerResponse, status: number, location: string): true {
	response.writeHead(status, { Location: location, 'Content-Type': 'text/plain' });
	response.end(`Redirecting to ${location}`);
	return true;
}

export type Target = 'same origin' | 'other port' | 'other host';
export const TARGETS: Target[] = ['same origin', 'other port', 'other host'];
export const STATUSES = [301, 302, 303, 307, 308];

/** The service at the Base URL and two other origins, for a suite that redirects between them. */
export interface RedirectOrigins {
	home: TestServer;
	otherPort: TestServer;
	otherHost: TestServer;
	server(target: Target): TestServer;
	/** `/api/<path>` on `home` redirects to `<target>/moved/<path>` when `path` matches. */
	redirectAt(matches: (path: string) => boolean, status: number, target: Target): void;
	/** Every request `home` saw carried the token (the catalog none); no other origin saw any. */
	expectTokenOnlyAtHome(token: string): void;
	/** A failure names the status and where the service redirected, never the token or answer. */
	expectRedirectFailure(message: string, status: number, target: Target, token: string): void;
}

/**
 * Starts the three servers (jest hooks in the calling scope): `home` on 127.0.0.1, another port
 * there, another host (127.0.0.2); each test starts with their records cleared.
 */
export function useRedirectOrigins(): RedirectOrigins {
	const origins = {} as RedirectOrigins;
	beforeAll(async () => {
		origins.home = await startServer('HOME');
		origins.otherPort = await startServer('OTHER-PORT');
		origins.otherHost = await startServer('OTHER-HOST', '127.0.0.2');
	});
	afterAll(async () => {
		await Promise.all([origins.home, origins.otherPort, origins.otherHost].map((s) => s?.close()));
	});
	beforeEach(() => {
		for (const server of [origins.home, origins.otherPort, origins.otherHost]) {
			server.seen = [];
			server.intercept = undefined;
		}
	});
	origins.server = (target) =>
		target === 'same origin'
			? origins.home
			: target === 'other port'
				? origins.otherPort
				: origins.otherHost;
	origins.redirectAt = (matches, status, target) => {
		origins.home.intercept = (request, response) => {
			const path = request.url ?? '';
			if (!path.startsWith('/api/') || !matches(path)) return false;
			const location = `${origins.server(target).origin}/moved${path.slice('/api'.length)}`;
			return redirect(response, status, location);
		};
	};
	origins.expectTokenOnlyAtHome = (token) => {
		expect(origins.home.seen.length).toBeGreaterThan(0);
		for (const seen of origins.home.seen) {
			// The public catalog (the model picker reads it too) is asked without the token.
			const expected = seen.path.endsWith('/models/catalog') ? undefined : `Bearer ${token}`;
			expect(seen.authorization).toBe(expected);
		}
		expect(origins.otherPort.seen).toEqual([]);
		expect(origins.otherHost.seen).toEqual([]);
	};
	origins.expectRedirectFailure = (message, status, target, token) => {
		expect(message).toContain(`HTTP ${status}`);
		expect(message).toContain(origins.server(target).origin.replace('http://', ''));
		expect(message).not.toContain(token);
		expect(message).not.toContain('OTHER');
	};
	return origins;
}
