// @ts-check
/**
 * A second, independent implementation of the Assistant API, written only from
 * /work/shared/spec/assistant-api.md (the specification of record) and
 * /work/shared/spec/field-notes.md, without looking at test/emulator/.
 *
 * Where the specification and the notes allow more than one shape, it deliberately takes the
 * less common one:
 * - streams use `\r\n` line endings, open with keep-alive comments, interleave
 *   PartStartEvent / PartDeltaEvent / PartEndEvent events (the delta events repeat the text,
 *   which a client must not count twice), carry most of the text in `parts` (with `thinking`
 *   parts that are not part of the answer) and some in plain `content`, and are written to the
 *   socket in odd-sized slices, every multi-byte UTF-8 character cut after its first byte;
 * - `End` carries `conversation_id`; when the input contains "noheader" the stream has no
 *   `x-conversation-id` header and `End` also carries the whole text as `output`;
 * - a wrong token is answered 401 with `{"error": {"message": "bad token"}}` (JSON) on most
 *   paths and with plain text on GET /models/available;
 * - validation errors are FastAPI-style 422 `detail` arrays naming the field (`loc`);
 * - an input containing "inband-error" is answered 200 `{"error": "..."}`;
 * - optional ask fields sent as null are accepted (same as omitted);
 * - model `type` values include `free` and `subscribers`; a BYOK entry `byok:<uuid>` has null
 *   type, context_window and description;
 * - the catalog is keyed by `value`, has reasoning levels with and without `api_value`, a range
 *   reasoning config, media models, a `deprecation_map`, and `Cache-Control: max-age=60`.
 *
 * Replies are deterministic so that a client's result can be checked exactly:
 *   text:       `echo(<input>) via <model_name|default> as <persona_id|default>; history=<n>`
 *               (n = number of earlier asks in the conversation)
 *   structured: an object conforming to output_format (string → 'x', enum → its last value,
 *               number → 1, boolean → false, array → [], object → the same, recursively).
 * Other triggers in the input: "stream-error" (an Error event), "stream-cut" (the stream closes
 * without End).
 *
 * CommonJS, node's http only: `const { start } = require('./server'); await start({ token })`.
 */

const http = require('node:http');
const crypto = require('node:crypto');

/**
 * @typedef {{ method: string, path: string, authorization: string | undefined, body: unknown }} RecordedRequest
 * @typedef {{ baseUrl: string, token: string, requests: RecordedRequest[], close(): Promise<void> }} IndependentServer
 * @typedef {{ [key: string]: unknown }} Json
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

/** Slice sizes for writing a stream: odd numbers, so frames and characters get cut anywhere. */
const SLICES = [7, 3, 11, 1, 5, 13, 2, 9];

