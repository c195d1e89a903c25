/**
 * https → http is another origin (docs/api.md#redirects), against real servers: the service at
 * the Base URL is a real HTTPS server on loopback (test/fixtures/tls: a certificate for tests
 * only), and it redirects with 301, 302, 303, 307 or 308 to plain http on the same host and port
 * (one port serves both: TLS or not is told by the first byte), to plain http on another port,
 * or within its own https origin. The built package runs in n8n-core's engine in a child process
 * that trusts the certificate through `NODE_EXTRA_CA_CERTS`, as an n8n instance is told to trust
 * a private CA; n8n's helper and the node run as they do in production, certificate checks on.
 * Within the origin the redirect is followed over TLS and the item holds the answer from there;
 * to http nothing is sent (so never the token, not even over the same port), the item fails with
 * the target, and nothing the http side would answer becomes output. Runs against n8n 1.x too.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { runInChild, type ChildRunResult } from '../helpers/engine-child';
import {
	STATUSES,
	recordingHandler,
	redirect,
	startServer,
	type TestServer,
} from '../helpers/redirect-servers';

const TOKEN = 'zo_sk_https-redirect-token-29';
const TLS_DIR = path.join(__dirname, '..', 'fixtures', 'tls');
const CERTIFICATE = path.join(TLS_DIR, 'loopback-cert.pem');

type Target = 'https, same origin' | 'http, same port' | 'http, other port';
const TARGETS: Target[] = ['https, same origin', 'http, same port', 'http, other port'];

const KINDS: Array<[string, INodeParameters]> = [
	['ask', { operation: 'ask', input: 'Hello', options: { retries: 0 } }],
	['ask-streamed', { operation: 'ask', input: 'Hello', options: { retries: 0, stream: true } }],
	['list-models', { operation: 'listModels', options: { retries: 0 } }],
];

type Server = Omit<TestServer, 'origin' | 'close'>;
const secure: Server = { marker: 'HOME', seen: [], intercept: undefined };
const plainSamePort: Server = { marker: 'PLAIN-SAME-PORT', seen: [], intercept: undefined };
let plainOtherPort: TestServer;
let front: net.Server;
let port: number;

/** One case of the child's runs; its Base URL names it, so the servers need no state. */
interface Case {
	kind: string;
	status: number;
	target: Target;
	result?: ChildRunResult;
}
const CASES: Case[] = KINDS.flatMap(([kind]) =>
	STATUSES.flatMap((status) => TARGETS.map((target) => ({ kind, status, target }))),
);
const prefixOf = ({ kind, status, target }: Case) =>
	`/c/${kind}/${status}/${TARGETS.indexOf(target)}`;

function locationFor(target: Target, rest: string): string {
	if (target === 'https, same origin') return `https://127.0.0.1:${port}/moved${rest}`;
	if (target === 'http, same port') return `http://127.0.0.1:${port}/moved${rest}`;
	return `${plainOtherPort.origin}/moved${rest}`;
}

/** `/c/<kind>/<status>/<target>/api/<path>` redirects to the target's `/moved/c/…/<path>`. */
secure.intercept = (request, response) => {
	const match = /^\/c\/[\w-]+\/(\d+)\/(\d)\/api(\/.*)$/.exec(request.url ?? '');
	if (!match) return false;
	const rest = `${(request.url ?? '').slice(0, -match[3].length - '/api'.length)}${match[3]}`;
	return redirect(response, Number(match[1]), locationFor(TARGETS[Number(match[2])], rest));
};

beforeAll(async () => {
	plainOtherPort = await startServer('PLAIN-OTHER-PORT');
	const tls = https.createServer(
		{ key: readFileSync(path.join(TLS_DIR, 'loopback-key.pem')), cert: readFileSync(CERTIFICATE) },
		recordingHandler(secure),
	);
	const plain = http.createServer(recordingHandler(plainSamePort));
	// One port for both: a TLS connection opens with a handshake record (0x16).
	front = net.createServer((socket) => {
		socket.once('data', (first) => {
			socket.pause();
			socket.unshift(first);
			(first[0] === 0x16 ? tls : plain).emit('connection', socket);
			process.nextTick(() => socket.resume());
		});
	});
	await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
	port = (front.address() as AddressInfo).port;

	const runs = CASES.map((testCase) => ({
		baseUrl: `https://127.0.0.1:${port}${prefixOf(testCase)}/api`,
		token: TOKEN,
		parameters: KINDS.find(([kind]) => kind === testCase.kind)![1],
	}));
	const results = await runInChild(runs, { NODE_EXTRA_CA_CERTS: CERTIFICATE });
	CASES.forEach((testCase, index) => (testCase.result = results[index]));
}, 120_000);

afterAll(async () => {
	await plainOtherPort?.close();
	await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
});

test('the http side, on the same port or another, got no request at all', () => {
	expect(CASES.every((testCase) => testCase.result)).toBe(true);
	expect(plainSamePort.seen).toEqual([]);
	expect(plainOtherPort.seen).toEqual([]);
});

test('every request the HTTPS service got carried the token', () => {
	expect(secure.seen.length).toBeGreaterThanOrEqual(CASES.length);
	for (const seen of secure.seen) expect(seen.authorization).toBe(`Bearer ${TOKEN}`);
});

describe.each(KINDS.map(([kind]) => kind))('%s', (kind) => {
	describe.each(STATUSES)('HTTP %i', (status) => {
		test.each(TARGETS)('to %s', (target) => {
			const testCase = CASES.find(
				(candidate) =>
					candidate.kind === kind && candidate.status === status && candidate.target === target,
			)!;
			const result = testCase.result!;
			const seen = secure.seen.filter((request) => request.path.includes(prefixOf(testCase)));
			expect(result.data).toBeDefined();
			expect(result.data).not.toContain(TOKEN);
			expect(result.data).not.toContain('PLAIN');
			if (target === 'https, same origin') {
				expect(result.error).toBeUndefined();
				expect(seen.map((request) => request.path.startsWith('/moved/'))).toEqual([false, true]);
				expect(JSON.stringify(result.items)).toContain('HOME');
			} else {
				expect(seen).toHaveLength(1);
				expect(result.items).toEqual([]);
				const message = `${result.error?.message} ${result.error?.description}`;
				expect(message).toContain(`HTTP ${status}`);
				const origin = target === 'http, same port' ? `127.0.0.1:${port}` : plainOtherPort.origin;
				expect(message).toContain(`http://${origin.replace('http://', '')}/moved`);
				expect(message).toContain('Base URL');
				expect(message).not.toContain(TOKEN);
			}
		});
	});
});
