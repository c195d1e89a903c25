// @ts-check
'use strict';

/**
 * Fixture data of the Assistant API emulator: the models a user can ask with, their personas
 * and the public catalog. The values are invented but shaped like the live service's answers
 * (docs/api.md#models, docs/api.md#catalog), including the awkward parts a client must cope with: null
 * descriptions, BYOK entries without type or context window, reasoning configs with and
 * without api_value, media models with their own operation sets, deprecated ids.
 */

/**
 * @typedef {object} ModelEntry
 * @property {string} model_name
 * @property {string} label
 * @property {string} vendor
 * @property {string | null} description
 * @property {string | null} type
 * @property {number | null} context_window
 * @property {boolean} is_byok
 */

/**
 * @typedef {object} PersonaEntry
 * @property {string} id
 * @property {string} name
 * @property {string} prompt
 * @property {string | null} model
 * @property {string | null} image
 */

const DEFAULT_MODEL_ID = 'anthropic:claude-haiku-4-5-20251001';
const DEFAULT_PERSONA_ID = 'persona_general';

const BYOK_AZURE_ID = 'byok:3f6c1e2a-8b4d-4c9e-a7f1-2d5b9e0c6a84';
const BYOK_LLAMA_ID = 'byok:9a0d7c3e-51f2-4b8a-bc6e-7e4f1a2d3c95';

/** @type {ModelEntry[]} The first entry is the default model. */
const MODELS = [
	{
		model_name: DEFAULT_MODEL_ID,
		label: 'Claude Haiku 4.5',
		vendor: 'Anthropic',
		description: 'Fast and inexpensive, good for everyday questions and automations.',
		type: 'fast',
		context_window: 200000,
		is_byok: false,
	},
	{
		model_name: 'anthropic:claude-sonnet-4-5-20250929',
		label: 'Claude Sonnet 4.5',
		vendor: 'Anthropic',
		description: 'Strong reasoning and writing; best for complex, multi-step tasks.',
		type: 'capable',
		context_window: 200000,
		is_byok: false,
	},
	{
		model_name: 'openai:gpt-5-mini',
		label: 'GPT-5 mini',
		vendor: 'OpenAI',
		description: 'Quick answers with solid tool use.',
		type: 'fast',
		context_window: 400000,
		is_byok: false,
	},
	{
		model_name: 'openai:gpt-5',
		label: 'GPT-5',
		vendor: 'OpenAI',
		description: 'Deep reasoning for hard problems — slower, more thorough.',
		type: 'capable',
		context_window: 400000,
		is_byok: false,
	},
	{
		model_name: 'google:gemini-2.5-pro',
		label: 'Gemini 2.5 Pro',
		vendor: 'Google',
		description: null,
		type: 'capable',
		context_window: 1048576,
		is_byok: false,
	},
	{
		model_name: 'mistral:mistral-large-latest',
		label: 'Mistral Large',
		vendor: 'Mistral',
		description: 'European model with good multilingual skills (français, español, Deutsch).',
		type: null,
		context_window: 128000,
		is_byok: false,
	},
	{
		model_name: BYOK_AZURE_ID,
		label: 'My Azure GPT-4.1',
		vendor: 'Custom',
		description: 'Bring-your-own-key configuration (Azure OpenAI).',
		type: null,
		context_window: null,
		is_byok: true,
	},
	{
		model_name: BYOK_LLAMA_ID,
		label: 'Local Llama 3.3 70B',
		vendor: 'Custom',
		description: 'Bring-your-own-key configuration (OpenAI-compatible endpoint).',
		type: null,
		context_window: null,
		is_byok: true,
	},
];

/** @type {PersonaEntry[]} The first entry is the active (default) persona. */
const PERSONAS = [
	{
		id: DEFAULT_PERSONA_ID,
		name: 'Assistant',
		prompt: 'You are a helpful personal assistant. Answer concisely and use the tools you have.',
		model: null,
		image: 'https://assistant.example/avatars/general.png',
	},
	{
		id: 'persona_pirate',
		name: 'Captain Byte',
		prompt: 'You are a cheerful pirate. Answer every question in pirate speak, arr.',
		model: 'openai:gpt-5-mini',
		image: null,
	},
	{
		id: 'persona_analyst',
		name: 'Zoë the Analyst',
		prompt: 'You are a meticulous data analyst. Cite numbers, state assumptions, be precise.',
		model: 'anthropic:claude-sonnet-4-5-20250929',
		image: 'https://assistant.example/avatars/analyst.png',
	},
];

/** @type {Record<string, string>} Deprecated public id -> active successor. */
const DEPRECATION_MAP = {
	'anthropic:claude-3-5-sonnet-20241022': 'anthropic:claude-sonnet-4-5-20250929',
	'openai:gpt-4o-mini': 'openai:gpt-5-mini',
	'google:gemini-1.5-pro': 'google:gemini-2.5-pro',
};

