// @ts-check
'use strict';

/**
 * The Assistant Chat Model's conversations and response format in the real n8n app: a Basic LLM
 * Chain with a JSON Schema response format; a conversation an Assistant node's Ask started and
 * the chat model continued (Options > Conversation ID); n8n's Simple Memory, Redis Chat Memory
 * and Postgres Chat Memory (on servers started for the check), each over two executions of an
 * AI Agent (nothing sent twice, the bytes each execution sent); the Chat Hub example
 * (published, listed among n8n Chat's workflow agents, answering a message sent as Chat Hub
 * sends it); the connection hint in the editor, shown only while nothing is connected.
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');

const app = require('../app');
const editor = require('../editor');
const services = require('../services');
const { nodeOutput } = require('../n8n-client');
const { readTranscript } = require('../../emulator/transcript');
const { asks, recording, succeeded } = require('../env');
const {
	LANGCHAIN,
	agentNode,
	aiInputs,
	aiWorkflow,
	askNode,
	chainNode,
	chatModelNode,
	manualTrigger,
	n8nNode,
} = require('../workflow-json');

/**
 * The Assistant Chat Model node with these parameters.
 * @param {import('../env').E2eEnv} env
 * @param {Record<string, unknown>} parameters
 */
const chatModel = (env, parameters = {}) =>
	chatModelNode(env, parameters, { position: [300, 240] });

/** @param {string} text */
const chain = (text, position = [300, 0]) => chainNode(text, { position });

/**
 * Imports and runs a workflow from its manual trigger; the run and the asks it sent.
 * @param {import('../env').E2eEnv} env
 * @param {any} workflow
 */
async function runOnce(env, workflow) {
	const { result, requests } = await succeeded(env.emulator, () =>
		env.client.runWorkflow(workflow, { timeoutMs: 90_000 }),
	);
	return { result, asks: asks(requests) };
}

/** @param {import('../env').E2eEnv} env */
async function chainWithJsonSchema(env) {
	const schema = {
		type: 'object',
		properties: {
			name: { type: 'string' },
			height_m: { type: 'number' },
			active: { type: 'boolean' },
		},
		required: ['name', 'height_m', 'active'],
	};
	const llmChain = chain('Describe the tallest lighthouse of France.');
	const model = chatModel(env, {
		responseFormat: 'jsonSchema',
		jsonSchema: JSON.stringify(schema),
	});
	const workflow = await env.client.importWorkflow(
		aiWorkflow(
			'asstChatModelRf1',
			'Chat model: Basic LLM Chain with a JSON Schema response format',
			{
				line: [manualTrigger, llmChain],
				model,
			},
		),
	);
	const { result, asks: sent } = await runOnce(env, workflow);
	assert.equal(sent.length, 1, 'one ask');
	assert.deepEqual(sent[0].body.output_format, schema, 'the ask carries the schema');
	const [item] = nodeOutput(result.runData, llmChain.name);
	const text = String(item?.text);
	/** @type {any} */
	const answer = JSON.parse(text);
	assert.equal(typeof answer.name, 'string', text);
	assert.equal(typeof answer.height_m, 'number', text);
	assert.equal(typeof answer.active, 'boolean', text);
	return `the chain's text is the object's JSON: ${text}`;
}

/** @param {import('../env').E2eEnv} env */
async function continueAskConversation(env) {
	const ask = askNode(env, { input: 'Hi! My name is Ada.' });
	const llmChain = chain('What is my name?', [440, 0]);
	const model = chatModel(env, {
		options: { conversationId: "={{ $('Ask').item.json.conversation_id }}" },
	});
	const workflow = await env.client.importWorkflow(
		aiWorkflow('asstChatModelCv1', 'Chat model: continue the conversation an Ask started', {
			line: [manualTrigger, ask, llmChain],
			model,
		}),
	);
	const { result, asks: sent } = await runOnce(env, workflow);
	const [asked] = nodeOutput(result.runData, ask.name);
	assert.match(String(asked?.conversation_id), /\S/, 'the Ask started a conversation');
	assert.equal(sent.length, 2, 'two asks: the Ask and the chain');
	assert.equal(sent[1].body.conversation_id, asked.conversation_id, 'the Ask conversation');
	assert.deepEqual(
		readTranscript(String(sent[1].body.input))?.messages,
		[{ role: 'user', content: 'What is my name?' }],
		'the chain continues the Ask conversation with its prompt alone',
	);
	const [item] = nodeOutput(result.runData, llmChain.name);
	assert.match(String(item?.text), /\bAda\b/, `the conversation remembers: ${item?.text}`);
	return [
		`conversation ${asked.conversation_id}`,
		`the chain's answer: ${JSON.stringify(item?.text)}`,
	];
}

