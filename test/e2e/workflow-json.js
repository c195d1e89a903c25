// @ts-check
'use strict';

/**
 * The workflow JSON the checks import, in pieces: each node several checks use, written once as
 * n8n exports it (the checks pass what differs: the prompt, the parameters, the position), and
 * the connections between them. A workflow a check builds reads as the nodes it lists.
 */

/** n8n's AI nodes (chains, agents, memories, tools) are types of this package. */
const LANGCHAIN = '@n8n/n8n-nodes-langchain';
const CHAT_MODEL_TYPE = 'n8n-nodes-assistant.assistantChatModel';

/** The resource locators' "nothing chosen": the account's default model, no persona. */
const DEFAULT_PICK = () => ({ __rl: true, mode: 'list', value: '' });

/**
 * A node as n8n exports it.
 * @param {string} id
 * @param {string} name
 * @param {string} type
 * @param {number} typeVersion
 * @param {number[]} position
 * @param {Record<string, unknown>} parameters
 * @param {Record<string, unknown>} [extra]  more fields (credentials, webhookId…)
 */
function n8nNode(id, name, type, typeVersion, position, parameters, extra = {}) {
	return { id, name, type, typeVersion, position, parameters, ...extra };
}

/** The trigger of the workflows the checks build. */
const manualTrigger = n8nNode('trigger', 'Run', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {});

/**
 * The Assistant node's Ask, on the emulator's credential: the default model and persona unless
 * `parameters` say others.
 * @param {{credential: unknown}} env
 * @param {Record<string, unknown>} parameters
 * @param {{id?: string, name?: string, position?: number[]}} [where]
 */
function askNode(env, parameters, { id = 'ask', name = 'Ask', position = [200, 0] } = {}) {
	const defaults = {
		operation: 'ask',
		model: DEFAULT_PICK(),
		persona: DEFAULT_PICK(),
		options: {},
	};
	return n8nNode(
		id,
		name,
		'n8n-nodes-assistant.assistant',
		1,
		position,
		{
			...defaults,
			...parameters,
		},
		{ credentials: { assistantApi: env.credential } },
	);
}

/**
 * The Assistant Chat Model on the emulator's credential: the default model and persona unless
 * `parameters` say others.
 * @param {{credential: unknown}} env
 * @param {Record<string, unknown>} [parameters]
 * @param {{id?: string, position?: number[]}} [where]
 */
function chatModelNode(env, parameters = {}, { id = 'model', position = [200, 240] } = {}) {
	const defaults = { model: DEFAULT_PICK(), persona: DEFAULT_PICK(), options: {} };
	return n8nNode(
		id,
		'Assistant Chat Model',
		CHAT_MODEL_TYPE,
		1,
		position,
		{
			...defaults,
			...parameters,
		},
		{ credentials: { assistantApi: env.credential } },
	);
}

/**
 * n8n's AI Agent with the prompt `text`.
 * @param {string} text
 * @param {{id?: string, typeVersion?: number, position?: number[], options?: Record<string, unknown>}} [spec]
 */
function agentNode(
	text,
	{ id = 'agent', typeVersion = 3.1, position = [200, 0], options = {} } = {},
) {
	const parameters = { promptType: 'define', text, options };
	return n8nNode(id, 'AI Agent', `${LANGCHAIN}.agent`, typeVersion, position, parameters);
}

/**
 * n8n's Basic LLM Chain with the prompt `text`.
 * @param {string} text
 * @param {{id?: string, position?: number[]}} [where]
 */
function chainNode(text, { id = 'chain', position = [200, 0] } = {}) {
	const parameters = { promptType: 'define', text };
	return n8nNode(id, 'Basic LLM Chain', `${LANGCHAIN}.chainLlm`, 1.7, position, parameters);
}

/**
 * A file made by n8n's own nodes: Set (the base64 in `png`) → Convert to File (binary `data`,
 * image/png, `fileName`).
 * @param {string} base64
 * @param {string} fileName
 */
function imageFileNodes(base64, fileName) {
	const assignment = { id: 'png', name: 'png', value: base64, type: 'string' };
	return [
		n8nNode('picture', 'Picture', 'n8n-nodes-base.set', 3.4, [150, 0], {
			assignments: { assignments: [assignment] },
			options: {},
		}),
		n8nNode('to-file', 'Convert to File', 'n8n-nodes-base.convertToFile', 1.1, [300, 0], {
			operation: 'toBinary',
			sourceProperty: 'png',
			options: { fileName, mimeType: 'image/png' },
		}),
	];
}

/**
 * A workflow to import.
 * @param {string} id
 * @param {string} name
 * @param {any[]} nodes
 * @param {Record<string, any>} connections
 */
function workflowJson(id, name, nodes, connections) {
	return { id, name, nodes, connections, settings: { executionOrder: 'v1' }, active: false };
}

/**
 * The connections of nodes in a line on `main`, each into the next.
 * @param {{name: string}[]} nodes
 */
function mainLine(nodes) {
	/** @type {Record<string, any>} */
	const connections = {};
	nodes.slice(0, -1).forEach((node, index) => {
		connections[node.name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	});
	return connections;
}

/**
 * The connections of a model on `root`'s Model input and tools on its Tool input.
 * @param {{name: string}} root
 * @param {{name: string}} model
 * @param {{name: string}[]} [tools]
 */
function aiInputs(root, model, tools = []) {
	/** @type {Record<string, any>} */
	const connections = {
		[model.name]: { ai_languageModel: [[{ node: root.name, type: 'ai_languageModel', index: 0 }]] },
	};
	for (const tool of tools) {
		connections[tool.name] = { ai_tool: [[{ node: root.name, type: 'ai_tool', index: 0 }]] };
	}
	return connections;
}

/**
 * Nodes in a line on `main` whose last is an AI root (a chain, an agent) with the Assistant Chat
 * Model (`model`, made with chatModelNode) on its Model input and `tools` on its Tool input.
 * @param {string} id
 * @param {string} name
 * @param {{line: any[], model: any, tools?: any[]}} spec
 */
function aiWorkflow(id, name, { line, model, tools = [] }) {
	const root = line[line.length - 1];
	return workflowJson(id, name, [...line, model, ...tools], {
		...mainLine(line),
		...aiInputs(root, model, tools),
	});
}

module.exports = {
	LANGCHAIN,
	CHAT_MODEL_TYPE,
	n8nNode,
	manualTrigger,
	askNode,
	chatModelNode,
	agentNode,
	chainNode,
	imageFileNodes,
	workflowJson,
	mainLine,
	aiInputs,
	aiWorkflow,
};
