/**
 * A server that echoes the access token back in everything it writes (docs/security.md):
 * headers, event names, a failed run's fields, conversation IDs, error bodies cut where the node
 * clips them, redirect addresses (a host lower-cased by the URL parser), a status line. With the
 * built package in n8n-core's engine: the token, whole, cut or in another letter case, is in no
 * output item, error, log line or streamed chunk of the run, nor in the credential test's words
 * or a picker's list. The Assistant Chat Model asks through the same call (askAssistant). And the
 * credential test keeps its 15 s against a body that trickles.
 */
import http from 'node:http';

import { tool as langchainTool } from '@langchain/core/tools';
import type { INodeParameters } from 'n8n-workflow';
import { z } from 'zod';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
	everythingShown,
	askOnceContinuing,
} from '../helpers/assistant';
import { runChatModel } from '../helpers/chat-model';
import { callListSearch, testCredential } from '../helpers/engine';
import { serveRequests, sse, streamAnswer, type ServedRequests } from '../helpers/scripted-server';
import { bareTextDelta, bareTextStart } from '../helpers/stream-2026';

const TOKEN = 'Zo_Sk_Echo-Token-7Fq2Lm9X';

/** What the agent's tool was given. */
const echoed: string[] = [];
const echoTool = langchainTool(
	async ({ text }: { text: string }) => {
		echoed.push(text);
		return 'echoed';
	},
	{ name: 'echo', description: 'Echoes a text', schema: z.object({ text: z.string() }) },
);

/** `{"a": {"a": … leaf}}`, `depth` levels. */
function nested(depth: number, leaf: unknown): unknown {
	let value = leaf;
	for (let i = 0; i < depth; i++) value = { a: value };
	return value;
}

/** Every character as %XX. */
const percentEncoded = (text: string) =>
	[...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');

/** What the server does with an ask, chosen by the ask's input. */
const ASKS: Record<string, (response: http.ServerResponse, origin: string) => void> = {
	headers(response) {
		response.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'x-conversation-id': TOKEN,
			'X-Model-Fallback': `model-${TOKEN}`,
		});
		response.end(
			sse(`Unknown_${TOKEN}`, { x: 1 }) +
				bareTextStart('Hello') +
				sse('completed', { status: 'succeeded' }),
		);
	},
	failed(response) {
		streamAnswer(
			response,
			'con_echo1',
			sse('failed', {
				status: 'failed',
				error: `Unknown model: ${TOKEN}`,
				error_type: TOKEN,
				failure_kind: TOKEN.toLowerCase(),
			}),
		);
	},
	unknownEnd(response) {
		streamAnswer(response, 'con_echo2', sse(`Ended_${TOKEN}`, {}));
	},
	endEvent(response) {
		response.writeHead(200, { 'Content-Type': 'text/event-stream' });
		response.end(sse('End', { output: `Hi ${TOKEN}`, conversation_id: TOKEN.toUpperCase() }));
	},
	json(response) {
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ output: `Hi ${TOKEN}`, conversation_id: `con_${TOKEN}` }));
	},
	splitDelta(response) {
		streamAnswer(
			response,
			'con_s',
			bareTextStart('Hi ') +
				bareTextDelta(TOKEN.slice(0, 5)) +
				bareTextDelta(`${TOKEN.slice(5)} there`) +
				sse('completed', { status: 'succeeded' }),
		);
	},
	deepJson(response) {
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(
			JSON.stringify({ output: { summary: 'x', more: nested(70, TOKEN) }, conversation_id: 'c' }),
		);
	},
	escapedBody(response) {
		response.writeHead(500, { 'Content-Type': 'text/plain' });
		// One character escaped, and every character: each goes, escapes and all.
		response.end(`no \\u005a${TOKEN.slice(1)} and ${percentEncoded(TOKEN)}`);
	},
	redirectEncoded(response, origin) {
		response.writeHead(307, { Location: `${origin}/api/${percentEncoded(TOKEN)}/broken` });
		response.end();
	},
	rateLimited(response) {
		response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': TOKEN });
		// The token straddles where a server's message is clipped (500 characters).
		response.end(JSON.stringify({ error: `${'x'.repeat(490)}${TOKEN}` }));
	},
	clippedNotJson(response) {
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(`${'y'.repeat(190)}${TOKEN}`);
	},
	redirectHere(response, origin) {
		response.writeHead(307, { Location: `${origin}/api/${TOKEN}/broken` });
		response.end();
	},
	escapedArgs(response) {
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(
			JSON.stringify({
				output: {
					action: 'call_tool',
					final_answer: '',
					tool_name: 'echo',
					tool_arguments_json: `{"text":"\\u005a${TOKEN.slice(1)}"}`,
				},
				conversation_id: 'con_envelope',
			}),
		);
	},
	seeOther(response, origin) {
		// Taken, then its answer not found where it points: the conversation named is read.
		response.writeHead(303, { Location: `${origin}/api/see/${TOKEN}`, 'x-conversation-id': TOKEN });
		response.end();
	},
	redirectQuery(response, origin) {
		// Its target breaks off: the address shown has no query, whatever it holds.
		response.writeHead(307, { Location: `${origin}/api/query/broken?next=${TOKEN}#${TOKEN}` });
		response.end();
	},
	redirectAway(response) {
		response.writeHead(307, { Location: `http://${TOKEN}.invalid/api/assistant/ask` });
		response.end();
	},
};

