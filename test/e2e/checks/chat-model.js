// @ts-check
'use strict';

/**
 * The Assistant Chat Model in n8n's own AI nodes: a Basic LLM Chain, an Information Extractor, an
 * AI Agent with n8n's Calculator and the Assistant Tool (run from a manual trigger, then behind a
 * streaming Webhook), and the agent example in the editor. The emulator's scripted replies
 * (test/emulator/scripted.js) decide the tool calls, so the runs are deterministic.
 */

const assert = require('node:assert/strict');

const editor = require('../editor');
const { nodeOutput } = require('../n8n-client');
const { asks, importAndRun, recording } = require('../env');
const {
	LANGCHAIN,
	agentNode,
	aiWorkflow: aiWorkflowOf,
	askNode,
	chainNode,
	chatModelNode,
	manualTrigger,
	n8nNode,
} = require('../workflow-json');
const { readStreamedWebhook } = require('../streamed-webhook');
const { readTranscript, plainText } = require('../../emulator/transcript');

/**
 * A workflow with the Assistant Chat Model on `root`'s Model input, and `tools` on its Tool input.
 * @param {import('../env').E2eEnv} env
 * @param {string} id
 * @param {string} name
 * @param {{trigger?: any, root: any, tools?: any[]}} spec  the trigger: a manual one unless given
 */
function aiWorkflow(env, id, name, { trigger = manualTrigger, root, tools = [] }) {
	const model = chatModelNode(env, {}, { id: `${id}-model` });
	return aiWorkflowOf(id, name, { line: [trigger, root], model, tools });
}

// This check's nodes, as n8n exports them (test/e2e/workflow-json.js).
const calculatorTool = () =>
	n8nNode('calculator', 'Calculator', `${LANGCHAIN}.toolCalculator`, 1, [360, 240], {});

/** The Assistant Tool, its question and conversation written by the agent. @param {import('../env').E2eEnv} env */
const assistantTool = (env) => {
	const parameters = {
		input:
			"={{ $fromAI('question', 'The complete, self-contained question for the personal assistant', 'string') }}",
		conversationId:
			"={{ $fromAI('conversationId', 'The conversation_id of an earlier answer, or empty', 'string', '') }}",
	};
	const where = { id: 'assistant-tool', name: 'Assistant', position: [520, 240] };
	return { ...askNode(env, parameters, where), type: 'n8n-nodes-assistant.assistantTool' };
};

/** @param {import('../env').E2eEnv} env */
async function basicLlmChain(env) {
	const question = 'Name three lighthouses.';
	const chain = chainNode(question);
	const workflow = aiWorkflow(env, 'asstChatModelCh1', 'Chat model: Basic LLM Chain', {
		root: chain,
	});
	const { result, asks: sent } = await importAndRun(env, workflow);
	assert.equal(sent.length, 1, 'one ask');
	assert.deepEqual(
		readTranscript(String(sent[0].body.input))?.messages,
		[{ role: 'user', content: question }],
		'the prompt is the ask, the one message of its transcript',
	);
	const [item] = nodeOutput(result.runData, chain.name);
	assert.match(String(item?.text), /You said: "Name three lighthouses\."/, JSON.stringify(item));
	return `the chain's output: ${JSON.stringify(item)}`;
}

/** @param {import('../env').E2eEnv} env */
async function informationExtractor(env) {
	const extractor = {
		id: 'extractor',
		name: 'Information Extractor',
		type: `${LANGCHAIN}.informationExtractor`,
		typeVersion: 1.2,
		position: [200, 0],
		parameters: {
			text: 'Ada Lovelace was born in London in 1815.',
			attributes: {
				attributes: [
					{
						name: 'city',
						type: 'string',
						description: 'Where the person was born',
						required: true,
					},
					{ name: 'year', type: 'number', description: 'The year of birth', required: true },
				],
			},
			options: {},
		},
	};
	const workflow = aiWorkflow(env, 'asstChatModelIe1', 'Chat model: Information Extractor', {
		root: extractor,
	});
	const { result, asks: sent } = await importAndRun(env, workflow);
	assert.ok(sent.length >= 1, 'the extractor asked');
	assert.match(
		plainText(String(sent[0].body.input)),
		/"JSON Schema" instance/,
		'the format instructions were sent',
	);
	const [item] = nodeOutput(result.runData, extractor.name);
	const output = item?.output;
	assert.equal(typeof output?.city, 'string', `extracted: ${JSON.stringify(item)}`);
	assert.equal(output?.year, 42, `extracted: ${JSON.stringify(item)}`);
	return `extracted fields: ${JSON.stringify(output)}`;
}

