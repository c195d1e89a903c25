// @ts-check
'use strict';

/**
 * Images in the real n8n app (docs/api.md#images): a file made by n8n's own nodes (Set → Convert to
 * File, stored in n8n's binary data mode, on disk by default) goes into Ask by Image Fields, and an
 * AI Agent handed the same file (Passthrough Binary Images) passes it to the Assistant Chat Model:
 * each arrives in the ask byte for byte as a Markdown data URL, and the emulator's model saw it
 * (its answer names the image's size and SHA-256).
 */

const assert = require('node:assert/strict');
const { createHash, randomBytes } = require('node:crypto');

const { nodeOutput } = require('../n8n-client');
const { LANGCHAIN, importAndRun, manualTrigger } = require('../env');
const { readTranscript } = require('../../emulator/transcript');

/** A 60 KB "PNG": the signature, then random bytes (the emulator checks bytes, not pixels). */
const PNG = Buffer.concat([
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	randomBytes(60_000),
]);
const BASE64 = PNG.toString('base64');
const SHA256 = createHash('sha256').update(PNG).digest('hex');
const FILE_NAME = 'receipt.png';

/** Set (the base64) → Convert to File (binary `data`, receipt.png, image/png). */
const picture = {
	id: 'picture',
	name: 'Picture',
	type: 'n8n-nodes-base.set',
	typeVersion: 3.4,
	position: [150, 0],
	parameters: {
		assignments: { assignments: [{ id: 'png', name: 'png', value: BASE64, type: 'string' }] },
		options: {},
	},
};
const toFile = {
	id: 'to-file',
	name: 'Convert to File',
	type: 'n8n-nodes-base.convertToFile',
	typeVersion: 1.1,
	position: [300, 0],
	parameters: {
		operation: 'toBinary',
		sourceProperty: 'png',
		options: { fileName: FILE_NAME, mimeType: 'image/png' },
	},
};

/**
 * @param {string} id
 * @param {string} name
 * @param {any[]} nodes
 * @param {Record<string, any>} connections
 */
function workflow(id, name, nodes, connections) {
	return { id, name, nodes, connections, settings: { executionOrder: 'v1' }, active: false };
}

/** @param {any[]} chain */
function mainLine(chain) {
	/** @type {Record<string, any>} */
	const connections = {};
	chain.slice(0, -1).forEach((node, index) => {
		connections[node.name] = { main: [[{ node: chain[index + 1].name, type: 'main', index: 0 }]] };
	});
	return connections;
}

/** @param {import('../env').E2eEnv} env */
async function imageIntoAsk(env) {
	const ask = {
		id: 'ask',
		name: 'Ask',
		type: 'n8n-nodes-assistant.assistant',
		typeVersion: 1,
		position: [450, 0],
		parameters: {
			operation: 'ask',
			input: 'What is the total on this receipt?',
			imageFields: 'data',
			model: { __rl: true, mode: 'list', value: '' },
			persona: { __rl: true, mode: 'list', value: '' },
			options: {},
		},
		credentials: { assistantApi: env.credential },
	};
	const chain = [manualTrigger, picture, toFile, ask];
	const { result, asks } = await importAndRun(
		env,
		workflow('asstImagesAsk001', 'Images: a file into Ask', chain, mainLine(chain)),
	);
	assert.equal(asks.length, 1, 'one ask');
	assert.equal(
		asks[0].body.input,
		`What is the total on this receipt?\n\n![${FILE_NAME}](data:image/png;base64,${BASE64})`,
		'the image is not in the ask byte for byte',
	);
	const [item] = nodeOutput(result.runData, 'Ask');
	const seen = `#1 ${FILE_NAME} image/png ${PNG.length} bytes sha256 ${SHA256}`;
	assert.ok(String(item.output).includes(seen), `the model did not see it: ${item.output}`);
	return [`${PNG.length} bytes sent as a data URL; the model saw ${seen.slice(0, 60)}…`];
}

/** @param {import('../env').E2eEnv} env */
async function imageIntoChatModel(env) {
	const question = 'What is in this picture?';
	const agent = {
		id: 'agent',
		name: 'AI Agent',
		type: `${LANGCHAIN}.agent`,
		typeVersion: 3.1,
		position: [450, 0],
		parameters: { promptType: 'define', text: question, options: {} },
	};
	const model = {
		id: 'model',
		name: 'Assistant Chat Model',
		type: 'n8n-nodes-assistant.assistantChatModel',
		typeVersion: 1,
		position: [450, 240],
		parameters: {
			model: { __rl: true, mode: 'list', value: '' },
			persona: { __rl: true, mode: 'list', value: '' },
			options: {},
		},
		credentials: { assistantApi: env.credential },
	};
	const chain = [manualTrigger, picture, toFile, agent];
	const connections = {
		...mainLine(chain),
		[model.name]: {
			ai_languageModel: [[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
		},
	};
	const { result, asks } = await importAndRun(
		env,
		workflow(
			'asstImagesChat01',
			'Images: a file handed to the agent',
			[...chain, model],
			connections,
		),
	);
	assert.equal(asks.length, 1, 'one ask');
	const transcript = readTranscript(String(asks[0].body.input));
	assert.ok(transcript, 'the ask is not a transcript');
	const image = `![image](data:image/png;base64,${BASE64})`;
	assert.ok(
		transcript.messages.some((message) => message.role === 'user' && message.content === image),
		`the image is not a user message of its own, byte for byte: ${JSON.stringify(transcript.messages).slice(0, 400)}`,
	);
	assert.ok(
		transcript.messages.some((message) => message.role === 'user' && message.content === question),
		'the question is its own message',
	);
	const [item] = nodeOutput(result.runData, agent.name);
	const seen = `image/png ${PNG.length} bytes sha256 ${SHA256}`;
	assert.ok(String(item?.output).includes(seen), `the model did not see it: ${item?.output}`);
	return [`the agent's image reached the model: ${seen.slice(0, 60)}…`];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'images-ask',
		name: 'images: a file made in n8n goes into Ask by Image Fields, byte for byte, and the model sees it',
		run: imageIntoAsk,
	},
	{
		id: 'images-chat-model',
		name: 'images: an image handed to the AI Agent reaches the Assistant Chat Model’s ask byte for byte',
		run: imageIntoChatModel,
	},
];
