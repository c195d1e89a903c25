/**
 * `npm run check:live` run as a maintainer runs it (docs/live-check.md), against the emulator
 * and a server in front of it that poses as the live service, its answers changed as a test says.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const OUT = path.join(ROOT, 'artifacts', 'live-check');

/** How the posing server changes the emulator's answers. */
export interface Mutation {
	/** The text of an event-stream answer. */
	stream?: (text: string) => string;
	/** The headers of an event-stream answer. */
	headers?: (headers: Record<string, string>) => void;
	/** An answer of its own for a route, instead of the emulator's. */
	route?: (url: string) => { status: number; body: string } | undefined;
}

/** A server posing as the live service: the emulator's answers, changed by `mutation`. */
export async function posingServer(upstream: string, mutation: Mutation) {
	const requests: string[] = [];
	const server = http.createServer((req, res) => {
		void (async () => {
			let body = '';
			for await (const chunk of req) body += String(chunk);
			requests.push(`${req.method} ${req.url}`);
			const own = mutation.route?.(req.url ?? '');
			if (own) {
				res.writeHead(own.status, { 'content-type': 'application/json' });
				res.end(own.body);
				return;
			}
			const up = await fetch(upstream + req.url, {
				method: req.method,
				headers: {
					authorization: String(req.headers.authorization),
					'content-type': 'application/json',
				},
				body: req.method === 'GET' ? undefined : body,
			});
			let text = await up.text();
			const headers: Record<string, string> = {};
			up.headers.forEach((value, key) => {
				if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(key)) {
					headers[key] = value;
				}
			});
			if (headers['content-type']?.startsWith('text/event-stream')) {
				if (mutation.stream) text = mutation.stream(text);
				mutation.headers?.(headers);
			}
			res.writeHead(up.status, headers);
			res.end(text);
		})();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * `npm run check:live` with only `env` (and PATH, HOME): its output, exit code and the files it
 * saved, joined. The check writes to one folder: the suites that run it must not run at once.
 * Past `limitMs` the check (tsx and the node it starts: their process group) is killed and its
 * code is null.
 */
export async function runCheckLive(env: Record<string, string>, limitMs = 90_000) {
	fs.rmSync(OUT, { recursive: true, force: true });
	const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/check-live.ts'], {
		cwd: ROOT,
		env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
		detached: true,
	});
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const limit = setTimeout(() => {
		if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
	}, limitMs);
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	clearTimeout(limit);
	const saved = fs.existsSync(OUT)
		? fs
				.readdirSync(OUT)
				.map((name) => fs.readFileSync(path.join(OUT, name), 'utf8'))
				.join('\n')
		: '';
	return { output, code, saved };
}

/** `\uXXXX` for every character: how JSON may write a token. */
export const unicodeEscaped = (text: string) =>
	[...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
