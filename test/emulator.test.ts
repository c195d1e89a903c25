/**
 * Exercises the Assistant API emulator (test/emulator/) over real HTTP with Node's fetch:
 * every endpoint, auth, conversations, output_format, streams and every fault.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { startEmulator, DEFAULT_TOKEN, FAULT_NAMES } from './emulator/server';
import type { Emulator } from './emulator/server';
import {
	DEFAULT_MODEL_ID,
	DEFAULT_PERSONA_ID,
	BYOK_AZURE_ID,
	BYOK_LLAMA_ID,
	DEPRECATION_MAP,
} from './emulator/data';

// The tests read arbitrary JSON shapes; `any` keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface SseEvent {
	event: string;
	data: Json;
}

interface ReadResult {
	chunks: Uint8Array[];
	text: string;
	error: unknown;
	elapsedMs: number;
}

const DEPRECATED_ID = 'anthropic:claude-3-5-sonnet-20241022';
const UNICODE_PROBE = ' Unicode check: café — naïve 😀 ok.';

let emu: Emulator;
const extras: Emulator[] = [];

/** An extra emulator for one test; afterAll closes it even if the test timed out half-way. */
async function startExtra(options?: Parameters<typeof startEmulator>[0]): Promise<Emulator> {
	const extra = await startEmulator(options);
	extras.push(extra);
	return extra;
}

beforeAll(async () => {
	emu = await startEmulator({ dialect: 'documented' });
});

afterAll(async () => {
	await Promise.all([emu, ...extras].map((e) => e.close()));
});

beforeEach(() => {
	emu.reset();
});

// -------------------------------------------------------------------------------------------
// Helpers

function authHeaders(token: string | null = emu.token): Record<string, string> {
	const headers: Record<string, string> = { 'content-type': 'application/json' };
	if (token !== null) headers.authorization = `Bearer ${token}`;
	return headers;
}

