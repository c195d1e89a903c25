import type { CatalogResponse, ModelEntry, PersonaEntry } from '../../../nodes/shared/api';
import { filterModels, filterPersonas, modelLabel } from '../../../nodes/shared/methods/listSearch';

const MODELS: ModelEntry[] = [
	{
		model_name: 'anthropic:claude-haiku-4-5',
		label: 'Claude Haiku 4.5',
		vendor: 'Anthropic',
		description: 'Quick answers',
		type: 'fast',
		context_window: 200_000,
		is_byok: false,
	},
	{
		model_name: 'anthropic:claude-3-5-sonnet',
		label: 'Claude 3.5 Sonnet',
		vendor: 'Anthropic',
		description: null,
		type: 'capable',
		context_window: 1_000_000,
		is_byok: false,
	},
	{
		model_name: 'byok:1234',
		label: 'My GPT key',
		vendor: 'Custom',
		description: null,
		type: null,
		context_window: null,
		is_byok: true,
	},
];

const CATALOG = {
	models: [],
	deprecation_map: { 'anthropic:claude-3-5-sonnet': 'anthropic:claude-sonnet-4-5' },
} as unknown as CatalogResponse;

const PERSONAS: PersonaEntry[] = [
	{ id: 'persona_pirate', name: 'Pirate', prompt: 'Arr', model: null, image: null },
	{ id: 'persona_chef', name: 'Chef', prompt: 'Cook', model: 'openai:gpt-5', image: null },
];

const values = (results: Array<{ value: unknown }>) => results.map((r) => r.value);

describe('the model picker', () => {
	test('no search shows every model, labelled with vendor, kind, context and BYOK', () => {
		expect(filterModels(MODELS).map((result) => result.name)).toEqual([
			'Claude Haiku 4.5 · Anthropic · fast · 200k tokens',
			'Claude 3.5 Sonnet · Anthropic · capable · 1M tokens',
			'My GPT key · Custom · BYOK',
		]);
	});

	test('every search word must match, in any field, whatever the case', () => {
		expect(values(filterModels(MODELS, 'claude FAST'))).toEqual(['anthropic:claude-haiku-4-5']);
		expect(values(filterModels(MODELS, 'anthropic'))).toHaveLength(2);
		expect(values(filterModels(MODELS, 'byok'))).toEqual(['byok:1234']);
		expect(filterModels(MODELS, 'mistral')).toEqual([]);
	});

	test('a deprecated model is marked with its successor and found by "deprecated"', () => {
		const results = filterModels(MODELS, 'deprecated', CATALOG);
		expect(values(results)).toEqual(['anthropic:claude-3-5-sonnet']);
		expect(results[0].name).toBe(
			'Claude 3.5 Sonnet · Anthropic · capable · 1M tokens · deprecated, use anthropic:claude-sonnet-4-5',
		);
	});

	test('lower `priority` first; those without one after, in the service’s order (docs/api.md#models)', () => {
		const [haiku, sonnet, byok] = MODELS;
		const models = [
			{ ...haiku, priority: 20 },
			byok,
			{ ...sonnet, priority: 10 },
			{ ...haiku, model_name: 'zo:c', priority: 20 },
		];
		expect(values(filterModels(models))).toEqual([
			'anthropic:claude-3-5-sonnet',
			'anthropic:claude-haiku-4-5',
			'zo:c',
			'byok:1234',
		]);
		// The service's own list, untouched where no entry has a priority.
		expect(values(filterModels([byok, sonnet, haiku]))).toEqual([
			'byok:1234',
			'anthropic:claude-3-5-sonnet',
			'anthropic:claude-haiku-4-5',
		]);
	});

	test('a model without a label shows its ID', () => {
		expect(modelLabel({ ...MODELS[2], label: '', is_byok: false })).toBe('byok:1234 · Custom');
	});
});

describe('the persona picker', () => {
	test('shows each persona with its model, the default when it has none; search by name or ID', () => {
		expect(filterPersonas(PERSONAS).map((result) => result.name)).toEqual([
			'Pirate · default model',
			'Chef · openai:gpt-5',
		]);
		expect(values(filterPersonas(PERSONAS, 'chef'))).toEqual(['persona_chef']);
		expect(values(filterPersonas(PERSONAS, 'persona_pir'))).toEqual(['persona_pirate']);
	});
});