/**
 * Catalog entry for a chat model: the available-models fields plus reasoning, whether it sees
 * images, and empty media fields.
 * @param {string} id
 * @param {object | null} reasoning
 * @param {boolean} [supportsImages]
 */
function chatCatalogEntry(id, reasoning, supportsImages = true) {
	const model = MODELS.find((m) => m.model_name === id);
	if (!model) throw new Error(`fixture error: no model ${id}`);
	return {
		value: model.model_name,
		label: model.label,
		vendor: model.vendor,
		description: model.description,
		type: model.type,
		context_window: model.context_window,
		reasoning,
		// docs/api.md#images: whether the model sees images written into the input.
		supports_images: supportsImages,
		media_domain: null,
		media_profiles: [],
	};
}

// Levels with api_value (current catalogs) ...
const GPT5_REASONING = {
	kind: 'levels',
	default_value: 1,
	options: [
		{ value: 0, label: 'Minimal', api_value: 'minimal' },
		{ value: 1, label: 'Low', api_value: 'low' },
		{ value: 2, label: 'Medium', api_value: 'medium' },
		{ value: 3, label: 'High', api_value: 'high' },
	],
};
// ... and without it, as older catalogs send them.
const GEMINI_REASONING = {
	kind: 'levels',
	default_value: 0,
	options: [
		{ value: 0, label: 'Dynamic' },
		{ value: 1, label: 'Low' },
		{ value: 2, label: 'High' },
	],
};
const SONNET_REASONING = { kind: 'range', min_tokens: 1024, max_tokens: 32000 };

// The media models, each spelled out whole as /models/catalog returns it, to be read against
// docs/api.md#catalog; test/independent/fixtures.js has its own, written apart on purpose.
const IMAGE_MODEL = {
	value: 'openai:gpt-image-1',
	label: 'GPT Image 1',
	vendor: 'OpenAI',
	description: 'Generates and edits images from a prompt.',
	type: null,
	context_window: null,
	reasoning: null,
	media_domain: 'image',
	media_profiles: [
		{
			operation: 'image.generate',
			request_variants: [
				{
					id: 'text-to-image',
					inputs: [{ role: 'prompt', kind: 'text', min: 1, max: 1 }],
					settings: ['size', 'quality', 'count'],
				},
			],
			price_rules: [
				{
					selector: { quality: 'low', size: '1024x1024' },
					daily_free_allowance_eligible: true,
					charge_usd: 0.011,
				},
				{
					selector: { quality: 'medium', size: '1024x1024' },
					daily_free_allowance_eligible: false,
					charge_usd: 0.042,
				},
				{
					selector: { quality: 'high', size: '1024x1024' },
					daily_free_allowance_eligible: false,
					charge_usd: 0.167,
				},
			],
			output: {
				mime_types: ['image/png', 'image/webp'],
				count: { min: 1, max: 4 },
				dimensions: [
					{ width: 1024, height: 1024 },
					{ width: 1536, height: 1024 },
					{ width: 1024, height: 1536 },
				],
			},
		},
		{
			operation: 'image.edit',
			request_variants: [
				{
					id: 'image-and-prompt',
					inputs: [
						{ role: 'prompt', kind: 'text', min: 1, max: 1 },
						{ role: 'source_image', kind: 'image', min: 1, max: 4 },
						{ role: 'mask', kind: 'image', min: 0, max: 1 },
					],
					settings: ['size', 'quality'],
				},
			],
			price_rules: [
				{
					selector: { quality: 'medium' },
					daily_free_allowance_eligible: false,
					charge_usd: 0.063,
				},
			],
			output: {
				mime_types: ['image/png'],
				count: { min: 1, max: 1 },
				dimensions: [{ width: 1024, height: 1024 }],
			},
		},
	],
};

const VIDEO_MODEL = {
	value: 'google:veo-3.1',
	label: 'Veo 3.1',
	vendor: 'Google',
	description: 'Short video clips with sound from text or a starting image.',
	type: null,
	context_window: null,
	reasoning: null,
	media_domain: 'video',
	media_profiles: [
		{
			operation: 'video.generate',
			request_variants: [
				{
					id: 'text-to-video',
					inputs: [{ role: 'prompt', kind: 'text', min: 1, max: 1 }],
					settings: ['duration_seconds', 'aspect_ratio', 'audio'],
				},
				{
					id: 'image-to-video',
					inputs: [
						{ role: 'prompt', kind: 'text', min: 1, max: 1 },
						{ role: 'first_frame', kind: 'image', min: 1, max: 1 },
					],
					settings: ['duration_seconds', 'aspect_ratio'],
				},
			],
			price_rules: [
				{
					selector: { audio: true },
					daily_free_allowance_eligible: false,
					usd_per_second: 0.4,
					min_seconds: 4,
					max_seconds: 8,
				},
				{
					selector: { audio: false },
					daily_free_allowance_eligible: false,
					usd_per_second: 0.2,
					min_seconds: 4,
					max_seconds: 8,
				},
			],
			output: {
				mime_types: ['video/mp4'],
				count: { min: 1, max: 1 },
				duration_seconds: { min: 4, max: 8 },
				dimensions: [
					{ width: 1280, height: 720 },
					{ width: 720, height: 1280 },
				],
			},
		},
	],
};