function ask(
	body: unknown,
	token: string | null = emu.token,
	target: Emulator = emu,
): Promise<Response> {
	return fetch(`${target.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: authHeaders(token),
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

async function askJson(
	body: unknown,
	target: Emulator = emu,
): Promise<{ status: number; json: Json; res: Response }> {
	const res = await ask(body, emu.token, target);
	return { status: res.status, json: await res.json(), res };
}

function get(pathname: string, token: string | null = emu.token): Promise<Response> {
	return fetch(`${emu.baseUrl}${pathname}`, { headers: authHeaders(token) });
}

/** Reads a body chunk by chunk, keeping what arrived before an error. */
async function readAll(res: Response): Promise<ReadResult> {
	const started = Date.now();
	const reader = (res.body as ReadableStream<Uint8Array>).getReader();
	const chunks: Uint8Array[] = [];
	let error: unknown = null;
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			chunks.push(value);
		}
	} catch (caught) {
		error = caught;
	}
	const text = Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('utf8');
	return { chunks, text, error, elapsedMs: Date.now() - started };
}

/** A small SSE parser: events with JSON data, plus the comment lines. */
function parseSse(raw: string): { events: SseEvent[]; comments: string[] } {
	const events: SseEvent[] = [];
	const comments: string[] = [];
	for (const block of raw.replace(/\r\n/g, '\n').split('\n\n')) {
		let event = 'message';
		const data: string[] = [];
		for (const line of block.split('\n')) {
			if (line.startsWith(':')) comments.push(line.slice(1).trim());
			else if (line.startsWith('event:')) event = line.slice(6).trim();
			else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
		}
		const text = data.join('\n');
		if (data.length > 0) events.push({ event, data: text === '[DONE]' ? text : JSON.parse(text) });
	}
	return { events, comments };
}

function chunkEvents(events: SseEvent[]): SseEvent[] {
	return events.filter((e) => e.event === 'FrontendModelResponse');
}

/** The answer text of a stream, from `content` or else from the text `parts`. */
function streamedText(events: SseEvent[]): string {
	return chunkEvents(events)
		.map((e) =>
			typeof e.data.content === 'string'
				? e.data.content
				: (e.data.parts as Json[])
						.filter((p) => p.part_kind === 'text')
						.map((p) => p.content)
						.join(''),
		)
		.join('');
}

async function streamAsk(body: Record<string, unknown>, target: Emulator = emu) {
	const res = await ask({ ...body, stream: true }, emu.token, target);
	const read = await readAll(res);
	return { res, read, ...parseSse(read.text) };
}

function expectedReply(
	input: string,
	options: { model?: string; persona?: string; earlier?: string[]; tail?: string } = {},
): string {
	let text = `[model=${options.model ?? DEFAULT_MODEL_ID} persona=${options.persona ?? DEFAULT_PERSONA_ID}] You said: "${input}".`;
	if (options.earlier && options.earlier.length > 0) {
		text += ` Earlier you said: ${options.earlier.map((m) => `"${m}"`).join(' | ')}.`;
	}
	return text + (options.tail ?? '');
}

function lastRequest() {
	return emu.stats.requests[emu.stats.requests.length - 1];
}

// -------------------------------------------------------------------------------------------
// Listing endpoints

describe('GET /models/available', () => {
	it('lists the models in the spec shape, default first, with BYOK entries', async () => {
		const res = await get('/models/available');
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		const { models } = (await res.json()) as { models: Json[] };
		expect(models.length).toBeGreaterThanOrEqual(6);
		expect(models.length).toBeLessThanOrEqual(8);
		expect(models[0].model_name).toBe(DEFAULT_MODEL_ID);
		for (const model of models) {
			expect(Object.keys(model).sort()).toEqual(
				[
					'context_window',
					'description',
					'is_byok',
					'label',
					'model_name',
					'type',
					'vendor',
				].sort(),
			);
			expect(model.model_name).toMatch(/^[a-z]+:[\w.-]+$/);
			expect(typeof model.label).toBe('string');
			expect(typeof model.is_byok).toBe('boolean');
		}
		expect(new Set(models.map((m) => m.type))).toEqual(new Set(['fast', 'capable', null]));
		expect(models.filter((m) => m.description === null)).toHaveLength(1);
		const byok = models.filter((m) => m.is_byok);
		expect(byok.map((m) => m.model_name)).toEqual([BYOK_AZURE_ID, BYOK_LLAMA_ID]);
		for (const model of byok) {
			expect(model.model_name).toMatch(
				/^byok:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
			);
			expect(model).toMatchObject({ vendor: 'Custom', type: null, context_window: null });
		}
	});
});

describe('GET /personas/available', () => {
	it('lists three personas, one without model and one without image', async () => {
		const res = await get('/personas/available');
		expect(res.status).toBe(200);
		const { personas } = (await res.json()) as { personas: Json[] };
		expect(personas).toHaveLength(3);
		expect(personas[0].id).toBe(DEFAULT_PERSONA_ID);
		for (const persona of personas) {
			expect(Object.keys(persona).sort()).toEqual(['id', 'image', 'model', 'name', 'prompt']);
			expect(typeof persona.prompt).toBe('string');
		}
		expect(personas.filter((p) => p.model === null)).toHaveLength(1);
		expect(personas.filter((p) => p.image === null)).toHaveLength(1);
	});
});

describe('GET /models/catalog', () => {
	it('needs no token, is cacheable for a minute and records that no token was sent', async () => {
		const res = await get('/models/catalog', null);
		expect(res.status).toBe(200);
		expect(res.headers.get('cache-control')).toBe('public, max-age=60');
		expect(lastRequest()).toMatchObject({
			method: 'GET',
			path: '/models/catalog',
			authorization: false,
			status: 200,
		});
	});

	it('still answers when a (even wrong) token is sent, and records it', async () => {
		const res = await get('/models/catalog', 'whatever');
		expect(res.status).toBe(200);
		expect(lastRequest().authorization).toBe(true);
	});

	it('has the documented top-level fields', async () => {
		const catalog: Json = await (await get('/models/catalog', null)).json();
		const values = (catalog.models as Json[]).map((m) => m.value);
		expect(catalog.media_gateway_public_discovery_enabled).toBe(false);
		expect(catalog.default_chat_model_id).toBe(DEFAULT_MODEL_ID);
		expect(values).toContain(catalog.default_chat_model_id);
		expect(catalog.featured_model_ids.length).toBeGreaterThan(0);
		expect(catalog.featured_model_labels).toHaveLength(catalog.featured_model_ids.length);
		catalog.featured_model_ids.forEach((id: string, i: number) => {
			expect(catalog.models.find((m: Json) => m.value === id).label).toBe(
				catalog.featured_model_labels[i],
			);
		});
		expect(typeof catalog.featured_models_are_free).toBe('boolean');
		expect(catalog.promo_end_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
		expect(Object.keys(catalog.deprecation_map).length).toBeGreaterThanOrEqual(2);
		for (const [oldId, successor] of Object.entries(catalog.deprecation_map)) {
			expect(values).not.toContain(oldId);
			expect(values).toContain(successor);
		}
		expect(catalog.deprecation_map[DEPRECATED_ID]).toBe('anthropic:claude-sonnet-4-5-20250929');
	});

	it('has chat models with every kind of reasoning config and media models with profiles', async () => {
		const catalog: Json = await (await get('/models/catalog', null)).json();
		const models = catalog.models as Json[];
		for (const model of models) {
			for (const key of [
				'value',
				'label',
				'vendor',
				'description',
				'type',
				'context_window',
				'reasoning',
				'media_domain',
				'media_profiles',
			]) {
				expect(model).toHaveProperty(key);
			}
		}
		const reasoning = models.map((m) => m.reasoning).filter((r) => r !== null);
		const levels = reasoning.filter((r) => Array.isArray(r.options));
		expect(levels.some((r) => r.options.every((o: Json) => typeof o.api_value === 'string'))).toBe(
			true,
		);
		expect(levels.some((r) => r.options.every((o: Json) => !('api_value' in o)))).toBe(true);
		for (const r of levels) for (const o of r.options) expect(typeof o.value).toBe('number');
		expect(
			reasoning.some((r) => typeof r.min_tokens === 'number' && typeof r.max_tokens === 'number'),
		).toBe(true);
		expect(models.some((m) => m.reasoning === null && m.media_domain === null)).toBe(true);

		const chat = models.filter((m) => m.media_domain === null);
		for (const model of chat) expect(model.media_profiles).toEqual([]);
		const media = models.filter((m) => m.media_domain !== null);
		expect(new Set(media.map((m) => m.media_domain))).toEqual(
			new Set(['image', 'video', 'speech', 'transcription']),
		);
		for (const model of media) {
			expect(model.media_profiles.length).toBeGreaterThan(0);
			for (const profile of model.media_profiles) {
				expect(profile.operation).toMatch(/^(image|video|speech|audio)\.[a-z]+$/);
				expect(profile.request_variants.length).toBeGreaterThan(0);
				expect(profile.price_rules.length).toBeGreaterThan(0);
				for (const rule of profile.price_rules) {
					expect(rule).toHaveProperty('selector');
					expect(typeof rule.daily_free_allowance_eligible).toBe('boolean');
				}
				expect(Array.isArray(profile.output.mime_types)).toBe(true);
			}
		}
		const operations = media.flatMap((m) => m.media_profiles.map((p: Json) => p.operation));
		expect(operations).toEqual(
			expect.arrayContaining([
				'image.generate',
				'image.edit',
				'video.generate',
				'speech.generate',
				'audio.transcribe',
			]),
		);
	});
});

// -------------------------------------------------------------------------------------------
// Auth and routing

describe('auth and routing', () => {
	it.each(['/models/available', '/personas/available'])(
		'GET %s needs the bearer token',
		async (pathname) => {
			const none = await get(pathname, null);
			expect(none.status).toBe(401);
			expect(await none.json()).toEqual({ detail: 'Invalid or missing access token' });
			const wrong = await get(pathname, 'sk-wrong-token-123');
			expect(wrong.status).toBe(401);
			expect(await wrong.text()).not.toContain('sk-wrong-token-123');
		},
	);

	it('POST /assistant/ask needs the bearer token, with the Bearer scheme', async () => {
		const variants: Array<Record<string, string>> = [
			{ 'content-type': 'application/json' },
			{ 'content-type': 'application/json', authorization: 'Bearer nope' },
			{ 'content-type': 'application/json', authorization: emu.token },
			{ 'content-type': 'application/json', authorization: `Basic ${emu.token}` },
		];
		for (const headers of variants) {
			const res = await fetch(`${emu.baseUrl}/assistant/ask`, {
				method: 'POST',
				headers,
				body: '{"input":"hi"}',
			});
			expect(res.status).toBe(401);
			expect(res.headers.get('www-authenticate')).toBe('Bearer');
			expect(await res.json()).toEqual({ detail: 'Invalid or missing access token' });
		}
		expect(emu.stats.completedAsks.size).toBe(0);
	});

	it('uses the fixed fake default token, or the one given', async () => {
		expect(emu.token).toBe(DEFAULT_TOKEN);
		expect(DEFAULT_TOKEN).toBe('emu-token-7f3c9a1e5b');
		const other = await startExtra({ token: 'custom-token' });
		try {
			expect(other.token).toBe('custom-token');
			expect((await ask({ input: 'hi' }, emu.token, other)).status).toBe(401);
			expect((await ask({ input: 'hi' }, 'custom-token', other)).status).toBe(200);
		} finally {
			await other.close();
		}
	});

	it('answers unknown paths 404 and wrong methods 405', async () => {
		for (const pathname of ['/nope', '/assistant/ask/extra', '/models', '/']) {
			const res = await get(pathname);
			expect(res.status).toBe(404);
			expect(await res.json()).toEqual({ detail: 'Not Found' });
		}
		const getAsk = await get('/assistant/ask');
		expect(getAsk.status).toBe(405);
		expect(getAsk.headers.get('allow')).toBe('POST');
		const postCatalog = await fetch(`${emu.baseUrl}/models/catalog`, {
			method: 'POST',
			body: '{}',
		});
		expect(postCatalog.status).toBe(405);
		const deleteModels = await fetch(`${emu.baseUrl}/models/available`, { method: 'DELETE' });
		expect(deleteModels.status).toBe(405);
	});

	it('ignores query strings when routing and records requests', async () => {
		expect((await get('/models/available?x=1')).status).toBe(200);
		expect(lastRequest()).toEqual({
			method: 'GET',
			path: '/models/available',
			authorization: true,
			body: undefined,
			status: 200,
		});
	});
});

// -------------------------------------------------------------------------------------------
// Asking

describe('POST /assistant/ask', () => {
	it('answers with the documented reply format and a new conversation id', async () => {
		const { status, json, res } = await askJson({ input: 'Hello there' });
		expect(status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(Object.keys(json).sort()).toEqual(['conversation_id', 'output']);
		expect(json.output).toBe(expectedReply('Hello there'));
		expect(json.output).toBe(
			'[model=anthropic:claude-haiku-4-5-20251001 persona=persona_general] You said: "Hello there".',
		);
		expect(json.conversation_id).toMatch(/^conv_[0-9a-f]{16}$/);
		const second = await askJson({ input: 'Hello there' });
		expect(second.json.conversation_id).not.toBe(json.conversation_id);
		expect(second.json.output).toBe(expectedReply('Hello there'));
		expect(emu.stats.completedAsks.get('Hello there')).toBe(2);
		expect(lastRequest()).toEqual({
			method: 'POST',
			path: '/assistant/ask',
			authorization: true,
			body: { input: 'Hello there' },
			status: 200,
		});
	});

	it('treats null optional fields as omitted and ignores unknown fields', async () => {
		const { status, json } = await askJson({
			input: 'nulls',
			conversation_id: null,
			model_name: null,
			persona_id: null,
			output_format: null,
			stream: null,
			memory_mode: 'off',
		});
		expect(status).toBe(200);
		expect(json.output).toBe(expectedReply('nulls'));
	});

	it('remembers the conversation', async () => {
		const first = await askJson({ input: 'one' });
		const id = first.json.conversation_id;
		const second = await askJson({ input: 'two', conversation_id: id });
		expect(second.json).toEqual({
			output: expectedReply('two', { earlier: ['one'] }),
			conversation_id: id,
		});
		const third = await askJson({ input: 'three', conversation_id: id });
		expect(third.json.output).toBe(expectedReply('three', { earlier: ['one', 'two'] }));
		expect(third.json.output).toContain(' Earlier you said: "one" | "two".');
		const other = await askJson({ input: 'elsewhere' });
		expect(other.json.output).toBe(expectedReply('elsewhere'));
	});

	it('remembers a name per conversation', async () => {
		const first = await askJson({ input: 'Hi, My Name Is Ada.' });
		const id = first.json.conversation_id;
		const asked = await askJson({ input: 'What is my name?', conversation_id: id });
		expect(asked.json.output).toBe(
			expectedReply('What is my name?', {
				earlier: ['Hi, My Name Is Ada.'],
				tail: ' Your name is Ada.',
			}),
		);
		const renamed = await askJson({ input: 'my name is Grace', conversation_id: id });
		const again = await askJson({ input: "what's my name", conversation_id: id });
		expect(again.json.output).toContain(' Your name is Grace.');
		expect(renamed.json.output).not.toContain('Your name is');
		const elsewhere = await askJson({ input: 'what is my name' });
		expect(elsewhere.json.output).toBe(
			expectedReply('what is my name', { tail: " I don't know your name yet." }),
		);
	});

	it('answers as the requested model and persona, BYOK and deprecated ids included', async () => {
		const pirate = await askJson({
			input: 'ahoy',
			model_name: 'openai:gpt-5-mini',
			persona_id: 'persona_pirate',
		});
		expect(pirate.json.output).toBe(
			expectedReply('ahoy', { model: 'openai:gpt-5-mini', persona: 'persona_pirate' }),
		);
		const byok = await askJson({ input: 'byok', model_name: BYOK_LLAMA_ID });
		expect(byok.json.output).toBe(expectedReply('byok', { model: BYOK_LLAMA_ID }));
		const deprecated = await askJson({ input: 'old', model_name: DEPRECATED_ID });
		expect(deprecated.status).toBe(200);
		expect(deprecated.json.output).toBe(expectedReply('old', { model: DEPRECATED_ID }));
		const successor = await askJson({ input: 'new', model_name: DEPRECATION_MAP[DEPRECATED_ID] });
		expect(successor.json.output).toBe(
			expectedReply('new', { model: 'anthropic:claude-sonnet-4-5-20250929' }),
		);
	});

	it('keeps multi-byte input intact', async () => {
		const input = 'Grüße — こんにちは 😀';
		const { json } = await askJson({ input });
		expect(json.output).toBe(expectedReply(input));
	});

	it('pads the answer for #long=N', async () => {
		const input = 'big #long=5000';
		const { json } = await askJson({ input });
		expect(json.output.startsWith(expectedReply(input))).toBe(true);
		expect(json.output.length).toBeGreaterThanOrEqual(5000);
		expect(json.output.length).toBeLessThan(5200);
		expect(json.output).toContain(' [1] ');
		expect((await askJson({ input })).json.output).toBe(json.output);
	});

	describe('validation', () => {
		it.each([
			[{}, [{ loc: ['body', 'input'], msg: 'Field required', type: 'missing' }]],
			[
				{ input: 42 },
				[{ loc: ['body', 'input'], msg: 'Input should be a valid string', type: 'string_type' }],
			],
			[
				{ input: null },
				[{ loc: ['body', 'input'], msg: 'Input should be a valid string', type: 'string_type' }],
			],
			[
				{ input: 'x', model_name: 'acme:nope' },
				[{ loc: ['body', 'model_name'], msg: "Unknown model 'acme:nope'", type: 'value_error' }],
			],
			[
				{ input: 'x', persona_id: 'ghost' },
				[{ loc: ['body', 'persona_id'], msg: "Unknown persona 'ghost'", type: 'value_error' }],
			],
			[
				{ input: 'x', stream: 'yes' },
				[{ loc: ['body', 'stream'], msg: 'Input should be a valid boolean', type: 'bool_type' }],
			],
			[
				{ input: 'x', conversation_id: 7 },
				[
					{
						loc: ['body', 'conversation_id'],
						msg: 'Input should be a valid string',
						type: 'string_type',
					},
				],
			],
			[
				['input'],
				[
					{
						loc: ['body'],
						msg: 'Input should be a valid dictionary or object to extract fields from',
						type: 'model_attributes_type',
					},
				],
			],
		])('answers 422 for %j', async (body, detail) => {
			const { status, json } = await askJson(body);
			expect(status).toBe(422);
			expect(json).toEqual({ detail });
		});

		it('answers 422 "Invalid JSON" for a body that is not JSON, and keeps running', async () => {
			for (const body of ['{"input": "x"', '', 'input=x']) {
				const res = await ask(body);
				expect(res.status).toBe(422);
				expect(await res.json()).toEqual({
					detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }],
				});
			}
			expect(lastRequest().body).toBe('input=x');
			expect((await askJson({ input: 'still alive' })).status).toBe(200);
		});

		it('answers 404 for an unknown conversation', async () => {
			const { status, json } = await askJson({
				input: 'x',
				conversation_id: 'conv_0000000000000000',
			});
			expect(status).toBe(404);
			expect(json).toEqual({ detail: 'Conversation not found' });
		});

		it('answers 413 for a body over 10 MB', async () => {
			const res = await ask({ input: 'x'.repeat(10 * 1024 * 1024 + 10) });
			expect(res.status).toBe(413);
			expect(await res.json()).toEqual({ detail: 'Request body too large' });
		});
	});
});

// -------------------------------------------------------------------------------------------
// output_format

describe('output_format', () => {
	const schema = {
		type: 'object',
		description: 'A person summary',
		properties: {
			summary: { type: 'string', description: 'one line' },
			title: { type: 'string' },
			mood: { type: 'string', enum: ['happy', 'sad'] },
			age: { type: 'number' },
			active: { type: 'boolean' },
			tags: { type: 'array', items: { type: 'string' } },
			scores: {
				type: 'array',
				items: { type: 'object', properties: { value: { type: 'number' } }, required: ['value'] },
			},
			address: {
				type: 'object',
				properties: {
					city: { type: 'string' },
					geo: { type: 'object', properties: { lat: { type: 'number' } } },
				},
				required: ['city'],
			},
		},
		required: ['summary'],
	};

	it('answers an object with every property, conforming to the schema', async () => {
		const { status, json } = await askJson({ input: 'Ada is 36', output_format: schema });
		expect(status).toBe(200);
		expect(json.conversation_id).toMatch(/^conv_/);
		expect(json.output).toEqual({
			summary: 'Ada is 36',
			title: 'title of Ada is 36',
			mood: 'happy',
			age: 42,
			active: true,
			tags: ['tags of Ada is 36'],
			scores: [{ value: 42 }],
			address: { city: 'city of Ada is 36', geo: { lat: 42 } },
		});
		expect(emu.stats.completedAsks.get('Ada is 36')).toBe(1);
	});

	it('remembers structured asks in the conversation', async () => {
		const first = await askJson({ input: 'first', output_format: schema });
		const second = await askJson({ input: 'second', conversation_id: first.json.conversation_id });
		expect(second.json.output).toBe(expectedReply('second', { earlier: ['first'] }));
	});

	it.each([
		['a non-object', 'json', ['body', 'output_format']],
		[
			'an array root',
			{ type: 'array', items: { type: 'string' } },
			['body', 'output_format', 'type'],
		],
		['a root without type', { properties: {} }, ['body', 'output_format', 'type']],
		['a root without properties', { type: 'object' }, ['body', 'output_format', 'properties']],
		[
			'an integer type',
			{ type: 'object', properties: { age: { type: 'integer' } } },
			['body', 'output_format', 'properties', 'age', 'type'],
		],
		[
			'enum on a number',
			{ type: 'object', properties: { n: { type: 'number', enum: [1, 2] } } },
			['body', 'output_format', 'properties', 'n', 'enum'],
		],
		[
			'an empty enum',
			{ type: 'object', properties: { s: { type: 'string', enum: [] } } },
			['body', 'output_format', 'properties', 's', 'enum'],
		],
		[
			'an array without items',
			{ type: 'object', properties: { list: { type: 'array' } } },
			['body', 'output_format', 'properties', 'list', 'items'],
		],
		[
			'a format keyword',
			{ type: 'object', properties: { mail: { type: 'string', format: 'email' } } },
			['body', 'output_format', 'properties', 'mail', 'format'],
		],
		[
			'additionalProperties',
			{ type: 'object', properties: {}, additionalProperties: false },
			['body', 'output_format', 'additionalProperties'],
		],
		[
			'a required name not in properties',
			{ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] },
			['body', 'output_format', 'required', 1],
		],
		[
			'a nested bad type',
			{
				type: 'object',
				properties: { o: { type: 'object', properties: { x: { type: 'date' } } } },
			},
			['body', 'output_format', 'properties', 'o', 'properties', 'x', 'type'],
		],
		[
			'bad array items',
			{ type: 'object', properties: { l: { type: 'array', items: { type: 'null' } } } },
			['body', 'output_format', 'properties', 'l', 'items', 'type'],
		],
		[
			'a non-string description',
			{ type: 'object', properties: { a: { type: 'string', description: 5 } } },
			['body', 'output_format', 'properties', 'a', 'description'],
		],
	])('answers 422 for %s, pointing at the bad part', async (_label, outputFormat, loc) => {
		const { status, json } = await askJson({ input: 'x', output_format: outputFormat });
		expect(status).toBe(422);
		expect(Array.isArray(json.detail)).toBe(true);
		expect(json.detail.map((d: Json) => d.loc)).toContainEqual(loc);
		for (const entry of json.detail) expect(typeof entry.msg).toBe('string');
		expect(emu.stats.completedAsks.size).toBe(0);
	});
});

// -------------------------------------------------------------------------------------------
// Streams

describe('streaming', () => {
	it('streams chunks that join to the non-streaming answer, then End', async () => {
		const input = 'Tell me something nice about streams, please';
		const { res, read, events } = await streamAsk({ input });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
		const id = res.headers.get('x-conversation-id');
		expect(id).toMatch(/^conv_[0-9a-f]{16}$/);
		expect(read.error).toBeNull();
		expect(read.text).toMatch(/^event: FrontendModelResponse\ndata: \{"content":/);
		expect(read.text).not.toContain('\r');
		const chunks = chunkEvents(events);
		expect(chunks.length).toBeGreaterThan(5);
		for (const chunk of chunks) expect(Object.keys(chunk.data)).toEqual(['content']);
		const plain = await askJson({ input });
		expect(streamedText(events)).toBe(plain.json.output);
		expect(events[events.length - 1]).toEqual({ event: 'End', data: {} });
		expect(events.filter((e) => e.event === 'End')).toHaveLength(1);
		expect(emu.stats.completedAsks.get(input)).toBe(2);
	});

	it('continues a streamed conversation through the header id', async () => {
		const first = await streamAsk({ input: 'streamed one' });
		const id = first.res.headers.get('x-conversation-id') as string;
		const second = await streamAsk({ input: 'streamed two', conversation_id: id });
		expect(second.res.headers.get('x-conversation-id')).toBe(id);
		expect(streamedText(second.events)).toBe(
			expectedReply('streamed two', { earlier: ['streamed one'] }),
		);
	});

	it('sends the structured output in End when output_format is given', async () => {
		const outputFormat = {
			type: 'object',
			properties: { answer: { type: 'string' }, ok: { type: 'boolean' } },
		};
		const { events } = await streamAsk({ input: 'structured', output_format: outputFormat });
		expect(streamedText(events)).toBe('');
		expect(events[events.length - 1]).toEqual({
			event: 'End',
			data: { output: { answer: 'structured', ok: true } },
		});
	});

	it('streams big answers for #long=N', async () => {
		const input = 'long one #long=20000';
		const { events } = await streamAsk({ input });
		const text = streamedText(events);
		expect(text.length).toBeGreaterThanOrEqual(20000);
		expect(chunkEvents(events).length).toBeGreaterThan(1000);
		expect(text).toBe((await askJson({ input })).json.output);
	});

	it('honours chunkDelayMs and answerDelayMs', async () => {
		const slow = await startExtra({ answerDelayMs: 300, chunkDelayMs: 20, dialect: 'documented' });
		try {
			let started = Date.now();
			const plain = await askJson({ input: 'a b c d' }, slow);
			expect(plain.status).toBe(200);
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
			started = Date.now();
			const { events } = await streamAsk({ input: 'a b c d' }, slow);
			const chunks = chunkEvents(events).length;
			expect(Date.now() - started).toBeGreaterThanOrEqual(290 + 20 * (chunks - 1));
			started = Date.now();
			await askJson({ input: 'quick #delay=0' }, slow);
			// #delay=0 overrides the emulator-wide delay (generous bound: CI machines are slow)
			expect(Date.now() - started).toBeLessThan(250);
		} finally {
			await slow.close();
		}
	});

	it('delays a single ask with #delay=<ms>', async () => {
		const started = Date.now();
		const { status } = await askJson({ input: 'wait #delay=200' });
		expect(status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
	});
});

// -------------------------------------------------------------------------------------------
// Busy conversations and concurrency

describe('conversation busy', () => {
	it('answers 409 to an ask on a conversation that is still answering', async () => {
		const { json } = await askJson({ input: 'start' });
		const id = json.conversation_id;
		const slow = askJson({ input: 'slow #delay=300', conversation_id: id });
		await new Promise((resolve) => setTimeout(resolve, 50));
		const overlap = await askJson({ input: 'overlap', conversation_id: id });
		expect(overlap.status).toBe(409);
		expect(overlap.json).toEqual({ detail: 'Conversation is busy answering an earlier request' });
		expect((await slow).status).toBe(200);
		expect(emu.stats.conversationOverlaps).toBe(1);
		expect(emu.stats.maxConcurrentPerConversation).toBe(2);
		const after = await askJson({ input: 'after', conversation_id: id });
		expect(after.status).toBe(200);
		expect(after.json.output).toBe(
			expectedReply('after', { earlier: ['start', 'slow #delay=300'] }),
		);
		expect(emu.stats.completedAsks.has('overlap')).toBe(false);
	});

	it('keeps a conversation busy while its stream is still running', async () => {
		const { json } = await askJson({ input: 'start' });
		const id = json.conversation_id;
		const streaming = streamAsk({
			input: 'a b c d e f #fault=slow-chunks&ms=60',
			conversation_id: id,
		});
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect((await ask({ input: 'overlap', conversation_id: id })).status).toBe(409);
		const done = await streaming;
		expect(done.events[done.events.length - 1].event).toBe('End');
		expect((await ask({ input: 'next', conversation_id: id })).status).toBe(200);
	});

	it('never reports overlaps for strictly sequential asks', async () => {
		let id: string | null = null;
		for (let i = 0; i < 25; i++) {
			const { status, json } = await askJson({ input: `n${i}`, conversation_id: id });
			expect(status).toBe(200);
			id = json.conversation_id;
		}
		expect(emu.stats.conversationOverlaps).toBe(0);
		expect(emu.stats.maxConcurrentPerConversation).toBe(1);
	});

	it('frees the conversation by the time a client has the whole answer, even byte by byte', async () => {
		let id: string | null = null;
		for (let i = 0; i < 4; i++) {
			const streamed = await streamAsk({ input: `s${i} #fault=split-bytes`, conversation_id: id });
			id = streamed.res.headers.get('x-conversation-id');
			const plain = await askJson({ input: `j${i} #fault=split-bytes`, conversation_id: id });
			expect(plain.status).toBe(200);
		}
		expect(emu.stats.conversationOverlaps).toBe(0);
		expect(emu.stats.completedAsks.get('j3 #fault=split-bytes')).toBe(1);
	});

	it('counts requests in flight', async () => {
		const all = await Promise.all([1, 2, 3, 4].map((i) => askJson({ input: `p${i} #delay=100` })));
		expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200]);
		expect(emu.stats.maxInFlight).toBe(4);
		expect(emu.stats.inFlight).toBe(0);
		expect(emu.stats.maxConcurrentPerConversation).toBe(1);
	});
});

