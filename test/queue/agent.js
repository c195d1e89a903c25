// @ts-check
'use strict';

/**
 * The agent example (examples/agent-tool.json: Chat Trigger → AI Agent on the Assistant Chat
 * Model, with n8n's Calculator and the Assistant tool) in queue mode: many chats at once, each in
 * its own execution on a worker. The emulator's scripted replies make the model call the
 * Calculator with the arithmetic of the question and quote its result, so an answer that comes
 * back with another chat's number would show a conversation shared across executions.
 */

const assert = require('node:assert/strict');

const { readExamples } = require('../e2e/n8n-client');

/** The chat trigger's webhook id in this test's copy of the example. */
const CHAT_WEBHOOK_ID = '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c';

/** @typedef {{session: string, input: string, expected: string}} Chat */

/**
 * The example, with its chat public (n8n answers a non-public chat only to the editor's test
 * session), imported and published.
 * @param {import('../e2e/n8n-client').N8nClient} client
 */
async function publishAgentExample(client) {
	const copy = structuredClone(readExamples()['agent-tool']);
	assert.ok(copy, 'examples/agent-tool.json is missing');
	copy.id = 'asstQueueAgent01';
	copy.name = `${copy.name} (queue mode test)`;
	const trigger = copy.nodes.find((/** @type {any} */ node) => node.type.endsWith('.chatTrigger'));
	assert.ok(trigger, 'the agent example has no chat trigger');
	trigger.webhookId = CHAT_WEBHOOK_ID;
	trigger.parameters.public = true;
	const saved = await client.importWorkflow(copy);
	await client.publishWorkflow(saved);
	return saved;
}

/**
 * One chat per session, each with its own arithmetic: 6 × (n + 1).
 * @param {number} count
 * @returns {Chat[]}
 */
function planChats(count) {
	return Array.from({ length: count }, (_, n) => ({
		session: `queue-chat-${n}`,
		input: `Use the calculator to work out 6 * ${n + 1}`,
		expected: `Calculator returned [{"response":"${6 * (n + 1)}"}]`,
	}));
}

/**
 * Sends every chat's message at once; checks each answer quotes its own calculation.
 * @param {string} n8nUrl
 * @param {Chat[]} chats
 */
async function chatAll(n8nUrl, chats) {
	const answers = await Promise.all(
		chats.map(async (chat) => {
			const response = await fetch(`${n8nUrl}/webhook/${CHAT_WEBHOOK_ID}/chat`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					action: 'sendMessage',
					sessionId: chat.session,
					chatInput: chat.input,
				}),
				signal: AbortSignal.timeout(150_000),
			});
			return { status: response.status, text: await response.text() };
		}),
	);
	chats.forEach((chat, index) => {
		const { status, text } = answers[index];
		assert.equal(status, 200, `${chat.session}: HTTP ${status}: ${text.slice(0, 300)}`);
		const answer = outputOf(text);
		assert.ok(answer.includes(chat.expected), `${chat.session}: ${answer.slice(0, 300)}`);
	});
	return `${chats.length} chats at once, each answered with its own calculation (6 × 1 … 6 × ${chats.length})`;
}

/** @param {string} text */
function outputOf(text) {
	try {
		const parsed = JSON.parse(text);
		return typeof parsed?.output === 'string' ? parsed.output : text;
	} catch {
		return text;
	}
}

/**
 * The model's asks since `firstAsk`: two turns per chat (call the Calculator, then answer), the
 * second continuing the first's conversation, no conversation shared between chats.
 * @param {{stats: import('../emulator/server').Emulator['stats']}} emulator
 * @param {number} firstAsk
 * @param {Chat[]} chats
 */
function checkAgentAsks(emulator, firstAsk, chats) {
	const asks = emulator.stats.requests
		.slice(firstAsk)
		.filter((request) => request.path === '/assistant/ask');
	const statuses = asks.map((request) => request.status);
	assert.ok(
		statuses.every((status) => status === 200),
		`statuses: ${JSON.stringify(statuses)}`,
	);
	const bodies = asks.map(
		(request) => /** @type {{conversation_id?: string, output_format?: unknown}} */ (request.body),
	);
	assert.ok(
		bodies.every((body) => body.output_format !== undefined),
		'only the model asked (the Assistant tool was not called)',
	);
	const first = bodies.filter((body) => !body.conversation_id);
	const continued = bodies.map((body) => body.conversation_id).filter(Boolean);
	assert.equal(first.length, chats.length, 'one new conversation per chat');
	assert.equal(continued.length, chats.length, 'one follow-up turn per chat');
	assert.equal(new Set(continued).size, chats.length, 'no conversation shared between chats');
	return `${asks.length} asks (${chats.length} × 2 turns), all HTTP 200; every follow-up in its own chat's conversation`;
}

module.exports = { publishAgentExample, planChats, chatAll, checkAgentAsks };
