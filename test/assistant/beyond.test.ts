/**
 * Concurrency for many items, and catalog intelligence (deprecated models, catalog options,
 * one catalog read per execution), in the real engine against the emulator.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { startEmulator, type Emulator } from '../emulator/server';
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	jsonOf,
	rl,
} from '../helpers/assistant';
import {
	chain,
	itemsNode,
	manualTrigger,
	runWorkflow,
	type EngineCredential,
	type RunResult,
} from '../helpers/engine';

const TOKEN = 'tok_beyond_tests_5a4b3c2d1e';

let emulator: Emulator;
let credential: EngineCredential;

beforeAll(async () => {
	emulator = await startEmulator({ token: TOKEN, answerDelayMs: 100 });
	credential = emulatorCredential(emulator.baseUrl, TOKEN);
	// Load the engine's lazily required modules once, as a running n8n has: timings below are
	// of the steady state.
	await runNodes(
		[{ q: 'warm up' }],
		[await node('Ask', { operation: 'ask', input: '={{ $json.q }}', options: { concurrency: 2 } })],
	);
});
afterAll(async () => await emulator.close());
beforeEach(() => emulator.reset());

async function runNodes(
	items: IDataObject[],
	nodes: INode[],
	signal?: AbortSignal,
): Promise<RunResult> {
	const pkg = await assistantPackage();
	return await runWorkflow(pkg, chain(manualTrigger(), itemsNode(items), ...nodes), {
		credentials: [credential],
		signal,
	});
}

async function node(
	name: string,
	parameters: INodeParameters,
	extra: Partial<INode> = {},
): Promise<INode> {
	return assistantNode(await assistantPackage(), name, parameters, extra);
}

describe('concurrency: several items at once, one conversation at a time (docs/api.md#busy-conversation-409)', () => {
	test('200 items at concurrency 10 with 100 ms answers: ten at a time, far faster than one by one, order and pairing intact', async () => {
		const items = Array.from({ length: 200 }, (_, index) => ({ q: `question ${index}` }));
		const started = Date.now();
		const run = await runNodes(items, [
			await node('Ask', {
				operation: 'ask',
				input: '={{ $json.q }}',
				options: { concurrency: 10 },
			}),
		]);
		const elapsed = Date.now() - started;
		const outputs = run.outputs('Ask');
		expect(outputs).toHaveLength(200);
		outputs.forEach((output, index) => {
			expect(output.pairedItem).toEqual({ item: index });
			expect(output.json.output).toContain(`You said: "question ${index}"`);
		});
		expect(emulator.stats.maxInFlight).toBeGreaterThanOrEqual(8);
		expect(emulator.stats.maxInFlight).toBeLessThanOrEqual(10);
		// One at a time would take 20 s; ten at a time about 2 s (more on a loaded machine).
		expect(elapsed).toBeLessThan(10_000);
	});

	test('items of one conversation never overlap, and keep their input order', async () => {
		// Three conversations, then 30 items continuing them, interleaved.
		const starts = await runNodes(
			[{ q: 'A' }, { q: 'B' }, { q: 'C' }],
			[await node('Start', { operation: 'ask', input: '=start {{ $json.q }}' })],
		);
		const ids = jsonOf(starts.outputs('Start')).map((json) => json.conversation_id as string);
		const items = Array.from({ length: 30 }, (_, index) => ({
			conversation: ids[index % 3],
			n: index,
		}));
		const run = await runNodes(items, [
			await node('Continue', {
				operation: 'ask',
				input: '=message {{ $json.n }}',
				conversationId: '={{ $json.conversation }}',
				options: { concurrency: 10, retries: 0 },
			}),
		]);
		const outputs = run.outputs('Continue');
		expect(outputs).toHaveLength(30);
		expect(emulator.stats.conversationOverlaps).toBe(0);
		expect(emulator.stats.maxConcurrentPerConversation).toBe(1);
		// Different conversations did run side by side.
		expect(emulator.stats.maxInFlight).toBe(3);
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
		const run = await runNodes(items, [
			await node(
				'Ask',
				{ operation: 'ask', input: '={{ $json.q }}', options: { concurrency: 8, retries: 0 } },
				{ onError: 'continueRegularOutput' },
			),
		]);
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
		const run = await runNodes(items, [
			await node('Ask', {
				operation: 'ask',
				input: '={{ $json.q }}',
				options: { concurrency: 4, retries: 0 },
			}),
		]);
		const error = run.error() as unknown as { message: string; context: IDataObject };
		expect(error.message).toMatch(/HTTP 422/);
		expect(error.context.itemIndex).toBe(5);
		expect(emulator.stats.requests.length).toBeLessThan(20);
	});

	test('cancellation stops every item in flight within a second', async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 300);
		const started = Date.now();
		const items = Array.from({ length: 20 }, (_, index) => ({ q: `slow ${index} #delay=5000` }));
		const run = await runNodes(
			items,
			[
				await node('Ask', {
					operation: 'ask',
					input: '={{ $json.q }}',
					options: { concurrency: 5 },
				}),
			],
			controller.signal,
		);
		expect(Date.now() - started).toBeLessThan(1300);
		expect(run.data.status).toBe('canceled');
		expect(emulator.stats.completedAsks.size).toBe(0);
	});

	test('a concurrency out of range is refused before any request', async () => {
		const run = await runNodes(
			[{}],
			[await node('Ask', { operation: 'ask', input: 'x', options: { concurrency: 50 } })],
		);
		expect(run.error()?.message).toMatch(/Concurrency must be a whole number from 1 to 20/);
		expect(emulator.stats.requests).toHaveLength(0);
	});
});

describe('deprecated models are answered by their successor (docs/api.md#catalog)', () => {
	function hintsOf(run: RunResult, nodeName: string): Array<{ message: string }> {
		const taskData = run.data.data.resultData.runData[nodeName]?.[0] as unknown as {
			hints?: Array<{ message: string }>;
		};
		return taskData?.hints ?? [];
	}

	/** `count` items asking openai:gpt-4o-mini, which the catalog lists as deprecated. */
	async function askDeprecatedModel(count: number, options: IDataObject = {}) {
		const items = Array.from({ length: count }, () => ({}));
		const ask = {
			operation: 'ask',
			input: 'old model',
			model: rl('openai:gpt-4o-mini'),
			options,
		} as INodeParameters;
		return await runNodes(items, [await node('Ask', ask)]);
	}

	test('a deprecated model is answered by its successor, with a hint naming it', async () => {
		const run = await askDeprecatedModel(2);
		for (const output of run.outputs('Ask')) {
			expect(output.json.output).toMatch(/^\[model=openai:gpt-5-mini /);
		}
		const deprecation = hintsOf(run, 'Ask').filter((hint) => /deprecated/.test(hint.message));
		expect(deprecation).toHaveLength(1);
		expect(deprecation[0].message).toMatch(
			/"openai:gpt-4o-mini" is deprecated: asked its successor "openai:gpt-5-mini"/,
		);
	});

	test('with Replace Deprecated Model off, the chosen model is sent, and the hint still names the successor', async () => {
		const run = await askDeprecatedModel(1, { useSuccessor: false });
		expect(run.outputs('Ask')[0].json.output).toMatch(/^\[model=openai:gpt-4o-mini /);
		expect(hintsOf(run, 'Ask').map((hint) => hint.message)).toContainEqual(
			expect.stringMatching(/its successor is "openai:gpt-5-mini"/),
		);
	});
});