/** @param {import('../env').E2eEnv} env */
async function agentWithTools(env) {
	const question =
		'Use the calculator to work out 6 * 7, then ask the assistant about lighthouses.';
	const workflow = aiWorkflow(env, 'asstChatModelAg1', 'Chat model: AI Agent with tools', {
		root: agentNode(question),
		tools: [calculatorTool(), assistantTool(env)],
	});
	const { result, asks: sent } = await importAndRun(env, workflow);
	const calculatorRuns = result.runData.Calculator ?? [];
	assert.ok(calculatorRuns.length === 1, `the Calculator ran once (${calculatorRuns.length})`);
	assert.ok((result.runData.Assistant ?? []).length === 1, 'the Assistant Tool ran once');
	const [item] = nodeOutput(result.runData, 'AI Agent');
	const answer = String(item?.output);
	assert.match(
		answer,
		// n8n's tools answer as JSON items: the Calculator's is [{"response":"42"}].
		/Calculator returned \[\{"response":"42"\}\]/,
		`the final answer uses the tool's result: ${answer}`,
	);
	const modelAsks = sent.filter((ask) => ask.body.output_format);
	assert.equal(modelAsks.length, 3, 'three turns: calculator, assistant, final answer');
	assert.equal(
		modelAsks[0].body.conversation_id,
		undefined,
		'the first turn starts a conversation',
	);
	const conversation = modelAsks[1].body.conversation_id;
	assert.match(String(conversation), /\S/, 'the next turn continues it');
	assert.equal(modelAsks[2].body.conversation_id, conversation, 'all turns in one conversation');
	// Each later turn sends only what is new: the result of the tool just called.
	for (const ask of modelAsks.slice(1)) {
		const messages = readTranscript(String(ask.body.input))?.messages ?? [];
		assert.equal(messages.length, 1, 'the system prompt and the question are not sent again');
		assert.equal(messages[0].role, 'tool');
		assert.match(String(messages[0].tool), /^(Calculator|Assistant)$/);
		assert.match(String(messages[0].content), /^\[\{/);
	}
	return [
		`asks: ${sent.map((ask) => (ask.body.output_format ? 'model' : 'tool')).join(', ')}`,
		`final answer: ${answer}`,
	];
}

/**
 * A Webhook that streams its response (response mode "Streaming").
 * @param {string} webhookId
 * @param {string} urlPath
 */
function streamingWebhook(webhookId, urlPath) {
	const parameters = { httpMethod: 'POST', path: urlPath, responseMode: 'streaming', options: {} };
	return n8nNode('webhook', 'Webhook', 'n8n-nodes-base.webhook', 2.1, [0, 0], parameters, {
		webhookId,
	});
}

/** @param {import('../env').E2eEnv} env */
async function agentBehindStreamingWebhook(env) {
	const webhook = streamingWebhook(
		'5b0f8c1e-2d7a-4e31-9c64-0a1b2c3d4e5f',
		'assistant-agent-stream',
	);
	const workflow = aiWorkflow(
		env,
		'asstChatModelSt1',
		'Chat model: AI Agent behind a streaming webhook',
		{
			trigger: webhook,
			root: agentNode('={{ $json.body.question }}'),
			tools: [calculatorTool(), assistantTool(env)],
		},
	);
	const saved = await env.client.importWorkflow(workflow);
	await env.client.publishWorkflow(saved);
	const question = 'Use the calculator to work out 12 * 12 and explain the result in a sentence.';
	const stream = await readStreamedWebhook(`${env.n8n.url}/webhook/${webhook.parameters.path}`, {
		question,
	});
	assert.equal(stream.status, 200);
	const fromAgent = stream.lines.filter((line) => line.json.metadata?.nodeName === 'AI Agent');
	const items = fromAgent.filter((line) => line.json.type === 'item');
	const text = items.map((line) => line.json.content).join('');
	assert.match(text, /Calculator returned \[\{"response":"144"\}\]/, `streamed answer: ${text}`);
	assert.ok(items.length > 3, `the answer came in ${items.length} chunks`);
	const lastLine = stream.lines[stream.lines.length - 1];
	assert.ok(
		items[0].atMs <= lastLine.atMs && items[0] !== lastLine,
		'the first chunk arrived before the end of the response',
	);
	const execution = await env.client.lastExecution(saved.id);
	assert.equal(execution.status, 'success');
	assert.equal((execution.runData.Calculator ?? []).length, 1, 'the Calculator ran');
	return [
		`${items.length} chunks, first at ${items[0].atMs} ms, response ended at ${stream.endMs} ms`,
		`streamed answer: ${text}`,
	];
}

/** The emulator's pause between stream pieces in the live streaming check. */
const LIVE_CHUNK_MS = 150;

/** @param {import('../env').E2eEnv} env */
async function agentStreamsLive(env) {
	const webhook = streamingWebhook('7c1d9e2f-3a4b-4c5d-8e6f-1a2b3c4d5e6f', 'assistant-agent-live');
	const workflow = aiWorkflow(
		env,
		'asstChatModelSt2',
		'Chat model: AI Agent without tools behind a streaming webhook',
		{
			trigger: webhook,
			root: agentNode('={{ $json.body.question }}'),
		},
	);
	const saved = await env.client.importWorkflow(workflow);
	await env.client.publishWorkflow(saved);
	const question = `Tell me about lighthouses #fault=slow-chunks&ms=${LIVE_CHUNK_MS}`;
	const { result: stream, requests } = await recording(env.emulator, () =>
		readStreamedWebhook(`${env.n8n.url}/webhook/${webhook.parameters.path}`, { question }),
	);
	assert.equal(stream.status, 200);
	const [ask, ...more] = asks(requests);
	assert.ok(ask && more.length === 0, 'one ask');
	assert.equal(ask.body.stream, true, "the model used the service's stream");
	const items = stream.lines.filter(
		(line) => line.json.metadata?.nodeName === 'AI Agent' && line.json.type === 'item',
	);
	const text = items.map((line) => line.json.content).join('');
	assert.match(text, /You said: .*Tell me about lighthouses/, `streamed answer: ${text}`);
	assert.ok(items.length > 3, `the answer came in ${items.length} chunks`);
	// The pieces arrive as the service writes them, not all at the end.
	const spread = items[items.length - 1].atMs - items[0].atMs;
	assert.ok(
		spread >= LIVE_CHUNK_MS * 2,
		`the first chunk came ${spread} ms before the last (expected at least ${LIVE_CHUNK_MS * 2})`,
	);
	return `${items.length} chunks over ${spread} ms; the response ended at ${stream.endMs} ms`;
}

/** @param {import('../env').E2eEnv} env */
async function exampleAgentChats(env) {
	// The example as is, but with its chat public: n8n answers a non-public chat only to the
	// editor's test session.
	const copy = structuredClone(env.examples['agent-tool']);
	copy.id = 'asstChatModelEx1';
	copy.name = `${copy.name} (public chat)`;
	const trigger = copy.nodes.find(
		(/** @type {any} */ node) => node.type === `${LANGCHAIN}.chatTrigger`,
	);
	trigger.webhookId = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
	trigger.parameters.public = true;
	const saved = await env.client.importWorkflow(copy);
	await env.client.publishWorkflow(saved);
	const { result: response, requests } = await recording(env.emulator, async () => {
		const reply = await fetch(`${env.n8n.url}/webhook/${trigger.webhookId}/chat`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				action: 'sendMessage',
				sessionId: 'e2e-session',
				chatInput: 'Use the calculator to work out 6 * 7',
			}),
			signal: AbortSignal.timeout(90_000),
		});
		return { status: reply.status, text: await reply.text() };
	});
	assert.equal(response.status, 200, response.text.slice(0, 300));
	assert.match(response.text, /Calculator returned/, `the chat's answer: ${response.text}`);
	assert.ok(
		asks(requests).length >= 2,
		'the model asked the assistant (a tool call, then the answer)',
	);
	return `the chat answered: ${response.text.slice(0, 200)}`;
}

