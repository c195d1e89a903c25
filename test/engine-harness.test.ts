/**
 * Proves the engine harness (test/helpers/engine.ts) against its own fixture package
 * (test/helpers/fixture-package: an Echo node with an `echoApi` bearer credential) and a tiny
 * HTTP server that echoes what it receives.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { INode } from 'n8n-workflow';

import {
	callListSearch,
	chain,
	itemsNode,
	loadPackage,
	manualTrigger,
	runWorkflow,
	testCredential,
	workflowNode,
	type EngineCredential,
	type LoadedPackage,
} from './helpers/engine';

const TOKEN = 'good-token-s3cr3t';

interface SeenRequest {
	method: string;
	url: string;
	authorization?: string;
}

let server: http.Server;
let baseUrl: string;
const seen: SeenRequest[] = [];
const slowTimers = new Set<NodeJS.Timeout>();

function send(res: http.ServerResponse, status: number, body: unknown) {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
	const url = new URL(req.url ?? '/', 'http://localhost');
	const authorization = req.headers.authorization;
	seen.push({ method: req.method ?? '', url: req.url ?? '', authorization });
	if (url.pathname === '/whoami') {
		if (authorization === `Bearer ${TOKEN}`) return send(res, 200, { ok: true });
		if (authorization === 'Bearer forbidden') return send(res, 403, { error: 'forbidden' });
		return send(res, 401, { error: 'unauthorized' });
	}
	if (url.pathname === '/things') {
		const filter = url.searchParams.get('filter') ?? '';
		const page = url.searchParams.get('page') ?? '1';
		const things = ['alpha', 'beta', 'gamma', 'delta']
			.filter((name) => name.includes(filter))
			.map((name) => ({ id: `id-${name}`, name }));
		const body =
			page === '1' ? { things: things.slice(0, 2), next: '2' } : { things: things.slice(2) };
		return send(res, 200, body);
	}
	if (url.pathname === '/fail') return send(res, 500, { error: 'boom' });
	if (url.pathname === '/slow') {
		const timer = setTimeout(() => send(res, 200, { slow: true }), 20_000);
		slowTimers.add(timer);
		res.on('close', () => clearTimeout(timer));
		return;
	}
	const echoed: unknown = body ? JSON.parse(body) : null;
	send(res, 200, { authorization, method: req.method, url: req.url, body: echoed });
}

let pkg: LoadedPackage;
let credentials: EngineCredential[];

beforeAll(async () => {
	server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => handle(req, res, body));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const data = { baseUrl, accessToken: TOKEN };
	credentials = [{ id: 'cred-1', name: 'Echo account', type: 'echoApi', data }];
	pkg = await loadPackage(path.join(__dirname, 'helpers/fixture-package'));
});

afterAll(async () => {
	for (const timer of slowTimers) clearTimeout(timer);
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
	seen.length = 0;
});

function echoNode(parameters: INode['parameters'], extra: Partial<INode> = {}): INode {
	return workflowNode('Echo', pkg.nodeType('echo'), parameters, {
		credentials: { echoApi: { id: 'cred-1', name: 'Echo account' } },
		...extra,
	});
}

function echoWorkflow(parameters: INode['parameters'], extra: Partial<INode> = {}) {
	const items = itemsNode([{ x: 1 }, { x: 2 }, { x: 3 }]);
	return chain(manualTrigger(), items, echoNode(parameters, extra));
}

describe('the harness runs workflows as n8n-core does', () => {
	test('loads the package with PackageDirectoryLoader', () => {
		expect(pkg.name).toBe('n8n-nodes-harness-fixture');
		const echo = pkg.nodeTypes.getByNameAndVersion('n8n-nodes-harness-fixture.echo');
		expect(echo.description.name).toBe('echo');
		expect(Object.keys(pkg.credentialTypes)).toEqual(['echoApi']);
	});

	test('items flow through the node and out, with pairedItem and the bearer header', async () => {
		const result = await runWorkflow(pkg, echoWorkflow({ message: '={{ "hello " + $json.x }}' }), {
			credentials,
		});

		expect(result.error()).toBeUndefined();
		expect(result.data.status).toBe('success');
		const out = result.outputs('Echo');
		expect(out).toHaveLength(3);
		out.forEach((item, i) => {
			expect(item.json).toMatchObject({
				authorization: `Bearer ${TOKEN}`,
				method: 'POST',
				url: '/echo',
				body: { message: `hello ${i + 1}`, input: { x: i + 1 } },
			});
			expect(item.pairedItem).toEqual({ item: i });
		});
		expect(seen.map((request) => request.authorization)).toEqual(Array(3).fill(`Bearer ${TOKEN}`));
	});

	test('Continue On Fail turns a failed request into an error item', async () => {
		const result = await runWorkflow(
			pkg,
			echoWorkflow({ path: '/fail' }, { onError: 'continueRegularOutput' }),
			{ credentials },
		);

		expect(result.error()).toBeUndefined();
		const out = result.outputs('Echo');
		expect(out).toHaveLength(3);
		expect(out[0].json.error).toBe('The service was not able to process your request');
		expect(out[2].pairedItem).toEqual({ item: 2 });
	});

	test('without Continue On Fail the run fails with the node error', async () => {
		const result = await runWorkflow(pkg, echoWorkflow({ path: '/fail' }), { credentials });

		expect(result.data.status).toBe('error');
		expect(result.error()?.message).toBe('The service was not able to process your request');
		expect(result.nodeError('Echo')).toMatchObject({ name: 'NodeApiError', httpCode: '500' });
		expect(() => result.outputs('Echo')).toThrow(/Node "Echo" failed/);
		expect(() => result.outputs('Nowhere')).toThrow(/Node "Nowhere" did not run/);
	});

	test('a missing credential is a node error, not a harness crash', async () => {
		const result = await runWorkflow(pkg, echoWorkflow({}), { credentials: [] });

		expect(result.error()?.message).toMatch(/no credential of type "echoApi"/);
	});
});

describe('the harness calls pickers and credential tests as the editor does', () => {
	test('list search runs through LoadOptionsContext with the credential', async () => {
		const first = await callListSearch(pkg, 'echo', 'searchThings', { credentials, filter: 'a' });
		expect(first).toEqual({
			results: [
				{ name: 'alpha', value: 'id-alpha' },
				{ name: 'beta', value: 'id-beta' },
			],
			paginationToken: '2',
		});
		const second = await callListSearch(pkg, 'echo', 'searchThings', {
			credentials,
			filter: 'a',
			paginationToken: first.paginationToken as string,
		});
		expect(second.results.map((result) => result.name)).toEqual(['gamma', 'delta']);
		expect(second.paginationToken).toBeUndefined();
		expect(seen.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
	});

	test('the credential test runs the node method that tests it, with the stored data', async () => {
		await expect(testCredential(pkg, 'echoApi', { baseUrl, accessToken: TOKEN })).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(seen.at(-1)).toEqual({
			method: 'GET',
			url: '/whoami',
			authorization: `Bearer ${TOKEN}`,
		});
		const wrong = await testCredential(pkg, 'echoApi', { baseUrl, accessToken: 'wrong' });
		expect(wrong).toEqual({ status: 'Error', message: 'HTTP 401' });
	});
});

describe('the harness streams, logs and cancels as n8n-core does', () => {
	test('a streaming run collects the chunks the node sends', async () => {
		const echo = echoNode({ message: '={{ "m" + $json.x }}' });
		const workflow = chain(manualTrigger(), itemsNode([{ x: 1 }, { x: 2 }]), echo);

		const streamed = await runWorkflow(pkg, workflow, { credentials, streaming: true });
		expect(streamed.chunks.map((chunk) => [chunk.type, chunk.content])).toEqual([
			['begin', undefined],
			['item', 'm1'],
			['end', undefined],
			['begin', undefined],
			['item', 'm2'],
			['end', undefined],
		]);
		expect(streamed.chunks[1].metadata).toMatchObject({ nodeName: 'Echo', itemIndex: 0 });

		const plain = await runWorkflow(pkg, workflow, { credentials });
		expect(plain.chunks).toEqual([]);
		expect(plain.outputs('Echo')).toHaveLength(2);
	});

	test('when a node fails in a streaming run, the engine streams an error chunk', async () => {
		const result = await runWorkflow(pkg, echoWorkflow({ path: '/fail' }), {
			credentials,
			streaming: true,
		});

		expect(result.chunks.at(-1)).toMatchObject({ type: 'error', metadata: { nodeName: 'Echo' } });
	});

	test('logs are captured, and the secret is not in them', async () => {
		const result = await runWorkflow(pkg, echoWorkflow({ message: 'hi' }), { credentials });

		expect(result.logs).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/^\[debug\] Workflow execution started/),
				expect.stringMatching(/^\[debug\] Echo: sending an item \{"itemIndex":0\}/),
			]),
		);
		expect(result.logs.join('\n')).not.toContain(TOKEN);
	});

	test('an abort signal cancels the execution', async () => {
		const controller = new AbortController();
		const running = runWorkflow(pkg, echoWorkflow({ path: '/slow' }), {
			credentials,
			signal: controller.signal,
		});
		await waitFor(() => seen.some((request) => request.url === '/slow'));
		controller.abort();

		const result = await running;
		// The in-flight request is aborted through the execution's cancel signal.
		expect(result.data.status).toBe('canceled');
		expect(result.nodeError('Echo')).toMatchObject({
			message: 'canceled',
			httpCode: 'ERR_CANCELED',
		});
	});

	test('an already aborted signal stops the run before its first node', async () => {
		const controller = new AbortController();
		controller.abort();
		const result = await runWorkflow(pkg, echoWorkflow({}), {
			credentials,
			signal: controller.signal,
		});

		expect(result.data.status).toBe('canceled');
		expect(result.error()?.name).toBe('ManualExecutionCancelledError');
		expect(result.data.data.resultData.runData).toEqual({});
	});

	test('timeoutMs cancels a run that takes too long', async () => {
		const started = Date.now();
		const workflow = echoWorkflow({ path: '/slow' });
		const result = await runWorkflow(pkg, workflow, { credentials, timeoutMs: 300 });

		expect(Date.now() - started).toBeLessThan(5_000);
		expect(result.data.status).toBe('canceled');
		// The node in flight fails with its aborted request; between nodes the run would stop
		// with a TimeoutExecutionCancelledError instead.
		expect(result.error()?.message).toBe('canceled');
	});
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('waitFor: timed out');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
