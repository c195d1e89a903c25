// @ts-check
'use strict';

/**
 * The batches of questions the queue-mode test sends through the webhook, what every answer must
 * be, and the checks on n8n's executions, the workers' logs and the emulator's record.
 */

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { setTimeout: sleep } = require('node:timers/promises');

const MODEL = 'anthropic:claude-haiku-4-5-20251001';
const PERSONA = 'persona_general';

/**
 * @typedef {object} Question
 * @property {string} question
 * @property {string} conversationId  '' for a new conversation
 * @property {string} expected  the answer's text
 *
 * @typedef {object} Batch
 * @property {number} run
 * @property {string} name  told to the run's conversation before the test
 * @property {string} conversationId  the batch's own conversation
 * @property {Question[]} questions
 */

/** @param {string} input */
function said(input) {
	return `[model=${MODEL} persona=${PERSONA}] You said: "${input}".`;
}

/**
 * One batch per execution, `count` in all: four new questions and two that continue the batch's
 * own conversation, opened at the emulator first ("My name is AdaN."). Items 1 and 3 continue it:
 * the second must see the first, so they must run in order.
 * @param {{baseUrl: string, token: string}} emulator
 * @param {number} count
 * @returns {Promise<Batch[]>}
 */
async function planBatches(emulator, count) {
	return await Promise.all(
		Array.from({ length: count }, async (_, run) => {
			const name = `Ada${run}`;
			const introduction = `My name is ${name}.`;
			const conversationId = await openConversation(emulator, introduction);
			const first = `Run ${run}: what is my name?`;
			const second = `Run ${run}: and what's my name now?`;
			const earlier = (/** @type {string[]} */ ...inputs) =>
				` Earlier you said: ${inputs.map((input) => `"${input}"`).join(' | ')}.`;
			const fresh = (/** @type {string} */ question) => ({
				question,
				conversationId: '',
				expected: said(question),
			});
			const questions = [
				fresh(`Run ${run}: what is 2 + ${run}?`),
				{
					question: first,
					conversationId,
					expected: `${said(first)}${earlier(introduction)} Your name is ${name}.`,
				},
				fresh(`Run ${run}: summarise the news.`),
				{
					question: second,
					conversationId,
					expected: `${said(second)}${earlier(introduction, first)} Your name is ${name}.`,
				},
				fresh(`Run ${run}: plan my week.`),
				fresh(`Run ${run}: any mail from Grace?`),
			];
			return { run, name, conversationId, questions };
		}),
	);
}

/**
 * @param {{baseUrl: string, token: string}} emulator
 * @param {string} input
 * @returns {Promise<string>} the new conversation's id
 */
