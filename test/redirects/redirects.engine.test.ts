/**
 * Redirects on every request kind the package makes (docs/api.md#redirects), with the built
 * package in n8n-core's engine against real servers on loopback: the service at the Base URL
 * redirects with 301, 302, 303, 307 or 308 to the same origin, to another port, or to another
 * host (127.0.0.2). Within the origin the redirect is followed and the item holds the answer
 * from there; to another origin it is not followed: the item fails with the target and the fix,
 * the other server gets no request at all (so never the token), and nothing it could answer
 * becomes output. The same suite runs against n8n 1.x (`npm run test:n8n1`). The scheme
 * (https→http is another origin) is held by the unit test of the origin check
 * (test/unit/shared/redirects.test.ts) and redirects-https.engine.test.ts; the Assistant Tool and
 * the chat model in redirects-ai.engine.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../helpers/assistant';
import { callListSearch, testCredential } from '../helpers/engine';
import {
	STATUSES,
	TARGETS,
	breakStreamAfterAccept,
	redirect,
	useRedirectOrigins,
	type Target,
} from '../helpers/redirect-servers';

const TOKEN = 'zo_sk_redirect-secret-token-29';

const origins = useRedirectOrigins();
const { redirectAt } = origins;
const targetServer = (target: Target) => origins.server(target);
const expectTokenOnlyAtHome = () => origins.expectTokenOnlyAtHome(TOKEN);
const expectRedirectFailure = (message: string, status: number, target: Target) =>
	origins.expectRedirectFailure(message, status, target, TOKEN);

const credential = () => emulatorCredential(`${origins.home.origin}/api`, TOKEN);

function expectFollowedWithin(): void {
	expect(origins.home.seen.some((seen) => seen.path.startsWith('/moved/'))).toBe(true);
}

async function runAssistant(parameters: INodeParameters) {
	const pkg = await assistantPackage();
	const run = await runWithItems([{}], [assistantNode(pkg, 'Assistant', parameters)], {
		credentials: [credential()],
	});
	const error = run.error();
	const output = error ? undefined : run.outputs('Assistant').map((item) => item.json);
	const description = (error as { description?: string } | undefined)?.description ?? '';
	return { error, message: error ? `${error.message} ${description}` : '', output };
}

const NODE_KINDS: Array<[string, INodeParameters, (path: string) => boolean]> = [
	['Ask', { operation: 'ask', input: 'Hello' }, (path) => path.endsWith('/assistant/ask')],
	[
		'Ask with Stream on',
		{ operation: 'ask', input: 'Hello', options: { stream: true } },
		(path) => path.endsWith('/assistant/ask'),
	],
	['List Models', { operation: 'listModels' }, (path) => path.endsWith('/models/available')],
	['List Personas', { operation: 'listPersonas' }, (path) => path.endsWith('/personas/available')],
];

describe.each(NODE_KINDS)('%s', (_kind, parameters, matches) => {
	describe.each(STATUSES)('HTTP %i', (status) => {
		test.each(TARGETS)('to %s', async (target) => {
			redirectAt(matches, status, target);
			const { error, message, output } = await runAssistant(parameters);
			expectTokenOnlyAtHome();
			if (target === 'same origin') {
				expect(error).toBeUndefined();
				expectFollowedWithin();
				expect(JSON.stringify(output)).toContain('HOME');
			} else {
				expect(output).toBeUndefined();
				expectRedirectFailure(message, status, target);
				expect(message).toContain('Base URL');
			}
		});
	});
});

describe('a conversation read during recovery', () => {
	/** The ask's stream breaks off after the service accepted it; its conversation is redirected. */
	function brokenAskThenRedirect(status: number, target: Target): void {
		redirectAt((path) => path.includes('/conversations/'), status, target);
		const redirectRead = origins.home.intercept!;
		origins.home.intercept = (request, response, body) => {
			if (request.url === '/api/assistant/ask') {
				return breakStreamAfterAccept(response);
			}
			return redirectRead(request, response, body);
		};
	}

	describe.each(STATUSES)('HTTP %i', (status) => {
		test.each(TARGETS)('to %s', async (target) => {
			brokenAskThenRedirect(status, target);
			const { error, message, output } = await runAssistant({
				operation: 'ask',
				input: 'Hello',
				options: { retries: 0 },
			});
			expectTokenOnlyAtHome();
			expect(origins.home.seen.filter((seen) => seen.path === '/api/assistant/ask')).toHaveLength(
				1,
			);
			if (target === 'same origin') {
				expect(error).toBeUndefined();
				expect(output?.[0]).toMatchObject({ output: 'Answer from HOME', recovered: true });
			} else {
				expect(output).toBeUndefined();
				expect(message).toContain(targetServer(target).origin.replace('http://', ''));
				expect(message).not.toContain(TOKEN);
				expect(message).not.toContain('OTHER');
			}
		});
	});
});

