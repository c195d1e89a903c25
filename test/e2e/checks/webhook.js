// @ts-check
'use strict';

/**
 * The streaming webhook example, published as the editor's "Publish" button does, then called
 * by a plain HTTP client: the Ask's chunks must reach the caller while the answer is written.
 */

const assert = require('node:assert/strict');

const { nodeOutput } = require('../n8n-client');
const { asks, emulatorAsk } = require('../env');
const { readStreamedWebhook } = require('../streamed-webhook');

/** The emulator's pause between stream chunks in this check. */
const STREAM_CHUNK_MS = 250;

/**
 * n8n's format: one JSON object a line, {type: begin|item|end, content?, metadata}; returns
 * the `item` lines after checking the frame around them.
 * @template {{json: any}} L
 * @param {L[]} allLines
 * @returns {L[]}
 */
function itemLines(allLines) {
	const lines = allLines.filter((line) => line.json.type !== 'keepalive');
	const types = lines.map((line) => line.json.type);
	assert.equal(types[0], 'begin', `first line: ${JSON.stringify(lines[0]?.json)}`);
	assert.equal(types.at(-1), 'end', `last line: ${JSON.stringify(lines.at(-1)?.json)}`);
	assert.ok(
		lines.every(
			(line) => line.json.metadata?.nodeName === 'Ask' && line.json.metadata?.itemIndex === 0,
		),
		'every line comes from the Ask node, item 0',
	);
	const items = lines.filter((line) => line.json.type === 'item');
	assert.deepEqual(
		types,
		['begin', ...items.map(() => 'item'), 'end'],
		`line types: ${types.join(', ')}`,
	);
	return items;
}

/** @param {import('../env').E2eEnv} env */
async function streamToWebhookCaller(env) {
	const { client, emulator } = env;
	const workflow = (await env.workflows())['webhook-streaming'];
	assert.ok(workflow, 'the webhook-streaming example was not imported');
	const webhook = workflow.nodes.find(
		(/** @type {any} */ node) => node.type === 'n8n-nodes-base.webhook',
	);
	assert.equal(webhook.parameters.responseMode, 'streaming');
	const published = await client.publishWorkflow(workflow);
	// 8 chunks or so, 250 ms apart (the emulator's slow-chunks fault, set in the question).
	const question = `Tell me about lighthouses #fault=slow-chunks&ms=${STREAM_CHUNK_MS}`;
	const url = `${env.n8n.url}/webhook/${webhook.parameters.path}`;
	const before = emulator.stats.requests.length;
	const stream = await readStreamedWebhook(
		url,
		{ question },
		{
			probe: () => ({
				emulatorInFlight: emulator.stats.inFlight,
				emulatorFinished: emulator.stats.completedAsks.get(question) ?? 0,
			}),
			timeoutMs: 60_000,
		},
	);
	const [ask, ...moreAsks] = asks(emulator.stats.requests.slice(before));
	assert.ok(ask, 'the emulator received no ask');
	assert.equal(moreAsks.length, 0, 'one ask');
	assert.equal(ask.body.input, question, "the request body's question was asked");
	assert.equal(ask.body.stream, true, 'the ask asked for a stream');
	assert.equal(stream.status, 200);
	assert.match(stream.contentType, /^application\/json/, 'n8n streams JSON lines');
	const items = itemLines(stream.lines);
	assert.ok(items.length >= 5, `expected one chunk a word, got ${items.length}`);

	// Live: the first chunk came while the emulator was still writing the answer.
	const [first, last] = [items[0], /** @type {any} */ (items.at(-1))];
	assert.equal(
		first.probe.emulatorFinished,
		0,
		'the emulator had already finished the answer when the first chunk arrived',
	);
	assert.ok(
		first.probe.emulatorInFlight > 0,
		'no request in flight at the emulator when the first chunk arrived',
	);
	const spread = last.atMs - first.atMs;
	const minSpread = (items.length - 1) * STREAM_CHUNK_MS * 0.8;
	assert.ok(
		spread >= minSpread,
		`the chunks arrived within ${spread} ms, expected >= ${minSpread} ms (they were buffered, not streamed)`,
	);
	assert.ok(
		stream.endMs - first.atMs >= minSpread,
		`the first chunk arrived ${stream.endMs - first.atMs} ms before the end of the response`,
	);

	// Joined, the chunks are the answer: what the emulator answers for that input...
	const joined = items.map((line) => line.json.content).join('');
	const reference = await emulatorAsk(emulator, { ...ask.body, stream: false });
	assert.equal(joined, reference.output, "the joined chunks are the emulator's answer");
	// ...and what n8n recorded as the Ask node's output.
	const execution = await client.lastExecution(workflow.id);
	assert.equal(
		execution.status,
		'success',
		`execution ${execution.executionId}: ${execution.error?.message ?? ''}`,
	);
	const [output] = nodeOutput(execution.runData, 'Ask');
	assert.equal(output.output, joined, "the execution's output is the streamed answer");
	return [
		`published in ${published.waitedMs} ms (POST /rest/workflows/:id/activate, then publication-status "published"); POST ${new URL(url).pathname}`,
		`${items.length} chunks: first after ${first.atMs} ms (emulator still answering: ${first.probe.emulatorInFlight} in flight, answer not finished), last after ${last.atMs} ms, response ended after ${stream.endMs} ms: the first chunk came ${stream.endMs - first.atMs} ms before the end`,
		`joined (${joined.length} chars) = the emulator's answer = the execution's output: ${JSON.stringify(joined)}`,
	];
}