describe("the catalog: read once per execution, and Get Catalog's options (docs/api.md#catalog)", () => {
	test('the catalog is read once per execution, whoever needs it', async () => {
		const items = Array.from({ length: 5 }, () => ({}));
		const run = await runNodes(items, [
			await node('Ask', { operation: 'ask', input: 'x', model: rl('openai:gpt-4o-mini') }),
			await node('Catalog', { operation: 'getCatalog', catalogOutput: 'catalog' }),
			await node('Catalog Again', { operation: 'getCatalog' }),
		]);
		expect(run.outputs('Catalog')).toHaveLength(5);
		expect(
			emulator.stats.requests.filter((request) => request.path === '/models/catalog'),
		).toHaveLength(1);
	});

	test('Get Catalog: one item per model by default, filtered by media domain, with deprecation info', async () => {
		const run = await runNodes(
			[{}],
			[
				await node('Images', {
					operation: 'getCatalog',
					catalogFilters: { mediaDomains: ['image'] },
					options: { addDeprecationInfo: true },
				}),
			],
		);
		const models = jsonOf(run.outputs('Images'));
		expect(models.length).toBeGreaterThan(0);
		for (const model of models) {
			expect(model.media_domain).toBe('image');
			expect(model).toMatchObject({ deprecated: expect.any(Boolean), successor: null });
		}
	});

	test('Get Catalog as one item: the whole catalog, chat models only, featured only', async () => {
		const served = (await (await fetch(`${emulator.baseUrl}/models/catalog`)).json()) as {
			featured_model_ids: string[];
		};
		const run = await runNodes(
			[{}],
			[
				await node('Featured', {
					operation: 'getCatalog',
					catalogOutput: 'catalog',
					catalogFilters: { mediaDomains: ['chat'], featuredOnly: true },
				}),
			],
		);
		const catalog = run.outputs('Featured')[0].json as {
			models: Array<{ value: string; media_domain: unknown }>;
		};
		expect(catalog.models.map((model) => model.value).sort()).toEqual(
			[...served.featured_model_ids].sort(),
		);
		for (const model of catalog.models) expect(model.media_domain).toBeNull();
	});
});
