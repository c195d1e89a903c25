/**
 * Exactly once (docs/api.md#exactly-once): an ask the assistant accepted is never sent again, and
 * an answer it gave is never lost. The Ask operation and the agent tool, in the real n8n-core
 * engine, against an emulator whose turns run on after their connection fails
 * (test/emulator/conversations.js): for every failure that can come after acceptance, with
 * Stream on and off, the assistant started the ask once and the item gets the answer, read from
 * the conversation, or an error naming the conversation.
 *
 * The emulator tells the node to read a running conversation again after 20 ms
 * (`retry-after-ms`), so no test waits the public client's 5 s schedule.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { emulatorCredential } from '../helpers/assistant';

import { answeredConversation, heldAnswer as heldAnswerOf } from '../helpers/conversations';
import { useEmulator, type AssistantRun, type RunFailure } from '../helpers/emulatorFixture';
import { runAgent } from '../helpers/tool';

const TOKEN = 'tok_EXACTLY_once_5e4d3c2b1a';
const TOOL_TYPE = 'n8n-nodes-assistant.assistantTool';
const SCHEMA = {
	type: 'object',
	properties: { summary: { type: 'string' }, score: { type: 'number' } },
	required: ['summary', 'score'],
};

// A running conversation says to read it again after 20 ms.
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20, dialect: 'live' });

const conversation = async () => (await answeredConversation(assistant.emulator)).id;
const heldAnswer = (id: string) => heldAnswerOf(assistant.emulator, id);

/** How many times the node sent the ask with this input. */
const posts = (input: string) =>
	assistant.emulator.stats.requests.filter(
		(request) =>
			request.path === '/assistant/ask' && (request.body as IDataObject)?.input === input,
	).length;
const started = (input: string) => assistant.emulator.stats.startedAsks.get(input) ?? 0;
/** The node's reads of a conversation (`GET /conversations/{id}`). */
const conversationReads = () =>
	assistant.emulator.stats.requests.filter((request) => request.path.startsWith('/conversations/'));

/** The conversation's state as the emulator holds it: 'running' while its turn goes on. */
async function conversationState(id: string): Promise<unknown> {
	const { baseUrl, token } = assistant.emulator;
	const res = await fetch(`${baseUrl}/conversations/${encodeURIComponent(id)}`, {
		headers: { authorization: `Bearer ${token}` },
	});
	return ((await res.json()) as IDataObject).state;
}

/**
 * The failures after acceptance (test/emulator/README.md), each with where its conversation is
 * known from: the ask continues one (its id is known before it is sent), or a new one whose id
 * the stream's `x-conversation-id` header gave before the failure.
 */
const AFTER_ACCEPTANCE: Array<[fault: string, continues: boolean, what: string]> = [
	['drop-after-accept', true, 'the connection dropped after the ask was accepted'],
	['drop-after-headers', false, 'the stream dropped right after its headers'],
	['reset-mid-stream', false, 'the stream cut mid-answer'],
	['no-end', false, 'the stream closed without End'],
	['empty-answer', false, 'a 200 with an empty answer'],
	['accepted-502', true, 'a 502 from a proxy after acceptance'],
];

