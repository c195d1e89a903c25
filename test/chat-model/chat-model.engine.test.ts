/**
 * The Assistant Chat Model inside the real n8n-core engine: supplied to a root node through
 * getInputConnectionData, wrapped by n8n's AI node SDK for LangChain, driven by LangChain's own
 * invoke / stream / bindTools, against the emulator over real HTTP.
 */
import type http from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { emulatorCredential, rl } from '../helpers/assistant';
import type { ConsumerOutput, ScriptMessage } from '../helpers/chat-model';
import type { RunResult } from '../helpers/engine';
import { useEmulator } from '../helpers/emulatorFixture';
import { conversationJson, serveScript, sse, streamAnswer } from '../helpers/scripted-server';
import { readTranscript } from '../../nodes/AssistantChatModel/transcript';

const TOKEN = 'secret-token-for-chat-model-tests';
const DEFAULT_MODEL = 'anthropic:claude-haiku-4-5-20251001';

// The live stream dialect (docs/api.md#live-stream-dialect), the emulator's default.
const assistant = useEmulator({ token: TOKEN });

function consumerOutput(result: RunResult): ConsumerOutput {
	return result.outputs('Consumer')[0].json as ConsumerOutput;
}

/** The messages an ask's input holds (docs/api.md#the-chat-models-transcript). */
function messagesOf(body: IDataObject) {
	return readTranscript(String(body.input))?.entries;
}

/** An ask's body with its input read: the messages, and the catalogue after them if any. */
function readAsk(body: IDataObject): IDataObject {
	const { input, ...rest } = body;
	const transcript = readTranscript(String(input));
	return { ...rest, messages: transcript?.entries ?? input, catalogue: transcript?.catalogue };
}

/** One user message, as an ask's messages. */
function userMessage(content: string) {
	return [{ role: 'user', content }];
}

function asks(): IDataObject[] {
	return assistant.emulator.stats.requests
		.filter((request) => request.path === '/assistant/ask')
		.map((request) => request.body as IDataObject);
}

const question: ScriptMessage[] = [
	{ role: 'system', content: 'You are terse.' },
	{ role: 'user', content: 'Use the calculator: what is 6 * 7?' },
];

test('a token stored with its Bearer prefix and spaces is sent once-prefixed (docs/api.md#authentication)', async () => {
	const result = await assistant.chat(
		'invoke',
		[{ role: 'user', content: 'Hello there' }],
		{},
		{ credentials: [emulatorCredential(assistant.emulator.baseUrl, `  Bearer ${TOKEN} `)] },
	);
	expect(consumerOutput(result).text).toContain('You said: "Hello there"');
	expect(assistant.emulator.stats.requests.map((request) => request.authorizationForm)).toEqual([
		'Bearer <token>',
	]);
});

