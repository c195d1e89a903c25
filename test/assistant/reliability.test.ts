/**
 * Under faults the node either gets the answer or fails the item clearly, in bounded time:
 * never hangs, never loses or duplicates an item, never shows the token.
 * Faults come from the emulator (a directive in the input, or a queued fault).
 */
import type { IDataObject } from 'n8n-workflow';

import { prng } from '../fuzz/prng';
import { emulatorCredential } from '../helpers/assistant';
import { answeredConversation } from '../helpers/conversations';
import { useEmulator, type RunFailure } from '../helpers/emulatorFixture';
import { serveScript } from '../helpers/scripted-server';

const TOKEN = 'tok_RELIABILITY_secret_9f8e7d6c5b4a';

// A running conversation says to read it again after 20 ms (docs/api.md#exactly-once), so the
// load test's recoveries do not wait the public client's 5 s schedule.
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20, dialect: 'live' });
const { askRequests } = assistant;

/** How many times the emulator started the ask with this input (docs/api.md#exactly-once). */
const started = (input: string) => assistant.emulator.stats.startedAsks.get(input) ?? 0;

describe('408, 409, 429, 5xx and network errors are retried: the item succeeds after the fault clears (docs/api.md#errors)', () => {
	test.each([408, 409, 429, 500, 502, 503, 504])(
		'HTTP %i once, then the answer',
		async (status) => {
			assistant.emulator.queueFault(
				{ name: 'status', status, path: '/assistant/ask', retryAfter: '0' },
				1,
			);
			const result = await assistant.run({ input: `retry after ${status}` });
			expect(result.outputs('Ask')[0].json.output).toContain(`You said: "retry after ${status}"`);
			expect(askRequests()).toHaveLength(2);
			expect(assistant.emulator.stats.completedAsks.get(`retry after ${status}`)).toBe(1);
		},
	);

	test('a connection reset before the response is retried', async () => {
		assistant.emulator.queueFault({ name: 'reset', path: '/assistant/ask' }, 1);
		const result = await assistant.run({ input: 'after a reset' });
		expect(result.outputs('Ask')[0].json.output).toContain('after a reset');
		expect(askRequests()).toHaveLength(2);
	});

	test('streams are retried too while no answer has started', async () => {
		assistant.emulator.queueFault(
			{ name: 'status', status: 503, path: '/assistant/ask', retryAfter: '0' },
			1,
		);
		const result = await assistant.run({ input: 'stream after 503', options: { stream: true } });
		expect(result.outputs('Ask')[0].json.output).toContain('stream after 503');
		expect(askRequests()).toHaveLength(2);
	});
});

describe('how long retries wait: Retry-After, retry-after-ms, longer pauses for a busy conversation (docs/api.md#busy-conversation-409)', () => {
	test('Retry-After in seconds is honoured', async () => {
		assistant.emulator.queueFault(
			{ name: 'status', status: 429, path: '/assistant/ask', retryAfter: '1' },
			1,
		);
		const result = await assistant.run({ input: 'wait one second' });
		expect(result.outputs('Ask')).toHaveLength(1);
		expect(result.ms).toBeGreaterThanOrEqual(950);
	});

	test('Retry-After as an HTTP date is honoured', async () => {
		const at = new Date(Date.now() + 2000).toUTCString();
		assistant.emulator.queueFault(
			{ name: 'status', status: 503, path: '/assistant/ask', retryAfter: at },
			1,
		);
		const result = await assistant.run({ input: 'wait until a date' });
		expect(result.outputs('Ask')).toHaveLength(1);
		expect(result.ms).toBeGreaterThanOrEqual(900);
	});

	test('retry-after-ms is preferred to Retry-After', async () => {
		assistant.emulator.queueFault(
			{ name: 'status', status: 429, path: '/assistant/ask', retryAfter: '30', retryAfterMs: 50 },
			1,
		);
		const result = await assistant.run({ input: 'wait 50 ms' });
		expect(result.outputs('Ask')).toHaveLength(1);
		expect(result.ms).toBeLessThan(3000);
	});

	test('a busy conversation (409) waits longer than other faults: at least 1.25 s', async () => {
		assistant.emulator.queueFault({ name: 'status', status: 409, path: '/assistant/ask' }, 1);
		const result = await assistant.run({ input: 'busy, then fine' });
		expect(result.outputs('Ask')).toHaveLength(1);
		expect(result.ms).toBeGreaterThanOrEqual(1250);
	});
});

