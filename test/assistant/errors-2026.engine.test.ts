/**
 * What the live service answered its users in 2026 (docs/api.md#errors-the-live-service-answered-in-2026),
 * through the Ask node in n8n's engine: each failure ends the item with a message a user can act
 * on, the HTTP status and the service's own words; the ones waiting cannot help are not retried,
 * and a run that failed is never sent again.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { COMPLETED_SUCCEEDED } from '../emulator/frames2026';
import { aiNodeSdkResolves } from '../helpers/ai-node-sdk';
import { assistantNode, emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { conversationJson, serveScript, sse, turn } from '../helpers/scripted-server';
import { opening } from '../helpers/stream-2026';
import { runAgent } from '../helpers/tool';

const TOKEN = 'tok_errors_2026_suite';
/** n8n 2.x (the AI node SDK resolves); this suite runs under n8n 1.x too (jest.n8n1.config.js). */
const onN8n2 = aiNodeSdkResolves();
// A running conversation says to read it again after 20 ms, so a recovery does not wait 5 s.
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20 });

const ONE_RETRY = { retries: 1 };

describe.each([false, true])('Stream %s', (stream) => {
	const options = { stream, ...ONE_RETRY };

	test.each([
		[
			'model-disabled',
			'The model is disabled (HTTP 403): Model is disabled: vercel:zai/glm-5.2',
			'403',
			/Pick another model/,
		],
		[
			'unknown-provider',
			"The model's provider is unknown to the service (HTTP 502): Unknown provider",
			'502',
			/Choose a model in Model/,
		],
		[
			'model-not-found',
			"The account's default model is not available (HTTP 503): model_not_found",
			'503',
			/Choose a model in Model/,
		],
		[
			'insufficient-balance',
			"The account or the model's provider is out of credit (HTTP 402): Insufficient Balance",
			'402',
			/top up/,
		],
		[
			'conversation-not-found',
			'The conversation was not found (HTTP 404): Conversation not found',
			'404',
			/Check Conversation ID/,
		],
	])('%s: said as what it is, sent once', async (fault, message, httpCode, advice) => {
		const input = `Hello (${fault}, ${String(stream)}) #fault=${fault}`;
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure?.message).toContain(message);
		expect(run.failure?.httpCode).toBe(httpCode);
		expect(run.failure?.description).toMatch(advice);
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test('model_not_found for a model the ask named says the model was not found', async () => {
		const run = await assistant.run(
			{
				input: `Hello (${String(stream)}) #fault=model-not-found`,
				model: { __rl: true, mode: 'id', value: 'openai:gpt-5-mini' },
				options,
			},
			{ streaming: stream },
		);
		expect(run.failure?.message).toMatch(/^The model was not found \(HTTP 503\): model_not_found/);
	});

	test("On Error > Continue (using error output): 503 model_not_found for the default model: the error item's message says to choose a model", async () => {
		const run = await assistant.run(
			{ input: `Hello (${String(stream)}) #fault=model-not-found`, options: { stream } },
			{ streaming: stream, node: { onError: 'continueErrorOutput' } },
		);
		const [, errors] = run.data.data.resultData.runData.Ask[0].data?.main ?? [];
		expect(errors).toHaveLength(1);
		expect(errors?.[0].pairedItem).toEqual({ item: 0 });
		// The error output's item is { error: <message> }: what later nodes (and a user's
		// notification) read. The status and the service's words stay in it.
		expect(String(errors?.[0].json.error)).toMatch(
			/^The account's default model is not available \(HTTP 503\): model_not_found.*\. Choose a model in Model\.$/,
		);
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test("502 Unknown provider for an ask that named no model blames the account's default model, not a Model ID", async () => {
		const run = await assistant.run(
			{ input: `Hello (${String(stream)}) #fault=unknown-provider`, options: { stream } },
			{ streaming: stream, node: { onError: 'continueRegularOutput' } },
		);
		const [item] = run.outputs('Ask');
		expect(assistant.askRequests()[0].body).not.toHaveProperty('model_name');
		expect(String(item.json.error)).toBe(
			"The model's provider is unknown to the service (HTTP 502): Unknown provider",
		);
		expect(String(item.json.description)).not.toMatch(/The Model ID names/);
		expect(String(item.json.description)).toMatch(
			/account's default model names a provider the service does not know\. Choose a model in Model/,
		);
	});

	test('502 Unknown provider for a model the ask named says its Model ID names the provider', async () => {
		const run = await assistant.run(
			{
				input: `Hello (${String(stream)}) #fault=unknown-provider`,
				model: { __rl: true, mode: 'id', value: 'nosuch:gpt-5-mini' },
				options,
			},
			{ streaming: stream },
		);
		expect(run.failure?.message).toBe(
			"The model's provider is unknown to the service (HTTP 502): Unknown provider",
		);
		expect(run.failure?.description).toMatch(/^The Model ID names a provider/);
	});

	test("a provider's 429 inside a 502 is waited out like a 429, then said as a rate limit", async () => {
		const run = await assistant.run(
			{ input: `Hello (${String(stream)}) #fault=provider-429`, options },
			{ streaming: stream },
		);
		expect(run.failure?.message).toMatch(
			/^The model's provider is rate limiting the account \(HTTP 502\): The model stream was interrupted/,
		);
		// Retries 1: the first ask and one retry, never more.
		expect(assistant.askRequests()).toHaveLength(2);
	});

	test("Retries 0: a provider's 429 inside a 502 is not retried, and the advice says so rather than that retries waited", async () => {
		const run = await assistant.run(
			{ input: `Hello (${String(stream)}) #fault=provider-429`, options: { stream, retries: 0 } },
			{ streaming: stream, node: { onError: 'continueRegularOutput' } },
		);
		const [item] = run.outputs('Ask');
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(String(item.json.error)).toMatch(
			/^The model's provider is rate limiting the account \(HTTP 502\)/,
		);
		expect(assistant.askRequests()).toHaveLength(1);
		expect(String(item.json.description)).not.toMatch(/retries waited/i);
		expect(String(item.json.description)).toMatch(/not retried: raise Options > Retries/);
	});

	test("Retries 1: a provider's 429 inside a 502 that outlasts the retry says the retries waited for it", async () => {
		const run = await assistant.run(
			{ input: `Hello (${String(stream)}) #fault=provider-429`, options },
			{ streaming: stream, node: { onError: 'continueRegularOutput' } },
		);
		const [item] = run.outputs('Ask');
		expect(assistant.askRequests()).toHaveLength(2);
		expect(String(item.json.description)).toMatch(
			/^The retries waited for it and it did not clear/,
		);
	});

	test('a `completed` whose status is not `succeeded` fails the item with the run’s error, once', async () => {
		const input = `Hello (${String(stream)}) #fault=completed-failed`;
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure?.message).toMatch(/^The assistant's run failed: /);
		expect(run.failure?.message).not.toMatch(/ended before the answer was complete/);
		expect(assistant.emulator.stats.startedAsks.get(input)).toBe(1);
		expect(assistant.askRequests()).toHaveLength(1);
	});
});

test('`failed` for want of a session, before any part: a full pool, waited out and asked again (docs/api.md#full-session-pool)', async () => {
	const input = 'Busy #fault=pool-busy-event&retryAfter=1&times=1';
	const run = await assistant.run({ input, options: ONE_RETRY });
	expect(run.failure).toBeUndefined();
	expect(String(run.json.output)).toContain('You said: "Busy');
	// The first ask was refused in a `failed` event: no session ran it.
	expect(assistant.askRequests()).toHaveLength(2);
});

test('a 200 JSON answer with an empty output is read from the conversation, not returned empty', async () => {
	const input = 'Hello #fault=empty-json';
	const run = await assistant.run({ input, options: ONE_RETRY });
	expect(run.failure).toBeUndefined();
	expect(String(run.json.output)).toContain('You said: "Hello');
	expect(run.json.recovered).toBe(true);
	expect(assistant.emulator.stats.startedAsks.get(input)).toBe(1);
});

describe('an accepted ask without an answer, whose conversation does not show it: the error says how the response ended', () => {
	const CONVERSATION = 'con_NotShownAnswer001';
	const responses = {
		// A whole 200 JSON answer, empty (seen 2026-09-27): nothing broke off.
		'empty JSON': {
			answer: (response: ServerResponse) => {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ output: '', conversation_id: CONVERSATION }));
			},
			message: `The assistant finished without an answer, and conversation ${CONVERSATION} does not show the ask`,
		},
		// The same, declared an event stream: read as JSON by its first character, not as a stream
		// that carried no event.
		'empty JSON declared an event stream': {
			answer: (response: ServerResponse) => {
				response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
				response.end(`\n${JSON.stringify({ output: '', conversation_id: CONVERSATION })}`);
			},
			message: `The assistant finished without an answer, and conversation ${CONVERSATION} does not show the ask`,
		},
		// A JSON answer in another shape: what it held is named, by its fields, never their values.
		'JSON without output': {
			answer: (response: ServerResponse) => {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ answer: 'Hi there', conversation_id: CONVERSATION }));
			},
			message: `The assistant finished without an answer: its JSON answer has no "output" (its fields: answer, conversation_id), and conversation ${CONVERSATION} does not show the ask`,
		},
		'JSON that is no object': {
			answer: (response: ServerResponse) => {
				response.writeHead(200, {
					'content-type': 'application/json',
					'x-conversation-id': CONVERSATION,
				});
				response.end(JSON.stringify(['Hi there']));
			},
			message: `The assistant finished without an answer: its JSON answer is a list, not an object, and conversation ${CONVERSATION} does not show the ask`,
		},
		// The turn's opening, then the server closes the stream cleanly, without an end.
		'stream closed without an end': {
			answer: (response: ServerResponse) => {
				response.writeHead(200, {
					'content-type': 'text/event-stream; charset=utf-8',
					'x-conversation-id': CONVERSATION,
				});
				response.end(opening());
			},
			message: `The stream ended before the answer was complete, and conversation ${CONVERSATION} does not show the ask`,
		},
	};

	async function against<T>(
		answer: (response: ServerResponse) => void,
		shows: 'nothing' | 'the ask',
		run: (credential: ReturnType<typeof emulatorCredential>) => Promise<T>,
	) {
		let input = '';
		const server = await serveScript(
			(response, _n, body) => {
				input = body?.input ?? '';
				answer(response);
			},
			(response) => conversationJson(response, 'idle', shows === 'nothing' ? [] : turn(input)),
		);
		try {
			const result = await run(emulatorCredential(server.baseUrl, TOKEN));
			return { result, asks: server.asks.length };
		} finally {
			await server.close();
		}
	}

	describe.each(Object.entries(responses))('%s', (_name, { answer, message }) => {
		test.each([false, true])(
			'Ask, Stream %s: one error item, paired, sent once',
			async (stream) => {
				const { result: run, asks } = await against(answer, 'nothing', async (credential) =>
					assistant.run(
						{ input: 'Hello', options: { stream, retries: 1 } },
						{
							credentials: [credential],
							streaming: stream,
							node: { onError: 'continueRegularOutput' },
						},
					),
				);
				const [item] = run.outputs('Ask');
				expect(item.pairedItem).toEqual({ item: 0 });
				expect(item.json.error).toBe(message);
				expect(String(item.json.description)).toMatch(/not sent again/);
				expect(asks).toBe(1);
			},
		);

		test('the agent tool: the agent reads the same message', async () => {
			const { result: agent, asks } = await against(answer, 'nothing', async (credential) => {
				const tool = assistantNode(
					assistant.pkg,
					'Personal Assistant',
					{ operation: 'ask', input: "={{ $fromAI('question', 'The question', 'string') }}" },
					{ type: `${assistant.pkg.name}.assistantTool` },
				);
				return (
					await runAgent(assistant.pkg, [tool], [{ args: { question: 'Hello' } }], {
						credentials: [credential],
						// n8n 1.x's agent calls its tools itself (no engine requests there).
						mode: onN8n2 ? 'engineRequest' : 'invoke',
					})
				).agent;
			});
			// Its first line: an agent that calls the tool itself (n8n 1.x) reads the details after it.
			expect(String(agent.steps[0].error).split('\n')[0]).toBe(message);
			expect(asks).toBe(1);
		});
	});

	test.each([
		['empty JSON', ''],
		[
			'JSON without output',
			': its JSON answer has no "output" (its fields: answer, conversation_id)',
		],
	] as const)(
		'%s, the conversation showing the ask without an answer: the message says so once',
		async (name, said) => {
			const { result: run } = await against(responses[name].answer, 'the ask', async (credential) =>
				assistant.run({ input: 'Hello' }, { credentials: [credential] }),
			);
			expect(run.failure?.message).toBe(
				`The assistant finished without an answer (conversation ${CONVERSATION})${said}`,
			);
			// A field's name, never its value.
			expect(run.failure?.message).not.toContain('Hi there');
		},
	);
});