// -------------------------------------------------------------------------------------------
// Faults switched on by a directive in the input

describe('faults by #fault directive', () => {
	it.each([
		['401', { detail: 'Invalid or missing access token' }],
		['404', { detail: 'Not Found' }],
		['408', { detail: 'Request timeout' }],
		['409', { detail: 'Conversation is busy answering an earlier request' }],
		['429', { detail: 'Rate limit exceeded' }],
		['500', { detail: 'Internal server error' }],
	])('#fault=%s answers that status with the service body', async (name, body) => {
		const input = `x #fault=${name}`;
		const res = await ask({ input });
		expect(res.status).toBe(Number(name));
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(await res.json()).toEqual(body);
		expect(emu.stats.completedAsks.has(input)).toBe(false);
	});

	it('#fault=422 answers a FastAPI detail array with two entries', async () => {
		const { status, json } = await askJson({ input: '#fault=422' });
		expect(status).toBe(422);
		expect(json.detail).toHaveLength(2);
		for (const entry of json.detail)
			expect(Object.keys(entry).sort()).toEqual(['loc', 'msg', 'type']);
	});

	it('#fault=429 sends Retry-After (default 1, or given) and optionally retry-after-ms', async () => {
		const plain = await ask({ input: '#fault=429' });
		expect(plain.headers.get('retry-after')).toBe('1');
		expect(plain.headers.get('retry-after-ms')).toBeNull();
		const custom = await ask({ input: '#fault=429&retryAfter=3&retryAfterMs=2500' });
		expect(custom.status).toBe(429);
		expect(custom.headers.get('retry-after')).toBe('3');
		expect(custom.headers.get('retry-after-ms')).toBe('2500');
		const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
		const dated = await ask({ input: `#fault=429&retryAfter=${encodeURIComponent(date)}` });
		expect(dated.headers.get('retry-after')).toBe(date);
	});

	it('502/503/504 come as proxy text or HTML, and any status works through status=', async () => {
		const bad = await ask({ input: '#fault=502' });
		expect(bad.status).toBe(502);
		expect(bad.headers.get('content-type')).toBe('text/html');
		expect(await bad.text()).toContain('<h1>502 Bad Gateway</h1>');
		const unavailable = await ask({ input: '#fault=503' });
		expect(unavailable.status).toBe(503);
		expect(unavailable.headers.get('content-type')).toBe('text/plain');
		expect(await unavailable.text()).toMatch(/upstream connect error/);
		const timeout = await ask({ input: '#fault=504' });
		expect(timeout.status).toBe(504);
		expect(await timeout.text()).toContain('504 Gateway Time-out');
		const teapot = await ask({ input: '#fault=status&status=418' });
		expect(teapot.status).toBe(418);
		expect(await teapot.json()).toEqual({ detail: "I'm a Teapot" });
	});

	it('error200 answers 200 with an error body', async () => {
		const { status, json } = await askJson({ input: '#fault=error200' });
		expect(status).toBe(200);
		expect(json).toEqual({
			error: 'The assistant could not complete the request: upstream tool failed',
		});
		const custom = await askJson({ input: '#fault=error200&message=Tool%20crashed' });
		expect(custom.json).toEqual({ error: 'Tool crashed' });
		const streamed = await ask({ input: '#fault=error200', stream: true });
		expect(streamed.headers.get('content-type')).toMatch(/^application\/json/);
		expect(emu.stats.completedAsks.size).toBe(0);
	});

	it('garbage answers 200 application/json that is not JSON', async () => {
		const res = await ask({ input: '#fault=garbage' });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/json');
		const text = await res.text();
		expect(text).toBe('<html>oops');
		expect(() => JSON.parse(text)).toThrow();
	});

	it('reset destroys the connection before any response', async () => {
		await expect(ask({ input: '#fault=reset' })).rejects.toThrow();
		expect(lastRequest().status).toBeNull();
		expect((await askJson({ input: 'fine' })).status).toBe(200);
	});

	it('reset-mid-stream sends some chunks, then drops the connection', async () => {
		const input = 'one two three four five six seven eight #fault=reset-mid-stream';
		const res = await ask({ input, stream: true });
		expect(res.status).toBe(200);
		const read = await readAll(res);
		expect(read.error).not.toBeNull();
		const { events } = parseSse(read.text);
		expect(chunkEvents(events).length).toBeGreaterThan(0);
		expect(expectedReply(input).startsWith(streamedText(events))).toBe(true);
		expect(streamedText(events).length).toBeLessThan(expectedReply(input).length);
		expect(events.some((e) => e.event === 'End')).toBe(false);
		expect(emu.stats.completedAsks.has(input)).toBe(false);
	});

	it('reset-mid-stream on a JSON ask cuts the body short', async () => {
		const res = await ask({ input: 'cut #fault=reset-mid-stream' });
		expect(res.status).toBe(200);
		await expect(res.text()).rejects.toThrow();
	});

	it('slow-first-byte holds even the headers back', async () => {
		const started = Date.now();
		const res = await ask({ input: '#fault=slow-first-byte&ms=300' });
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		expect(res.status).toBe(200);
		expect((await res.json()).output).toBe(expectedReply('#fault=slow-first-byte&ms=300'));
	});

	it('slow-chunks pauses between stream chunks', async () => {
		const input = 'a b c d e #fault=slow-chunks&ms=40';
		const started = Date.now();
		const { events } = await streamAsk({ input });
		const chunks = chunkEvents(events).length;
		expect(Date.now() - started).toBeGreaterThanOrEqual(40 * (chunks - 1) - 5);
		expect(streamedText(events)).toBe(expectedReply(input));
		expect(emu.stats.completedAsks.get(input)).toBe(1);
	});

	it('stall-stream goes quiet mid-stream, then finishes', async () => {
		const input = 'a b c d e f g h #fault=stall-stream&ms=300';
		const res = await ask({ input, stream: true });
		const reader = (res.body as ReadableStream<Uint8Array>).getReader();
		const times: number[] = [];
		const parts: Uint8Array[] = [];
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			times.push(Date.now());
			parts.push(value);
		}
		const gaps = times.slice(1).map((t, i) => t - times[i]);
		expect(Math.max(...gaps)).toBeGreaterThanOrEqual(280);
		const { events } = parseSse(Buffer.concat(parts).toString('utf8'));
		expect(streamedText(events)).toBe(expectedReply(input));
		expect(events[events.length - 1].event).toBe('End');
	});

	it('crlf uses \\r\\n line endings', async () => {
		const input = 'line endings #fault=crlf';
		const { read, events } = await streamAsk({ input });
		expect(read.text).toContain('event: FrontendModelResponse\r\ndata: ');
		expect(read.text.replace(/\r\n/g, '')).not.toContain('\n');
		expect(streamedText(events)).toBe(expectedReply(input));
		expect(events[events.length - 1]).toEqual({ event: 'End', data: {} });
	});

	it('end-extra puts conversation_id and the text into End', async () => {
		const input = 'extra #fault=end-extra';
		const { res, events } = await streamAsk({ input });
		expect(events[events.length - 1]).toEqual({
			event: 'End',
			data: { conversation_id: res.headers.get('x-conversation-id'), output: expectedReply(input) },
		});
	});

	it('end-empty sends End {}', async () => {
		const { events } = await streamAsk({ input: '#fault=end-empty' });
		expect(events[events.length - 1]).toEqual({ event: 'End', data: {} });
	});

	it('no-header-id leaves the header out and puts the id into End', async () => {
		const input = 'no header #fault=no-header-id';
		const { res, events } = await streamAsk({ input });
		expect(res.headers.get('x-conversation-id')).toBeNull();
		const end = events[events.length - 1];
		expect(end.event).toBe('End');
		expect(end.data.conversation_id).toMatch(/^conv_/);
		const next = await askJson({ input: 'follow-up', conversation_id: end.data.conversation_id });
		expect(next.json.output).toBe(expectedReply('follow-up', { earlier: [input] }));
	});

	it('unknown-events interleaves other event types and keep-alive comments', async () => {
		const input = 'one two three four five six #fault=unknown-events';
		const { events, comments } = await streamAsk({ input });
		const types = new Set(events.map((e) => e.event));
		expect(types).toEqual(
			new Set(['RunStatusEvent', 'UsageEvent', 'FrontendModelResponse', 'End']),
		);
		expect(comments).toContain('ping');
		expect(streamedText(events)).toBe(expectedReply(input));
		expect(events[events.length - 1]).toEqual({ event: 'End', data: {} });
	});

	it('split-bytes writes 1-3 byte pieces that cut through multi-byte characters', async () => {
		const input = 'bytes #fault=split-bytes';
		const { read, events } = await streamAsk({ input });
		const expected = expectedReply(input, { tail: UNICODE_PROBE });
		expect(expected).toMatch(/é.*—.*😀/);
		expect(streamedText(events)).toBe(expected);
		expect(read.chunks.length).toBeGreaterThan(100);
		const small = read.chunks.filter((c) => c.length <= 3).length;
		expect(small / read.chunks.length).toBeGreaterThan(0.9);
		const decoder = new TextDecoder('utf-8', { fatal: true });
		const broken = read.chunks.filter((c) => {
			try {
				decoder.decode(c);
				return false;
			} catch {
				return true;
			}
		});
		expect(broken.length).toBeGreaterThan(0);
		const plain = await askJson({ input });
		expect(plain.json.output).toBe(expected);
	});

	it('no-end closes the stream cleanly without End', async () => {
		const input = 'unfinished #fault=no-end';
		const { read, events } = await streamAsk({ input });
		expect(read.error).toBeNull();
		expect(streamedText(events)).toBe(expectedReply(input));
		expect(events.some((e) => e.event === 'End')).toBe(false);
		expect(emu.stats.completedAsks.has(input)).toBe(false);
	});

	it('error-event sends an Error event after a chunk or two, and closes', async () => {
		const input = 'doomed answer with many words #fault=error-event';
		const { read, events } = await streamAsk({ input });
		expect(read.error).toBeNull();
		expect(chunkEvents(events).length).toBeGreaterThanOrEqual(1);
		expect(chunkEvents(events).length).toBeLessThanOrEqual(2);
		expect(events[events.length - 1]).toEqual({
			event: 'Error',
			data: { message: 'Model provider overloaded' },
		});
		expect(events.some((e) => e.event === 'End')).toBe(false);
		expect(emu.stats.completedAsks.has(input)).toBe(false);
		const custom = await streamAsk({ input: '#fault=error-event&message=Quota%20exceeded' });
		expect(custom.events[custom.events.length - 1].data).toEqual({ message: 'Quota exceeded' });
	});

	it('all-variants combines crlf, unknown events, split bytes and a full End', async () => {
		const input = 'everything #fault=all-variants';
		const { res, read, events, comments } = await streamAsk({ input });
		const expected = expectedReply(input, { tail: UNICODE_PROBE });
		expect(read.text).toContain('\r\n');
		expect(comments).toContain('ping');
		expect(events.some((e) => e.event === 'UsageEvent')).toBe(true);
		expect(read.chunks.length).toBeGreaterThan(100);
		expect(streamedText(events)).toBe(expected);
		expect(events[events.length - 1]).toEqual({
			event: 'End',
			data: { conversation_id: res.headers.get('x-conversation-id'), output: expected },
		});
		expect(emu.stats.completedAsks.get(input)).toBe(1);
	});

	it('stream variants leave JSON asks alone', async () => {
		for (const name of ['crlf', 'unknown-events', 'no-end', 'error-event', 'end-extra']) {
			const input = `plain #fault=${name}`;
			const { status, json } = await askJson({ input });
			expect(status).toBe(200);
			expect(json.output).toBe(expectedReply(input));
		}
	});

	it('combines several directives in one input', async () => {
		const input = 'combo #fault=crlf #fault=unknown-events #fault=end-extra';
		const { read, events } = await streamAsk({ input });
		expect(read.text).toContain('\r\n');
		expect(events[0].event).toBe('RunStatusEvent');
		expect(events[events.length - 1].data.output).toBe(expectedReply(input));
	});

	it('times=N limits a fault to the first N asks with that input (for retries)', async () => {
		const input = 'retry me #fault=429&times=2';
		expect((await ask({ input })).status).toBe(429);
		expect((await ask({ input })).status).toBe(429);
		const third = await askJson({ input });
		expect(third.status).toBe(200);
		expect(third.json.output).toBe(expectedReply(input));
		expect(emu.stats.completedAsks.get(input)).toBe(1);
		emu.reset();
		expect((await ask({ input })).status).toBe(429);
	});

	it('answers 422 for an unknown fault or a bad directive', async () => {
		for (const input of [
			'#fault=explode',
			'#fault=429&bogus=1',
			'#delay=soon',
			'#fault=status&status=200',
		]) {
			const { status, json } = await askJson({ input });
			expect(status).toBe(422);
			expect(json.detail[0].loc).toEqual(['body', 'input']);
			expect(json.detail[0].msg).toContain(input.split('&')[0].slice(0, 6));
		}
	});

	it('knows every fault name of the brief', () => {
		expect([...FAULT_NAMES].sort()).toEqual(
			[
				'status',
				'error200',
				'garbage',
				'reset',
				'reset-mid-stream',
				'slow-first-byte',
				'slow-chunks',
				'stall-stream',
				'crlf',
				'end-extra',
				'end-empty',
				'no-header-id',
				'unknown-events',
				'split-bytes',
				'no-end',
				'error-event',
				'all-variants',
				'pool-busy',
				'pool-evict',
				'pool-busy-200',
				'pool-busy-event',
			].sort(),
		);
	});
});

