// @ts-check
'use strict';

/**
 * What the independent server lists: models, personas and the public catalog, shaped as
 * docs/api.md#models, docs/api.md#personas and docs/api.md#catalog allow, taking the less common
 * shape where the rules allow several (`type` values `free` and `subscribers`, a BYOK entry with
 * null type, context window and description, reasoning levels without `api_value`, media models).
 */

const MODELS = [
	{
		model_name: 'mistral:mistral-large-2411',
		label: 'Mistral Large 24.11',
		vendor: 'Mistral',
		description: 'Top-tier reasoning for complex tasks',
		type: 'capable',
		context_window: 128000,
		is_byok: false,
	},
	{
		model_name: 'google:gemini-2.5-flash',
		label: 'Gemini 2.5 Flash',
		vendor: 'Google',
		description: 'Fast multimodal model',
		type: 'free',
		context_window: 1048576,
		is_byok: false,
	},
	{
		model_name: 'anthropic:claude-opus-4-1-20250805',
		label: 'Claude Opus 4.1',
		vendor: 'Anthropic',
		description: null,
		type: 'subscribers',
		context_window: 200000,
		is_byok: false,
	},
	{
		model_name: 'openai:gpt-4o-2024-08-06',
		label: 'GPT-4o (legacy)',
		vendor: 'OpenAI',
		description: 'Superseded by GPT-5',
		type: 'fast',
		context_window: 128000,
		is_byok: false,
	},
	{
		model_name: 'openai:gpt-5',
		label: 'GPT-5',
		vendor: 'OpenAI',
		description: 'Flagship model — “smart” & thorough',
		type: null,
		context_window: null,
		is_byok: false,
	},
	{
		model_name: 'byok:5b0e7c52-3f1d-4a8e-9c6b-2d7f1e0a9b34',
		label: 'Équipe key (Ollama)',
		vendor: 'Custom',
		description: null,
		type: null,
		context_window: null,
		is_byok: true,
	},
];

const PERSONAS = [
	{
		id: 'prs_7QK2M9',
		name: 'Terse Analyst',
		prompt: 'Answer in as few words as possible. Numbers first.',
		model: 'mistral:mistral-large-2411',
		image: 'https://cdn.example.org/avatars/analyst.png',
	},
	{
		id: 'prs_8RL3N0',
		name: 'Ship’s Cook',
		prompt: 'You are a cheerful ship’s cook who explains everything with recipes.',
		model: null,
		image: null,
	},
	{
		id: 'prs_9SM4P1',
		name: 'Librarian',
		prompt: 'Cite sources. Be precise.',
		model: 'openai:gpt-5',
		image: null,
	},
];