let server: ServedRequests;

beforeAll(async () => {
	server = await serveRequests((request, body, response) => {
		const url = request.url ?? '';
		if (url.split('?')[0].endsWith('/broken')) {
			request.socket.destroy();
			return;
		}
		if (url.startsWith('/trickle/')) {
			// A byte every second, for ever: only the credential test's own deadline ends it.
			response.writeHead(200, { 'Content-Type': 'application/json' });
			const timer = setInterval(() => response.write(' '), 1000);
			response.on('close', () => clearInterval(timer));
			return;
		}
		if (url.startsWith('/status-line/')) {
			response.writeHead(500, `Broken ${TOKEN}`, { 'Content-Type': 'text/plain' });
			response.end(`no ${TOKEN}`);
			return;
		}
		if (url.includes('/conversations/')) {
			response.writeHead(404, { 'Content-Type': 'application/json' });
			response.end(JSON.stringify({ detail: `Conversation not found: ${TOKEN}` }));
			return;
		}
		if (url.endsWith('/assistant/ask')) {
			const { input } = JSON.parse(body) as { input: string };
			const kind = Object.keys(ASKS).find((name) => input.includes(`#${name}#`)) ?? 'headers';
			ASKS[kind](response, server.origin);
			return;
		}
		if (url.endsWith('/models/available')) {
			response.writeHead(200, { 'Content-Type': 'application/json' });
			response.end(
				JSON.stringify({
					models: [
						{ model_name: `openai:${TOKEN}`, label: `Model ${TOKEN}`, deep: nested(70, TOKEN) },
					],
				}),
			);
			return;
		}
		response.writeHead(404, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ detail: `Not found: ${TOKEN}` }));
	});
});

afterAll(async () => await server.close());

const credential = () => emulatorCredential(`${server.origin}/api`, TOKEN);

/** Neither the token nor its beginning, in any letter case. */
function expectNoToken(shown: string): void {
	const lower = shown.toLowerCase();
	expect(lower).not.toContain(TOKEN.toLowerCase().slice(0, 8));
}

async function ask(input: string, extra: INodeParameters = {}, parameters: INodeParameters = {}) {
	return await askOnceContinuing(credential(), input, extra, parameters);
}

describe('Ask', () => {
	test.each([false, true])(
		'headers and an unknown event name: the answer, no token (Stream %s)',
		async (stream) => {
			const run = await ask('#headers#', { stream });
			const [item] = run.outputs('Assistant');
			expect(item.json.output).toBe('Hello');
			expect(item.json.conversation_id).toBe('[redacted]');
			expect(item.json.model_fallback).toBe('model-[redacted]');
			expect(run.logs.some((line) => line.includes('[redacted]'))).toBe(true);
			expectNoToken(everythingShown(run));
		},
	);

	test.each(Object.keys(ASKS).filter((kind) => kind !== 'headers'))(
		'%s: no token',
		async (kind) => {
			const run = await ask(`#${kind}#`);
			const [item] = run.outputs('Assistant');
			expect(item.json).toBeDefined();
			expectNoToken(everythingShown(run));
		},
	);

	test('a redirect target that breaks off is shown without its query and fragment', async () => {
		const [item] = (await ask('#redirectQuery#')).outputs('Assistant');
		expect(String(item.json.error)).toMatch(
			/^Could not reach the assistant at http:\/\/127\.0\.0\.1:\d+\/api\/query\/broken: /,
		);
	});

	test.each(['json', 'splitDelta'])(
		'%s in a streaming workflow (Stream on): no token in the chunks, the rest of the answer whole',
		async (kind) => {
			const run = await ask(`#${kind}#`, { stream: true });
			const streamed = run.chunks
				.filter((chunk) => chunk.type === 'item')
				.map((chunk) => String(chunk.content))
				.join('');
			expect(streamed).toContain('Hi [redacted]');
			expect(streamed).toBe(String(run.outputs('Assistant')[0].json.output));
			expectNoToken(everythingShown(run));
		},
	);

	test('a structured answer nested deeper than the node walks: no token', async () => {
		const run = await ask(
			'#deepJson#',
			{},
			{
				responseFormat: 'jsonSchema',
				jsonSchema: JSON.stringify({
					type: 'object',
					properties: { summary: { type: 'string' } },
					required: ['summary'],
				}),
			},
		);
		expect(run.outputs('Assistant')[0].json.output).toMatchObject({ summary: 'x' });
		expectNoToken(everythingShown(run));
	});

	test('the failure is still told: the failed run, the rate limit', async () => {
		const failed = (await ask('#failed#')).outputs('Assistant')[0].json;
		expect(String(failed.error)).toContain('Unknown model: [redacted]');
		const limited = (await ask('#rateLimited#')).outputs('Assistant')[0].json;
		expect(limited.httpCode).toBe('429');
		expect(String(limited.description)).toContain('[redacted]');
	});
});