describe('plain generation (chains)', () => {
	test("a chain's messages become one ask and the answer becomes the AI message", async () => {
		const output = consumerOutput(
			await assistant.chat('invoke', [
				{ role: 'system', content: 'You are terse.' },
				{ role: 'user', content: 'Hi, I am Ada.' },
				{ role: 'assistant', content: 'Hello Ada.' },
				{ role: 'user', content: 'Summarize this.' },
			]),
		);
		const [body] = asks();
		expect(Object.keys(body).sort()).toEqual(['input', 'stream']);
		expect(messagesOf(body)).toEqual([
			{ role: 'instructions', content: 'You are terse.' },
			{ role: 'user', content: 'Hi, I am Ada.' },
			{ role: 'assistant', content: 'Hello Ada.' },
			{ role: 'user', content: 'Summarize this.' },
		]);
		expect(output.text).toBe(
			`[model=${DEFAULT_MODEL} persona=persona_general] You said: "Summarize this.".`,
		);
		expect(output.id).toMatch(/^assistant-conversation:/);
	});

	test('a lone user message is sent in the same form, as the one message', async () => {
		const output = consumerOutput(
			await assistant.chat('invoke', [{ role: 'user', content: 'Hello there' }]),
		);
		expect(asks().map(readAsk)).toEqual([
			{ messages: userMessage('Hello there'), catalogue: undefined, stream: true },
		]);
		expect(output.text).toContain('You said: "Hello there"');
	});

	test('model, persona and memory mode are sent with the ask', async () => {
		await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			model: rl('openai:gpt-5-mini'),
			persona: rl('persona_pirate'),
			options: { memory: false },
		});
		expect(asks().map(readAsk)).toEqual([
			{
				messages: userMessage('Hi'),
				catalogue: undefined,
				model_name: 'openai:gpt-5-mini',
				persona_id: 'persona_pirate',
				memory_mode: 'off',
				stream: true,
			},
		]);
	});

	test('an answer from a fallback model says which model gave it', async () => {
		const output = consumerOutput(
			await assistant.chat('invoke', [{ role: 'user', content: 'Hi #fallback=openai:gpt-5-mini' }]),
		);
		expect(output.metadata).toMatchObject({
			modelFallback: 'openai:gpt-5-mini',
			provider: 'assistant',
		});
	});

	test('a bad option fails naming the parameter before any request', async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			options: { timeoutMinutes: -5 },
		});
		const error = result.error() as (Error & { description?: string }) | undefined;
		// n8n names the sub-node in the message and keeps the node's own error in the description.
		expect(error?.message).toBe('Error in sub-node Assistant Chat Model');
		expect(error?.description).toContain('Timeout must be a number');
		expect(JSON.stringify(result.nodeError('Assistant Chat Model') ?? {})).toContain(
			'Options > Timeout',
		);
		expect(asks()).toEqual([]);
	});

	test('an API failure carries the HTTP status and the server message, never the token', async () => {
		const result = await assistant.chat(
			'invoke',
			[{ role: 'user', content: 'Hi' }],
			{},
			{ credentials: [emulatorCredential(assistant.emulator.baseUrl, 'wrong-token')] },
		);
		const error = result.error() as (Error & { description?: string }) | undefined;
		expect(error?.message).toMatch(/401/);
		expect(JSON.stringify(result.data)).not.toContain(TOKEN);
	});
});

describe('credit failures (docs/api.md#credit-failures)', () => {
	test.each(['credit-402', 'credit-event'])(
		"#fault=%s: out of credit in the provider's words, not retried",
		async (fault) => {
			const result = await assistant.chat(
				'invoke',
				[{ role: 'user', content: `Hi #fault=${fault}` }],
				{
					options: { retries: 3 },
				},
			);
			const error = result.error() as (Error & { description?: string }) | undefined;
			expect(error?.message).toMatch(
				/^The account or the model's provider is out of credit( \(HTTP 402\))?: This request requires more credits.*can only afford 1843/,
			);
			expect(error?.description).toMatch(/Pick another model .*top up/);
			expect(asks()).toHaveLength(1);
		},
	);
});