// -------------------------------------------------------------------------------------------
// The live dialect, stream shapes, the session pool, model fallback, memory mode

/** The text of each model message as its Part events carry it (text parts: start piece + deltas). */
function partMessages(events: SseEvent[]): string[] {
	const messages: string[] = [];
	let kinds: string[] = [];
	for (const { event, data } of events) {
		if (event === 'PartStartEvent') {
			if (data.index === 0) {
				messages.push('');
				kinds = [];
			}
			kinds[data.index] = data.part.part_kind;
			if (data.part.part_kind === 'text') messages[messages.length - 1] += data.part.content;
		} else if (event === 'PartDeltaEvent') {
			const kind = data.delta.part_delta_kind ?? kinds[data.index];
			if (kind === 'text') messages[messages.length - 1] += data.delta.content_delta;
		}
	}
	return messages;
}

/** Whether every PartEndEvent repeats its whole part: the start piece and every delta. */
function partEndsAreWhole(events: SseEvent[]): boolean {
	const sofar: string[] = [];
	return events.every(({ event, data }) => {
		if (event === 'PartStartEvent') sofar[data.index] = data.part.content ?? '';
		if (event === 'PartDeltaEvent') sofar[data.index] += data.delta.content_delta;
		return event !== 'PartEndEvent' || (data.part.content ?? '') === sofar[data.index];
	});
}

