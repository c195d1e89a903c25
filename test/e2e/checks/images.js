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
const { importAndRun } = require('../env');
const {
	agentNode,
	aiWorkflow,
	askNode,
	chatModelNode,
	imageFileNodes,
	mainLine,
	manualTrigger,
	workflowJson,
} = require('../workflow-json');
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
const FILE_NODES = imageFileNodes(BASE64, FILE_NAME);

/** @param {import('../env').E2eEnv} env */
async function imageIntoAsk(env) {
	const ask = askNode(
		env,
		{ input: 'What is the total on this receipt?', imageFields: 'data' },
		{ position: [450, 0] },
	);
	const chain = [manualTrigger, ...FILE_NODES, ask];
	const { result, asks } = await importAndRun(
		env,
		workflowJson('asstImagesAsk001', 'Images: a file into Ask', chain, mainLine(chain)),
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
	const agent = agentNode(question, { position: [450, 0] });
	const model = chatModelNode(env, {}, { position: [450, 240] });
	const { result, asks } = await importAndRun(
		env,
		aiWorkflow('asstImagesChat01', 'Images: a file handed to the agent', {
			line: [manualTrigger, ...FILE_NODES, agent],
			model,
		}),
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