describe('tool calling (AI Agent)', () => {
	test('the assistant calls a bound tool, the tool runs, the final answer uses its result', async () => {
		const output = consumerOutput(await assistant.chat('agent', question));
		expect(output.toolCalls).toEqual([
			{
				id: expect.stringMatching(/^assistant-conversation:/),
				name: 'calculator',
				args: { input: '6 * 7' },
				result: '42',
			},
		]);
		expect(output.text).toContain('calculator returned 42');
		const [first, second] = asks();
		expect(first.output_format).toMatchObject({
			type: 'object',
			properties: {
				action: { enum: ['final_answer', 'call_tool'] },
				tool_name: { enum: ['calculator'] },
			},
		});
		expect(String(first.input)).toContain('"name": "calculator"');
		expect(first.conversation_id).toBeUndefined();
		// The second call continues the conversation with only the new message: the tool's result.
		expect(second.conversation_id).toEqual(expect.stringMatching(/\S/));
		// The conversation has the tool catalogue already: the output format still names the tools.
		expect(readAsk(second)).toMatchObject({
			messages: [{ role: 'tool', tool: 'calculator', content: '42' }],
			catalogue: undefined,
		});
		expect(second.output_format).toEqual(first.output_format);
	});

	test('a call whose arguments do not match the tool schema is asked again once, with the reason', async () => {
		const output = consumerOutput(
			await assistant.chat('agent', [
				{ role: 'user', content: 'Use the calculator for 2 + 3 #badargs=once' },
			]),
		);
		expect(output.toolCalls.map((call) => call.result)).toEqual(['5']);
		const inputs = asks().map((body) => String(body.input));
		expect(inputs[1]).toMatch(
			/^Your last reply could not be used\. What was wrong \(it quotes your reply\): "the arguments for the tool calculator are wrong: input: Required/,
		);
		expect(asks()[1].conversation_id).toBe(asks()[2].conversation_id);
	});

	test('a second malformed call fails with a clear error and the tool never runs', async () => {
		const result = await assistant.chat('agent', [
			{ role: 'user', content: 'Use the calculator for 2 + 3 #badargs=always' },
		]);
		const error = result.error();
		expect(error?.message).toContain("The assistant's tool call could not be used");
		expect(error?.message).toContain('input: Required');
		expect(asks()).toHaveLength(2);
	});

	test('with no tool named in the question the assistant answers at once', async () => {
		const output = consumerOutput(
			await assistant.chat('agent', [{ role: 'user', content: 'Just say hi' }]),
		);
		expect(output.toolCalls).toEqual([]);
		expect(output.text).toBe('You said: "Just say hi".');
	});
});