/** The text of every `parts` snapshot, in order. */
function snapshotTexts(events: SseEvent[]): string[] {
	return events
		.filter((e) => e.event === 'FrontendModelResponse' && Array.isArray(e.data.parts))
		.map((e) =>
			(e.data.parts as Json[])
				.filter((p) => p.part_kind === 'text')
				.map((p) => p.content)
				.join(''),
		);
}

function contentText(events: SseEvent[]): string {
	return events
		.filter((e) => e.event === 'FrontendModelResponse' && typeof e.data.content === 'string')
		.map((e) => e.data.content)
		.join('');
}

describe('the live stream dialect (docs/api.md#live-stream-dialect)', () => {
	let live: Emulator;
	beforeAll(async () => {
		live = await startExtra({ dialect: 'live' });
	});

	it('carries the text in Part events and one snapshot per message, End under data, then [DONE]', async () => {
		const input = 'one two three four five six seven';
		const { res, events, comments } = await streamAsk({ input }, live);
		const reply = expectedReply(input);
		expect(comments).toContain('keep-alive');
		expect(partMessages(events)).toEqual([reply]);
		expect(partEndsAreWhole(events)).toBe(true);
		expect(events.some((e) => e.event === 'PartDeltaEvent' && !e.data.delta.part_delta_kind)).toBe(
			true,
		);
		expect(snapshotTexts(events)).toEqual([reply]);
		expect(contentText(events)).toBe('');
		expect(events.at(-2)).toEqual({
			event: 'End',
			data: { data: { output: reply, conversation_id: res.headers.get('x-conversation-id') } },
		});
		expect(events.at(-1)).toEqual({ event: 'message', data: '[DONE]' });
	});

	it('streams a structured answer as JSON text and carries the object in End', async () => {
		const output_format = { type: 'object', properties: { summary: { type: 'string' } } };
		const { events } = await streamAsk({ input: 'Sum it up', output_format }, live);
		expect(partMessages(events)).toEqual([JSON.stringify({ summary: 'Sum it up' })]);
		expect(events.at(-2)?.data.data.output).toEqual({ summary: 'Sum it up' });
	});

	it('ends a failed stream with SSEErrorEvent and turn_status "error"', async () => {
		const { events } = await streamAsk({ input: 'doomed #fault=error-event' }, live);
		expect(events.at(-1)).toEqual({
			event: 'SSEErrorEvent',
			data: { message: 'Model provider overloaded', turn_status: 'error' },
		});
		expect(events.some((e) => e.event === 'End')).toBe(false);
	});

	const input = 'Tell me about otters please';
	const reply = expectedReply;
	it.each([
		['parts', { parts: true }, {}],
		['snapshots', { snapshots: true }, {}],
		['final-snapshot', { finalSnapshot: true }, {}],
		['content+parts', { content: true, parts: true }, {}],
		['parts+snapshots', { parts: true, snapshots: true }, {}],
		['end-data', { parts: true }, 'data'],
		['end-top', { parts: true }, 'top'],
	])(
		'#shape=%s carries the whole text through each source it names',
		async (shape, sources, end) => {
			const text = `${input} #shape=${shape}`;
			const { res, events } = await streamAsk({ input: text }, live);
			const id = res.headers.get('x-conversation-id');
			const fields = { output: reply(text), conversation_id: id };
			expect(partMessages(events)).toEqual('parts' in sources ? [reply(text)] : []);
			const snapshots = snapshotTexts(events);
			if ('snapshots' in sources) {
				expect(snapshots.length).toBeGreaterThan(3);
				snapshots.forEach((t, i) => expect(t.startsWith(snapshots[i - 1] ?? '')).toBe(true));
			}
			if ('snapshots' in sources || 'finalSnapshot' in sources)
				expect(snapshots.at(-1)).toBe(reply(text));
			if ('finalSnapshot' in sources) expect(snapshots).toHaveLength(1);
			expect(contentText(events)).toBe('content' in sources ? reply(text) : '');
			const endData = end === 'data' ? { data: fields } : end === 'top' ? fields : {};
			expect(events.filter((e) => e.event === 'End')).toEqual([{ event: 'End', data: endData }]);
		},
	);

	it('#shape=tool-call: two model messages around a tool call, End with the final answer only', async () => {
		const text = `${input} #shape=tool-call`;
		const { events } = await streamAsk({ input: text }, live);
		expect(partMessages(events)).toEqual(['Let me look that up.', reply(text)]);
		const starts = events.filter((e) => e.event === 'PartStartEvent').map((e) => e.data);
		expect(starts.map((d) => [d.index, d.part.part_kind])).toEqual([
			[0, 'text'],
			[1, 'builtin-tool-call'],
			[0, 'text'],
		]);
		expect(starts[1].part).toMatchObject({
			tool_name: expect.any(String),
			args: expect.any(Object),
		});
		expect(events.find((e) => e.event === 'End')?.data.data.output).toBe(reply(text));
	});

	it('#shape=thinking: a thinking part opens the message, and is no answer text', async () => {
		const text = `${input} #shape=parts+thinking+snapshots`;
		const { events } = await streamAsk({ input: text }, live);
		const start = events.find((e) => e.event === 'PartStartEvent');
		expect(start?.data.part.part_kind).toBe('thinking');
		expect(partMessages(events)).toEqual([reply(text)]);
		expect(snapshotTexts(events).at(-1)).toBe(reply(text));
	});

	it('#shape=documented in a live emulator, and #shape=live in a documented one', async () => {
		const documented = await streamAsk({ input: 'a b c #shape=documented' }, live);
		expect(contentText(documented.events)).toBe(expectedReply('a b c #shape=documented'));
		expect(documented.events.at(-1)).toEqual({ event: 'End', data: {} });
		const liveInDocumented = await streamAsk({ input: 'a b c #shape=live' });
		expect(partMessages(liveInDocumented.events)).toEqual([expectedReply('a b c #shape=live')]);
	});

	it('answers 422 for an unknown shape token', async () => {
		const { status, json } = await askJson({ input: 'x #shape=parts+sparkles' });
		expect(status).toBe(422);
		expect(json.detail[0].msg).toContain('sparkles');
	});
});