describe.each([
	['model picker', 'searchModels', '/models/available'],
	['persona picker', 'searchPersonas', '/personas/available'],
])('the %s', (_kind, method, suffix) => {
	describe.each(STATUSES)('HTTP %i', (status) => {
		test.each(TARGETS)('to %s', async (target) => {
			redirectAt((path) => path.endsWith(suffix), status, target);
			const pkg = await assistantPackage();
			let results: IDataObject[] | undefined;
			let failure = '';
			try {
				const found = await callListSearch(pkg, pkg.nodeType('assistant'), method, {
					credentials: [credential()],
				});
				results = found.results as unknown as IDataObject[];
			} catch (error) {
				failure = `${(error as Error).message} ${(error as { description?: string }).description ?? ''}`;
			}
			expectTokenOnlyAtHome();
			if (target === 'same origin') {
				expect(failure).toBe('');
				expect(JSON.stringify(results)).toContain('HOME');
			} else {
				expect(results).toBeUndefined();
				expectRedirectFailure(failure, status, target);
			}
		});
	});
});

describe('the credential test', () => {
	describe.each(STATUSES)('HTTP %i', (status) => {
		test.each(TARGETS)('to %s', async (target) => {
			redirectAt((path) => path.endsWith('/models/available'), status, target);
			const pkg = await assistantPackage();
			const result = await testCredential(pkg, 'assistantApi', {
				baseUrl: `${origins.home.origin}/api`,
				accessToken: TOKEN,
			});
			expectTokenOnlyAtHome();
			if (target === 'same origin') {
				expect(result.status).toBe('OK');
				expectFollowedWithin();
			} else {
				expect(result.status).toBe('Error');
				expectRedirectFailure(result.message, status, target);
				expect(result.message).toContain(`${targetServer(target).origin}/moved`);
			}
		});
	});
});

describe('chains', () => {
	test('same origin, then same origin, then another origin: the token stays home', async () => {
		origins.home.intercept = (request, response) => {
			const path = request.url ?? '';
			if (path === '/api/models/available')
				return redirect(response, 307, '/hop1/models/available');
			if (path === '/hop1/models/available') {
				return redirect(response, 302, `${origins.home.origin}/hop2/models/available`);
			}
			if (path === '/hop2/models/available') {
				return redirect(response, 308, `${origins.otherHost.origin}/api/models/available`);
			}
			return false;
		};
		const { message, output } = await runAssistant({ operation: 'listModels' });
		expect(output).toBeUndefined();
		expectTokenOnlyAtHome();
		expect(origins.home.seen.map((seen) => seen.path)).toEqual([
			'/api/models/available',
			'/hop1/models/available',
			'/hop2/models/available',
		]);
		expectRedirectFailure(message, 308, 'other host');
	});

	test('a loop within the origin ends after 5 redirects, with an error saying so', async () => {
		origins.home.intercept = (request, response) => redirect(response, 302, `${request.url}x`);
		const { message, output } = await runAssistant({
			operation: 'listModels',
			options: { retries: 0 },
		});
		expect(output).toBeUndefined();
		expect(message).toContain('more than 5 times');
		expect(origins.home.seen).toHaveLength(6);
		expectTokenOnlyAtHome();
	});

	test('307 keeps the ask: the same POST and body at the new address', async () => {
		redirectAt((path) => path.endsWith('/assistant/ask'), 307, 'same origin');
		await runAssistant({ operation: 'ask', input: 'Hello' });
		const [first, second] = origins.home.seen;
		expect(second).toMatchObject({ method: 'POST', path: '/moved/assistant/ask' });
		expect(second.body).toBe(first.body);
		expect(JSON.parse(second.body)).toMatchObject({ input: 'Hello' });
	});

	test('303 on the ask becomes a GET without body', async () => {
		redirectAt((path) => path.endsWith('/assistant/ask'), 303, 'same origin');
		await runAssistant({ operation: 'ask', input: 'Hello' });
		expect(origins.home.seen[1]).toMatchObject({
			method: 'GET',
			path: '/moved/assistant/ask',
			body: '',
		});
	});
});