describe('streaming', () => {
	test('the answer arrives in pieces through the stream path when no tool is bound', async () => {
		const output = consumerOutput(
			await assistant.chat('stream', [{ role: 'user', content: 'Tell me a story' }]),
		);
		expect(readAsk(asks()[0])).toMatchObject({
			messages: userMessage('Tell me a story'),
			stream: true,
		});
		expect(output.chunks.length).toBeGreaterThan(3);
		expect(output.chunks.join('')).toBe(output.text);
		expect(output.text).toContain('You said: "Tell me a story"');
	});

	test('a stream in the documented dialect arrives in pieces too', async () => {
		const input = 'Tell me a story #shape=documented';
		const output = consumerOutput(
			await assistant.chat('stream', [{ role: 'user', content: input }]),
		);
		expect(output.chunks.length).toBeGreaterThan(3);
		expect(output.chunks.join('')).toBe(output.text);
		expect(output.text).toContain('Tell me a story');
	});

	test('an answer the service gives only in its End, as an object: its JSON, as invoked', async () => {
		const object = { answer: 'forty-two' };
		const endOnly = (response: http.ServerResponse) =>
			streamAnswer(response, 'con_ChatEndObject0001', sse('End', { output: object }));
		const server = await serveScript(endOnly, (response) => conversationJson(response, 'idle', []));
		try {
			for (const scenario of ['invoke', 'stream'] as const) {
				const run = await assistant.chat(
					scenario,
					[{ role: 'user', content: 'What is the answer?' }],
					{},
					{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
				);
				expect(run.error()).toBeUndefined();
				const output = consumerOutput(run);
				expect(output.text).toBe(JSON.stringify(object));
				if (scenario === 'stream') expect(output.chunks).toEqual([JSON.stringify(object)]);
			}
			expect(server.asks).toHaveLength(2);
		} finally {
			await server.close();
		}
	});

	test('with tools bound the tool call and then the final answer come through the stream', async () => {
		const output = consumerOutput(await assistant.chat('agentStream', question));
		expect(output.toolCalls).toHaveLength(1);
		expect(output.toolCalls[0]).toMatchObject({ name: 'calculator', result: '42' });
		expect(output.chunks.length).toBeGreaterThan(3);
		expect(output.chunks.join('')).toBe(output.text);
		expect(output.text).toContain('calculator returned 42');
	});
});

function toolCallsOf(output: ConsumerOutput): ScriptMessage {
	return {
		role: 'assistant',
		content: '',
		toolCalls: output.toolCalls.map(({ id, name, args }) => ({ id, name, args })),
	};
}

/** What an agent's chat memory keeps of a turn: the question, the tool calls and results, the answer. */
function remembered(question: string, output: ConsumerOutput): ScriptMessage[] {
	return [
		{ role: 'user', content: question },
		...(output.toolCalls.length > 0 ? [toolCallsOf(output)] : []),
		...output.toolCalls.map((call): ScriptMessage => ({
			role: 'tool',
			content: call.result,
			toolCallId: call.id,
		})),
		// The memory keeps the final answer's text, not its id.
		{ role: 'assistant', content: output.text },
	];
}

describe('a conversation never receives a message twice', () => {
	const system: ScriptMessage = { role: 'system', content: 'You are terse.' };
	const firstQuestion = 'Use the calculator: what is 6 * 7?';

	test('a chat memory over two executions: the second sends the new user message alone, without the catalogue', async () => {
		const first = consumerOutput(
			await assistant.chat('agent', [system, { role: 'user', content: firstQuestion }]),
		);
		// The emulator keeps the conversation: the second execution's asks follow the first's.
		const firstAsks = asks().length;
		const secondQuestion = 'Thanks! Now say goodbye.';
		const second = consumerOutput(
			await assistant.chat('agent', [
				system,
				...remembered(firstQuestion, first),
				{ role: 'user', content: secondQuestion },
			]),
		);
		const [ask, ...rest] = asks().slice(firstAsks);
		expect(ask.conversation_id).toBe(asks()[1].conversation_id);
		expect(readAsk(ask)).toMatchObject({
			messages: userMessage(secondQuestion),
			catalogue: undefined,
		});
		expect(rest).toEqual([]);
		expect(second.text).toEqual(expect.stringMatching(/\S/));
		// Everything the conversation received, in order: each message once, the catalogue once.
		const received = asks()
			.map((body) => String(body.input))
			.join('\n\n');
		for (const text of [firstQuestion, secondQuestion, 'You are terse.', 'Tools you can use']) {
			expect(received.split(text)).toHaveLength(2);
		}
	});

	test('a change of the bound tools sends the catalogue again', async () => {
		const first = consumerOutput(
			await assistant.chat('agent', [system, { role: 'user', content: firstQuestion }]),
		);
		const firstAsks = asks().length;
		await assistant.chat('agentMoreTools', [
			system,
			...remembered(firstQuestion, first),
			{ role: 'user', content: 'Use word_count on: one two three' },
		]);
		const [ask, next] = asks().slice(firstAsks);
		expect(ask.conversation_id).toBe(asks()[1].conversation_id);
		expect(messagesOf(ask)).toEqual(userMessage('Use word_count on: one two three'));
		expect(readAsk(ask).catalogue).toMatch(/^Tools you can use/);
		expect(readAsk(ask).catalogue).toContain('"name": "word_count"');
		// The emulator's word_count gets the whole question: six words.
		expect(messagesOf(next)).toEqual([{ role: 'tool', tool: 'word_count', content: '6' }]);
	});
});

describe('Options > Conversation ID', () => {
	test('the chat model continues a conversation an Ask started, and the answer names it', async () => {
		const started = await fetch(`${assistant.emulator.baseUrl}/assistant/ask`, {
			method: 'POST',
			headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
			body: JSON.stringify({ input: 'My name is Ada.' }),
		});
		const { conversation_id: conversationId } = (await started.json()) as {
			conversation_id: string;
		};
		const output = consumerOutput(
			await assistant.chat('invoke', [{ role: 'user', content: 'What is my name?' }], {
				options: { conversationId: `={{ "${conversationId}" }}` },
			}),
		);
		// The first ask is the one that started the conversation (an Assistant node's Ask).
		expect(asks().slice(1).map(readAsk)).toEqual([
			{
				messages: userMessage('What is my name?'),
				catalogue: undefined,
				conversation_id: conversationId,
				stream: true,
			},
		]);
		expect(output.metadata).toMatchObject({ conversationId });
	});

	test('an empty Conversation ID (no conversation stored yet) starts a new one', async () => {
		await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			options: { conversationId: '={{ "" }}' },
		});
		expect(asks().map(readAsk)).toEqual([
			{ messages: userMessage('Hi'), catalogue: undefined, stream: true },
		]);
	});

	test('a Conversation ID that is not text fails naming the option, before any request', async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			options: { conversationId: '={{ { id: 1 } }}' },
		});
		expect(result.error()?.description ?? '').toContain('Conversation ID must be text');
		expect(asks()).toEqual([]);
	});

	test('a Conversation ID with spaces or line breaks fails naming the option, before any request', async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			options: { conversationId: 'con_One con_Two' },
		});
		expect(result.error()?.description ?? '').toContain(
			'Conversation ID "con_One con_Two" is not valid: IDs have no spaces or line breaks',
		);
		expect(asks()).toEqual([]);
	});
});

