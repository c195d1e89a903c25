// @ts-check
'use strict';

/**
 * The example workflows, imported as the editor saves them and run by n8n as its "Execute
 * workflow" button does; each output is compared with what the emulator serves or received.
 */

const assert = require('node:assert/strict');

const { CREDENTIAL_NAME, CUSTOM_TYPES, nodeOutput } = require('../n8n-client');
const { asks, emulatorGet } = require('../env');

/**
 * A list example (List Models, List Personas): one item per entry, as the emulator lists them.
 * @param {string} id  the check's id, also the example's file name
 * @param {string} nodeName
 * @param {string} noun
 * @param {(env: import('../env').E2eEnv) => any[]} expected
 * @param {string} key  the field each entry is named by in the PASS line
 * @returns {import('../env').Check}
 */
function listCheck(id, nodeName, noun, expected, key) {
	return {
		id,
		name: `workflow "Assistant: ${nodeName.toLowerCase()}": one item per ${noun}, as the API lists them`,
		run: async (env) => {
			const { run } = await env.runExample(id);
			const items = nodeOutput(run.runData, nodeName);
			assert.deepEqual(items, expected(env));
			return `${items.length} ${noun}s: ${items.map((/** @type {any} */ entry) => entry[key]).join(', ')}`;
		},
	};
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'examples-import',
		name: 'workflows: the examples import and find the credential by name',
		run: async (env) => {
			const names = Object.keys(env.examples);
			assert.ok(names.length >= 13, `expected the 13 examples, found ${names.join(', ')}`);
			// Every type of this package, as n8n names it when installed (the examples' types).
			const ours = Object.keys(CUSTOM_TYPES);
			const saved = await env.workflows();
			let linked = 0;
			for (const [name, workflow] of Object.entries(env.examples)) {
				const assistantNodes = workflow.nodes.filter((/** @type {any} */ node) =>
					ours.includes(node.type),
				);
				assert.ok(assistantNodes.length > 0, `${name}: no ${ours.join(' or ')} node`);
				for (const node of assistantNodes) {
					assert.equal(
						node.credentials?.assistantApi?.name,
						CREDENTIAL_NAME,
						`${name}: node "${node.name}" must point at the credential "${CREDENTIAL_NAME}"`,
					);
				}
				const savedNodes = saved[name].nodes.filter((/** @type {any} */ n) =>
					ours.includes(n.type),
				);
				assert.equal(
					savedNodes.length,
					assistantNodes.length,
					`${name}: n8n saved ${savedNodes.length} of ${assistantNodes.length} Assistant nodes`,
				);
				for (const node of savedNodes) {
					assert.equal(
						node.credentials?.assistantApi?.id,
						env.credential.id,
						`${name}: node "${node.name}" is not linked to the credential`,
					);
					linked++;
				}
			}
			return `${Object.keys(saved).length} workflows; credential "${CREDENTIAL_NAME}" (${env.credential.id}) linked in all ${linked} Assistant nodes (Assistant Tool included)`;
		},
	},
	{
		id: 'ask-text',
		name: 'workflow "Assistant: ask (text)": a text answer and a conversation id',
		run: async (env) => {
			const { run, requests } = await env.runExample('ask-text');
			const [item, ...rest] = nodeOutput(run.runData, 'Ask');
			assert.equal(rest.length, 0, 'one item expected');
			assert.deepEqual(Object.keys(item).sort(), ['conversation_id', 'output']);
			assert.equal(typeof item.output, 'string');
			const input = env.examples['ask-text'].nodes[1].parameters.input;
			assert.ok(
				item.output.includes(input),
				`the emulator echoes the input; got ${JSON.stringify(item.output)}`,
			);
			assert.match(item.conversation_id, /^\S+$/);
			const [ask] = asks(requests);
			assert.ok(ask, 'the emulator received no ask');
			assert.equal(ask.authorization, true, 'the ask was sent without the access token');
			assert.equal(ask.body.input, input);
			return `output: ${JSON.stringify(item.output)}; conversation_id ${item.conversation_id}`;
		},
	},
	{
		id: 'ask-json-schema',
		name: 'workflow "Assistant: ask with a JSON Schema": an object matching the schema',
		run: async (env) => {
			const { run, requests } = await env.runExample('ask-json-schema');
			const [item] = nodeOutput(run.runData, 'Ask for JSON');
			const parameters = env.examples['ask-json-schema'].nodes[1].parameters;
			const schema = JSON.parse(parameters.jsonSchema);
			assert.equal(
				typeof item.output,
				'object',
				`output must be an object, got ${JSON.stringify(item.output)}`,
			);
			assert.equal(typeof item.output.summary, 'string');
			assert.ok(
				schema.properties.sentiment.enum.includes(item.output.sentiment),
				`sentiment ${item.output.sentiment}`,
			);
			assert.ok(
				Array.isArray(item.output.topics) &&
					item.output.topics.every((/** @type {unknown} */ t) => typeof t === 'string'),
				'topics: strings',
			);
			for (const key of schema.required) assert.ok(key in item.output, `required "${key}" missing`);
			assert.match(item.conversation_id, /^\S+$/);
			const [ask] = asks(requests);
			assert.deepEqual(ask.body.output_format, schema, 'the schema sent is the parameter, parsed');
			assert.equal(ask.body.model_name, parameters.model.value, 'the model set by ID is sent');
			return `output: ${JSON.stringify(item.output)}`;
		},
	},
	{
		id: 'conversation-chain',
		name: 'workflow "Assistant: continue a conversation": the second ask continues the first',
		run: async (env) => {
			const { run, requests } = await env.runExample('conversation-chain');
			const [first] = nodeOutput(run.runData, 'Introduce');
			const [second] = nodeOutput(run.runData, 'Follow Up');
			assert.match(first.conversation_id, /^\S+$/);
			assert.equal(second.conversation_id, first.conversation_id, 'same conversation');
			const sent = asks(requests);
			assert.equal(sent.length, 2, 'two asks');
			assert.equal(sent[0].body.conversation_id, undefined, 'the first ask starts a conversation');
			assert.equal(
				sent[1].body.conversation_id,
				first.conversation_id,
				"the second ask names the first one's conversation",
			);
			assert.ok(
				/\bAda\b/.test(second.output),
				`the emulator remembers the name from the first ask; got ${JSON.stringify(second.output)}`,
			);
			return [
				`conversation ${first.conversation_id}`,
				`follow-up: ${JSON.stringify(second.output)}`,
			];
		},
	},
	{
		id: 'ask-streamed',
		name: 'workflow "Assistant: ask, streamed": the streamed answer, assembled',
		run: async (env) => {
			const { run, requests } = await env.runExample('ask-streamed');
			const [item] = nodeOutput(run.runData, 'Ask (stream)');
			const input = env.examples['ask-streamed'].nodes[1].parameters.input;
			assert.equal(typeof item.output, 'string');
			assert.ok(item.output.includes(input), `got ${JSON.stringify(item.output)}`);
			assert.match(item.conversation_id, /^\S+$/);
			const [ask] = asks(requests);
			assert.equal(ask.body.stream, true, 'the ask asked for a stream');
			assert.equal(ask.status, 200);
			return `output: ${JSON.stringify(item.output)}`;
		},
	},
	listCheck('list-models', 'List Models', 'model', (env) => env.emulatorModels, 'model_name'),
	listCheck('list-personas', 'List Personas', 'persona', (env) => env.emulatorPersonas, 'id'),
	{
		id: 'get-catalog',
		name: 'workflow "Assistant: get the public catalog": one item per catalog model, fetched without the token',
		run: async (env) => {
			const { run, requests } = await env.runExample('get-catalog');
			const items = nodeOutput(run.runData, 'Get Catalog');
			const catalog = await emulatorGet(env.emulator, '/models/catalog');
			assert.deepEqual(items, catalog.models, 'one item per model, as served');
			const sent = requests.filter((request) => request.path === '/models/catalog');
			assert.equal(sent.length, 1);
			assert.equal(sent[0].authorization, false, 'the catalog request carried the access token');
			return `${items.length} items, one per catalog model`;
		},
	},
];
