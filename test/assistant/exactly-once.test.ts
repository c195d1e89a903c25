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
import type { IDataObject, INode } from 'n8n-workflow';

import { startEmulator, type Emulator } from '../emulator/server';
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../helpers/assistant';
import { answeredConversation, heldAnswer as heldAnswerOf } from '../helpers/conversations';
import type { EngineCredential, RunOptions, RunResult } from '../helpers/engine';
import { runAgent } from '../helpers/tool';

const TOKEN = 'tok_EXACTLY_once_5e4d3c2b1a';
const TOOL_TYPE = 'n8n-nodes-assistant.assistantTool';
const SCHEMA = {
	type: 'object',
	properties: { summary: { type: 'string' }, score: { type: 'number' } },
	required: ['summary', 'score'],
};

let emulator: Emulator;
let credential: EngineCredential;
const runs: RunResult[] = [];

beforeAll(async () => {
	emulator = await startEmulator({ token: TOKEN, conversationRetryAfterMs: 20, dialect: 'live' });
	credential = emulatorCredential(emulator.baseUrl, TOKEN);
});
afterAll(async () => await emulator.close());
beforeEach(() => emulator.reset());

interface ErrorShape {
	message: string;
	description?: string;
	httpCode?: string | null;
}

async function ask(
	parameters: IDataObject,
	options: Partial<RunOptions> = {},
): Promise<{ json: IDataObject; error?: ErrorShape; run: RunResult; ms: number }> {
	const pkg = await assistantPackage();
	const node = assistantNode(pkg, 'Ask', { operation: 'ask', ...parameters });
	const started = Date.now();
	const run = await runWithItems([{}], [node], { credentials: [credential], ...options });
	runs.push(run);
	const error = run.error() as unknown as ErrorShape | undefined;
	return {
		json: error ? {} : run.outputs('Ask')[0].json,
		error,
		run,
		ms: Date.now() - started,
	};
}

const conversation = async () => (await answeredConversation(emulator)).id;
const heldAnswer = (id: string) => heldAnswerOf(emulator, id);

/** How many times the node sent the ask with this input. */
const posts = (input: string) =>
	emulator.stats.requests.filter(
		(request) =>
			request.path === '/assistant/ask' && (request.body as IDataObject)?.input === input,
	).length;
const started = (input: string) => emulator.stats.startedAsks.get(input) ?? 0;

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
				const { json, error } = await ask({
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
			const { json, error, ms } = await ask({ input, conversationId: id, options: { stream } });
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
		const { json, ms } = await ask({ input, options: { stream: true, idleTimeoutSeconds: 0.2 } });
		expect(json).toMatchObject({ output: expect.stringContaining(input), recovered: true });
		expect(started(input)).toBe(1);
		// The node hung up on the silent stream: the emulator never delivered it in full.
		expect(emulator.stats.completedAsks.get(input)).toBeUndefined();
		expect(ms).toBeLessThan(3000);
	});

	test('a structured answer comes back whole from the output tool call, the same object', async () => {
		const input = 'Rate the release';
		const plain = await ask({
			input,
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(SCHEMA),
		});
		const faulted = `${input} #fault=drop-after-headers&ms=100`;
		const { json } = await ask({
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
		const { error } = await ask({
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
		const { json, run } = await ask({ input, options: { stream: true } }, { streaming: true });
		const pieces = run.chunks
			.filter((chunk) => (chunk.metadata as IDataObject)?.nodeName === 'Ask')
			.filter((chunk) => chunk.type === 'item')
			.map((chunk) => String(chunk.content));
		expect(json.recovered).toBe(true);
		expect(pieces.length).toBeGreaterThan(2);
		expect(pieces.join('')).toBe(json.output);
		expect(started(input)).toBe(1);
	});
});

describe('the agent tool: the same, for the agent’s tool call', () => {
	const FROM_AI = {
		operation: 'ask',
		input: "={{ $fromAI('question', 'The question', 'string') }}",
		conversationId: "={{ $fromAI('conversationId', 'A conversation to continue', 'string', '') }}",
	};

	async function callTool(question: string, conversationId: string, stream: boolean) {
		const pkg = await assistantPackage();
		const tool: INode = assistantNode(
			pkg,
			'Personal Assistant',
			{ ...FROM_AI, options: { stream } },
			{ type: TOOL_TYPE },
		);
		const { agent, run } = await runAgent(pkg, [tool], [{ args: { question, conversationId } }], {
			credentials: [credential],
		});
		runs.push(run);
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
		const { error, ms } = await ask({ input, options: { timeoutMinutes: 0.03 } });
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
		const { run, ms } = await ask({ input }, { signal: controller.signal });
		expect(run.data.status).toBe('canceled');
		expect(ms).toBeLessThan(1500);
		expect(started(input)).toBe(1);
	});
});

describe('when the conversation shows the ask was never taken, it is sent again', () => {
	test('a connection reset before the service took the ask, continuing a conversation', async () => {
		const id = await conversation();
		emulator.queueFault({ name: 'reset', path: '/assistant/ask' }, 1);
		const input = 'Continue after a reset';
		const { json } = await ask({ input, conversationId: id });
		expect(json).toEqual({ output: expect.stringContaining(input), conversation_id: id });
		expect(posts(input)).toBe(2);
		expect(started(input)).toBe(1);
	});

	test('with Retries 0, a 409 fails at once, as before', async () => {
		const id = await conversation();
		const input = 'No retries #fault=conversation-busy&ms=1000&times=1';
		const { error, ms } = await ask({ input, conversationId: id, options: { retries: 0 } });
		expect(error?.message).toMatch(/HTTP 409/);
		expect(ms).toBeLessThan(900);
		expect(started(input)).toBe(0);
	});
});

describe('where the conversation cannot be checked: today’s behaviour, and the error says what was not checked', () => {
	test.each([404, 401, 403])(
		'GET /conversations answers %i after a stream cut: the broken-stream error, with what could not be checked',
		async (status) => {
			emulator.queueFault({ name: String(status), path: '/conversations/*' }, 20);
			const input = `Cut #fault=reset-mid-stream&ms=50`;
			const { error } = await ask({ input });
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
		emulator.queueFault({ name: '404', path: '/conversations/*' }, 20);
		const id = await conversation();
		const input = 'Retry blind #fault=accepted-502&ms=50&times=1';
		const { json } = await ask({ input, conversationId: id });
		expect(json.output).toContain(input);
		expect(posts(input)).toBe(2);
	});

	test('no conversation known (a 502 before any id, new conversation): retried as before, documented', async () => {
		const input = 'New and lost #fault=accepted-502&ms=50&times=1';
		const { json } = await ask({ input });
		expect(json.output).toContain(input);
		expect(json.recovered).toBeUndefined();
		// docs/api.md#recovery-after-a-failure: without a conversation, nothing can be checked.
		expect(started(input)).toBe(2);
	});
});

describe('the access token appears in no output, error or log line', () => {
	test('across every run above', () => {
		expect(runs.length).toBeGreaterThan(30);
		for (const run of runs) {
			const error = run.error() as unknown as ErrorShape & { stack?: string };
			const seen = JSON.stringify({ data: run.data, error, stack: error?.stack, logs: run.logs });
			expect(seen).not.toContain(TOKEN);
		}
	});
});
