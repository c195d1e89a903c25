// @ts-check
'use strict';

/**
 * The tool variant in the agent example: n8n saves the workflow as the editor does, and runs the
 * Assistant Tool alone, as its "Execute step" does (the whole agent runs in checks/chat-model.js).
 */

const assert = require('node:assert/strict');

const {
	PUBLISHED_CHAT_MODEL_TYPE: CHAT_MODEL_TYPE,
	PUBLISHED_TOOL_TYPE: TOOL_TYPE,
} = require('../n8n-client');
const { asks, recording } = require('../env');

/** @param {import('../env').E2eEnv} env */
async function agentWorkflowSaved(env) {
	const example = env.examples['agent-tool'];
	const workflow = (await env.workflows())['agent-tool'];
	assert.ok(workflow, 'the agent-tool example was not imported');
	const reread = await env.client.request('GET', `/rest/workflows/${workflow.id}`);
	const byType = (/** @type {string} */ type) =>
		reread.nodes.filter((/** @type {any} */ node) => node.type === type);
	const [tool, ...moreTools] = byType(TOOL_TYPE);
	assert.ok(tool && moreTools.length === 0, `one ${TOOL_TYPE} node expected`);
	assert.equal(
		tool.credentials?.assistantApi?.id,
		env.credential.id,
		'the tool is linked to the credential',
	);
	const exampleTool = example.nodes.find((/** @type {any} */ node) => node.name === tool.name);
	assert.equal(tool.parameters.input, exampleTool.parameters.input, 'input keeps its $fromAI');
	assert.equal(
		tool.parameters.conversationId,
		exampleTool.parameters.conversationId,
		'conversationId keeps its $fromAI expression',
	);
	assert.match(tool.parameters.input, /^=\{\{ \$fromAI\('question',/);
	assert.match(
		tool.parameters.conversationId,
		/^=\{\{ \$fromAI\('conversationId',.*'string', ''\) \}\}$/,
	);
	const [agent] = byType('@n8n/n8n-nodes-langchain.agent');
	assert.ok(agent, 'the AI Agent is there');
	assert.ok(
		byType('@n8n/n8n-nodes-langchain.chatTrigger').length === 1,
		'the Chat Trigger is there',
	);
	const [model] = byType(CHAT_MODEL_TYPE);
	assert.ok(model, 'the Assistant Chat Model is there');
	assert.equal(
		model.credentials?.assistantApi?.id,
		env.credential.id,
		'the chat model is linked to the credential: the agent needs no other LLM',
	);
	assert.deepEqual(
		reread.connections[tool.name]?.ai_tool,
		[[{ node: agent.name, type: 'ai_tool', index: 0 }]],
		"the tool is on the agent's Tool input",
	);
	assert.deepEqual(
		reread.connections[model.name]?.ai_languageModel,
		[[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
		"the model is on the agent's Chat Model input",
	);
	return `"${tool.name}" (${tool.type}) → "${agent.name}" (ai_tool), credential ${env.credential.id}; "${model.name}" (${model.type}) → "${agent.name}" (ai_languageModel), same credential`;
}

/**
 * Runs the tool node alone with `$fromAI` values; its one answer and the one ask it sent.
 * @param {import('../env').E2eEnv} env
 * @param {any} workflow
 * @param {string} toolName
 * @param {Record<string, string>} values
 */
async function runTool(env, workflow, toolName, values) {
	const { result, requests } = await recording(env.emulator, () =>
		env.client.runToolNode(workflow, toolName, values),
	);
	assert.equal(
		result.status,
		'success',
		`execution ${result.executionId} ended "${result.status}": ${result.error?.message ?? ''}`,
	);
	const [run] = result.runData[toolName] ?? [];
	assert.ok(run, `the tool "${toolName}" did not run`);
	assert.deepEqual(
		run.inputOverride?.ai_tool?.[0]?.[0]?.json,
		values,
		'the tool got the $fromAI values',
	);
	const response = run.data?.ai_tool?.[0]?.[0]?.json?.response;
	assert.ok(
		Array.isArray(response) && response.length === 1,
		`tool response: ${JSON.stringify(run.data)}`,
	);
	const [ask, ...more] = asks(requests);
	assert.ok(ask && more.length === 0, 'one ask');
	return { answer: response[0], ask };
}

/** @param {import('../env').E2eEnv} env */
async function toolRunsAlone(env) {
	const workflow = (await env.workflows())['agent-tool'];
	assert.ok(workflow, 'the agent-tool example was not imported');
	const tool = workflow.nodes.find((/** @type {any} */ node) => node.type === TOOL_TYPE);
	const first = await runTool(env, workflow, tool.name, {
		question: 'Hi! My name is Grace.',
		conversationId: '',
	});
	assert.equal(first.ask.body.input, 'Hi! My name is Grace.');
	assert.equal(
		first.ask.body.conversation_id,
		undefined,
		'an empty conversationId starts a new conversation',
	);
	assert.deepEqual(Object.keys(first.answer).sort(), ['conversation_id', 'output']);
	assert.match(first.answer.conversation_id, /^\S+$/);
	const second = await runTool(env, workflow, tool.name, {
		question: 'What is my name?',
		conversationId: first.answer.conversation_id,
	});
	assert.equal(
		second.ask.body.conversation_id,
		first.answer.conversation_id,
		'the follow-up names the conversation',
	);
	assert.equal(second.answer.conversation_id, first.answer.conversation_id);
	assert.ok(
		/Your name is Grace\b/.test(second.answer.output),
		`the follow-up continues the conversation; got ${JSON.stringify(second.answer.output)}`,
	);
	return [
		`POST /rest/workflows/:id/run with destinationNode "${tool.name}" and agentRequest {query: {${tool.name}: {question, conversationId}}}: n8n put its Tool Executor in place of the AI Agent`,
		`new conversation: ${JSON.stringify(first.answer)}`,
		`follow-up: ${JSON.stringify(second.answer.output)}`,
	];
}

/**
 * The agent example with its Assistant Tool as n8n adds it (parameters left at their defaults)
 * and a manual trigger instead of the chat, so that *Execute workflow* runs the agent.
 * @param {import('../env').E2eEnv} env
 */
async function agentWithDefaultTool(env) {
	const workflow = structuredClone(env.examples['agent-tool']);
	workflow.id = undefined;
	workflow.name = 'Assistant: the Assistant Tool with its defaults';
	const chat = workflow.nodes.find(
		(/** @type {any} */ node) => node.type === '@n8n/n8n-nodes-langchain.chatTrigger',
	);
	const agent = workflow.nodes.find(
		(/** @type {any} */ node) => node.type === '@n8n/n8n-nodes-langchain.agent',
	);
	const tool = workflow.nodes.find((/** @type {any} */ node) => node.type === TOOL_TYPE);
	workflow.nodes = workflow.nodes.filter((/** @type {any} */ node) => node !== chat);
	workflow.nodes.push({
		id: 'c0000000-0000-4000-8000-0000000000aa',
		name: 'Run',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: chat.position,
		parameters: {},
	});
	workflow.connections.Run = workflow.connections[chat.name];
	delete workflow.connections[chat.name];
	agent.parameters = {
		...agent.parameters,
		promptType: 'define',
		text: 'Ask the assistant about lighthouses.',
	};
	tool.parameters = { operation: 'ask' };
	return { saved: await env.client.importWorkflow(workflow), toolName: tool.name };
}

/** @param {import('../env').E2eEnv} env */
async function toolDefaults(env) {
	const { saved, toolName } = await agentWithDefaultTool(env);
	// The agent's model is the Assistant Chat Model: the tool catalogue it sends holds what the
	// agent is told about each tool.
	const { result, requests } = await recording(env.emulator, () =>
		env.client.runWorkflow(saved, { timeoutMs: 90_000 }),
	);
	assert.equal(result.status, 'success', result.error?.message ?? '');
	const [first] = asks(requests);
	assert.match(
		String(first?.body.input),
		/self-contained question or instruction.*conversation_id.*Never make up a conversation ID/s,
		"the agent was not told the tool's own description",
	);
	const toolAsk = asks(requests).find(
		(/** @type {any} */ ask) => ask.body.output_format === undefined,
	);
	assert.ok(toolAsk, 'the Assistant Tool asked nothing');
	assert.equal(toolAsk.body.conversation_id, undefined, 'the model made up a conversation');

	// Run alone, with the question only: the conversation is optional for the model, and n8n
	// hands the tool the key's default.
	const { result: aloneRun, requests: aloneRequests } = await recording(env.emulator, () =>
		env.client.runToolNode(saved, toolName, { question: 'Hi! My name is Ada.' }),
	);
	assert.equal(aloneRun.status, 'success', aloneRun.error?.message ?? '');
	const [aloneTool] = aloneRun.runData[toolName] ?? [];
	assert.deepEqual(aloneTool?.inputOverride?.ai_tool?.[0]?.[0]?.json, {
		question: 'Hi! My name is Ada.',
		conversationId: '',
	});
	const [aloneAsk] = asks(aloneRequests);
	assert.equal(aloneAsk?.body.input, 'Hi! My name is Ada.');
	assert.equal(aloneAsk?.body.conversation_id, undefined, 'a conversation was sent');
	const alone = { answer: aloneTool?.data?.ai_tool?.[0]?.[0]?.json?.response?.[0] };
	// A made-up conversation ID: words the agent can act on. One that cannot be an ID (spaces) is
	// refused before anything is sent; one the service does not know comes back as its 404.
	/** @param {string} conversationId */
	const toolError = async (conversationId) => {
		const failed = await env.client.runToolNode(saved, toolName, {
			question: 'Hi',
			conversationId,
		});
		const [run] = failed.runData[toolName] ?? [];
		return String(run?.error?.message ?? failed.error?.message ?? JSON.stringify(run));
	};
	const withSpaces = 'Conversation_ID of Ask the assistant';
	const refused = await toolError(withSpaces);
	assert.match(refused, /is not valid: IDs have no spaces or line breaks/, refused);
	assert.match(refused, /Leave it empty to start a new conversation/, refused);
	const unknown = 'Conversation_ID_of_Ask_the_assistant';
	const said = await toolError(unknown);
	assert.match(said, /not a conversation of this assistant.*HTTP 404/, said);
	assert.match(said, /Ask again with an empty conversation ID/, said);
	return [
		`the agent's model was told: ${JSON.stringify(String(first.body.input).match(/Ask the user's personal AI assistant[^\n]*/)?.[0] ?? '')}`,
		`alone with {question}: ${JSON.stringify(alone.answer)}`,
		`with ${JSON.stringify(withSpaces)}: ${refused.slice(0, 300)}`,
		`with ${JSON.stringify(unknown)}: ${said.slice(0, 400)}`,
	];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'agent-tool-saved',
		name: 'workflow "Assistant: AI Agent on the Assistant Chat Model": n8n saves it with the Assistant Tool and the chat model linked to the credential',
		run: agentWorkflowSaved,
	},
	{
		id: 'tool-alone',
		name: 'tool: the Assistant Tool runs alone in n8n with $fromAI values (the editor\'s "Execute step" on a tool)',
		run: toolRunsAlone,
	},
	{
		id: 'tool-defaults',
		timeoutMs: 240_000,
		name: 'tool: as added, the Assistant Tool tells the agent its own description, the conversation is optional, and an unknown one comes back in words the agent can act on',
		run: toolDefaults,
	},
];