describe('retries used up: the last status and the server’s own message (docs/api.md#errors)', () => {
	test('retries used up: the last status and the server message; 1 + retries requests', async () => {
		assistant.emulator.queueFault(
			{ name: 'status', status: 503, path: '/assistant/ask', retryAfter: '0' },
			5,
		);
		const { failure: error } = await assistant.run({
			input: 'always down',
			options: { retries: 2 },
		});
		expect(error?.message).toMatch(/^The assistant service failed \(HTTP 503\)/);
		expect(error?.httpCode).toBe('503');
		expect(askRequests()).toHaveLength(3);
	});

	test.each([
		[408, /^The assistant timed out \(HTTP 408\): Request timeout/],
		[409, /^The conversation is busy answering an earlier request \(HTTP 409\)/],
		[429, /^Too many requests \(HTTP 429\): Rate limit exceeded/],
		[500, /^The assistant service failed \(HTTP 500\): Internal server error/],
		[502, /^The assistant service failed \(HTTP 502\)/],
		[504, /^The assistant service failed \(HTTP 504\)/],
	])('HTTP %i with no retries left: the documented message', async (status, message) => {
		assistant.emulator.queueFault({ name: 'status', status, path: '/assistant/ask' }, 5);
		const { failure: error } = await assistant.run({
			input: `fails with ${status}`,
			options: { retries: 0 },
		});
		expect(error?.message).toMatch(message);
		expect(error?.httpCode).toBe(String(status));
		expect(error?.description).toEqual(expect.any(String));
	});

	test.each([
		[401, /access token was rejected \(HTTP 401\)/],
		[404, /Not found \(HTTP 404\)/],
		[422, /rejected the request \(HTTP 422\)/],
	])('HTTP %i is never retried', async (status, message) => {
		assistant.emulator.queueFault({ name: 'status', status, path: '/assistant/ask' }, 5);
		const { failure: error } = await assistant.run({
			input: `no retry for ${status}`,
			options: { retries: 3 },
		});
		expect(error?.message).toMatch(message);
		expect(askRequests()).toHaveLength(1);
	});

	test('HTTP 403 reads as a token problem, and is not retried', async () => {
		assistant.emulator.queueFault({ name: 'status', status: 403, path: '/assistant/ask' }, 5);
		const { failure: error } = await assistant.run({ input: 'forbidden', options: { retries: 3 } });
		expect(error?.message).toMatch(/^The access token was rejected \(HTTP 403\)/);
		expect(error?.description).toMatch(/access token/);
		expect(askRequests()).toHaveLength(1);
	});

	// docs/api.md#credit-failures: the provider's words, one meaning, never retried.
	test.each([
		['credit-402', '402', true],
		['credit-402', '402', false],
		['credit-500', '500', true],
		['credit-200', '200', true],
		['credit-event', undefined, true],
		['credit-event', undefined, false],
	])(
		"#fault=%s (HTTP %s, Stream %s): out of credit, not retried, in the provider's words",
		async (fault, status, stream) => {
			const { failure: error, ms } = await assistant.run({
				input: `x #fault=${fault}`,
				options: { stream, retries: 3 },
			});
			expect(error?.message).toBe(
				`The account or the model's provider is out of credit${status ? ` (HTTP ${status})` : ''}: ` +
					'This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 1843. To increase, visit https://openrouter.ai/settings/credits and add more credits',
			);
			expect(error?.description).toMatch(/Pick another model .*top up/);
			expect(askRequests()).toHaveLength(1);
			expect(ms).toBeLessThan(5000);
		},
	);

	test('a credit failure under Continue On Fail is one error item, the other items answered', async () => {
		const result = await assistant.run(
			{ input: '={{ $json.q }}', options: { retries: 3 } },
			{
				items: [{ q: 'one' }, { q: 'two #fault=credit-402' }, { q: 'three' }],
				node: { onError: 'continueRegularOutput' },
			},
		);
		const items = result.outputs('Ask').map((item) => item.json);
		expect(items).toHaveLength(3);
		expect(items[0].output).toMatch(/You said: "one"/);
		expect(String(items[1].error)).toMatch(/out of credit \(HTTP 402\): .*can only afford/);
		expect(items[2].output).toMatch(/You said: "three"/);
		expect(askRequests()).toHaveLength(3);
	});

	// A stream cut mid-answer or closed without End is read from its conversation instead
	// (test/assistant/exactly-once.test.ts); these the service itself reported.
	test.each([
		['error200', /^The assistant could not answer: /, false],
		['garbage', /^The assistant sent a response that is not JSON \(HTTP 200\)/, false],
		['error-event', /^The assistant reported an error: Model provider overloaded/, true],
	])('#fault=%s fails at once (not retried)', async (fault, message, stream) => {
		const { failure: error, ms } = await assistant.run({
			input: `x #fault=${fault}`,
			options: { stream, retries: 3 },
		});
		expect(error?.message).toMatch(message);
		expect(askRequests()).toHaveLength(1);
		expect(ms).toBeLessThan(5000);
	});
});

