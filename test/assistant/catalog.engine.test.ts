/**
 * The catalog in the real engine against the emulator (docs/api.md#catalog): deprecated models
 * answered by their successor, one catalog read per execution, Get Catalog's options.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { jsonOf, rl } from '../helpers/assistant';
import { useEmulator, type AssistantRun } from '../helpers/emulatorFixture';

const TOKEN = 'tok_catalog_tests_5a4b3c2d1e';

const assistant = useEmulator({ token: TOKEN, answerDelayMs: 100 });

describe('deprecated models are answered by their successor (docs/api.md#catalog)', () => {
	function hintsOf(run: AssistantRun, nodeName: string): Array<{ message: string }> {
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
		return await assistant.run(ask, { items });
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
		const run = await assistant.run(
			{ operation: 'ask', input: 'x', model: rl('openai:gpt-4o-mini') },
			{
				items,
				then: [
					assistant.node('Catalog', { operation: 'getCatalog', catalogOutput: 'catalog' }),
					assistant.node('Catalog Again', { operation: 'getCatalog' }),
				],
			},
		);
		expect(run.outputs('Catalog')).toHaveLength(5);
		expect(
			assistant.emulator.stats.requests.filter((request) => request.path === '/models/catalog'),
		).toHaveLength(1);
	});

	test('Get Catalog: one item per model by default, filtered by media domain, with deprecation info', async () => {
		const run = await assistant.run(
			{
				operation: 'getCatalog',
				catalogFilters: { mediaDomains: ['image'] },
				options: { addDeprecationInfo: true },
			},
			{ name: 'Images' },
		);
		const models = jsonOf(run.outputs('Images'));
		expect(models.length).toBeGreaterThan(0);
		for (const model of models) {
			expect(model.media_domain).toBe('image');
			expect(model).toMatchObject({ deprecated: expect.any(Boolean), successor: null });
		}
	});

	test('Get Catalog as one item: the whole catalog, chat models only, featured only', async () => {
		const served = (await (await fetch(`${assistant.emulator.baseUrl}/models/catalog`)).json()) as {
			featured_model_ids: string[];
		};
		const run = await assistant.run(
			{
				operation: 'getCatalog',
				catalogOutput: 'catalog',
				catalogFilters: { mediaDomains: ['chat'], featuredOnly: true },
			},
			{ name: 'Featured' },
		);
		const catalog = run.outputs('Featured')[0].json as {
			models: Array<{ value: string; media_domain: unknown }>;
		};
		expect(catalog.models.map((model) => model.value).sort()).toEqual(
			[...served.featured_model_ids].sort(),
		);
		for (const model of catalog.models) expect(model.media_domain).toBeNull();
	});
	test('Media Domains given by an expression as text ("image, video") keeps those models', async () => {
		const run = await assistant.run(
			{ operation: 'getCatalog', catalogFilters: { mediaDomains: '={{ $json.domains }}' } },
			{ name: 'Media', items: [{ domains: 'image, Video' }] },
		);
		const domains = new Set(jsonOf(run.outputs('Media')).map((model) => model.media_domain));
		expect([...domains].sort()).toEqual(['image', 'video']);
	});

	test('Media Domains that is no list, or names no media domain of the catalog, fails its item naming the filter', async () => {
		const run = await assistant.run(
			{ operation: 'getCatalog', catalogFilters: { mediaDomains: '={{ $json.domains }}' } },
			{
				name: 'Media',
				items: [{ domains: 'image' }, { domains: 'imgae' }, { domains: 3 }],
				node: { onError: 'continueRegularOutput' },
			},
		);
		const byItem = (index: number) =>
			run.outputs('Media').filter((item) => (item.pairedItem as { item: number }).item === index);
		expect(byItem(0).length).toBeGreaterThan(0);
		for (const model of jsonOf(byItem(0))) expect(model.media_domain).toBe('image');
		expect(byItem(1)).toHaveLength(1);
		expect(byItem(1)[0].json).toMatchObject({
			error: 'Media Domains: "imgae" is no media domain of the catalog',
			description: expect.stringContaining('image'),
		});
		expect(byItem(2)).toHaveLength(1);
		expect(String(byItem(2)[0].json.error)).toMatch(/^Media Domains must be a list/);
	});
});