describe('a full session pool (docs/api.md#full-session-pool)', () => {
	it('comes as a non-2xx answer saying "sessions are busy", Retry-After only when asked', async () => {
		const input = 'pool #fault=pool-busy&times=1';
		const first = await askJson({ input });
		expect(first.status).toBe(503);
		expect(first.json.detail).toContain('sessions are busy');
		expect(first.res.headers.get('retry-after')).toBeNull();
		expect((await askJson({ input })).status).toBe(200);
		const withPause = await askJson({ input: 'pool #fault=pool-busy&retryAfter=1&status=429' });
		expect(withPause.status).toBe(429);
		expect(withPause.res.headers.get('retry-after')).toBe('1');
	});

	it('comes worded "cannot evict"', async () => {
		const { status, json } = await askJson({ input: 'pool #fault=pool-evict' });
		expect(status).toBe(500);
		expect(json.detail).toContain('cannot evict');
	});

	it('comes in-band as 200 {"error"}', async () => {
		const { status, json } = await askJson({ input: 'pool #fault=pool-busy-200' });
		expect(status).toBe(200);
		expect(json).toEqual({ error: expect.stringContaining('sessions are busy') });
	});

	it('comes as a stream error event before any answer text, in the ask dialect', async () => {
		const documented = await streamAsk({ input: 'pool #fault=pool-busy-event' });
		expect(documented.events).toEqual([
			{ event: 'Error', data: { message: expect.stringContaining('sessions are busy') } },
		]);
		const live = await streamAsk({ input: 'pool #fault=pool-busy-event #shape=live' });
		expect(live.events).toEqual([
			{
				event: 'SSEErrorEvent',
				data: { message: expect.stringContaining('sessions are busy'), turn_status: 'error' },
			},
		]);
	});
});

