// @ts-check
'use strict';

/**
 * The REST backend the editor uses: the pickers, the credential test, and the node and
 * credential types n8n lists for this package.
 */

const assert = require('node:assert/strict');

const {
	CREDENTIAL_TYPE,
	PUBLISHED_NODE_TYPE: NODE_TYPE,
	PUBLISHED_TOOL_TYPE: TOOL_TYPE,
	PUBLISHED_CHAT_MODEL_TYPE: CHAT_MODEL_TYPE,
} = require('../n8n-client');
const { missingLabels } = require('../env');

/**
 * What a picker lists, through the endpoint the editor calls.
 * @param {import('../env').E2eEnv} env
 * @param {'model' | 'persona'} parameter
 * @param {string} methodName
 * @param {string} filter
 * @returns {Promise<{name: string, value: string}[]>}
 */
async function picker(env, parameter, methodName, filter) {
	const answer = await env.client.request(
		'POST',
		'/rest/dynamic-node-parameters/resource-locator-results',
		{
			path: `parameters.${parameter}`,
			nodeTypeAndVersion: { name: NODE_TYPE, version: 1 },
			methodName,
			filter,
			currentNodeParameters: {
				operation: 'ask',
				input: '',
				[parameter]: { __rl: true, mode: 'list', value: '' },
			},
			credentials: { [CREDENTIAL_TYPE]: { id: env.credential.id, name: env.credential.name } },
		},
	);
	return answer.results;
}

/** @param {import('../env').E2eEnv} env */
async function modelPicker(env) {
	const models = env.emulatorModels;
	const values = (/** @type {{value: string}[]} */ entries) => entries.map((entry) => entry.value);
	const all = await picker(env, 'model', 'searchModels', '');
	assert.deepEqual(
		values(all),
		models.map((model) => model.model_name),
	);
	const missing = missingLabels(
		all.map((entry) => entry.name),
		models,
	);
	assert.deepEqual(missing, [], 'every model label is shown');
	const claude = await picker(env, 'model', 'searchModels', 'claude');
	const expectedClaude = models.filter((model) =>
		/claude/i.test(`${model.label} ${model.model_name}`),
	);
	assert.ok(expectedClaude.length > 0 && expectedClaude.length < models.length);
	assert.deepEqual(
		values(claude),
		expectedClaude.map((model) => model.model_name),
	);
	const byok = await picker(env, 'model', 'searchModels', 'byok');
	assert.deepEqual(
		values(byok),
		models.filter((model) => model.is_byok).map((model) => model.model_name),
	);
	const none = await picker(env, 'model', 'searchModels', 'no-such-model-xyz');
	assert.deepEqual(none, []);
	return [
		`${all.length} entries, e.g. "${all[0].name}"`,
		`"claude" → ${claude.length}, "byok" → ${byok.length}, "no-such-model-xyz" → 0`,
	];
}

/** @param {import('../env').E2eEnv} env */
async function personaPicker(env) {
	const all = await picker(env, 'persona', 'searchPersonas', '');
	assert.deepEqual(
		all.map((entry) => entry.value),
		env.emulatorPersonas.map((persona) => persona.id),
	);
	for (const persona of env.emulatorPersonas) {
		assert.ok(
			all.some((entry) => entry.name.startsWith(persona.name)),
			`persona "${persona.name}" shown`,
		);
	}
	const pirate = await picker(env, 'persona', 'searchPersonas', 'pirate');
	assert.deepEqual(
		pirate.map((entry) => entry.value),
		['persona_pirate'],
	);
	return `${all.length} entries: ${all.map((entry) => `"${entry.name}"`).join(', ')}; "pirate" → ${pirate[0].name}`;
}

/** @param {import('../env').E2eEnv} env */
async function nodeAndCredentialTypes(env) {
	const nodeTypes = await env.client.request('GET', '/types/nodes.json');
	const node = nodeTypes.find((/** @type {any} */ type) => type.name === NODE_TYPE);
	assert.ok(node, `${NODE_TYPE} missing from /types/nodes.json`);
	assert.equal(node.displayName, 'Assistant');
	assert.ok(
		node.credentials.some((/** @type {any} */ c) => c.name === CREDENTIAL_TYPE),
		'node uses assistantApi',
	);
	// n8n appends "Custom API Call" (__CUSTOM_API_CALL__) to nodes whose credential can
	// authenticate other requests; the editor then points at the HTTP Request node.
	const operations = node.properties
		.find((/** @type {any} */ p) => p.name === 'operation')
		.options.map((/** @type {any} */ o) => o.value)
		.filter((/** @type {string} */ value) => value !== '__CUSTOM_API_CALL__')
		.sort();
	assert.deepEqual(operations, ['ask', 'getCatalog', 'listModels', 'listPersonas']);
	const credentialTypes = await env.client.request('GET', '/types/credentials.json');
	const type = credentialTypes.find((/** @type {any} */ t) => t.name === CREDENTIAL_TYPE);
	assert.ok(type, `${CREDENTIAL_TYPE} missing from /types/credentials.json`);
	const fields = type.properties.map((/** @type {any} */ p) => p.name);
	assert.ok(
		fields.includes('baseUrl') && fields.includes('accessToken'),
		`fields: ${fields.join(', ')}`,
	);
	return `node "${node.displayName}" (${node.name}) with ${operations.join(', ')}; credential "${type.displayName}" with ${fields.join(', ')}`;
}