test('List Models: no token in the items', async () => {
	const pkg = await assistantPackage();
	const run = await runWithItems(
		[{}],
		[assistantNode(pkg, 'Assistant', { operation: 'listModels' })],
		{
			credentials: [credential()],
		},
	);
	expect(run.outputs('Assistant')).toHaveLength(1);
	expectNoToken(everythingShown(run));
});

test('the model picker: no token in the list', async () => {
	const pkg = await assistantPackage();
	const found = await callListSearch(pkg, pkg.nodeType('assistant'), 'searchModels', {
		credentials: [credential()],
	});
	expect(found.results).toHaveLength(1);
	expectNoToken(JSON.stringify(found));
});

test('the credential test: no token in its words (the status line echoes it)', async () => {
	const pkg = await assistantPackage();
	const result = await testCredential(pkg, 'assistantApi', {
		baseUrl: `${server.origin}/status-line`,
		accessToken: TOKEN,
	});
	expect(result.status).toBe('Error');
	expect(result.message).toContain('HTTP 500');
	expectNoToken(result.message);
});

test.each(['splitDelta', 'json'])(
	'the Assistant Chat Model streamed (%s): no token in its pieces or its answer',
	async (kind) => {
		const pkg = await assistantPackage();
		const run = await runChatModel(
			pkg,
			'stream',
			[{ role: 'user', content: `#${kind}#` }],
			{},
			{
				credentials: [credential()],
			},
		);
		expect(run.error()).toBeUndefined();
		expect(JSON.stringify(run.outputs('Consumer')[0].json)).toContain('Hi [redacted]');
		expectNoToken(everythingShown(run));
	},
);

test('the Assistant Chat Model: tool arguments escaped in JSON reach the tool without the token', async () => {
	const pkg = await assistantPackage();
	const run = await runChatModel(
		pkg,
		'agent',
		[{ role: 'user', content: '#escapedArgs#' }],
		{},
		{
			credentials: [credential()],
			tools: [echoTool],
		},
	);
	expectNoToken(everythingShown(run));
	expect(echoed).toHaveLength(1);
	expect(echoed[0]).toContain('[redacted]');
	expectNoToken(echoed[0]);
});

test('the Assistant Chat Model: no token in its answer, ids or logs', async () => {
	const pkg = await assistantPackage();
	const run = await runChatModel(
		pkg,
		'invoke',
		[{ role: 'user', content: '#headers#' }],
		{},
		{
			credentials: [credential()],
		},
	);
	expect(run.error()).toBeUndefined();
	expect(JSON.stringify(run.outputs('Consumer')[0].json)).toContain('Hello');
	expectNoToken(everythingShown(run));
});

test('the credential test answers within its 15 s against a body that trickles', async () => {
	const pkg = await assistantPackage();
	const started = Date.now();
	const result = await testCredential(pkg, 'assistantApi', {
		baseUrl: `${server.origin}/trickle`,
		accessToken: TOKEN,
	});
	expect(result).toEqual({
		status: 'Error',
		message: expect.stringMatching(/^No answer at 127\.0\.0\.1:\d+ within 15 seconds/),
	});
	expect(Date.now() - started).toBeLessThan(17_000);
}, 25_000);