/** @param {{ token: string, host?: string }} options @returns {Promise<IndependentServer>} */
async function start({ token, host = '127.0.0.1' }) {
	/** @type {RecordedRequest[]} */
	const requests = [];
	/** @type {Map<string, string[]>} conversation id → inputs asked so far */
	const conversations = new Map();
	/** @type {Set<string>} conversations answering right now */
	const busy = new Set();

	const server = http.createServer((req, res) => {
		handle(req, res).catch((error) => {
			if (!res.headersSent) sendJson(res, 500, { detail: `internal: ${String(error)}` });
			else res.destroy();
		});
	});

	/** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
	async function handle(req, res) {
		res.socket?.setNoDelay(true);
		const url = new URL(req.url ?? '/', 'http://independent.invalid');
		const path = url.pathname;
		const method = req.method ?? 'GET';
		const raw = await readBody(req);
		/** @type {unknown} */
		let body;
		let bodyIsJson = true;
		if (raw.length > 0) {
			try {
				body = JSON.parse(raw.toString('utf8'));
			} catch {
				body = raw.toString('utf8');
				bodyIsJson = false;
			}
		}
		const authorization =
			typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
		requests.push({ method, path, authorization, body });

		const authorized = authorization === `Bearer ${token}`;
		const route = `${method} ${path}`;
		switch (route) {
			case 'GET /models/catalog':
				// Public: any Authorization header is ignored.
				res.setHeader('Cache-Control', 'public, max-age=60');
				return sendJson(res, 200, CATALOG);
			case 'GET /models/available':
				if (!authorized) return sendText(res, 401, 'Unauthorized: bad token');
				return sendJson(res, 200, { models: MODELS });
			case 'GET /personas/available':
				if (!authorized) return sendJson(res, 401, { error: { message: 'bad token' } });
				return sendJson(res, 200, { personas: PERSONAS });
			case 'POST /assistant/ask':
				if (!authorized) return sendJson(res, 401, { error: { message: 'bad token' } });
				if (!bodyIsJson) {
					return sendJson(res, 422, {
						detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
					});
				}
				return await ask(res, body);
			default:
				if (
					[
						'/models/catalog',
						'/models/available',
						'/personas/available',
						'/assistant/ask',
					].includes(path)
				) {
					res.setHeader('Allow', path === '/assistant/ask' ? 'POST' : 'GET');
					return sendJson(res, 405, { detail: 'Method Not Allowed' });
				}
				return sendJson(res, 404, { detail: 'Not Found' });
		}
	}

	/** @param {http.ServerResponse} res @param {unknown} body */
	async function ask(res, body) {
		/** @type {Array<{ loc: Array<string | number>, msg: string, type: string }>} */
		const problems = [];
		if (typeof body !== 'object' || body === null || Array.isArray(body)) {
			return sendJson(res, 422, {
				detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }],
			});
		}
		const request = /** @type {Json} */ (body);
		const input = request.input;
		if (input === undefined || input === null) {
			problems.push({ loc: ['body', 'input'], msg: 'Field required', type: 'missing' });
		} else if (typeof input !== 'string') {
			problems.push({
				loc: ['body', 'input'],
				msg: 'Input should be a valid string',
				type: 'string_type',
			});
		}
		/** @param {string} name @returns {string | undefined} */
		const optionalString = (name) => {
			const value = request[name];
			if (value === undefined || value === null) return undefined;
			if (typeof value !== 'string') {
				problems.push({
					loc: ['body', name],
					msg: 'Input should be a valid string',
					type: 'string_type',
				});
				return undefined;
			}
			return value;
		};
		const modelName = optionalString('model_name');
		const personaId = optionalString('persona_id');
		const conversationId = optionalString('conversation_id');
		const stream = request.stream;
		if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
			problems.push({
				loc: ['body', 'stream'],
				msg: 'Input should be a valid boolean',
				type: 'bool_type',
			});
		}
		const outputFormat = request.output_format;
		const structured = outputFormat !== undefined && outputFormat !== null;
		if (structured) problems.push(...schemaProblems(outputFormat, ['body', 'output_format'], true));
		if (modelName !== undefined && !MODELS.some((model) => model.model_name === modelName)) {
			problems.push({
				loc: ['body', 'model_name'],
				msg: `Value error, unknown model '${modelName}'; use a model_name from GET /models/available`,
				type: 'value_error',
			});
		}
		if (personaId !== undefined && !PERSONAS.some((persona) => persona.id === personaId)) {
			problems.push({
				loc: ['body', 'persona_id'],
				msg: `Value error, unknown persona '${personaId}'`,
				type: 'value_error',
			});
		}
		if (problems.length > 0) return sendJson(res, 422, { detail: problems });

		const text = /** @type {string} */ (input);
		if (conversationId !== undefined && !conversations.has(conversationId)) {
			return sendJson(res, 404, { detail: `Conversation ${conversationId} not found` });
		}
		if (conversationId !== undefined && busy.has(conversationId)) {
			return sendJson(res, 409, { detail: 'Conversation is busy answering an earlier request' });
		}
		if (text.includes('inband-error')) {
			return sendJson(res, 200, {
				error: 'The assistant could not complete this request (inband-error)',
			});
		}

		const id = conversationId ?? crypto.randomUUID();
		const history = conversations.get(id) ?? [];
		conversations.set(id, history);
		const reply = `echo(${text}) via ${modelName ?? 'default'} as ${personaId ?? 'default'}; history=${history.length}`;
		history.push(text);
		const output = structured ? conform(outputFormat) : reply;

		if (stream !== true) return sendJson(res, 200, { output, conversation_id: id });

		busy.add(id);
		try {
			await sendStream(res, { id, text, reply, output, structured });
		} finally {
			busy.delete(id);
		}
	}

	/**
	 * @param {http.ServerResponse} res
	 * @param {{ id: string, text: string, reply: string, output: unknown, structured: boolean }} answer
	 */
	async function sendStream(res, { id, text, reply, output, structured }) {
		const noHeader = text.includes('noheader');
		/** @type {Record<string, string>} */
		const headers = {
			'Content-Type': 'text/event-stream; charset=utf-8',
			'Cache-Control': 'no-cache',
			Connection: 'keep-alive',
		};
		if (!noHeader) headers['x-conversation-id'] = id;
		res.writeHead(200, headers);

		const visible = structured ? JSON.stringify(output) : reply;
		const pieces = splitText(visible, 4);
		const crlf = '\r\n';
		/** @param {string} type @param {unknown} data */
		const event = (type, data) =>
			`event: ${type}${crlf}data: ${JSON.stringify(data)}${crlf}${crlf}`;

		let wire = `: keep-alive${crlf}${crlf}:ping${crlf}${crlf}`;
		wire += event('PartStartEvent', {
			index: 0,
			part: { part_kind: 'thinking', content: 'Let me think' },
		});
		wire += event('FrontendModelResponse', {
			parts: [{ part_kind: 'thinking', content: 'Let me think about the user’s request… 🤔' }],
		});
		wire += event('PartEndEvent', { index: 0 });
		wire += event('PartStartEvent', { index: 1, part: { part_kind: 'text', content: '' } });
		pieces.forEach((piece, index) => {
			// The delta events repeat the text: they are not the answer and must not be counted.
			wire += event('PartDeltaEvent', {
				index: 1,
				delta: { part_delta_kind: 'text', content_delta: piece },
			});
			if (index % 3 === 1) {
				wire += event('FrontendModelResponse', { content: piece });
			} else if (index % 3 === 2) {
				wire += event('FrontendModelResponse', {
					parts: [
						{ part_kind: 'thinking', content: '(hmm)' },
						{ part_kind: 'text', content: piece },
					],
				});
			} else {
				wire += event('FrontendModelResponse', { parts: [{ part_kind: 'text', content: piece }] });
			}
			if (index === 1) wire += `: keep-alive${crlf}${crlf}`;
		});
		wire += event('PartEndEvent', { index: 1 });
		if (text.includes('stream-error')) {
			wire += event('Error', { message: 'Upstream model failed mid-answer (stream-error)' });
		} else if (!text.includes('stream-cut')) {
			/** @type {Json} */
			const end = { conversation_id: id };
			if (structured) end.output = output;
			else if (noHeader) end.output = reply;
			wire += event('End', end);
		}
		await writeSliced(res, Buffer.from(wire, 'utf8'));
		res.end();
	}

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, host, () => resolve(undefined));
	});
	const address = server.address();
	if (address === null || typeof address === 'string') throw new Error('no TCP address');
	return {
		baseUrl: `http://${host}:${address.port}`,
		token,
		requests,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/**
 * Writes the stream in odd-sized slices, pausing between them so that they arrive apart; every
 * multi-byte UTF-8 character is cut after its lead byte.
 * @param {http.ServerResponse} res @param {Buffer} bytes
 */
async function writeSliced(res, bytes) {
	/** @type {number[]} */
	const cuts = [];
	for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0xc0) cuts.push(i + 1);
	let offset = 0;
	let slice = 0;
	let nextCut = 0;
	while (offset < bytes.length) {
		while (nextCut < cuts.length && cuts[nextCut] <= offset) nextCut++;
		let end = Math.min(bytes.length, offset + SLICES[slice++ % SLICES.length]);
		if (nextCut < cuts.length && cuts[nextCut] < end) end = cuts[nextCut];
		if (res.destroyed) return;
		res.write(bytes.subarray(offset, end));
		offset = end;
		await pause(1);
	}
}