/** @param {import('../env').E2eEnv} env */
async function toolType(env) {
	const nodeTypes = await env.client.request('GET', '/types/nodes.json');
	const tool = nodeTypes.find((/** @type {any} */ type) => type.name === TOOL_TYPE);
	assert.ok(tool, `${TOOL_TYPE} missing from /types/nodes.json`);
	assert.equal(tool.displayName, 'Assistant Tool');
	assert.deepEqual(tool.inputs, [], 'a tool has no main input');
	assert.deepEqual(tool.outputs, ['ai_tool'], 'a tool outputs ai_tool');
	assert.ok(
		tool.credentials.some((/** @type {any} */ c) => c.name === CREDENTIAL_TYPE),
		'the tool uses assistantApi',
	);
	const names = tool.properties.map((/** @type {any} */ p) => p.name);
	const expected = ['toolDescription', 'operation', 'input', 'conversationId', 'model', 'persona'];
	for (const name of [...expected, 'options']) {
		assert.ok(names.includes(name), `parameter "${name}" missing; has ${names.join(', ')}`);
	}
	const operations = tool.properties
		.find((/** @type {any} */ p) => p.name === 'operation')
		.options.map((/** @type {any} */ o) => o.value);
	assert.ok(operations.includes('ask'), `operations: ${operations.join(', ')}`);
	// The node declares the tool's Description itself (one per operation, shown only in the tool,
	// `@tool`), so n8n adds no "Set Automatically" choice, whose text would be the node's one
	// line: the agent reads the operation's text. The panel line stays one short line.
	const node = nodeTypes.find((/** @type {any} */ type) => type.name === NODE_TYPE);
	assert.ok(!names.includes('descriptionType'), 'n8n added its own Tool Description choice');
	assert.ok(tool.description.length <= 60 && !tool.description.includes('\n'), tool.description);
	const descriptions = tool.properties.filter(
		(/** @type {any} */ p) => p.name === 'toolDescription',
	);
	assert.deepEqual(
		descriptions.map((/** @type {any} */ p) => p.displayOptions.show),
		['ask', 'listModels', 'listPersonas', 'getCatalog'].map((operation) => ({
			operation: [operation],
			'@tool': [true],
		})),
	);
	assert.match(descriptions[0].default, /self-contained question.*conversation_id/s);
	assert.ok(
		!node.properties.some(
			(/** @type {any} */ p) => p.name === 'toolDescription' && !p.displayOptions?.show?.['@tool'],
		),
		'the node shows a tool description',
	);
	assert.deepEqual(tool.codex?.subcategories?.AI, ['Tools'], 'listed among the AI tools');
	return `"${tool.displayName}" (${tool.name}): inputs [], outputs ${JSON.stringify(tool.outputs)}, credential ${CREDENTIAL_TYPE}, parameters ${names.join(', ')}`;
}

/**
 * The codex n8n serves: the Assistant node under Productivity without subcategories (n8n's next
 * lint rules, no-ai-codex-category and no-codex-subcategories, reserve them for nodes built on
 * the AI node SDK), the chat model under AI > Language Models. That the nodes panel still finds
 * the node by search is the `nodes-panel` check (usability.js).
 */
/** @param {import('../env').E2eEnv} env */
async function servedCodex(env) {
	const nodeTypes = await env.client.request('GET', '/types/nodes.json');
	/** @param {string} name */
	const codexOf = (name) => nodeTypes.find((/** @type {any} */ type) => type.name === name)?.codex;
	const node = codexOf(NODE_TYPE);
	assert.deepEqual(node?.categories, ['Productivity'], JSON.stringify(node));
	assert.equal(node?.subcategories, undefined, 'no subcategories on the Assistant node');
	const chatModel = codexOf(CHAT_MODEL_TYPE);
	assert.deepEqual(chatModel?.categories, ['AI'], JSON.stringify(chatModel));
	assert.ok(
		chatModel?.subcategories?.AI?.includes('Language Models'),
		`chat model subcategories: ${JSON.stringify(chatModel?.subcategories)}`,
	);
	return `Assistant: ${JSON.stringify(node.categories)}; Assistant Chat Model: ${JSON.stringify(chatModel.categories)} ${JSON.stringify(chatModel.subcategories)}`;
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'model-picker',
		name: "backend: the model picker lists the emulator's models, and search filters them",
		run: modelPicker,
	},
	{
		id: 'persona-picker',
		name: "backend: the persona picker lists the emulator's personas, and search filters them",
		run: personaPicker,
	},
	{
		id: 'node-types',
		name: 'backend: n8n lists the Assistant node type and its credential type',
		run: nodeAndCredentialTypes,
	},
	{
		id: 'tool-type',
		name: 'backend: n8n lists the tool variant "Assistant Tool" for the AI Agent',
		run: toolType,
	},
	{
		id: 'nodes-panel-codex',
		name: 'backend: n8n serves the codex (Assistant under Productivity, the chat model under AI > Language Models)',
		run: servedCodex,
	},
];