/**
 * The same Webhook (response mode Streaming) in front of an Ask whose Stream option is off: the
 * caller gets the whole answer in one chunk once it is complete, never an empty 200.
 * @param {import('../env').E2eEnv} env
 */
async function streamOffToWebhookCaller(env) {
	const { client } = env;
	const workflow = structuredClone(env.examples['webhook-streaming']);
	workflow.id = undefined;
	workflow.name = 'Assistant: a streaming webhook in front of an Ask with Stream off';
	const webhook = workflow.nodes.find(
		(/** @type {any} */ node) => node.type === 'n8n-nodes-base.webhook',
	);
	webhook.webhookId = '9d3f6a21-4c8e-4b7a-a1f0-2e5c7b9d0a64';
	webhook.parameters.path = 'assistant-stream-off';
	const ask = workflow.nodes.find((/** @type {any} */ node) => node.name === 'Ask');
	ask.parameters.options = { stream: false };
	const saved = await client.importWorkflow(workflow);
	await client.publishWorkflow(saved);
	const question = 'Tell me about harbours';
	const url = `${env.n8n.url}/webhook/${webhook.parameters.path}`;
	const stream = await readStreamedWebhook(url, { question }, { timeoutMs: 60_000 });
	assert.equal(stream.status, 200);
	const items = itemLines(stream.lines);
	assert.equal(items.length, 1, `one chunk expected, got ${items.length}`);
	const [answer] = items.map((line) => line.json.content);
	assert.ok(typeof answer === 'string' && answer.length > 0, 'the chunk is empty');
	const execution = await client.lastExecution(saved.id);
	assert.equal(execution.status, 'success', execution.error?.message ?? '');
	const [output] = nodeOutput(execution.runData, 'Ask');
	assert.equal(output.output, answer, "the chunk is the execution's answer, whole");
	assert.match(answer, /Tell me about harbours/);
	return [`one chunk, the whole answer (${answer.length} chars): ${JSON.stringify(answer)}`];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'webhook-streaming',
		name: 'webhook "Assistant: stream an answer to a webhook caller": chunks arrive live, joined they are the answer',
		run: streamToWebhookCaller,
	},
	{
		id: 'webhook-stream-off',
		name: 'webhook: a streaming Webhook in front of an Ask with Stream off gets the whole answer in one chunk, never an empty response',
		run: streamOffToWebhookCaller,
	},
];