/** @param {number} ms */
function pause(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Splits text into about `count` pieces, on code points (a JSON string needs whole characters). */
function splitText(/** @type {string} */ text, /** @type {number} */ count) {
	const chars = Array.from(text);
	const size = Math.max(1, Math.ceil(chars.length / count));
	/** @type {string[]} */
	const pieces = [];
	for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
	return pieces;
}

/**
 * The output_format subset of the notes: object root with properties (and optionally required);
 * property types string (enum allowed), number, boolean, object, array (with items); description
 * anywhere. Anything else is a problem, located FastAPI-style.
 * @param {unknown} schema @param {Array<string | number>} loc @param {boolean} root
 * @returns {Array<{ loc: Array<string | number>, msg: string, type: string }>}
 */
function schemaProblems(schema, loc, root) {
	if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
		return [{ loc, msg: 'Schema should be an object', type: 'dict_type' }];
	}
	const node = /** @type {Json} */ (schema);
	const type = node.type;
	/** @type {Array<{ loc: Array<string | number>, msg: string, type: string }>} */
	const problems = [];
	if (root && type !== 'object')
		problems.push({
			loc: [...loc, 'type'],
			msg: "Input should be 'object'",
			type: 'literal_error',
		});
	const allowedTypes = ['string', 'number', 'boolean', 'object', 'array'];
	if (typeof type !== 'string' || !allowedTypes.includes(type)) {
		if (!root) {
			problems.push({
				loc: [...loc, 'type'],
				msg: `Input should be 'string', 'number', 'boolean', 'object' or 'array' (got ${JSON.stringify(type)})`,
				type: 'literal_error',
			});
		}
		return problems;
	}
	const allowedKeys =
		{
			string: ['enum'],
			number: [],
			boolean: [],
			object: ['properties', 'required'],
			array: ['items'],
		}[type] ?? [];
	for (const key of Object.keys(node)) {
		if (key !== 'type' && key !== 'description' && !allowedKeys.includes(key)) {
			problems.push({
				loc: [...loc, key],
				msg: 'Extra inputs are not permitted',
				type: 'extra_forbidden',
			});
		}
	}
	if (node.description !== undefined && typeof node.description !== 'string') {
		problems.push({
			loc: [...loc, 'description'],
			msg: 'Input should be a valid string',
			type: 'string_type',
		});
	}
	if (type === 'string' && node.enum !== undefined) {
		if (
			!Array.isArray(node.enum) ||
			node.enum.length === 0 ||
			node.enum.some((v) => typeof v !== 'string')
		) {
			problems.push({
				loc: [...loc, 'enum'],
				msg: 'Input should be a non-empty list of strings',
				type: 'list_type',
			});
		}
	}
	if (type === 'array') {
		if (node.items === undefined)
			problems.push({ loc: [...loc, 'items'], msg: 'Field required', type: 'missing' });
		else problems.push(...schemaProblems(node.items, [...loc, 'items'], false));
	}
	if (type === 'object') {
		const properties = node.properties;
		if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
			problems.push({ loc: [...loc, 'properties'], msg: 'Field required', type: 'missing' });
		} else {
			for (const [name, child] of Object.entries(properties)) {
				problems.push(...schemaProblems(child, [...loc, 'properties', name], false));
			}
			const required = node.required;
			if (required !== undefined) {
				if (!Array.isArray(required) || required.some((entry) => typeof entry !== 'string')) {
					problems.push({
						loc: [...loc, 'required'],
						msg: 'Input should be a list of strings',
						type: 'list_type',
					});
				} else {
					for (const name of required) {
						if (!(name in properties)) {
							problems.push({
								loc: [...loc, 'required'],
								msg: `'${name}' is not a property`,
								type: 'value_error',
							});
						}
					}
				}
			}
		}
	}
	return problems;
}