describe('model fallback and memory mode', () => {
	it('#fallback=<model> answers as that model and names it in X-Model-Fallback (JSON and stream)', async () => {
		const input = 'hi #fallback=openai:gpt-5-mini';
		const plain = await askJson({ input });
		expect(plain.res.headers.get('x-model-fallback')).toBe('openai:gpt-5-mini');
		expect(plain.json.output).toBe(expectedReply(input, { model: 'openai:gpt-5-mini' }));
		const streamed = await streamAsk({ input });
		expect(streamed.res.headers.get('x-model-fallback')).toBe('openai:gpt-5-mini');
		expect((await askJson({ input: 'hi' })).res.headers.get('x-model-fallback')).toBeNull();
		expect((await askJson({ input: 'hi #fallback=nope:model' })).status).toBe(422);
	});

	it('accepts memory_mode "enabled", "off" or null, records it, and answers 422 to anything else', async () => {
		for (const memory_mode of ['enabled', 'off', null]) {
			expect((await askJson({ input: 'm', memory_mode })).status).toBe(200);
			expect(lastRequest().body).toMatchObject({ memory_mode });
		}
		const { status, json } = await askJson({ input: 'm', memory_mode: 'forget' });
		expect(status).toBe(422);
		expect(json.detail).toEqual([
			{ loc: ['body', 'memory_mode'], msg: "Input should be 'enabled' or 'off'", type: 'enum' },
		]);
	});
});

// -------------------------------------------------------------------------------------------
// Queued faults and the control endpoints