describe('network failures and deadlines fail in bounded time, with the documented message', () => {
	test('a connection reset with no retries left: could not reach the assistant', async () => {
		assistant.emulator.queueFault({ name: 'reset', path: '/assistant/ask' }, 5);
		const { failure: error } = await assistant.run({ input: 'reset', options: { retries: 0 } });
		expect(error?.message).toMatch(
			/^Could not reach the assistant at http:\/\/127\.0\.0\.1:\d+\/assistant\/ask/,
		);
	});

	test('a slow first byte beyond the timeout fails within the timeout', async () => {
		const { failure: error, ms } = await assistant.run({
			input: 'slow #fault=slow-first-byte&ms=4000',
			options: { timeoutMinutes: 0.01 },
		});
		expect(error?.message).toBe('The assistant did not answer within 0.6 s');
		expect(ms).toBeLessThan(2500);
	});

	test('a stalled stream beyond the idle timeout fails soon after it stalls, when its conversation cannot be read', async () => {
		assistant.emulator.queueFault({ name: '404', path: '/conversations/*' }, 5);
		const { failure: error, ms } = await assistant.run({
			input: 'stall #fault=stall-stream&ms=5000',
			options: { stream: true, idleTimeoutSeconds: 0.4 },
		});
		expect(error?.message).toBe('The stream stalled: no data for 0.4 s');
		expect(ms).toBeLessThan(2500);
	});

	test.each(['', 'text/plain'])(
		'a response that does not say it is a stream (%j) and then stays silent fails at the idle timeout',
		async (type) => {
			const server = await serveScript(
				(response) => {
					response.writeHead(200, {
						...(type ? { 'content-type': type } : {}),
						'x-conversation-id': 'con_SilentBody000001',
					});
					response.flushHeaders();
					// Nothing more: only the idle limit ends the wait.
				},
				(response) => {
					response.writeHead(404, { 'content-type': 'application/json' });
					response.end('{"detail": "Conversation not found"}');
				},
			);
			try {
				const { failure: error, ms } = await assistant.run(
					{
						input: 'silent',
						options: { stream: true, idleTimeoutSeconds: 0.4, timeoutMinutes: 0.1 },
					},
					{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
				);
				expect(error?.message).toBe('The stream stalled: no data for 0.4 s');
				expect(ms).toBeLessThan(2500);
				expect(server.asks).toHaveLength(1);
			} finally {
				await server.close();
			}
		},
	);

	test('the timeout bounds the retries as well', async () => {
		assistant.emulator.queueFault({ name: 'status', status: 503, path: '/assistant/ask' }, 50);
		const { failure: error, ms } = await assistant.run({
			input: 'down for long',
			options: { retries: 10, timeoutMinutes: 0.025 },
		});
		expect(error?.message).toMatch(/HTTP 503|did not answer within 1.5 s/);
		expect(ms).toBeLessThan(3500);
	});

	test.each([false, true])(
		'cancelling the execution aborts the request, not waiting for the answer (stream: %s)',
		async (stream) => {
			const controller = new AbortController();
			setTimeout(() => controller.abort(), 300);
			const input = stream ? 'slow stream #fault=slow-chunks&ms=2000' : 'slow answer #delay=10000';
			const result = await assistant.run(
				{ input, options: { stream } },
				{ signal: controller.signal },
			);
			expect(result.data.status).toBe('canceled');
			// The answer takes 10 s or more: the emulator never finished it, nor was it sent again.
			expect(assistant.emulator.stats.completedAsks.size).toBe(0);
			expect(askRequests()).toHaveLength(1);
			// Only a hang fails this bound; speed is measured in bench/.
			expect(result.ms).toBeLessThan(5_000);
		},
	);
});

describe('every input item yields exactly one output item, whatever fails', () => {
	function itemsWithFaults(count: number, seed: number) {
		const random = prng(seed);
		const failing = new Set<number>();
		const items = Array.from({ length: count }, (_, index) => {
			const roll = random();
			if (roll < 0.1) {
				failing.add(index);
				return { q: `item ${index} #fault=500` };
			}
			if (roll < 0.15) {
				failing.add(index);
				return { q: `item ${index} #fault=422` };
			}
			return { q: `item ${index}` };
		});
		return { items, failing };
	}

	test('Continue On Fail: every item yields exactly one output, paired, errors where the faults were', async () => {
		const { items, failing } = itemsWithFaults(80, 7);
		expect(failing.size).toBeGreaterThan(5);
		const result = await assistant.run(
			{ input: '={{ $json.q }}', options: { retries: 0 } },
			{ items, node: { onError: 'continueRegularOutput' } },
		);
		expect(result.failure).toBeUndefined();
		const outputs = result.outputs('Ask');
		expect(outputs).toHaveLength(items.length);
		outputs.forEach((output, index) => {
			expect(output.pairedItem).toEqual({ item: index });
			if (failing.has(index)) expect(output.json.error).toMatch(/HTTP (500|422)/);
			else expect(output.json.output).toContain(`You said: "item ${index}"`);
		});
		for (const [index] of items.entries()) {
			expect(assistant.emulator.stats.completedAsks.get(`item ${index}`) ?? 0).toBe(
				failing.has(index) ? 0 : 1,
			);
		}
	});

	test('without Continue On Fail: the error names the first failing item and later items are not sent', async () => {
		const { items, failing } = itemsWithFaults(40, 11);
		const first = Math.min(...failing);
		const { failure: error } = await assistant.run(
			{ input: '={{ $json.q }}', options: { retries: 0 } },
			{ items },
		);
		expect(error?.context?.itemIndex).toBe(first);
		expect(askRequests()).toHaveLength(first + 1);
	});

	/**
	 * The faults of the load test, by share of the items: before the service took the ask (sent
	 * again), and after it accepted it (docs/api.md#exactly-once), on a new conversation (its id
	 * from the stream's header) or continuing one (its id known before the ask is sent).
	 */
	const LOAD_FAULTS: Array<{
		fault: string;
		share: number;
		continues?: boolean;
		readBack?: boolean;
	}> = [
		{ fault: '503&retryAfterMs=1', share: 0.05 },
		{ fault: '429&retryAfterMs=1', share: 0.02 },
		{ fault: 'drop-after-headers&ms=30', share: 0.02, readBack: true },
		{ fault: 'reset-mid-stream&ms=30', share: 0.02, readBack: true },
		{ fault: 'empty-answer&ms=30', share: 0.02, readBack: true },
		{ fault: 'no-end', share: 0.02, readBack: true },
		{ fault: 'drop-after-accept&ms=30', share: 0.02, continues: true, readBack: true },
		{ fault: 'accepted-502&ms=30', share: 0.02, continues: true, readBack: true },
		{ fault: 'conversation-busy&ms=30', share: 0.02, continues: true },
	];

	test('load with faults: 1,000 items, 21 % of them failing before or after the service accepted the ask: 0 lost, 0 asked twice', async () => {
		const random = prng(2024);
		const injected = new Map<string, number>();
		const conversationIds: string[] = [];
		const items: IDataObject[] = [];
		for (let index = 0; index < 1000; index++) {
			let roll = random();
			const planned = LOAD_FAULTS.find(({ share }) => (roll -= share) < 0);
			const name = planned?.fault.split('&')[0];
			if (name) injected.set(name, (injected.get(name) ?? 0) + 1);
			// An ask that continues a conversation: one answered before the run.
			const conversation = planned?.continues
				? (await answeredConversation(assistant.emulator, `earlier ${index}`)).id
				: '';
			if (conversation) conversationIds.push(conversation);
			const q = planned ? `load ${index} #fault=${planned.fault}&times=1` : `load ${index}`;
			items.push({ q, conversation, readBack: planned?.readBack ?? false });
		}
		const result = await assistant.run(
			{ input: '={{ $json.q }}', conversationId: '={{ $json.conversation }}' },
			{ items },
		);
		expect(result.failure).toBeUndefined();
		const outputs = result.outputs('Ask');
		expect(outputs).toHaveLength(1000);
		let lost = 0;
		let recovered = 0;
		outputs.forEach((output, index) => {
			expect(output.pairedItem).toEqual({ item: index });
			if (!String(output.json.output).includes(`You said: "${String(items[index].q)}"`)) lost++;
			if (output.json.recovered) recovered++;
		});
		const startedTwice = items.filter(({ q }) => started(String(q)) > 1).length;
		const neverStarted = items.filter(({ q }) => started(String(q)) === 0).length;
		expect({ lost, startedTwice, neverStarted }).toEqual({
			lost: 0,
			startedTwice: 0,
			neverStarted: 0,
		});
		expect(recovered).toBe(items.filter((item) => item.readBack).length);
		expect(recovered).toBeGreaterThan(100);
		expect([...injected.values()].every((count) => count > 5)).toBe(true);
		// Sent again only what the service had not taken: 503, 429 and the busy conversation.
		const sentAgain =
			(injected.get('503') ?? 0) +
			(injected.get('429') ?? 0) +
			(injected.get('conversation-busy') ?? 0);
		expect(askRequests().length).toBe(conversationIds.length + 1000 + sentAgain);
	}, 90_000);
});

describe('the access token appears in no output, error or log line (docs/api.md#authentication)', () => {
	test('across every run above, the token is in no output, error, description, stack or log line', () => {
		expect(assistant.runs.length).toBeGreaterThan(25);
		for (const result of assistant.runs) {
			const error = result.error() as unknown as RunFailure | undefined;
			const seen = JSON.stringify({
				data: result.data,
				message: error?.message,
				description: error?.description,
				stack: error?.stack,
				logs: result.logs,
			});
			expect(seen).not.toContain(TOKEN);
		}
	});
});

describe('a full session pool said inside a 200 JSON answer whose other fields are null or empty', () => {
	const POOL = 'All 4 assistant sessions are busy and the oldest cannot evict';

	test.each([
		['"output": null', { output: null, conversation_id: null, error: POOL }],
		['"output": ""', { output: '', conversation_id: null, error: POOL }],
		['no output', { error: POOL }],
	])('with %s: a failure, not an empty answer; waited out and asked again', async (_name, body) => {
		const server = await serveScript(
			(response, n) => {
				if (n === 1) {
					response.writeHead(200, { 'content-type': 'application/json', 'retry-after': '0' });
					response.end(JSON.stringify(body));
					return;
				}
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ output: 'Done.', conversation_id: 'con_PoolInBand0001' }));
			},
			(response) => {
				response.writeHead(404);
				response.end();
			},
		);
		try {
			const run = await assistant.run(
				{ input: 'Book the meeting room', options: { retries: 2 } },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(run.failure).toBeUndefined();
			expect(run.json).toEqual({ output: 'Done.', conversation_id: 'con_PoolInBand0001' });
			expect(server.asks).toHaveLength(2);
		} finally {
			await server.close();
		}
	});
});
