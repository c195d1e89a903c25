// @ts-check
'use strict';

/**
 * Exactly once in the real n8n app (docs/api.md#recovery-after-a-failure): an Ask whose response
 * fails after the assistant accepted it is not sent again; its answer is read from the
 * conversation. The emulator's turns run on after the connection fails and count how many times
 * each ask was started.
 */

const assert = require('node:assert/strict');

const { nodeOutput } = require('../n8n-client');
const { asks, emulatorAsk, recording } = require('../env');

/**
 * The "ask (text)" example with another id, name, input and conversation, saved in n8n.
 * @param {import('../env').E2eEnv} env
 * @param {string} id  16 characters, as n8n's workflow ids
 * @param {string} input
 * @param {string} conversationId
 */
async function askWorkflow(env, id, input, conversationId) {
	const workflow = structuredClone(env.examples['ask-text']);
	workflow.id = id;
	workflow.name = `Assistant: exactly once (${id})`;
	const ask = workflow.nodes.find((/** @type {any} */ node) => node.name === 'Ask');
	Object.assign(ask.parameters, { input, conversationId });
	return await env.client.importWorkflow(workflow);
}

/**
 * Runs the workflow: its Ask's item, and how often the emulator was sent and started the ask.
 * @param {import('../env').E2eEnv} env
 * @param {any} workflow
 * @param {string} input
 */
async function runOnce(env, workflow, input) {
	const { result, requests } = await recording(env.emulator, () =>
		env.client.runWorkflow(workflow),
	);
	assert.equal(result.status, 'success', `execution ended "${result.status}"`);
	const [item] = nodeOutput(result.runData, 'Ask');
	const sent = asks(requests).filter((request) => request.body?.input === input).length;
	return { item, sent, started: env.emulator.stats.startedAsks.get(input) ?? 0 };
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'exactly-once',
		name: 'exactly once: a stream cut mid-answer and a proxy’s 502 after acceptance, each started once, the answer read from the conversation',
		run: async (env) => {
			const cut = 'Mail the weekly report #fault=reset-mid-stream&ms=0';
			const first = await runOnce(env, await askWorkflow(env, 'asstExactOnce001', cut, ''), cut);
			assert.match(String(first.item.output), /You said: "Mail the weekly report/);
			assert.equal(first.item.recovered, true);
			assert.deepEqual([first.sent, first.started], [1, 1], 'sent and started once');

			const earlier = await emulatorAsk(env.emulator, { input: 'Hi! My name is Ada.' });
			const proxied = 'Book the room #fault=accepted-502&ms=0&times=1';
			const second = await runOnce(
				env,
				await askWorkflow(env, 'asstExactOnce002', proxied, earlier.conversation_id),
				proxied,
			);
			assert.equal(second.item.conversation_id, earlier.conversation_id);
			assert.equal(second.item.recovered, true);
			assert.match(String(second.item.output), /You said: "Book the room/);
			assert.deepEqual([second.sent, second.started], [1, 1], 'sent and started once');
			return [
				`cut mid-answer: recovered, sent ${first.sent}, started ${first.started}`,
				`502 after acceptance (conversation ${earlier.conversation_id}): recovered, sent ${second.sent}, started ${second.started}`,
			];
		},
	},
];