describe('Ask: a failure after acceptance, the answer read from the conversation, the ask started once', () => {
	for (const stream of [false, true]) {
		test.each(AFTER_ACCEPTANCE)(
			`#fault=%s (Stream ${stream ? 'on' : 'off'}), continuing a conversation: %s`,
			async (fault, continues) => {
				const id = continues ? await conversation() : '';
				const input = `Mail the report #fault=${fault}&ms=150&times=1`;
				const { json, failure: error } = await assistant.run({
					input,
					conversationId: id,
					options: { stream, retries: 2 },
				});
				expect(error).toBeUndefined();
				const conversationId = String(json.conversation_id);
				if (continues) expect(conversationId).toBe(id);
				expect(json).toEqual({
					output: await heldAnswer(conversationId),
					conversation_id: conversationId,
					recovered: true,
				});
				expect(json.output).toContain(`You said: "${input}"`);
				expect(started(input)).toBe(1);
				expect(posts(input)).toBe(1);
			},
		);

		test(`a 409 on its own conversation waits until it is idle, then asks once (Stream ${stream ? 'on' : 'off'})`, async () => {
			const id = await conversation();
			const input = 'Continue #fault=conversation-busy&ms=300&times=1';
			const {
				json,
				failure: error,
				ms,
			} = await assistant.run({ input, conversationId: id, options: { stream } });
			expect(error).toBeUndefined();
			expect(json).toEqual({ output: expect.stringContaining(input), conversation_id: id });
			expect(started(input)).toBe(1);
			expect(posts(input)).toBe(2);
			// Waited through the conversation, not the 2.5 s pause of a blind retry.
			expect(ms).toBeGreaterThanOrEqual(250);
			expect(ms).toBeLessThan(2500);
		});
	}

	test('a stream that stalls past the idle limit is given up; the answer comes from the conversation', async () => {
		const input = 'Stall #fault=stall-stream&ms=600';
		const { json, ms } = await assistant.run({
			input,
			options: { stream: true, idleTimeoutSeconds: 0.2 },
		});
		expect(json).toMatchObject({ output: expect.stringContaining(input), recovered: true });
		expect(started(input)).toBe(1);
		// The node hung up on the silent stream: the emulator never delivered it in full.
		expect(assistant.emulator.stats.completedAsks.get(input)).toBeUndefined();
		expect(ms).toBeLessThan(3000);
	});

	test('a structured answer comes back whole from the output tool call, the same object', async () => {
		const input = 'Rate the release';
		const plain = await assistant.run({
			input,
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(SCHEMA),
		});
		const faulted = `${input} #fault=drop-after-headers&ms=100`;
		const { json } = await assistant.run({
			input: faulted,
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(SCHEMA),
		});
		expect(json.recovered).toBe(true);
		expect(Object.keys(json.output as IDataObject).sort()).toEqual(['score', 'summary']);
		expect((json.output as IDataObject).score).toBe((plain.json.output as IDataObject).score);
		expect(started(faulted)).toBe(1);
	});

	test('a structured answer the conversation does not hold whole: an error naming the conversation', async () => {
		const input = 'Rate it #fault=reset-mid-stream&ms=50&object=cut';
		const { failure: error } = await assistant.run({
			input,
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(SCHEMA),
		});
		expect(error?.message).toMatch(
			/^The answer for the JSON Schema is not whole in conversation conv_\w+$/,
		);
		expect(error?.description).toMatch(/not sent again/);
		expect(started(input)).toBe(1);
	});

	test('a streaming workflow gets the pieces sent before the cut once, then the rest', async () => {
		const input =
			'Tell me a long story about the sea and the ships on it #fault=reset-mid-stream&ms=80';
		const run = await assistant.run({ input, options: { stream: true } }, { streaming: true });
		const pieces = run.chunks
			.filter((chunk) => (chunk.metadata as IDataObject)?.nodeName === 'Ask')
			.filter((chunk) => chunk.type === 'item')
			.map((chunk) => String(chunk.content));
		expect(run.json.recovered).toBe(true);
		expect(pieces.length).toBeGreaterThan(2);
		expect(pieces.join('')).toBe(run.json.output);
		expect(started(input)).toBe(1);
	});
});