async function openConversation(emulator, input) {
	const response = await fetch(`${emulator.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
		body: JSON.stringify({ input }),
	});
	const text = await response.text();
	assert.equal(response.status, 200, `opening a conversation: ${text}`);
	return JSON.parse(text).conversation_id;
}

/**
 * Calls the production webhook once per batch, all at once.
 * @param {string} url
 * @param {Batch[]} plan
 * @returns {Promise<{status: number, body: any}[]>}
 */
async function callWebhooks(url, plan) {
	return await Promise.all(
		plan.map(async (batch) => {
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					questions: batch.questions.map(({ question, conversationId }) => ({
						question,
						conversationId,
					})),
				}),
				signal: AbortSignal.timeout(150_000),
			});
			const text = await response.text();
			let body;
			try {
				body = JSON.parse(text);
			} catch {
				body = text;
			}
			return { status: response.status, body };
		}),
	);
}

/**
 * @param {Batch[]} plan
 * @param {{status: number, body: any}[]} responses
 */
function checkResponses(plan, responses) {
	const newConversations = new Set();
	plan.forEach((batch, index) => {
		const { status, body } = responses[index];
		assert.equal(
			status,
			200,
			`run ${batch.run}: HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`,
		);
		assert.ok(
			Array.isArray(body),
			`run ${batch.run}: not a list of items: ${JSON.stringify(body).slice(0, 300)}`,
		);
		assert.equal(body.length, batch.questions.length, `run ${batch.run}: item count`);
		batch.questions.forEach((question, item) => {
			const answer = body[item];
			assert.equal(answer.output, question.expected, `run ${batch.run}, item ${item}`);
			if (question.conversationId) {
				assert.equal(
					answer.conversation_id,
					question.conversationId,
					`run ${batch.run}, item ${item}: conversation`,
				);
			} else {
				// `con_` in the 2026 stream (the emulator's default), `conv_` in the older dialects.
				assert.match(
					String(answer.conversation_id),
					/^conv?_\w+$/,
					`run ${batch.run}, item ${item}: conversation`,
				);
				newConversations.add(answer.conversation_id);
			}
		});
	});
	const fresh = plan.reduce(
		(sum, batch) => sum + batch.questions.filter((q) => !q.conversationId).length,
		0,
	);
	assert.equal(newConversations.size, fresh, 'every new question started its own conversation');
	const items = plan.reduce((sum, batch) => sum + batch.questions.length, 0);
	return `${plan.length} callers, ${items} answers exactly as expected, each in its caller's order; ${fresh} new conversations, all distinct; ${items - fresh} follow-ups saw their conversation's earlier messages in order`;
}

/**
 * The workflow's executions as n8n recorded them (in the database the main and workers share).
 * @param {import('../e2e/n8n-client').N8nClient} client
 * @param {string} workflowId
 * @param {Batch[]} plan
 * @param {number} answerDelayMs
 */
async function checkExecutions(client, workflowId, plan, answerDelayMs) {
	const executions = await finishedExecutions(client, workflowId, plan.length);
	const statuses = executions.map((/** @type {any} */ execution) => execution.status);
	assert.equal(executions.length, plan.length, `executions: ${JSON.stringify(statuses)}`);
	assert.ok(
		statuses.every((/** @type {string} */ status) => status === 'success'),
		`statuses: ${JSON.stringify(statuses)}`,
	);
	const byRun = new Map(plan.map((batch) => [batch.questions[0].question, batch]));
	/** @type {number[]} */
	const askTimes = [];
	for (const { id } of executions) {
		const { runData } = await client.waitForExecution(String(id), 30_000);
		const [askRun] = runData.Ask ?? [];
		const items = askRun?.data?.main?.[0] ?? [];
		const questionItems = runData.Questions?.[0]?.data?.main?.[0] ?? [];
		const batch = byRun.get(questionItems[0]?.json?.question);
		assert.ok(batch, `execution ${id}: not one of the test's batches`);
		byRun.delete(batch.questions[0].question);
		assert.equal(items.length, batch.questions.length, `execution ${id}: Ask items`);
		items.forEach((/** @type {any} */ item, /** @type {number} */ index) => {
			assert.deepEqual(
				item.pairedItem,
				{ item: index },
				`execution ${id}, item ${index}: pairedItem`,
			);
			assert.equal(
				item.json.output,
				batch.questions[index].expected,
				`execution ${id}, item ${index}`,
			);
		});
		askTimes.push(askRun.executionTime);
	}
	assert.equal(byRun.size, 0, 'every batch has its execution');
	// One at a time, six asks would take 6 answer delays; Concurrency 4 with the two follow-ups
	// of one conversation in order takes about 2.
	const serial = plan[0].questions.length * answerDelayMs;
	const slowest = Math.max(...askTimes);
	const median = [...askTimes].sort((a, b) => a - b)[Math.floor(askTimes.length / 2)];
	assert.ok(
		median < serial * 0.8,
		`Ask took ${median} ms (median), near the ${serial} ms of one ask at a time`,
	);
	const fastest = Math.min(...askTimes);
	assert.ok(
		fastest >= 2 * answerDelayMs,
		`an Ask took ${fastest} ms: its follow-ups cannot have run in order`,
	);
	return {
		ids: executions.map((/** @type {any} */ execution) => String(execution.id)),
		detail: `${executions.length} executions, status success; every Ask item paired to its question; Ask node ${fastest}–${slowest} ms (median ${median} ms) for ${plan[0].questions.length} asks of ${answerDelayMs} ms (one at a time: ${serial} ms)`,
	};
}

