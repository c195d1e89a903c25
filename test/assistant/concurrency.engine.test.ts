/**
 * Concurrency (Options > Concurrency) in the real engine against the emulator: many items at
 * once, one conversation at a time (docs/api.md#busy-conversation-409), every item accounted for
 * under failures and cancellation.
 */
import type { IDataObject } from 'n8n-workflow';

import { jsonOf } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';

const TOKEN = 'tok_concurrency_tests_5a4b3c2d1e';

const assistant = useEmulator({ token: TOKEN, answerDelayMs: 100 });

beforeAll(async () => {
	// Load the engine's lazily required modules once, as a running n8n has: timings below are
	// of the steady state.
	await assistant.run(
		{ input: '={{ $json.q }}', options: { concurrency: 2 } },
		{ items: [{ q: 'warm up' }] },
	);
});

describe('concurrency: several items at once, one conversation at a time (docs/api.md#busy-conversation-409)', () => {
	test('200 items at concurrency 10 with 100 ms answers: ten at a time, far faster than one by one, order and pairing intact', async () => {
		const items = Array.from({ length: 200 }, (_, index) => ({ q: `question ${index}` }));
		const started = Date.now();
		const run = await assistant.run(
			{
				operation: 'ask',
				input: '={{ $json.q }}',
				options: { concurrency: 10 },
			},
			{ items },
		);
		const elapsed = Date.now() - started;
		const outputs = run.outputs('Ask');
		expect(outputs).toHaveLength(200);
		outputs.forEach((output, index) => {
			expect(output.pairedItem).toEqual({ item: index });
			expect(output.json.output).toContain(`You said: "question ${index}"`);
		});
		expect(assistant.emulator.stats.maxInFlight).toBeGreaterThanOrEqual(8);
		expect(assistant.emulator.stats.maxInFlight).toBeLessThanOrEqual(10);
		// One at a time would take 20 s; ten at a time about 2 s (more on a loaded machine).
		expect(elapsed).toBeLessThan(10_000);
	});

	test('items of one conversation never overlap, and keep their input order', async () => {
		// Three conversations, then 30 items continuing them, interleaved.
		const starts = await assistant.run(
			{ operation: 'ask', input: '=start {{ $json.q }}' },
			{ name: 'Start', items: [{ q: 'A' }, { q: 'B' }, { q: 'C' }] },
		);
		const ids = jsonOf(starts.outputs('Start')).map((json) => json.conversation_id as string);
		const items = Array.from({ length: 30 }, (_, index) => ({
			conversation: ids[index % 3],
			n: index,
		}));
		const run = await assistant.run(
			{
				operation: 'ask',
				input: '=message {{ $json.n }}',
				conversationId: '={{ $json.conversation }}',
				options: { concurrency: 10, retries: 0 },
			},
			{ name: 'Continue', items },
		);
		const outputs = run.outputs('Continue');
		expect(outputs).toHaveLength(30);
		expect(assistant.emulator.stats.conversationOverlaps).toBe(0);
		expect(assistant.emulator.stats.maxConcurrentPerConversation).toBe(1);
		// Different conversations did run side by side.
		expect(assistant.emulator.stats.maxInFlight).toBe(3);
		// The last answer of each conversation lists its earlier messages in input order.
		for (const last of outputs.slice(-3)) {
			const [, earlierPart] = String(last.json.output).split('Earlier you said:');
			const earlier = [...earlierPart.matchAll(/"message (\d+)"/g)].map((match) =>
				Number(match[1]),
			);
			expect(earlier).toEqual([...earlier].sort((a, b) => a - b));
			expect(earlier.length).toBe(9);
		}
	});
});