/**
 * An AI Agent on the Assistant Chat Model with the Calculator and this memory node, run twice
 * (two manual triggers, each setting its question): the first execution calls the tool, the
 * second must continue the same conversation with the new user message alone.
 * @param {import('../env').E2eEnv} env
 * @param {{workflowId: string, memory: Record<string, unknown>}} subject  the memory node: its
 *   type, typeVersion, parameters and credentials (name, id and position are set here)
 */
async function memoryOverTwoExecutions(env, subject) {
	const agent = agentNode('={{ $json.question }}', {
		position: [300, 0],
		options: { systemMessage: 'You are terse.' },
	});
	const memory = { id: 'memory', name: 'Memory', position: [460, 240], ...subject.memory };
	const calculator = n8nNode(
		'calculator',
		'Calculator',
		`${LANGCHAIN}.toolCalculator`,
		1,
		[620, 240],
		{},
	);
	const model = chatModel(env);
	// Simple Memory keys its sessions by workflow: one workflow with two manual triggers, each
	// setting its own question, run one after the other (the same for every memory node).
	const first = 'Use the calculator to work out 6 * 7.';
	const second = 'Thanks! And now say goodbye.';
	/** @param {number} n @param {string} text */
	const branch = (n, text) => [
		n8nNode(`run${n}`, `Run ${n}`, 'n8n-nodes-base.manualTrigger', 1, [0, n * 200], {}),
		n8nNode(`question${n}`, `Question ${n}`, 'n8n-nodes-base.set', 3.4, [150, n * 200], {
			mode: 'raw',
			jsonOutput: JSON.stringify({ question: text }),
			options: {},
		}),
	];
	const nodes = [...branch(1, first), ...branch(2, second), agent, model, memory, calculator];
	/** @type {Record<string, any>} */
	const connections = {
		...aiInputs(agent, model, [calculator]),
		[memory.name]: { ai_memory: [[{ node: agent.name, type: 'ai_memory', index: 0 }]] },
	};
	for (const n of [1, 2]) {
		connections[`Run ${n}`] = { main: [[{ node: `Question ${n}`, type: 'main', index: 0 }]] };
		connections[`Question ${n}`] = { main: [[{ node: agent.name, type: 'main', index: 0 }]] };
	}
	const saved = await env.client.importWorkflow({
		id: subject.workflowId,
		name: `Chat model: AI Agent with ${subject.memory.type} over two executions`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	});
	/** @param {string} trigger */
	const runFrom = async (trigger) => {
		const { result, requests } = await succeeded(env.emulator, async () => {
			const started = await env.client.request('POST', `/rest/workflows/${saved.id}/run`, {
				triggerToStartFrom: { name: trigger },
			});
			return await env.client.waitForExecution(started.executionId, 90_000);
		});
		return { result, asks: asks(requests) };
	};
	const one = await runFrom('Run 1');
	const two = await runFrom('Run 2');
	const bytes = (/** @type {any[]} */ sent) =>
		sent.reduce((sum, ask) => sum + Buffer.byteLength(JSON.stringify(ask.body)), 0);
	assert.equal(one.asks.length, 2, 'first execution: the tool call, then the answer');
	const conversation = one.asks[1].body.conversation_id;
	assert.match(String(conversation), /\S/);
	assert.equal(two.asks.length, 1, `second execution: one ask (${two.asks.length})`);
	assert.equal(two.asks[0].body.conversation_id, conversation, 'the same conversation continues');
	const sentSecond = readTranscript(String(two.asks[0].body.input));
	assert.deepEqual(
		{ messages: sentSecond?.messages, catalogue: sentSecond?.catalogue },
		{ messages: [{ role: 'user', content: second }], catalogue: '' },
		'the second execution sends the new user message alone (no tool result, answer, system message or catalogue again)',
	);
	// Everything the conversation received: each message once, the tool catalogue once.
	const received = [...one.asks, ...two.asks].flatMap(
		(ask) => readTranscript(String(ask.body.input))?.messages ?? [],
	);
	const contents = received.map((message) => `${message.role}: ${message.content}`);
	assert.equal(new Set(contents).size, contents.length, `a message sent twice: ${contents}`);
	for (const text of [first, second, 'You are terse.']) {
		assert.equal(
			received.filter((message) => message.content === text).length,
			1,
			`"${text}" reached the conversation once`,
		);
	}
	const catalogues = [...one.asks, ...two.asks].filter((ask) =>
		String(ask.body.input).includes('Tools you can use'),
	);
	assert.equal(catalogues.length, 1, 'the tool catalogue went out once');
	const [item] = nodeOutput(two.result.runData, agent.name);
	return [
		`first execution: ${one.asks.length} asks, ${bytes(one.asks)} bytes; second: ${two.asks.length} ask, ${bytes(two.asks)} bytes (input ${JSON.stringify(two.asks[0].body.input)})`,
		`the second answer: ${JSON.stringify(item?.output)}`,
	];
}