describe('queued faults', () => {
	it('hits the next `times` requests, then stops', async () => {
		emu.queueFault({ name: '503' }, 2);
		expect((await ask({ input: 'q' })).status).toBe(503);
		expect((await get('/models/available')).status).toBe(503);
		expect((await ask({ input: 'q' })).status).toBe(200);
		expect(emu.stats.completedAsks.get('q')).toBe(1);
	});

	it('only hits the given path, and comes before auth', async () => {
		emu.queueFault({ name: 'status', status: 500, path: '/models/available' });
		expect((await ask({ input: 'unaffected' })).status).toBe(200);
		const res = await get('/models/available', null);
		expect(res.status).toBe(500);
		expect(await res.json()).toEqual({ detail: 'Internal server error' });
		expect((await get('/models/available')).status).toBe(200);
	});

	it('runs in order, one fault per request', async () => {
		emu.queueFault({ name: '429', retryAfter: '2' });
		emu.queueFault({ name: 'error200', message: 'nope' });
		const first = await ask({ input: 'a' });
		expect(first.status).toBe(429);
		expect(first.headers.get('retry-after')).toBe('2');
		expect(await (await ask({ input: 'a' })).json()).toEqual({ error: 'nope' });
		expect((await ask({ input: 'a' })).status).toBe(200);
	});

	it('applies stream variants and connection faults too', async () => {
		emu.queueFault({ name: 'crlf', path: '/assistant/ask' });
		const { read } = await streamAsk({ input: 'queued crlf' });
		expect(read.text).toContain('\r\n');
		emu.queueFault({ name: 'reset' });
		await expect(get('/personas/available')).rejects.toThrow();
		emu.queueFault({ name: 'slow-first-byte', ms: 200 });
		const started = Date.now();
		expect((await get('/models/catalog', null)).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
	});

	it('refuses unknown faults and bad parameters', () => {
		expect(() => emu.queueFault({ name: 'explode' })).toThrow(/Unknown fault 'explode'/);
		expect(() => emu.queueFault({ name: 'status' })).toThrow(/status/);
		expect(() => emu.queueFault({ name: '429' }, 0)).toThrow(/times/);
		expect(() => emu.queueFault({ name: 'slow-chunks', ms: -1 })).toThrow(/ms/);
	});
});

describe('control endpoints', () => {
	function control(pathname: string, body?: unknown): Promise<Response> {
		return fetch(`${emu.baseUrl}/__emulator/${pathname}`, {
			method: body === undefined ? 'GET' : 'POST',
			headers: { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
	}

	it('POST /__emulator/faults queues a fault, without auth', async () => {
		const res = await control('faults', {
			fault: '429',
			path: '/assistant/ask',
			times: 1,
			retryAfter: '7',
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toMatchObject({
			queued: { name: '429', path: '/assistant/ask', times: 1 },
			pending: 1,
		});
		expect((await get('/models/available')).status).toBe(200);
		const hit = await ask({ input: 'x' });
		expect(hit.status).toBe(429);
		expect(hit.headers.get('retry-after')).toBe('7');
		expect((await ask({ input: 'x' })).status).toBe(200);
		const bad = await control('faults', { fault: 'explode' });
		expect(bad.status).toBe(422);
		expect((await control('faults', { fault: '500', times: 'twice' })).status).toBe(422);
	});

	it('GET /__emulator/stats reports the stats as JSON, control requests left out', async () => {
		await askJson({ input: 'counted' });
		await askJson({ input: 'counted' });
		await control('faults', { fault: 'reset', times: 3 });
		const stats: Json = await (await control('stats')).json();
		expect(stats.completedAsks).toEqual({ counted: 2 });
		expect(stats.requests).toHaveLength(2);
		expect(stats.requests[0]).toEqual({
			method: 'POST',
			path: '/assistant/ask',
			authorization: true,
			body: { input: 'counted' },
			status: 200,
		});
		expect(stats.pendingFaults).toEqual([{ name: 'reset', remaining: 3 }]);
		expect(stats).toMatchObject({
			conversationOverlaps: 0,
			maxConcurrentPerConversation: 1,
			maxInFlight: 1,
		});
		expect(typeof stats.inFlight).toBe('number');
	});

	it('POST /__emulator/reset forgets conversations, stats and queued faults', async () => {
		const { json } = await askJson({ input: 'remember me' });
		emu.queueFault({ name: '500' }, 5);
		expect((await control('reset', {})).status).toBe(200);
		expect(emu.stats.requests).toHaveLength(0);
		expect(emu.stats.completedAsks.size).toBe(0);
		const gone = await askJson({ input: 'again', conversation_id: json.conversation_id });
		expect(gone.status).toBe(404);
	});

	it('reset() clears the same things in-process', async () => {
		const { json } = await askJson({ input: 'remember me' });
		emu.queueFault({ name: '500' }, 5);
		emu.reset();
		expect(emu.stats).toMatchObject({
			requests: [],
			conversationOverlaps: 0,
			maxConcurrentPerConversation: 0,
		});
		expect((await askJson({ input: 'again', conversation_id: json.conversation_id })).status).toBe(
			404,
		);
	});
});

// -------------------------------------------------------------------------------------------
// Robustness

describe('robustness', () => {
	it('close() finishes fast even with a stalled stream and a pending ask', async () => {
		const other = await startExtra();
		const stalled = ask({ input: 'a b c d #fault=stall-stream', stream: true }, other.token, other);
		const res = await stalled;
		const reading = readAll(res);
		const pending = ask({ input: 'wait #delay=60000' }, other.token, other).then(
			(r) => r.status,
			() => 'failed',
		);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(other.stats.inFlight).toBe(2);
		const started = Date.now();
		await other.close();
		expect(Date.now() - started).toBeLessThan(1000);
		expect((await reading).error).not.toBeNull();
		expect(await pending).toBe('failed');
		await other.close(); // closing twice is fine
	});

	it('caps the recorded requests', async () => {
		const other = await startExtra({ maxRecordedRequests: 5 });
		try {
			for (let i = 0; i < 8; i++) await ask({ input: `r${i}` }, other.token, other);
			expect(other.stats.requests).toHaveLength(5);
			expect(other.stats.requests.map((r) => (r.body as Json).input)).toEqual([
				'r3',
				'r4',
				'r5',
				'r6',
				'r7',
			]);
		} finally {
			await other.close();
		}
	});

	it('survives a client that hangs up mid-answer, and frees its conversation', async () => {
		const { json } = await askJson({ input: 'start' });
		const controller = new AbortController();
		const aborted = fetch(`${emu.baseUrl}/assistant/ask`, {
			method: 'POST',
			headers: authHeaders(),
			body: JSON.stringify({
				input: 'abandoned #delay=5000',
				conversation_id: json.conversation_id,
			}),
			signal: controller.signal,
		}).catch((error: unknown) => error);
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(emu.stats.inFlight).toBe(1);
		controller.abort();
		expect((await aborted) as Json).toMatchObject({ name: 'AbortError' });
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(emu.stats.inFlight).toBe(0);
		expect(emu.stats.completedAsks.has('abandoned #delay=5000')).toBe(false);
		const next = await askJson({ input: 'next', conversation_id: json.conversation_id });
		expect(next.status).toBe(200);
		expect(next.json.output).toBe(
			expectedReply('next', { earlier: ['start', 'abandoned #delay=5000'] }),
		);
	});
});

// -------------------------------------------------------------------------------------------
// CLI

describe('cli', () => {
	/** The base URL, once the CLI has printed its banner; rejects after 10 s or if the CLI exits. */
	function banner(
		child: ChildProcessWithoutNullStreams,
		onOutput: (text: string) => void,
	): Promise<string> {
		let output = '';
		return new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no banner from the cli: ${output}`)), 10000);
			child.stdout.on('data', (chunk: Buffer) => {
				output += chunk.toString();
				onOutput(output);
				const match = /listening on (http:\/\/\S+)/.exec(output);
				if (match && output.includes('curl')) {
					clearTimeout(timer);
					resolve(match[1]);
				}
			});
			child.once('exit', () => {
				clearTimeout(timer);
				reject(new Error(`cli exited early: ${output}`));
			});
		});
	}

	it('prints the base URL, the token and a curl example, serves, and stops on SIGTERM', async () => {
		const cli = path.join(__dirname, 'emulator', 'cli.js');
		const child = spawn(process.execPath, [cli, '--port', '0', '--quiet']);
		const exited = new Promise<number | null>((resolve) =>
			child.once('exit', (code) => resolve(code)),
		);
		let output = '';
		try {
			const baseUrl = await banner(child, (text) => {
				output = text;
			});
			expect(output).toContain(`Token: ${DEFAULT_TOKEN}`);
			expect(output).toContain(
				`curl -s ${baseUrl}/assistant/ask -H 'Authorization: Bearer ${DEFAULT_TOKEN}'`,
			);
			const headers = { authorization: `Bearer ${DEFAULT_TOKEN}` };
			expect((await fetch(`${baseUrl}/models/available`, { headers })).status).toBe(200);
		} finally {
			child.kill('SIGTERM');
			// Never leave a child behind: it would keep jest from exiting.
			const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
			await exited;
			clearTimeout(killer);
		}
		expect(await exited).toBe(0);
	});
});