describe('a 2026 stream broken off after a tool round: the turn’s text, as the stream unbroken gives it', () => {
	/** The Ask node's pieces to a streaming workflow. */
	const pieces = (run: AssistantRun) =>
		run.chunks
			.filter((chunk) => (chunk.metadata as IDataObject)?.nodeName === 'Ask')
			.filter((chunk) => chunk.type === 'item')
			.map((chunk) => String(chunk.content));

	for (const stream of [false, true]) {
		test(`Stream ${stream ? 'on, a streaming workflow' : 'off'}: the text written before the tool call too, the same as the same ask unbroken`, async () => {
			// The response that calls the tool writes "Let me look that up." first; the stream breaks
			// halfway through its text pieces, in the answer's response after the tool round.
			const input = `Check the news #shape=2026+tool-lead #fault=reset-mid-stream&ms=80&times=1`;
			const broken = await assistant.run({ input, options: { stream } }, { streaming: stream });
			expect(broken.failure).toBeUndefined();
			expect(broken.json.recovered).toBe(true);
			expect(started(input)).toBe(1);
			// The same ask again (its fault used up), in a new conversation: the stream unbroken.
			const whole = await assistant.run({ input, options: { stream } }, { streaming: stream });
			expect(whole.json.recovered).toBeUndefined();
			expect(whole.json.output).toMatch(/^Let me look that up\.\n\n\[model=.*You said: "Check/);
			expect(broken.json.output).toBe(whole.json.output);
			if (stream) {
				// Each piece once, nothing missing: the pieces before the break, then the rest.
				expect(pieces(broken).length).toBeGreaterThan(2);
				expect(pieces(broken).join('')).toBe(broken.json.output);
				expect(pieces(whole).join('')).toBe(whole.json.output);
			}
		});
	}
});

describe('the agent tool: the same, for the agent’s tool call', () => {
	const FROM_AI = {
		operation: 'ask',
		input: "={{ $fromAI('question', 'The question', 'string') }}",
		conversationId: "={{ $fromAI('conversationId', 'A conversation to continue', 'string', '') }}",
	};

	async function callTool(question: string, conversationId: string, stream: boolean) {
		const tool = assistant.node(
			'Personal Assistant',
			{ ...FROM_AI, options: { stream } },
			{ type: TOOL_TYPE },
		);
		const calls = [{ args: { question, conversationId } }];
		const { agent, run } = await runAgent(assistant.pkg, [tool], calls, {
			credentials: [assistant.credential],
		});
		assistant.runs.push(run);
		const [step] = agent.steps;
		return JSON.parse(String(step.observation)) as IDataObject[];
	}

	for (const stream of [false, true]) {
		test.each(AFTER_ACCEPTANCE)(
			`#fault=%s (Stream ${stream ? 'on' : 'off'}): the agent gets the answer once`,
			async (fault, continues) => {
				const id = continues ? await conversation() : '';
				const input = `Book the room #fault=${fault}&ms=150&times=1`;
				const [answer] = await callTool(input, id, stream);
				expect(answer).toEqual({
					output: await heldAnswer(String(answer.conversation_id)),
					conversation_id: continues ? id : expect.stringMatching(/^conv_/),
					recovered: true,
				});
				expect(started(input)).toBe(1);
				expect(posts(input)).toBe(1);
			},
		);

		test(`a 409 on its own conversation (Stream ${stream ? 'on' : 'off'}): waited out, asked once`, async () => {
			const id = await conversation();
			const input = 'Continue #fault=conversation-busy&ms=200&times=1';
			const [answer] = await callTool(input, id, stream);
			expect(answer).toEqual({ output: expect.stringContaining(input), conversation_id: id });
			expect(started(input)).toBe(1);
		});
	}
});

describe('where the answer cannot be had, an error naming the conversation; nothing sent again', () => {
	test('still answering when Timeout runs out', async () => {
		const input = 'Long job #fault=drop-after-headers&ms=10000';
		const { failure: error, ms } = await assistant.run({
			input,
			options: { timeoutMinutes: 0.03 },
		});
		expect(error?.message).toMatch(
			/^The assistant did not answer within 1\.8 s; it is still answering in conversation conv_\w+$/,
		);
		expect(error?.description).toMatch(/not sent again/);
		expect(started(input)).toBe(1);
		expect(ms).toBeLessThan(4000);
	});

	test('cancelling the execution while the node waits for the conversation stops at once', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 400);
		const input = 'Long job #fault=reset-mid-stream&ms=10000';
		const run = await assistant.run({ input }, { signal: controller.signal });
		expect(run.data.status).toBe('canceled');
		// At once: the node had been reading the conversation, whose turn (10 s) still runs.
		const [read] = conversationReads();
		expect(read).toBeDefined();
		const id = decodeURIComponent(read.path.slice('/conversations/'.length));
		expect(await conversationState(id)).toBe('running');
		// Only a hang fails this bound; speed is measured in bench/.
		expect(run.ms).toBeLessThan(5_000);
		expect(started(input)).toBe(1);
	});
});