const CATALOG = {
	models: [
		{
			value: 'openai:gpt-5',
			label: 'GPT-5',
			vendor: 'OpenAI',
			description: 'Flagship model',
			type: 'capable',
			context_window: 400000,
			priority: 1,
			reasoning: {
				kind: 'levels',
				levels: [
					{ value: 0, label: 'Minimal', api_value: 'minimal' },
					{ value: 1, label: 'Low', api_value: 'low' },
					{ value: 2, label: 'High', api_value: 'high' },
				],
			},
			media_domain: null,
			media_profiles: [],
		},
		{
			value: 'mistral:mistral-large-2411',
			label: 'Mistral Large 24.11',
			vendor: 'Mistral',
			description: null,
			type: 'capable',
			context_window: 128000,
			priority: 2,
			// An older catalog entry: levels without api_value.
			reasoning: {
				kind: 'levels',
				levels: [
					{ value: 0, label: 'Off' },
					{ value: 1, label: 'On' },
				],
			},
			media_domain: null,
			media_profiles: [],
		},
		{
			value: 'anthropic:claude-opus-4-1-20250805',
			label: 'Claude Opus 4.1',
			vendor: 'Anthropic',
			description: 'Deep thinking',
			type: 'subscribers',
			context_window: 200000,
			priority: 3,
			reasoning: { kind: 'range', min_tokens: 1024, max_tokens: 32000 },
			media_domain: null,
			media_profiles: [],
		},
		{
			value: 'google:gemini-2.5-flash',
			label: 'Gemini 2.5 Flash',
			vendor: 'Google',
			description: 'Fast',
			type: 'free',
			context_window: 1048576,
			priority: 4,
			reasoning: null,
			media_domain: null,
			media_profiles: [],
		},
		{
			value: 'openai:gpt-4o-2024-08-06',
			label: 'GPT-4o (legacy)',
			vendor: 'OpenAI',
			description: null,
			type: 'fast',
			context_window: 128000,
			priority: 90,
			reasoning: null,
			media_domain: null,
			media_profiles: [],
		},
		// Alike in shape to the emulator's media models because docs/api.md#catalog fixes the shape;
		// written apart from test/emulator on purpose (test/README.md), so neither copies the other.
		{
			value: 'blackforest:flux-1.1-pro',
			label: 'FLUX 1.1 [pro]',
			vendor: 'Black Forest Labs',
			description: 'Image generation',
			type: null,
			context_window: null,
			priority: 10,
			reasoning: null,
			media_domain: 'image',
			media_profiles: [
				{
					operation: 'image.generate',
					request_variants: [
						{
							id: 'text-to-image',
							inputs: [{ role: 'prompt', kind: 'text', min: 1, max: 1 }],
							settings: { aspect_ratio: ['1:1', '16:9', '9:16'] },
						},
					],
					price_rules: [
						{ selector: { variant: 'text-to-image' }, free_daily_eligible: true, charge_usd: 0.04 },
					],
					output: {
						mime_types: ['image/png', 'image/webp'],
						count: { min: 1, max: 4 },
						max_width: 1440,
						max_height: 1440,
					},
				},
				{
					operation: 'image.edit',
					request_variants: [
						{
							id: 'image-and-prompt',
							inputs: [
								{ role: 'prompt', kind: 'text', min: 1, max: 1 },
								{ role: 'source', kind: 'image', min: 1, max: 1 },
							],
							settings: {},
						},
					],
					price_rules: [
						{
							selector: { variant: 'image-and-prompt' },
							free_daily_eligible: false,
							charge_usd: 0.05,
						},
					],
					output: { mime_types: ['image/png'], count: { min: 1, max: 1 } },
				},
			],
		},
		{
			value: 'openai:whisper-1',
			label: 'Whisper',
			vendor: 'OpenAI',
			description: 'Speech to text',
			type: null,
			context_window: null,
			priority: 20,
			reasoning: null,
			media_domain: 'transcription',
			media_profiles: [
				{
					operation: 'audio.transcribe',
					request_variants: [
						{
							id: 'audio-file',
							inputs: [{ role: 'audio', kind: 'audio', min: 1, max: 1 }],
							settings: { language: 'auto' },
						},
					],
					price_rules: [
						{
							selector: { variant: 'audio-file' },
							free_daily_eligible: false,
							per_second_usd: 0.0001,
							min_charge_usd: 0.001,
							max_charge_usd: 0.36,
						},
					],
					output: { mime_types: ['text/plain'], max_text_chars: 100000 },
				},
			],
		},
		{
			value: 'legacy:media-hidden',
			label: 'Legacy video (no public operation)',
			vendor: 'Legacy',
			description: null,
			type: null,
			context_window: null,
			priority: 99,
			reasoning: null,
			media_domain: 'video',
			media_profiles: [],
		},
	],
	media_gateway_public_discovery_enabled: false,
	default_chat_model_id: 'openai:gpt-5',
	featured_model_ids: ['openai:gpt-5', 'google:gemini-2.5-flash'],
	featured_models_are_free: true,
	featured_model_labels: ['GPT-5', 'Gemini 2.5 Flash'],
	promo_end_date: '2031-12-31',
	deprecation_map: {
		'openai:gpt-4o-2024-08-06': 'openai:gpt-5',
		'openai:gpt-4-turbo': 'openai:gpt-5',
	},
};

module.exports = { MODELS, PERSONAS, CATALOG };