describe('concurrency: failures and cancellation keep the item accounting', () => {
	test('Continue On Fail: failures in place, every item once, in order', async () => {
		const items = Array.from({ length: 40 }, (_, index) => ({
			q: index % 7 === 3 ? `bad ${index} #fault=500` : `good ${index}`,
		}));
		const run = await assistant.run(
			{ operation: 'ask', input: '={{ $json.q }}', options: { concurrency: 8, retries: 0 } },
			{ items, node: { onError: 'continueRegularOutput' } },
		);
		const outputs = run.outputs('Ask');
		expect(outputs).toHaveLength(40);
		outputs.forEach((output, index) => {
			expect(output.pairedItem).toEqual({ item: index });
			if (index % 7 === 3) expect(output.json.error).toMatch(/HTTP 500/);
			else expect(output.json.output).toContain(`good ${index}`);
		});
	});

	test('without Continue On Fail: the lowest failing item is reported, no new items start after it', async () => {
		const items = Array.from({ length: 40 }, (_, index) => ({
			q: index === 5 || index === 9 ? `bad ${index} #fault=422` : `good ${index}`,
		}));
		const run = await assistant.run(
			{
				operation: 'ask',
				input: '={{ $json.q }}',
				options: { concurrency: 4, retries: 0 },
			},
			{ items },
		);
		const error = run.error() as unknown as { message: string; context: IDataObject };
		expect(error.message).toMatch(/HTTP 422/);
		expect(error.context.itemIndex).toBe(5);
		expect(assistant.emulator.stats.requests.length).toBeLessThan(20);
	});

	test('cancellation stops every item in flight, and starts no other', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 300);
		const items = Array.from({ length: 20 }, (_, index) => ({ q: `slow ${index} #delay=5000` }));
		const run = await assistant.run(
			{
				operation: 'ask',
				input: '={{ $json.q }}',
				options: { concurrency: 5 },
			},
			{ items, signal: controller.signal },
		);
		expect(run.data.status).toBe('canceled');
		// Each answer takes 5 s: none was finished, and no item started after the first five.
		expect(assistant.emulator.stats.completedAsks.size).toBe(0);
		expect(assistant.askRequests()).toHaveLength(5);
		// Only a hang fails this bound; speed is measured in bench/.
		expect(run.ms).toBeLessThan(4_000);
	});

	test('a concurrency out of range is refused before any request', async () => {
		const run = await assistant.run({ operation: 'ask', input: 'x', options: { concurrency: 50 } });
		expect(run.error()?.message).toMatch(/Concurrency must be a whole number from 1 to 20/);
		expect(assistant.emulator.stats.requests).toHaveLength(0);
	});

	test('a concurrency given as text by an expression (a webhook’s, a form’s) is read as its number', async () => {
		const run = await assistant.run(
			{ operation: 'ask', input: '={{ $json.q }}', options: { concurrency: '={{ "3" }}' } },
			{ items: [{ q: 'a' }, { q: 'b' }] },
		);
		expect(run.error()).toBeUndefined();
		expect(run.outputs('Ask')).toHaveLength(2);
		const refused = await assistant.run({
			operation: 'ask',
			input: 'x',
			options: { concurrency: '={{ "3 items" }}' },
		});
		expect(refused.error()?.message).toMatch(/Concurrency must be a whole number/);
	});
});

describe('after an item fails (Continue On Fail off), no later item is asked again', () => {
	const pool = useEmulator({ token: TOKEN, answerDelayMs: 0, sessionPool: { size: 1 } });

	test('Concurrency 4 on one free session: the items the pace held back are not retried once item 1 has failed', async () => {
		const items = [
			{ q: 'first holds the only session #delay=1500' },
			{ q: 'second is refused #fault=422' },
			{ q: 'third' },
			{ q: 'fourth' },
		];
		const run = await pool.run(
			{ input: '={{ $json.q }}', options: { concurrency: 4, retries: 2 } },
			{ items },
		);
		const error = run.error() as unknown as { message: string; context: { itemIndex: number } };
		expect(error.message).toMatch(/HTTP 422/);
		expect(error.context.itemIndex).toBe(1);
		const started = pool.emulator.stats.startedAsks;
		// Item 0 was before the failure: it went on, and was answered.
		expect(started.get('first holds the only session #delay=1500')).toBe(1);
		// One at a time, items 2 and 3 would never have been asked: their answers would be thrown
		// away with the failed node, the assistant's work on them done for nothing.
		expect(started.get('third') ?? 0).toBe(0);
		expect(started.get('fourth') ?? 0).toBe(0);
	});
});