/**
 * An object conforming to a (validated) schema: string → 'x' (enum → its last value),
 * number → 1, boolean → false, array → [], object → recursive.
 * @param {unknown} schema @returns {unknown}
 */
function conform(schema) {
	const node = /** @type {Json} */ (schema);
	switch (node.type) {
		case 'string':
			return Array.isArray(node.enum) ? node.enum[node.enum.length - 1] : 'x';
		case 'number':
			return 1;
		case 'boolean':
			return false;
		case 'array':
			return [];
		default: {
			/** @type {Json} */
			const result = {};
			const properties = /** @type {Json} */ (node.properties ?? {});
			for (const [name, child] of Object.entries(properties)) result[name] = conform(child);
			return result;
		}
	}
}

/** @param {http.IncomingMessage} req @returns {Promise<Buffer>} */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

/** @param {http.ServerResponse} res @param {number} status @param {unknown} value */
function sendJson(res, status, value) {
	const payload = Buffer.from(JSON.stringify(value), 'utf8');
	res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': payload.length });
	res.end(payload);
}

/** @param {http.ServerResponse} res @param {number} status @param {string} text */
function sendText(res, status, text) {
	const payload = Buffer.from(text, 'utf8');
	res.writeHead(status, {
		'Content-Type': 'text/plain; charset=utf-8',
		'Content-Length': payload.length,
		'WWW-Authenticate': 'Bearer',
	});
	res.end(payload);
}

module.exports = { start, MODELS, PERSONAS, CATALOG, conform };