describe('Response Format', () => {
	const schema = {
		type: 'object',
		properties: { city: { type: 'string' }, population: { type: 'number' } },
		required: ['city', 'population'],
	};

	test('JSON Schema: the ask carries it as output_format and the AI message is the object as JSON', async () => {
		const output = consumerOutput(
			await assistant.chat('invoke', [{ role: 'user', content: 'The largest city of France' }], {
				responseFormat: 'jsonSchema',
				jsonSchema: JSON.stringify(schema),
			}),
		);
		expect(asks().map(readAsk)).toEqual([
			{
				messages: userMessage('The largest city of France'),
				catalogue: undefined,
				output_format: schema,
				stream: true,
			},
		]);
		expect(JSON.parse(output.text)).toEqual({
			city: expect.any(String),
			population: expect.any(Number),
		});
	});

	test('JSON from an example: the schema is derived as the Ask node derives it', async () => {
		await assistant.chat('stream', [{ role: 'user', content: 'Summarize: release 2.0 is out' }], {
			responseFormat: 'jsonExample',
			jsonExample: '{"summary": "One sentence", "topics": ["release"]}',
		});
		expect(asks()[0].output_format).toEqual({
			type: 'object',
			properties: {
				summary: { type: 'string' },
				topics: { type: 'array', items: { type: 'string' } },
			},
			required: ['summary', 'topics'],
		});
	});

	test("a bad schema fails naming the parameter with Ask's check, before any request", async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			responseFormat: 'jsonSchema',
			jsonSchema: '{"type": "string"}',
		});
		expect(result.error()?.description ?? '').toContain(
			'JSON Schema\'s root must have "type": "object"',
		);
		expect(asks()).toEqual([]);
	});

	test('a schema outside the output_format grammar below the root fails naming its path, before any request', async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify({
				type: 'object',
				properties: { address: { type: 'object', properties: { zip: { type: 'integer' } } } },
				required: ['address'],
			}),
		});
		expect(result.error()?.description ?? '').toContain(
			'JSON Schema: properties.address.properties.zip.type is "integer"',
		);
		expect(asks()).toEqual([]);
	});

	test("with tools bound, the agent's final answer is the schema's object", async () => {
		const output = consumerOutput(
			await assistant.chat('agent', question, {
				responseFormat: 'jsonSchema',
				jsonSchema: JSON.stringify(schema),
			}),
		);
		expect(output.toolCalls.map((call) => call.result)).toEqual(['42']);
		expect(asks()[0].output_format).toMatchObject({
			properties: { final_answer: { ...schema, description: expect.any(String) } },
		});
		expect(JSON.parse(output.text)).toEqual({
			city: expect.any(String),
			population: expect.any(Number),
		});
	});

	test("the SDK's withStructuredOutput sends the schema and answers with the object's JSON", async () => {
		const result = await assistant.chat(
			'sdkStructured',
			[{ role: 'user', content: 'The largest city of France' }],
			{},
			{ structuredSchema: schema },
		);
		const output = result.outputs('Consumer')[0].json as ConsumerOutput;
		expect(asks()[0].output_format).toEqual(schema);
		expect(JSON.parse(output.text)).toEqual({
			city: expect.any(String),
			population: expect.any(Number),
		});
		expect(output.metadata).toMatchObject({ conversationId: expect.any(String) });
	});

	test('withStructuredOutput refuses a schema outside the grammar before any request', async () => {
		const result = await assistant.chat(
			'sdkStructured',
			[{ role: 'user', content: 'Hi' }],
			{},
			{
				structuredSchema: {
					type: 'object',
					properties: { count: { type: 'integer' } },
					required: ['count'],
				},
			},
		);
		expect(result.error()?.message).toContain('Structured output:');
		expect(asks()).toEqual([]);
	});
});