/** The session key every memory check uses (each memory stores it in its own place). */
const SESSION = { sessionIdType: 'customKey', sessionKey: 'e2e-memory-session' };

/** @param {import('../env').E2eEnv} env */
async function simpleMemoryTwice(env) {
	return await memoryOverTwoExecutions(env, {
		workflowId: 'asstChatModelMm1',
		memory: { type: `${LANGCHAIN}.memoryBufferWindow`, typeVersion: 1.3, parameters: SESSION },
	});
}

/**
 * The memory check over two executions with a memory node (its type and version) on a credential
 * saved in n8n for it (of the credential type of the memory's server).
 * @param {import('../env').E2eEnv} env
 * @param {string} workflowId
 * @param {{memory: [string, number], credential: {name: string, type: string, data: Record<string, unknown>}}} spec
 */
async function memoryOnCredential(env, workflowId, { memory: [type, typeVersion], credential }) {
	const saved = await env.client.request('POST', '/rest/credentials', credential);
	const credentials = { [credential.type]: { id: saved.id, name: saved.name } };
	return await memoryOverTwoExecutions(env, {
		workflowId,
		memory: { type, typeVersion, parameters: SESSION, credentials },
	});
}

/** n8n's Redis Chat Memory on a Redis server started for the check. @param {import('../env').E2eEnv} env */
async function redisMemoryTwice(env) {
	services.ensureServices();
	const redis = await services.startRedis(path.join(app.CACHE_DIR, 'e2e', 'redis'));
	const lines = await memoryOnCredential(env, 'asstChatModelMr1', {
		memory: [`${LANGCHAIN}.memoryRedisChat`, 1.6],
		credential: {
			name: 'Redis for the memory check',
			type: 'redis',
			data: { host: '127.0.0.1', port: redis.port, database: 0, password: '', ssl: false },
		},
	});
	return [`Redis on port ${redis.port}`, ...lines];
}

/** n8n's Postgres Chat Memory on a PostgreSQL server started for the check. @param {import('../env').E2eEnv} env */
async function postgresMemoryTwice(env) {
	services.ensureServices();
	const postgres = await services.startPostgres(
		path.join(app.CACHE_DIR, 'e2e', 'postgres'),
		'n8n_memory',
	);
	const lines = await memoryOnCredential(env, 'asstChatModelMp1', {
		memory: [`${LANGCHAIN}.memoryPostgresChat`, 1.4],
		credential: {
			name: 'PostgreSQL for the memory check',
			type: 'postgres',
			data: {
				host: '127.0.0.1',
				port: postgres.port,
				database: postgres.database,
				user: postgres.user,
				password: '',
				ssl: 'disable',
			},
		},
	});
	return [`PostgreSQL on port ${postgres.port}`, ...lines];
}