/**
 * Asks go to `ask`; a conversation read gets `messages` (idle), or goes to `read` when it
 * returns true (its number: 1 for the first read); every request is recorded.
 */
async function serve(
	ask: (response: http.ServerResponse) => void,
	messages: IDataObject[],
	read?: (response: http.ServerResponse, number: number) => boolean,
): Promise<{ baseUrl: string; paths: string[]; close: () => Promise<void> }> {
	const paths: string[] = [];
	const server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			paths.push(request.url ?? '');
			if (request.url === '/assistant/ask') return ask(response);
			const reads = paths.filter((path) => path.startsWith('/conversations/')).length;
			if (read?.(response, reads)) return;
			response.writeHead(200, { 'content-type': 'application/json', 'retry-after-ms': '20' });
			response.end(JSON.stringify({ state: 'idle', messages }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		paths,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

describe('against a server that answers as a test says (its conversation read again after 20 ms)', () => {
	test('a stream cut after it began, its conversation not showing the ask on two reads: never sent again', async () => {
		const server = await serve((response) => {
			response.writeHead(200, {
				'content-type': 'text/event-stream',
				'x-conversation-id': 'con_CutAfterDispatch01',
			});
			// The run was dispatched; the user's message is stored after this (2026 captures).
			response.write(
				'event: AgentRuntimeStreamChunk\ndata: {"type":"status","status":"dispatching"}\n\n',
			);
			setTimeout(() => response.destroy(), 20);
		}, []);
		try {
			const { failure: error } = await assistant.run(
				{ input: 'Send the report' },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(error?.message).toBe(
				'The response broke off after the assistant had accepted the ask, and conversation con_CutAfterDispatch01 does not show it',
			);
			expect(error?.description).toMatch(/not sent again/);
			expect(server.paths).toEqual([
				'/assistant/ask',
				'/conversations/con_CutAfterDispatch01',
				'/conversations/con_CutAfterDispatch01',
			]);
		} finally {
			await server.close();
		}
	});

	test('a 502 wrapping a provider’s 429, the turn taken without an answer: the error keeps the status and the words', async () => {
		const input = 'Summarize my week';
		const server = await serve(
			(response) => {
				response.writeHead(502, { 'content-type': 'application/json' });
				response.end(
					JSON.stringify({
						error:
							"The model stream was interrupted... (status_code: 429, model_name: zai/glm-5.2, body: You've exceeded your subscription rate limits)",
					}),
				);
			},
			[{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: input }] }],
		);
		try {
			const { failure: error } = await assistant.run(
				{ input, conversationId: 'con_RateLimited00001' },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(error?.message).toMatch(
				/^The assistant finished without an answer \(conversation con_RateLimited00001\): .*HTTP 502.*status_code: 429/,
			);
			expect(error?.httpCode).toBe('502');
			expect(error?.description).toMatch(/not sent again/);
			expect(server.paths.filter((path) => path === '/assistant/ask')).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});

describe('a conversation read that trickles its body', () => {
	/** A stream cut right after its headers, which named conversation `id`. */
	const cutAfterHeaders = (id: string) => (response: http.ServerResponse) => {
		response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
		response.write(': dispatched\n\n');
		setTimeout(() => response.destroy(), 20);
	};
	/** A JSON body that never ends: a space every 100 ms. */
	const trickle = (response: http.ServerResponse) => {
		response.writeHead(200, { 'content-type': 'application/json' });
		const timer = setInterval(() => response.write(' '), 100);
		response.on('close', () => clearInterval(timer));
	};

	test('until Timeout runs out: the error says the conversation could not be read, not that it is still answering', async () => {
		const id = 'con_TrickledRead00001';
		const server = await serve(cutAfterHeaders(id), [], (response) => {
			trickle(response);
			return true;
		});
		try {
			const { failure: error } = await assistant.run(
				{ input: 'Send the report', options: { timeoutMinutes: 0.03 } },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(error?.message).toBe(
				`The answer could not be read from conversation ${id} within 1.8 s: GET /conversations/${id} had not answered when the time ran out`,
			);
			expect(error?.description).toMatch(/not sent again/);
			expect(server.paths.filter((path) => path === '/assistant/ask')).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	test('for longer than a read’s 30 s: that read is given up and the conversation read again, its answer taken', async () => {
		const id = 'con_TrickledRead00002';
		const input = 'Summarize the week';
		const messages = [
			{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: input }] },
			{ kind: 'response', parts: [{ part_kind: 'text', content: 'A quiet week.' }] },
		];
		const server = await serve(cutAfterHeaders(id), messages, (response, number) => {
			if (number > 1) return false;
			trickle(response);
			return true;
		});
		try {
			const { json, ms } = await assistant.run(
				{ input, options: { timeoutMinutes: 1 } },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(json).toEqual({ output: 'A quiet week.', conversation_id: id, recovered: true });
			// The first read was given up at 30 s, the second made on the schedule's first pause.
			expect(ms).toBeGreaterThan(30_000);
			expect(server.paths).toEqual([
				'/assistant/ask',
				`/conversations/${id}`,
				`/conversations/${id}`,
			]);
		} finally {
			await server.close();
		}
	}, 60_000);
});

describe('when the conversation shows the ask was never taken, it is sent again', () => {
	test('a connection reset before the service took the ask, continuing a conversation', async () => {
		const id = await conversation();
		assistant.emulator.queueFault({ name: 'reset', path: '/assistant/ask' }, 1);
		const input = 'Continue after a reset';
		const { json } = await assistant.run({ input, conversationId: id });
		expect(json).toEqual({ output: expect.stringContaining(input), conversation_id: id });
		expect(posts(input)).toBe(2);
		expect(started(input)).toBe(1);
	});

	test('with Retries 0, a 409 fails at once, as before', async () => {
		const id = await conversation();
		const input = 'No retries #fault=conversation-busy&ms=1000&times=1';
		const { failure: error } = await assistant.run({
			input,
			conversationId: id,
			options: { retries: 0 },
		});
		expect(error?.message).toMatch(/HTTP 409/);
		// At once: sent once, and the busy conversation was not waited through.
		expect(posts(input)).toBe(1);
		expect(conversationReads()).toHaveLength(0);
		expect(started(input)).toBe(0);
	});
});

describe('where the conversation cannot be checked: today’s behaviour, and the error says what was not checked', () => {
	test.each([404, 401, 403])(
		'GET /conversations answers %i after a stream cut: the broken-stream error, with what could not be checked',
		async (status) => {
			assistant.emulator.queueFault({ name: String(status), path: '/conversations/*' }, 20);
			const input = `Cut #fault=reset-mid-stream&ms=50`;
			const { failure: error } = await assistant.run({ input });
			expect(error?.message).toMatch(/^The stream broke off before the answer was complete/);
			expect(error?.description).toMatch(
				new RegExp(
					`could not look for the answer in conversation conv_\\w+: GET /conversations/conv_\\w+ answered: .*HTTP ${status}`,
				),
			);
			expect(started(input)).toBe(1);
		},
	);

	test('GET /conversations answers 404 after a 502: retried as before (the ask may start twice)', async () => {
		assistant.emulator.queueFault({ name: '404', path: '/conversations/*' }, 20);
		const id = await conversation();
		const input = 'Retry blind #fault=accepted-502&ms=50&times=1';
		const { json } = await assistant.run({ input, conversationId: id });
		expect(json.output).toContain(input);
		expect(posts(input)).toBe(2);
	});

	test('no conversation known (a 502 before any id, new conversation): retried as before, documented', async () => {
		const input = 'New and lost #fault=accepted-502&ms=50&times=1';
		const { json } = await assistant.run({ input });
		expect(json.output).toContain(input);
		expect(json.recovered).toBeUndefined();
		// docs/api.md#recovery-after-a-failure: without a conversation, nothing can be checked.
		expect(started(input)).toBe(2);
	});
});

describe('the access token appears in no output, error or log line', () => {
	test('across every run above', () => {
		expect(assistant.runs.length).toBeGreaterThan(30);
		for (const run of assistant.runs) {
			const error = run.error() as unknown as RunFailure;
			const seen = JSON.stringify({ data: run.data, error, stack: error?.stack, logs: run.logs });
			expect(seen).not.toContain(TOKEN);
		}
	});
});