test('an unknown stream event is named in the log once per run, by name only', async () => {
	const input = 'Hello #fault=unknown-events';
	const run = await assistant.run({ input }, { items: [{}, {}, {}] });
	expect(run.failure).toBeUndefined();
	const warnings = run.logs.filter((line) => line.includes('does not know'));
	const names = warnings.map((line) => /"([^"]+)"/.exec(line)?.[1]);
	// Each name once, whatever the number of items.
	expect(new Set(names).size).toBe(names.length);
	expect(names.length).toBeGreaterThan(0);
});

describe('unknown stream events from a scripted server', () => {
	const text = (content: string) =>
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index: 0,
			part: { id: null, part_kind: 'text', content },
			metadata: { zmid: 'z1', runner_id: 'r' },
		});
	const raw = (event: string, data: unknown) =>
		`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
	const warnings = (logs: string[]) =>
		logs.filter((line) => line.startsWith('[warn]') && line.includes('does not know'));

	/** A run against a server that answers every ask with `body(n)`, n counting the asks. */
	async function runAgainst(body: (n: number) => string, items: IDataObject[] = [{}]) {
		let n = 0;
		const server = await serveScript(
			(response) => {
				response.writeHead(200, {
					'content-type': 'text/event-stream; charset=utf-8',
					'x-conversation-id': 'con_UnknownEvents0001',
				});
				response.end(body(n++));
			},
			(response) => conversationJson(response, 'idle', []),
		);
		try {
			return await assistant.run(
				{ input: '={{ "Hi " + $json.i }}', options: { stream: true, retries: 0 } },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)], streaming: true, items },
			);
		} finally {
			await server.close();
		}
	}

	test('hostile names (very long, control characters, bidi overrides): printable and bounded', async () => {
		const names = [
			'L'.repeat(100_000),
			'Esc\u001b[31mRED\u0007',
			'Nul\u0000Byte',
			'Line\u2028Sep',
			'Bidi\u202egnp.exe',
			'Del\u007f',
		];
		const run = await runAgainst(() => text('Half') + names.map((name) => raw(name, {})).join(''));
		const message = run.failure?.message ?? '';
		expect(message).toContain('does not know');
		expect(message.length).toBeLessThan(2000);
		for (const line of [message, ...warnings(run.logs)]) {
			expect(line).not.toMatch(
				// eslint-disable-next-line no-control-regex
				/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/,
			);
		}
	});

	test('the token inside an unknown event name, also where the name is cut: never shown', async () => {
		const names = [`X_${TOKEN}`, `${'a'.repeat(70)}${TOKEN}`, `${'b'.repeat(76)}${TOKEN}`];
		const run = await runAgainst(() => text('Half') + names.map((name) => raw(name, {})).join(''));
		const all = JSON.stringify([run.failure, run.logs, run.chunks]);
		expect(run.failure?.message).toContain('does not know');
		// Any 6-character run of the token is a leak of the token.
		for (let i = 0; i + 6 <= TOKEN.length; i++) expect(all).not.toContain(TOKEN.slice(i, i + 6));
	});

	test('thousands of distinct names in one stream: the error and the warnings are bounded', async () => {
		let body = text('Half');
		for (let i = 0; i < 5000; i++) body += raw(`Unknown${i}`, { i });
		const run = await runAgainst(() => body);
		expect(run.failure?.message).toContain('Unknown0');
		expect((run.failure?.message ?? '').length).toBeLessThan(2000);
		expect(warnings(run.logs).length).toBeLessThanOrEqual(10);
	});

	test('new names in every item of a run: ten warned of by name, then one warning that more came', async () => {
		const items = Array.from({ length: 30 }, (_, i) => ({ i }));
		const run = await runAgainst((n) => {
			let body = text('Fine');
			for (let i = 0; i < 10; i++) body += raw(`Evt${n * 10 + i}`, {});
			return body + sse('completed', COMPLETED_SUCCEEDED);
		}, items);
		expect(run.failure).toBeUndefined();
		const told = warnings(run.logs);
		expect(told).toHaveLength(11);
		expect(told.slice(0, 10).every((line) => /"Evt\d+"/.test(line))).toBe(true);
		expect(told[10]).toContain('more events this node does not know');
	});
});