const SPEECH_MODEL = {
	value: 'elevenlabs:eleven-multilingual-v2',
	label: 'Eleven Multilingual v2',
	vendor: 'ElevenLabs',
	description: 'Natural text-to-speech in 29 languages.',
	type: null,
	context_window: null,
	reasoning: null,
	media_domain: 'speech',
	media_profiles: [
		{
			operation: 'speech.generate',
			request_variants: [
				{
					id: 'text-to-speech',
					inputs: [{ role: 'text', kind: 'text', min: 1, max: 1 }],
					settings: ['voice', 'format'],
				},
			],
			price_rules: [
				{
					selector: {},
					daily_free_allowance_eligible: true,
					usd_per_1k_characters: 0.3,
					min_charge_usd: 0.001,
					max_characters: 10000,
				},
			],
			output: {
				mime_types: ['audio/mpeg', 'audio/wav'],
				count: { min: 1, max: 1 },
				max_text_characters: 10000,
			},
		},
	],
};

// Shaped as the speech model above (one media profile each), kept a literal of its own so that
// each entry reads as the catalog serves it rather than as a template's arguments.
const TRANSCRIPTION_MODEL = {
	value: 'openai:gpt-4o-transcribe',
	label: 'GPT-4o Transcribe',
	vendor: 'OpenAI',
	description: 'Speech to text with punctuation and speaker-friendly formatting.',
	type: null,
	context_window: null,
	reasoning: null,
	media_domain: 'transcription',
	media_profiles: [
		{
			operation: 'audio.transcribe',
			request_variants: [
				{
					id: 'audio-file',
					inputs: [{ role: 'audio', kind: 'audio', min: 1, max: 1 }],
					settings: ['language'],
				},
			],
			price_rules: [
				{
					selector: {},
					daily_free_allowance_eligible: false,
					usd_per_minute: 0.006,
					min_charge_usd: 0.001,
					max_minutes: 120,
				},
			],
			output: {
				mime_types: ['text/plain', 'application/json'],
				count: { min: 1, max: 1 },
				max_text_characters: 200000,
			},
		},
	],
};

const CATALOG = {
	models: [
		chatCatalogEntry(DEFAULT_MODEL_ID, null),
		chatCatalogEntry('anthropic:claude-sonnet-4-5-20250929', SONNET_REASONING),
		chatCatalogEntry('openai:gpt-5-mini', GPT5_REASONING),
		chatCatalogEntry('openai:gpt-5', GPT5_REASONING),
		chatCatalogEntry('google:gemini-2.5-pro', GEMINI_REASONING),
		// Text only: an image sent to it reaches it as base64 text.
		chatCatalogEntry('mistral:mistral-large-latest', null, false),
		IMAGE_MODEL,
		VIDEO_MODEL,
		SPEECH_MODEL,
		TRANSCRIPTION_MODEL,
	],
	media_gateway_public_discovery_enabled: false,
	default_chat_model_id: DEFAULT_MODEL_ID,
	featured_model_ids: [DEFAULT_MODEL_ID, 'openai:gpt-5-mini'],
	featured_models_are_free: true,
	featured_model_labels: ['Claude Haiku 4.5', 'GPT-5 mini'],
	promo_end_date: '2026-03-31',
	deprecation_map: DEPRECATION_MAP,
};

/**
 * Model ids seen with the other prefixes public clients meet (docs/api.md#ask-request): an ask
 * accepts them, though /models/available does not list them (its list stays what the picker tests
 * expect).
 */
const PREFIXED_MODEL_IDS = Object.freeze([
	'zo:auto',
	'groq:llama-3.3-70b-versatile',
	'cerebras:gpt-oss-120b',
	'vercel:xai/grok-4',
	'svc:openai/gpt-5.4',
]);

/** Model ids an ask accepts: every available model (BYOK too), every deprecated id, the above. */
const ASKABLE_MODEL_IDS = new Set([
	...MODELS.map((m) => m.model_name),
	...Object.keys(DEPRECATION_MAP),
	...PREFIXED_MODEL_IDS,
]);

const PERSONA_IDS = new Set(PERSONAS.map((p) => p.id));

module.exports = {
	DEFAULT_MODEL_ID,
	DEFAULT_PERSONA_ID,
	BYOK_AZURE_ID,
	BYOK_LLAMA_ID,
	MODELS,
	PERSONAS,
	CATALOG,
	DEPRECATION_MAP,
	ASKABLE_MODEL_IDS,
	PREFIXED_MODEL_IDS,
	PERSONA_IDS,
};