/** @param {import('../env').E2eEnv} env */
async function chatHubExample(env) {
	const saved = (await env.workflows())['chat-hub-agent'];
	assert.ok(saved, 'examples/chat-hub-agent.json was not imported');
	await env.client.publishWorkflow(saved);
	// Chat Hub is off on a new instance until an admin turns it on (Settings > Chat).
	await env.client.request('PUT', '/rest/chat/enabled', { enabled: true });
	const models = await env.client.request('POST', '/rest/chat/models', { credentials: {} });
	const listed = (models?.n8n?.models ?? []).find(
		(/** @type {any} */ entry) => entry.model?.workflowId === saved.id,
	);
	assert.ok(
		listed,
		`Chat Hub lists the workflow agent: ${JSON.stringify(models?.n8n ?? models).slice(0, 400)}`,
	);
	const sessionId = crypto.randomUUID();
	/** The AI messages of the session, oldest first (Chat Hub keeps one per streamed reply). */
	const aiMessages = async () => {
		const conversation = await env.client.request('GET', `/rest/chat/conversations/${sessionId}`);
		return /** @type {any[]} */ (Object.values(conversation?.conversation?.messages ?? {}))
			.filter((message) => message.type === 'ai')
			.sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
	};
	const { result: messages, requests } = await recording(env.emulator, async () => {
		await env.client.request('POST', '/rest/chat/conversations/send', {
			messageId: crypto.randomUUID(),
			sessionId,
			message: 'Use the calculator to work out 6 * 7',
			model: { provider: 'n8n', workflowId: saved.id },
			previousMessageId: null,
			credentials: {},
			attachments: [],
			timeZone: 'UTC',
		});
		const deadline = Date.now() + 90_000;
		for (;;) {
			const found = await aiMessages();
			const done = found.length > 0 && found.every((message) => message.status !== 'running');
			if (
				done &&
				found.some((message) => /Calculator returned/.test(JSON.stringify(message.content)))
			)
				return found;
			if (Date.now() > deadline)
				throw new Error(`no answer in Chat Hub: ${JSON.stringify(found).slice(0, 1500)}`);
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
	});
	const answer = messages.find((message) =>
		/Calculator returned/.test(JSON.stringify(message.content)),
	);
	assert.equal(answer.status, 'success', JSON.stringify(answer).slice(0, 600));
	assert.ok(asks(requests).length >= 2, 'the Assistant Chat Model asked (tool call, answer)');
	return [
		`listed in Chat Hub as ${JSON.stringify(listed.name)}`,
		`Chat Hub's messages: ${messages.map((message) => JSON.stringify(message.content)).join(' | ')}`,
	];
}

/** @param {import('../env').E2eEnv} env */
async function connectionHint(env) {
	const page = await env.page();
	const alone = await env.client.importWorkflow({
		id: 'asstChatModelHn1',
		name: 'Chat model: alone',
		nodes: [chatModel(env)],
		connections: {},
		settings: { executionOrder: 'v1' },
		active: false,
	});
	let ndv = await editor.openNode(page, env.n8n.url, alone.id, 'Assistant Chat Model');
	await ndv.getByTestId('resource-locator-model').waitFor();
	const hint = ndv.getByText('This node must be connected to an AI chain.');
	await hint.waitFor({ timeout: 15_000 });
	assert.ok(await ndv.getByText('Insert one').isVisible(), 'the hint has its Insert one link');
	const shotAlone = await editor.screenshot(page, 'chat-model-hint-alone');
	const workflow = (await env.workflows())['agent-tool'];
	ndv = await editor.openNode(page, env.n8n.url, workflow.id, 'Assistant Chat Model');
	await ndv.getByTestId('resource-locator-model').waitFor();
	await page.waitForTimeout(500);
	assert.equal(
		await ndv.getByText('This node must be connected to an AI chain.').isVisible(),
		false,
		'connected to an agent, the hint is hidden',
	);
	const shotConnected = await editor.screenshot(page, 'chat-model-hint-connected');
	return [
		'alone: the hint and its Insert one link show; connected to the AI Agent: hidden',
		`screenshots: ${shotAlone}, ${shotConnected}`,
	];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'chat-model-response-format',
		name: 'chat model: a Basic LLM Chain with a JSON Schema response format gets the object as JSON, the schema sent as output_format',
		run: chainWithJsonSchema,
	},
	{
		id: 'chat-model-conversation-id',
		name: 'chat model: Options > Conversation ID continues a conversation an Ask node started, sending the prompt alone',
		run: continueAskConversation,
	},
	{
		id: 'chat-model-memory',
		name: 'chat model: an AI Agent with Simple Memory over two executions sends the second one the new message alone, in the same conversation',
		run: simpleMemoryTwice,
	},
	{
		id: 'chat-model-memory-redis',
		name: "chat model: an AI Agent with n8n's Redis Chat Memory over two executions sends the second one the new message alone, in the same conversation",
		run: redisMemoryTwice,
		// Redis is installed with apt-get when missing.
		timeoutMs: 300_000,
	},
	{
		id: 'chat-model-memory-postgres',
		name: "chat model: an AI Agent with n8n's Postgres Chat Memory over two executions sends the second one the new message alone, in the same conversation",
		run: postgresMemoryTwice,
		timeoutMs: 300_000,
	},
	{
		id: 'chat-model-chat-hub',
		name: 'workflow "Assistant: your assistant in n8n Chat": published, listed in Chat Hub, answers a message sent there',
		run: chatHubExample,
		timeoutMs: 180_000,
	},
	{
		id: 'chat-model-hint',
		name: "editor: the Assistant Chat Model's connection hint shows only while nothing is connected, as on n8n's chat models",
		browser: true,
		run: connectionHint,
	},
];