describe('what n8n’s Logs panel shows of each call (N8nLlmTracing, as for n8n’s own chat models)', () => {
	/** The chat model's log entries: each call's input `options` and output generation. */
	function logEntries(result: RunResult) {
		const runs = result.data.data.resultData.runData['Assistant Chat Model'] ?? [];
		return runs.map((entry) => ({
			options: entry.inputOverride?.ai_languageModel?.[0]?.[0]?.json.options as IDataObject,
			generation: (
				entry.data?.ai_languageModel?.[0]?.[0]?.json.response as {
					generations: IDataObject[][];
				}
			).generations[0][0],
		}));
	}

	const settings = {
		model: 'openai:gpt-5-mini',
		persona: 'persona_pirate',
		memory: 'off',
		timeoutMinutes: 3,
		idleTimeoutSeconds: 300,
		retries: 1,
	};
	const parameters = {
		model: rl('openai:gpt-5-mini'),
		persona: rl('persona_pirate'),
		options: { memory: false, timeoutMinutes: 3, retries: 1 },
	};

	test('a chain’s call: the model’s settings, and the model, persona and conversation that answered', async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], parameters);
		const output = consumerOutput(result);
		const [entry] = logEntries(result);
		expect(entry.options).toEqual(settings);
		expect(entry.generation).toEqual({
			text: output.text,
			generationInfo: {
				modelName: 'openai:gpt-5-mini',
				persona: 'persona_pirate',
				conversationId: output.metadata.conversationId,
				// What the assistant did for the answer (docs/api.md#steps): nothing here.
				steps: [],
			},
		});
		expect(output.metadata.conversationId).toMatch(/\S/);
	});

	test('defaults are named as such; a fallback names the model that answered', async () => {
		const result = await assistant.chat('invoke', [
			{ role: 'user', content: 'Hi #fallback=openai:gpt-5-mini' },
		]);
		const [entry] = logEntries(result);
		expect(entry.options).toMatchObject({
			model: 'default model',
			persona: 'active persona',
			memory: 'on',
		});
		expect(entry.generation.generationInfo).toMatchObject({
			modelName: 'openai:gpt-5-mini',
			modelFallback: 'openai:gpt-5-mini',
			persona: 'active persona',
		});
	});

	test('a streamed call: the same details on its generation and on the streamed AI message', async () => {
		const result = await assistant.chat(
			'stream',
			[{ role: 'user', content: 'Tell me a story' }],
			parameters,
		);
		const output = consumerOutput(result);
		const [entry] = logEntries(result);
		expect(entry.options).toEqual(settings);
		expect(entry.generation.generationInfo).toEqual({
			finish_reason: 'stop',
			modelName: 'openai:gpt-5-mini',
			persona: 'persona_pirate',
			conversationId: expect.stringMatching(/\S/),
			steps: [],
		});
		expect(output.metadata).toMatchObject({
			conversationId: (entry.generation.generationInfo as IDataObject).conversationId,
		});
	});

	test('the agent’s calls (tools bound), streamed or not: the tools among the settings, each answer’s details', async () => {
		for (const scenario of ['agent', 'agentStream'] as const) {
			const entries = logEntries(await assistant.chat(scenario, question));
			expect(entries).toHaveLength(2);
			for (const entry of entries) {
				expect(entry.options).toMatchObject({ model: 'default model', tools: ['calculator'] });
				expect(entry.generation.generationInfo).toMatchObject({
					modelName: 'default model',
					conversationId: expect.stringMatching(/\S/),
				});
			}
		}
	});
});