/**
 * The workflow's executions once `count` of them have finished (the last webhook answer can come
 * a moment before its execution is saved), at most 30 s.
 * @param {import('../e2e/n8n-client').N8nClient} client
 * @param {string} workflowId
 * @param {number} count
 * @returns {Promise<any[]>}
 */
async function finishedExecutions(client, workflowId, count) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const deadline = Date.now() + 30_000;
	for (;;) {
		const list = await client.request(
			'GET',
			`/rest/executions?filter=${filter}&limit=${count * 2}`,
		);
		const executions = list?.results ?? [];
		const running = executions.filter((/** @type {any} */ e) =>
			['new', 'running', 'waiting'].includes(e.status),
		);
		if ((executions.length >= count && running.length === 0) || Date.now() > deadline) {
			return executions;
		}
		await sleep(250);
	}
}

/**
 * Which executions each worker ran, from its log ("Worker finished execution N"): each ran some,
 * and together exactly the recorded executions, each once.
 * @param {string[]} logFiles
 * @param {string[]} executionIds
 */
async function checkWorkers(logFiles, executionIds) {
	const finishedBy = () =>
		logFiles.map((file) => {
			const text = fs.readFileSync(file, 'utf8');
			return [...text.matchAll(/Worker finished execution (\d+)/g)].map((match) => match[1]);
		});
	// A worker logs the end of an execution a moment after n8n saved it.
	let perWorker = finishedBy();
	for (
		let waited = 0;
		perWorker.flat().length < executionIds.length && waited < 10_000;
		waited += 250
	) {
		await sleep(250);
		perWorker = finishedBy();
	}
	const all = perWorker.flat();
	perWorker.forEach((ids, index) =>
		assert.ok(
			ids.length > 0,
			`worker ${index + 1} ran no execution (${perWorker.map((w) => w.length).join(' / ')})`,
		),
	);
	assert.equal(new Set(all).size, all.length, 'an execution finished twice');
	assert.deepEqual(
		[...all].sort(),
		[...executionIds].sort(),
		'the workers ran exactly the recorded executions',
	);
	return `executions per worker: ${perWorker.map((ids) => ids.length).join(' + ')} = ${all.length}`;
}

/**
 * @param {{stats: import('../emulator/server').Emulator['stats']}} emulator
 * @param {number} firstAsk  index of the first request after the conversations were opened
 * @param {Batch[]} plan
 */
function checkAsks(emulator, firstAsk, plan) {
	const asks = emulator.stats.requests.slice(firstAsk);
	const expected = plan.flatMap((batch) => batch.questions.map((q) => q.question));
	const statuses = asks.map((request) => request.status);
	assert.ok(
		asks.every((request) => request.method === 'POST' && request.path === '/assistant/ask'),
		`other requests than asks: ${asks.map((r) => `${r.method} ${r.path}`).join(', ')}`,
	);
	assert.ok(
		statuses.every((status) => status === 200),
		`statuses: ${JSON.stringify(statuses)}`,
	);
	const inputs = asks.map((request) => /** @type {{input: string}} */ (request.body).input);
	assert.deepEqual(
		[...inputs].sort(),
		[...expected].sort(),
		'the asks are exactly the questions, each once',
	);
	for (const input of expected) {
		assert.equal(
			emulator.stats.completedAsks.get(input),
			1,
			`"${input}" answered ${emulator.stats.completedAsks.get(input) ?? 0} times`,
		);
	}
	assert.equal(emulator.stats.conversationOverlaps, 0, 'an ask hit a busy conversation');
	return `${asks.length} asks, each question exactly once, all HTTP 200; no ask met a busy conversation`;
}

module.exports = {
	planBatches,
	finishedExecutions,
	callWebhooks,
	checkResponses,
	checkExecutions,
	checkWorkers,
	checkAsks,
};