/** @param {import('../env').E2eEnv} env */
async function agentModelSlotInEditor(env) {
	const page = await env.page();
	const workflow = (await env.workflows())['agent-tool'];
	assert.ok(workflow, 'the agent-tool example was not imported');
	await page.goto(`${env.n8n.url}/workflow/${workflow.id}`, { timeout: 60_000 });
	const node = page.locator('[data-test-id="canvas-node"][data-node-name="Assistant Chat Model"]');
	await node.waitFor({ timeout: 60_000 });
	const edge = page.locator(
		'[data-test-id="edge"][data-source-node-name="Assistant Chat Model"][data-target-node-name="AI Agent"]',
	);
	await edge.first().waitFor({ state: 'attached', timeout: 15_000 });
	await page.waitForTimeout(800);
	const canvas = await editor.screenshot(page, 'chat-model-in-agent');
	await editor.docImage(page, 'chat-model-agent', { hide: ['workflow-chat-button'] });
	const ndv = await editor.openNode(page, env.n8n.url, workflow.id, 'Assistant Chat Model');
	await ndv.getByTestId('resource-locator-model').waitFor();
	const panel = await editor.screenshot(page, 'chat-model-panel');
	return [
		"the Assistant Chat Model is on the AI Agent's Chat Model input, with its Model and Persona pickers",
		`screenshots: ${canvas}, ${panel}`,
	];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'chat-model-chain',
		name: 'chat model: a Basic LLM Chain answers through the Assistant Chat Model',
		run: basicLlmChain,
	},
	{
		id: 'chat-model-extractor',
		name: 'chat model: an Information Extractor returns the extracted fields',
		run: informationExtractor,
	},
	{
		id: 'chat-model-agent',
		name: "chat model: an AI Agent calls n8n's Calculator and the Assistant Tool, one conversation, and answers with their results",
		run: agentWithTools,
	},
	{
		id: 'chat-model-agent-stream',
		name: 'chat model: the same agent behind a streaming Webhook sends its answer in chunks',
		run: agentBehindStreamingWebhook,
	},
	{
		id: 'chat-model-stream-live',
		name: 'chat model: with no tool bound, an agent behind a streaming Webhook passes the text on as the service streams it',
		run: agentStreamsLive,
	},
	{
		id: 'chat-model-example-chat',
		name: 'workflow "Assistant: AI Agent on the Assistant Chat Model": its chat answers with no other LLM credential',
		run: exampleAgentChats,
	},
	{
		id: 'chat-model-editor',
		name: "editor: the Assistant Chat Model sits in the AI Agent's Model slot (screenshot)",
		browser: true,
		run: agentModelSlotInEditor,
	},
];
