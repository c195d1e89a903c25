/**
 * The emulator (test/emulator/) over real HTTP: that it answers as docs/api.md says the service
 * does, in both stream dialects, and that its switches (faults, shapes, delays, statistics) do
 * what the node's tests rely on.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { startEmulator, DEFAULT_TOKEN } from './emulator/server';
import type { Emulator } from './emulator/server';
import { DEFAULT_MODEL_ID, DEFAULT_PERSONA_ID, BYOK_AZURE_ID } from './emulator/data';

// The tests read arbitrary JSON shapes; `any` keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Dialect = 'documented' | 'live';
type SseEvent = { event: string; data: Json };

const DEPRECATED_ID = 'anthropic:claude-3-5-sonnet-20241022';
const UNICODE_PROBE = ' Unicode check: café — naïve 😀 ok.';

let documented: Emulator;
let live: Emulator;
const emulators: Record<Dialect, () => Emulator> = {
	documented: () => documented,
	live: () => live,
};
const extras: Emulator[] = [];

/** An extra emulator for one test; afterAll closes it even if the test timed out half-way. */
async function startExtra(options: Parameters<typeof startEmulator>[0] = {}): Promise<Emulator> {
	const extra = await startEmulator(options);
	extras.push(extra);
	return extra;
}

beforeAll(async () => {
	documented = await startEmulator({ dialect: 'documented' });
	live = await startEmulator({ dialect: 'live' });
});
afterAll(async () => {
	await Promise.all([documented, live, ...extras].map((e) => e.close()));
});
beforeEach(() => {
	documented.reset();
	live.reset();
});

// ——— helpers ———

function headers(token: string | null): Record<string, string> {
	const all: Record<string, string> = { 'content-type': 'application/json' };
	if (token !== null) all.authorization = `Bearer ${token}`;
	return all;
}

function ask(body: unknown, target: Emulator = documented, token: string | null = target.token) {
	return fetch(`${target.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: headers(token),
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

async function askJson(body: unknown, target: Emulator = documented) {
	const res = await ask(body, target);
	return { status: res.status, json: (await res.json()) as Json, res };
}

function get(pathname: string, token: string | null = documented.token) {
	return fetch(`${documented.baseUrl}${pathname}`, { headers: headers(token) });
}

/** Reads a body chunk by chunk, keeping what arrived before an error. */
async function readAll(res: Response) {
	const reader = (res.body as ReadableStream<Uint8Array>).getReader();
	const chunks: Uint8Array[] = [];
	let error: unknown = null;
	try {
		for (let read = await reader.read(); !read.done; read = await reader.read()) {
			chunks.push(read.value);
		}
	} catch (caught) {
		error = caught;
	}
	return { chunks, text: Buffer.concat(chunks).toString('utf8'), error };
}

/** Server-Sent Events: events with JSON data (`[DONE]` kept as text), and the comment lines. */
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

async function streamAsk(body: Record<string, unknown>, target: Emulator = documented) {
	const res = await ask({ ...body, stream: true }, target);
	const read = await readAll(res);
	return { res, read, ...parseSse(read.text) };
}

function reply(
	input: string,
	options: { model?: string; persona?: string; earlier?: string[] } = {},
) {
	let text = `[model=${options.model ?? DEFAULT_MODEL_ID} persona=${options.persona ?? DEFAULT_PERSONA_ID}] You said: "${input}".`;
	if (options.earlier?.length)
		text += ` Earlier you said: ${options.earlier.map((m) => `"${m}"`).join(' | ')}.`;
	return text;
}

function lastRequest(target: Emulator = documented) {
	return target.stats.requests[target.stats.requests.length - 1];
}

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

/** The streamed text through each dialect's own source: `content`, or the Part events. */
function streamedText(dialect: Dialect, events: SseEvent[]): string {
	return dialect === 'documented' ? contentText(events) : partMessages(events).join('');
}

function endOf(events: SseEvent[]): Json {
	return events.find((e) => e.event === 'End')?.data;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ——— docs/api.md#authentication ———

describe('authentication (docs/api.md#authentication)', () => {
	it('a protected endpoint without the right bearer token is answered 401, never echoing it', async () => {
		for (const pathname of ['/models/available', '/personas/available']) {
			expect((await get(pathname, null)).status).toBe(401);
			const wrong = await get(pathname, 'sk-wrong-token-123');
			expect(wrong.status).toBe(401);
			expect(await wrong.text()).not.toContain('sk-wrong-token-123');
		}
		for (const authorization of ['Bearer nope', documented.token, `Basic ${documented.token}`]) {
			const res = await fetch(`${documented.baseUrl}/assistant/ask`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', authorization },
				body: '{"input":"hi"}',
			});
			expect(res.status).toBe(401);
			expect(await res.json()).toEqual({ detail: 'Invalid or missing access token' });
		}
		expect(documented.stats.completedAsks.size).toBe(0);
	});

	it('the catalog needs no token; whether one was sent is recorded', async () => {
		const res = await get('/models/catalog', null);
		expect(res.status).toBe(200);
		expect(lastRequest()).toMatchObject({
			path: '/models/catalog',
			authorization: false,
			status: 200,
		});
		expect((await get('/models/catalog', 'whatever')).status).toBe(200);
		expect(lastRequest().authorization).toBe(true);
	});

	it('the token is the fixed fake one, or the one given', async () => {
		expect(documented.token).toBe(DEFAULT_TOKEN);
		const other = await startExtra({ token: 'custom-token' });
		expect((await ask({ input: 'hi' }, other, DEFAULT_TOKEN)).status).toBe(401);
		expect((await ask({ input: 'hi' }, other)).status).toBe(200);
	});

	it('unknown paths are answered 404 and wrong methods 405; query strings are ignored', async () => {
		for (const pathname of ['/nope', '/assistant/ask/extra', '/']) {
			expect((await get(pathname)).status).toBe(404);
		}
		const getAsk = await get('/assistant/ask');
		expect(getAsk.status).toBe(405);
		expect(getAsk.headers.get('allow')).toBe('POST');
		expect((await get('/models/available?x=1')).status).toBe(200);
		expect(lastRequest()).toEqual({
			method: 'GET',
			path: '/models/available',
			authorization: true,
			authorizationForm: 'Bearer <token>',
			body: undefined,
			status: 200,
		});
	});
});

// ——— docs/api.md#models, #personas, #catalog ———

describe('models, personas and the catalog (docs/api.md#models)', () => {
	it('the models carry every field of the spec, the default first, BYOK entries without type', async () => {
		const { models } = (await (await get('/models/available')).json()) as { models: Json[] };
		expect(models[0].model_name).toBe(DEFAULT_MODEL_ID);
		for (const model of models) {
			expect(Object.keys(model).sort()).toEqual([
				'context_window',
				'description',
				'is_byok',
				'label',
				'model_name',
				'type',
				'vendor',
			]);
		}
		expect(models.find((m) => m.model_name === BYOK_AZURE_ID)).toMatchObject({
			is_byok: true,
			type: null,
			context_window: null,
		});
	});

	it('the personas carry id, name, prompt, model and image, nulls included', async () => {
		const { personas } = (await (await get('/personas/available')).json()) as { personas: Json[] };
		expect(personas[0].id).toBe(DEFAULT_PERSONA_ID);
		for (const persona of personas) {
			expect(Object.keys(persona).sort()).toEqual(['id', 'image', 'model', 'name', 'prompt']);
		}
		expect(personas.some((p) => p.model === null) && personas.some((p) => p.image === null)).toBe(
			true,
		);
	});

	it('the catalog maps deprecated ids to active successors, and has chat and media models', async () => {
		const catalog: Json = await (await get('/models/catalog', null)).json();
		const values = (catalog.models as Json[]).map((m) => m.value);
		expect(values).toContain(catalog.default_chat_model_id);
		expect(catalog.media_gateway_public_discovery_enabled).toBe(false);
		for (const [deprecated, successor] of Object.entries(catalog.deprecation_map)) {
			expect(values).not.toContain(deprecated);
			expect(values).toContain(successor);
		}
		const domains = new Set((catalog.models as Json[]).map((m) => m.media_domain));
		expect(domains).toEqual(new Set([null, 'image', 'video', 'speech', 'transcription']));
		const reasoning = (catalog.models as Json[]).map((m) => m.reasoning).filter(Boolean);
		expect(reasoning.some((r) => typeof r.min_tokens === 'number')).toBe(true);
		expect(reasoning.some((r) => r.options?.every((o: Json) => !('api_value' in o)))).toBe(true);
	});
});

// ——— docs/api.md#ask-request, #ask-answer ———

describe('ask request and answer (docs/api.md#ask-request)', () => {
	it('an answer says what it was asked, by which model and persona, and starts a conversation', async () => {
		const { status, json } = await askJson({
			input: 'Hello',
			conversation_id: null,
			model_name: null,
		});
		expect(status).toBe(200);
		expect(json).toEqual({
			output: reply('Hello'),
			conversation_id: expect.stringMatching(/^conv_/),
		});
	});

	it('model and persona overrides are answered as asked, BYOK and deprecated ids included', async () => {
		for (const model of [BYOK_AZURE_ID, DEPRECATED_ID]) {
			const { json } = await askJson({
				input: 'hi',
				model_name: model,
				persona_id: 'persona_pirate',
			});
			expect(json.output).toBe(reply('hi', { model, persona: 'persona_pirate' }));
		}
	});

	it('a conversation_id continues the conversation with its earlier context', async () => {
		const first = await askJson({ input: 'Hi, my name is Ada' });
		const id = first.json.conversation_id;
		const second = await askJson({ input: "What's my name?", conversation_id: id });
		expect(second.json).toEqual({
			output: `${reply("What's my name?", { earlier: ['Hi, my name is Ada'] })} Your name is Ada.`,
			conversation_id: id,
		});
		expect((await askJson({ input: 'x', conversation_id: 'conv_unknown' })).status).toBe(404);
	});
});

describe('structured answers and validation (docs/api.md#ask-request)', () => {
	it('an output_format gets an object with every property of the schema', async () => {
		const output_format = {
			type: 'object',
			properties: {
				summary: { type: 'string' },
				mood: { type: 'string', enum: ['happy', 'sad'] },
				age: { type: 'number' },
				tags: { type: 'array', items: { type: 'string' } },
				address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
			},
			required: ['summary'],
		};
		const { json } = await askJson({ input: 'Ada is 36', output_format });
		expect(json.output).toEqual({
			summary: 'Ada is 36',
			mood: 'happy',
			age: 42,
			tags: ['tags of Ada is 36'],
			address: { city: 'city of Ada is 36' },
		});
	});

	it.each([
		['an array root', { type: 'array', items: { type: 'string' } }, ['type']],
		[
			'an integer type',
			{ type: 'object', properties: { a: { type: 'integer' } } },
			['properties', 'a', 'type'],
		],
		[
			'enum on a number',
			{ type: 'object', properties: { n: { type: 'number', enum: [1] } } },
			['properties', 'n', 'enum'],
		],
		[
			'a format keyword',
			{ type: 'object', properties: { m: { type: 'string', format: 'email' } } },
			['properties', 'm', 'format'],
		],
		[
			'an array without items',
			{ type: 'object', properties: { l: { type: 'array' } } },
			['properties', 'l', 'items'],
		],
		[
			'a required name not in properties',
			{ type: 'object', properties: {}, required: ['b'] },
			['required', 0],
		],
		[
			'a nested object without required',
			{
				type: 'object',
				properties: { address: { type: 'object', properties: {} } },
				required: ['address'],
			},
			['properties', 'address', 'required'],
		],
		['a root without required', { type: 'object', properties: {} }, ['required']],
	])(
		'a schema outside the subset (%s) is answered 422 at the offending part',
		async (_label, schema, loc) => {
			const { status, json } = await askJson({ input: 'x', output_format: schema });
			expect(status).toBe(422);
			expect(json.detail.map((d: Json) => d.loc)).toContainEqual(['body', 'output_format', ...loc]);
		},
	);

	it('bad fields are answered 422, every problem at once, each naming its field', async () => {
		const { status, json } = await askJson({ model_name: 'nope:model', stream: 'yes' });
		expect(status).toBe(422);
		expect(json.detail.map((d: Json) => d.loc)).toEqual([
			['body', 'input'],
			['body', 'model_name'],
			['body', 'stream'],
		]);
		const notJson = await askJson('{"input": oops');
		expect(notJson.json.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
	});
});

describe('memory mode and model fallback (docs/api.md#memory-mode, #model-fallback)', () => {
	it('memory_mode "enabled", "off" or null is accepted and recorded; anything else is a 422', async () => {
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

	it('#fallback=<model>: another model answers, and X-Model-Fallback names it (JSON and stream)', async () => {
		const input = 'hi #fallback=openai:gpt-5-mini';
		const plain = await askJson({ input });
		expect(plain.res.headers.get('x-model-fallback')).toBe('openai:gpt-5-mini');
		expect(plain.json.output).toBe(reply(input, { model: 'openai:gpt-5-mini' }));
		for (const target of [documented, live]) {
			const streamed = await streamAsk({ input }, target);
			expect(streamed.res.headers.get('x-model-fallback')).toBe('openai:gpt-5-mini');
		}
		expect((await askJson({ input: 'hi' })).res.headers.get('x-model-fallback')).toBeNull();
		expect((await askJson({ input: 'hi #fallback=nope:model' })).status).toBe(422);
	});
});

// ——— docs/api.md#errors ———

describe('errors (docs/api.md#errors)', () => {
	it('a failing status carries the service’s JSON detail, or a proxy’s text or HTML page', async () => {
		const json = await askJson({ input: 'x #fault=500' });
		expect(json).toMatchObject({ status: 500, json: { detail: 'Internal server error' } });
		const text = await ask({ input: 'x #fault=503' });
		expect(text.headers.get('content-type')).toBe('text/plain');
		const html = await ask({ input: 'x #fault=502' });
		expect(await html.text()).toContain('<h1>502 Bad Gateway</h1>');
		expect((await ask({ input: 'x #fault=status&status=418' })).status).toBe(418);
		const detail = await askJson({ input: 'x #fault=404&message=Gone%20away' });
		expect(detail.json).toEqual({ detail: 'Gone away' });
	});

	it('overload (429) says when to come back: Retry-After, and retry-after-ms when asked', async () => {
		const plain = await ask({ input: 'x #fault=429' });
		expect(plain.headers.get('retry-after')).toBe('1');
		const both = await ask({ input: 'x #fault=429&retryAfter=3&retryAfterMs=2500' });
		expect([both.headers.get('retry-after'), both.headers.get('retry-after-ms')]).toEqual([
			'3',
			'2500',
		]);
	});

	it('a 200 may carry {"error"} instead of an answer, or a body that is not JSON at all', async () => {
		expect(await askJson({ input: 'x #fault=error200&message=tool%20failed' })).toMatchObject({
			status: 200,
			json: { error: 'tool failed' },
		});
		expect(await (await ask({ input: 'x #fault=garbage' })).text()).toBe('<html>oops');
	});

	it('a fault with times=n hits the first n asks of that input, so a retry can succeed', async () => {
		const input = 'retry me #fault=503&times=2';
		expect((await ask({ input })).status).toBe(503);
		expect((await ask({ input })).status).toBe(503);
		expect(await askJson({ input })).toMatchObject({ status: 200, json: { output: reply(input) } });
		expect(documented.stats.completedAsks.get(input)).toBe(1);
	});

	it('a connection can be reset before any answer, or the first byte held back', async () => {
		await expect(ask({ input: 'x #fault=reset' })).rejects.toThrow();
		const started = Date.now();
		expect((await ask({ input: 'x #fault=slow-first-byte&ms=200' })).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
	});

	it('an unknown fault or a bad directive is answered 422 naming it', async () => {
		for (const input of [
			'#fault=explode',
			'#fault=429&bogus=1',
			'#delay=soon',
			'#fault=status&status=200',
		]) {
			const { status, json } = await askJson({ input });
			expect(status).toBe(422);
			expect(json.detail[0]).toMatchObject({
				loc: ['body', 'input'],
				msg: expect.stringContaining(input.slice(0, 6)),
			});
		}
	});
});

describe('a busy conversation (docs/api.md#busy-conversation-409)', () => {
	it('another ask on a conversation still answering is answered 409; it clears when the answer ends', async () => {
		const { json } = await askJson({ input: 'start' });
		const id = json.conversation_id;
		const slow = askJson({ input: 'slow #delay=300', conversation_id: id });
		await pause(50);
		const overlap = await askJson({ input: 'overlap', conversation_id: id });
		expect(overlap).toMatchObject({
			status: 409,
			json: { detail: 'Conversation is busy answering an earlier request' },
		});
		expect((await slow).status).toBe(200);
		expect(documented.stats).toMatchObject({
			conversationOverlaps: 1,
			maxConcurrentPerConversation: 2,
		});
		const after = await askJson({ input: 'after', conversation_id: id });
		expect(after.json.output).toBe(reply('after', { earlier: ['start', 'slow #delay=300'] }));
	});

	it('a stream keeps its conversation busy until its last byte, even written byte by byte', async () => {
		const { json } = await askJson({ input: 'start' });
		const id = json.conversation_id;
		const streaming = streamAsk({
			input: 'a b c d e f #fault=slow-chunks&ms=60',
			conversation_id: id,
		});
		await pause(100);
		expect((await ask({ input: 'overlap', conversation_id: id })).status).toBe(409);
		expect(endOf((await streaming).events)).toEqual({});
		for (let i = 0; i < 3; i++) {
			await streamAsk({ input: `s${i} #fault=split-bytes`, conversation_id: id });
			expect((await ask({ input: `j${i}`, conversation_id: id })).status).toBe(200);
		}
		expect(documented.stats.conversationOverlaps).toBe(1);
	});
});

describe('a full session pool (docs/api.md#full-session-pool)', () => {
	it('comes as a non-2xx answer saying "sessions are busy", Retry-After only when asked', async () => {
		const input = 'pool #fault=pool-busy&times=1';
		const first = await askJson({ input });
		expect(first).toMatchObject({
			status: 503,
			json: { detail: expect.stringContaining('sessions are busy') },
		});
		expect(first.res.headers.get('retry-after')).toBeNull();
		expect((await askJson({ input })).status).toBe(200);
		const withPause = await askJson({ input: 'pool #fault=pool-busy&retryAfter=1&status=429' });
		expect(withPause.status).toBe(429);
		expect(withPause.res.headers.get('retry-after')).toBe('1');
	});

	it('comes worded "cannot evict", and in-band as 200 {"error"}', async () => {
		const evict = await askJson({ input: 'pool #fault=pool-evict' });
		expect(evict).toMatchObject({
			status: 500,
			json: { detail: expect.stringContaining('cannot evict') },
		});
		const inBand = await askJson({ input: 'pool #fault=pool-busy-200' });
		expect(inBand).toMatchObject({
			status: 200,
			json: { error: expect.stringContaining('sessions are busy') },
		});
	});

	it('comes as the dialect’s stream error event before any answer text', async () => {
		const message = expect.stringContaining('sessions are busy');
		const inDocumented = await streamAsk({ input: 'pool #fault=pool-busy-event' });
		expect(inDocumented.events).toEqual([{ event: 'Error', data: { message } }]);
		const inLive = await streamAsk({ input: 'pool #fault=pool-busy-event' }, live);
		expect(inLive.events).toEqual([
			{ event: 'SSEErrorEvent', data: { message, turn_status: 'error' } },
		]);
		for (const shape of ['final-snapshot', 'snapshots+content', 'parts+thinking+tool-call']) {
			const { events } = await streamAsk({ input: `pool #shape=${shape} #fault=pool-busy-event` });
			expect(partMessages(events).join('') + snapshotTexts(events).join('')).toBe('');
			expect(contentText(events)).toBe('');
			expect(events.at(-1)?.event).toBe('SSEErrorEvent');
		}
	});
});

// ——— docs/api.md#streams ———

describe('the documented stream dialect (docs/api.md#documented-stream-dialect)', () => {
	it('streams the JSON answer as content chunks, one word each, then End {}', async () => {
		const input = 'one two three four';
		const { res, events } = await streamAsk({ input });
		expect(res.headers.get('content-type')).toBe('text/event-stream');
		expect(events.filter((e) => e.event === 'FrontendModelResponse').length).toBe(
			reply(input).split(' ').length,
		);
		expect(contentText(events)).toBe(reply(input));
		expect(events.at(-1)).toEqual({ event: 'End', data: {} });
		const id = res.headers.get('x-conversation-id');
		const next = await askJson({ input: 'next', conversation_id: id });
		expect(next.json.output).toBe(reply('next', { earlier: [input] }));
	});

	it('carries a structured answer in End only, and an error in an Error event', async () => {
		const output_format = {
			type: 'object',
			properties: { summary: { type: 'string' } },
			required: ['summary'],
		};
		const { events } = await streamAsk({ input: 'Sum it', output_format });
		expect(events).toEqual([{ event: 'End', data: { output: { summary: 'Sum it' } } }]);
		const failed = await streamAsk({ input: 'many words here #fault=error-event' });
		expect(contentText(failed.events)).not.toBe('');
		expect(failed.events.at(-1)).toEqual({
			event: 'Error',
			data: { message: 'Model provider overloaded' },
		});
	});
});

describe('the live stream dialect (docs/api.md#live-stream-dialect)', () => {
	it('carries the text in Part events and one snapshot per message, End under data, then [DONE]', async () => {
		const input = 'one two three four five six seven';
		const { res, events, comments } = await streamAsk({ input }, live);
		expect(comments).toContain('keep-alive');
		expect(partMessages(events)).toEqual([reply(input)]);
		expect(partEndsAreWhole(events)).toBe(true);
		expect(events.some((e) => e.event === 'PartDeltaEvent' && !e.data.delta.part_delta_kind)).toBe(
			true,
		);
		expect(snapshotTexts(events)).toEqual([reply(input)]);
		expect(contentText(events)).toBe('');
		const conversation_id = res.headers.get('x-conversation-id');
		expect(events.slice(-2)).toEqual([
			{ event: 'End', data: { data: { output: reply(input), conversation_id } } },
			{ event: 'message', data: '[DONE]' },
		]);
	});

	it('streams a structured answer as JSON text and carries the object in End', async () => {
		const output_format = {
			type: 'object',
			properties: { summary: { type: 'string' } },
			required: ['summary'],
		};
		const { events } = await streamAsk({ input: 'Sum it up', output_format }, live);
		expect(partMessages(events)).toEqual([JSON.stringify({ summary: 'Sum it up' })]);
		expect(endOf(events).data.output).toEqual({ summary: 'Sum it up' });
	});

	it('ends a failed stream with SSEErrorEvent and turn_status "error"', async () => {
		const { events } = await streamAsk({ input: 'doomed #fault=error-event' }, live);
		expect(events.at(-1)).toEqual({
			event: 'SSEErrorEvent',
			data: { message: 'Model provider overloaded', turn_status: 'error' },
		});
		expect(endOf(events)).toBeUndefined();
	});
});

describe('#shape=: one ask’s stream shape (docs/api.md#assembling-the-answer)', () => {
	const input = 'Tell me about otters please';
	it.each([
		['parts', ['parts'], 'empty'],
		['snapshots', ['snapshots'], 'empty'],
		['final-snapshot', ['finalSnapshot'], 'empty'],
		['content+parts', ['content', 'parts'], 'empty'],
		['parts+snapshots', ['parts', 'snapshots'], 'empty'],
		['content+snapshots', ['content', 'snapshots'], 'empty'],
		['end-data', ['parts'], 'data'],
		['end-top', ['parts'], 'top'],
	])(
		'#shape=%s carries the whole text through each source it names, and its End',
		async (shape, sources, end) => {
			const text = `${input} #shape=${shape}`;
			const { res, events } = await streamAsk({ input: text }, documented);
			const fields = { output: reply(text), conversation_id: res.headers.get('x-conversation-id') };
			expect(partMessages(events)).toEqual(sources.includes('parts') ? [reply(text)] : []);
			const snapshots = snapshotTexts(events);
			if (sources.includes('snapshots')) {
				expect(snapshots.length).toBeGreaterThan(3);
				snapshots.forEach((t, i) => expect(t.startsWith(snapshots[i - 1] ?? '')).toBe(true));
			}
			if (sources.includes('finalSnapshot')) expect(snapshots).toEqual([reply(text)]);
			if (sources.includes('snapshots')) expect(snapshots.at(-1)).toBe(reply(text));
			expect(contentText(events)).toBe(sources.includes('content') ? reply(text) : '');
			expect(endOf(events)).toEqual(
				end === 'data' ? { data: fields } : end === 'top' ? fields : {},
			);
		},
	);

	it('#shape=tool-call: two model messages around a tool call, End with the final answer only', async () => {
		const text = `${input} #shape=tool-call`;
		const { events } = await streamAsk({ input: text });
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
		expect(endOf(events).data.output).toBe(reply(text));
	});

	it('#shape=thinking: a thinking part opens the message, and is no answer text', async () => {
		const text = `${input} #shape=parts+thinking+snapshots`;
		const { events } = await streamAsk({ input: text });
		expect(events.find((e) => e.event === 'PartStartEvent')?.data.part.part_kind).toBe('thinking');
		expect(partMessages(events)).toEqual([reply(text)]);
		expect(snapshotTexts(events).at(-1)).toBe(reply(text));
	});

	it('#shape=documented and #shape=live override the emulator’s dialect; an unknown token is a 422', async () => {
		const inLive = await streamAsk({ input: 'a b c #shape=documented' }, live);
		expect(contentText(inLive.events)).toBe(reply('a b c #shape=documented'));
		const inDocumented = await streamAsk({ input: 'a b c #shape=live' });
		expect(partMessages(inDocumented.events)).toEqual([reply('a b c #shape=live')]);
		const { status, json } = await askJson({ input: 'x #shape=parts+sparkles' });
		expect(status).toBe(422);
		expect(json.detail[0].msg).toContain('sparkles');
	});

	it('an unknown dialect is refused at start, naming the known ones', async () => {
		await expect(startEmulator({ dialect: 'nope' as never })).rejects.toThrow(
			/2026, live, documented/,
		);
	});
});

describe.each(['documented', 'live'] as const)(
	'streams on the wire, %s dialect (docs/api.md#streams)',
	(dialect) => {
		const emu = () => emulators[dialect]();
		const stream = (input: string) => streamAsk({ input }, emu());

		it('\\r\\n line endings, unknown events and pings leave the text whole', async () => {
			const input = 'one two three four five six #fault=crlf #fault=unknown-events';
			const { read, events, comments } = await stream(input);
			expect(read.text.replace(/\r\n/g, '')).not.toContain('\n');
			expect(events.map((e) => e.event)).toEqual(
				expect.arrayContaining(['RunStatusEvent', 'UsageEvent']),
			);
			expect(comments).toContain('ping');
			expect(streamedText(dialect, events)).toBe(reply(input));
		});

		it('writes of 1–3 bytes cut through UTF-8 characters, and the text is still whole', async () => {
			const input = 'bytes #fault=split-bytes';
			const { read, events } = await stream(input);
			expect(read.chunks.length).toBeGreaterThan(100);
			const decoder = new TextDecoder('utf-8', { fatal: true });
			const cut = read.chunks.filter((c) => {
				try {
					decoder.decode(c);
					return false;
				} catch {
					return true;
				}
			});
			expect(cut.length).toBeGreaterThan(0);
			expect(streamedText(dialect, events)).toBe(reply(input) + UNICODE_PROBE);
			expect((await askJson({ input }, emu())).json.output).toBe(reply(input) + UNICODE_PROBE);
		});

		it('End can carry the fields at the top level, nothing, or the id when the header is missing', async () => {
			const extra = await stream('x #fault=end-extra');
			const id = extra.res.headers.get('x-conversation-id');
			expect(endOf(extra.events)).toEqual({
				output: reply('x #fault=end-extra'),
				conversation_id: id,
			});
			expect(endOf((await stream('x #fault=end-empty')).events)).toEqual({});
			const noHeader = await stream('x #fault=no-header-id');
			expect(noHeader.res.headers.get('x-conversation-id')).toBeNull();
			expect(JSON.stringify(endOf(noHeader.events))).toMatch(/"conversation_id":"conv_/);
		});

		it('a stream can close without End, break off, or stall half-way and go on', async () => {
			const noEnd = await stream('unfinished #fault=no-end');
			expect(noEnd.read.error).toBeNull();
			expect(endOf(noEnd.events)).toBeUndefined();
			const broken = await stream('a b c d e f #fault=reset-mid-stream');
			expect(broken.read.error).not.toBeNull();
			const started = Date.now();
			const stalled = await stream('a b c d e f #fault=stall-stream&ms=300');
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
			expect(streamedText(dialect, stalled.events)).toBe(
				reply('a b c d e f #fault=stall-stream&ms=300'),
			);
			expect(emu().stats.completedAsks.size).toBe(1);
		});

		it('unreadable-event: one event of the answer cut short on the wire, the stream ends as usual, the conversation holds the answer', async () => {
			const input = 'a b c d e f #fault=unreadable-event';
			const res = await ask({ input, stream: true }, emu());
			const { text } = await readAll(res);
			const blocks = text.split('\n\n').filter((block) => block.includes('data:'));
			const cut = blocks.filter((block) => {
				const data = block.slice(block.indexOf('data:') + 5).trim();
				try {
					JSON.parse(data);
					return false;
				} catch {
					return data !== '[DONE]';
				}
			});
			expect(cut).toHaveLength(1);
			expect(text).toContain('event: End');
			expect(emu().stats.completedAsks.get(input)).toBe(1);
		});

		it('stream faults leave JSON asks alone', async () => {
			for (const name of [
				'crlf',
				'unknown-events',
				'no-end',
				'error-event',
				'end-extra',
				'unreadable-event',
			]) {
				const input = `plain #fault=${name}`;
				expect(await askJson({ input }, emu())).toMatchObject({
					status: 200,
					json: { output: reply(input) },
				});
			}
		});
	},
);

// ——— the emulator's own switches ———

describe('delays, queued faults and statistics', () => {
	it('answerDelayMs, chunkDelayMs and #delay=<ms> pace the answers', async () => {
		const slow = await startExtra({ answerDelayMs: 300, chunkDelayMs: 20, dialect: 'documented' });
		let started = Date.now();
		await askJson({ input: 'a b c d' }, slow);
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		started = Date.now();
		const { events } = await streamAsk({ input: 'a b c d' }, slow);
		expect(Date.now() - started).toBeGreaterThanOrEqual(
			290 + 20 * (contentText(events).split(' ').length - 1),
		);
		// #delay=0 overrides answerDelayMs: asked after a slow ask, it is answered first.
		const finished: string[] = [];
		await Promise.all(
			['a b c d', 'quick #delay=0'].map(async (input) => {
				await askJson({ input }, slow);
				finished.push(input);
			}),
		);
		expect(finished).toEqual(['quick #delay=0', 'a b c d']);
	});

	it('queued faults hit the next matching requests in order, before auth, on their path only', async () => {
		documented.queueFault({ name: '503', path: '/models/available' }, 2);
		documented.queueFault({ name: 'error200', message: 'nope' });
		expect((await get('/models/available', null)).status).toBe(503);
		expect(await (await ask({ input: 'a' })).json()).toEqual({ error: 'nope' });
		expect((await get('/models/available')).status).toBe(503);
		expect((await get('/models/available')).status).toBe(200);
		expect(() => documented.queueFault({ name: 'explode' })).toThrow(/Unknown fault 'explode'/);
		expect(() => documented.queueFault({ name: '429' }, 0)).toThrow(/times/);
	});

	it('stats count completed asks, requests in flight, and reset (in-process or over HTTP) clears them', async () => {
		const all = await Promise.all([1, 2, 3].map((i) => askJson({ input: `p${i} #delay=100` })));
		expect(all.map((r) => r.status)).toEqual([200, 200, 200]);
		expect(documented.stats).toMatchObject({ maxInFlight: 3, inFlight: 0 });
		const stats: Json = await (await fetch(`${documented.baseUrl}/__emulator/stats`)).json();
		expect(stats.completedAsks).toEqual({
			'p1 #delay=100': 1,
			'p2 #delay=100': 1,
			'p3 #delay=100': 1,
		});
		const id = all[0].json.conversation_id;
		expect((await fetch(`${documented.baseUrl}/__emulator/reset`, { method: 'POST' })).status).toBe(
			200,
		);
		expect(documented.stats.requests).toEqual([]);
		expect((await askJson({ input: 'again', conversation_id: id })).status).toBe(404);
	});
});

describe('the emulator keeps running, and stops at once', () => {
	it('a client that hangs up mid-answer leaves its turn running to its end (docs/api.md#exactly-once)', async () => {
		const { json } = await askJson({ input: 'start' });
		const controller = new AbortController();
		const body = JSON.stringify({
			input: 'abandoned #delay=400',
			conversation_id: json.conversation_id,
		});
		const aborted = fetch(`${documented.baseUrl}/assistant/ask`, {
			method: 'POST',
			headers: headers(documented.token),
			body,
			signal: controller.signal,
		}).catch((error: unknown) => error);
		await pause(50);
		controller.abort();
		expect(await aborted).toMatchObject({ name: 'AbortError' });
		await pause(50);
		expect(documented.stats.inFlight).toBe(0);
		// The turn runs on: the conversation stays busy until it would have answered.
		expect(
			(await askJson({ input: 'too soon', conversation_id: json.conversation_id })).status,
		).toBe(409);
		await pause(400);
		expect(documented.stats.startedAsks.get('abandoned #delay=400')).toBe(1);
		expect((await askJson({ input: 'next', conversation_id: json.conversation_id })).status).toBe(
			200,
		);
	});

	it('close() finishes fast even with a stalled stream and a pending ask', async () => {
		const other = await startExtra();
		const reading = ask({ input: 'a b c d #fault=stall-stream', stream: true }, other).then(
			readAll,
		);
		const pending = ask({ input: 'wait #delay=60000' }, other).then(
			(r) => r.status,
			() => 'failed',
		);
		await pause(100);
		const started = Date.now();
		await other.close();
		// The answer had a minute to go: only a close that waited for it fails this bound.
		expect(Date.now() - started).toBeLessThan(10_000);
		expect((await reading).error).not.toBeNull();
		expect(await pending).toBe('failed');
	});

	it('npm run emulator prints its URL, token and dialect, serves, and stops on SIGTERM', async () => {
		const cli = path.join(__dirname, 'emulator', 'cli.js');
		const child = spawn(process.execPath, [
			cli,
			'--port',
			'0',
			'--quiet',
			'--dialect',
			'documented',
		]);
		const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
		let output = '';
		const baseUrl = await new Promise<string>((resolve, reject) => {
			child.stdout.on('data', (chunk: Buffer) => {
				output += chunk.toString();
				const match = /listening on (http:\/\/\S+)[\s\S]*Ctrl-C/.exec(output);
				if (match) resolve(match[1]);
			});
			child.once('exit', () => reject(new Error(`cli exited early: ${output}`)));
		});
		try {
			expect(output).toContain(`Token: ${DEFAULT_TOKEN}`);
			expect(output).toContain('documented dialect');
			const res = await fetch(`${baseUrl}/models/available`, { headers: headers(DEFAULT_TOKEN) });
			expect(res.status).toBe(200);
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exited).toBe(0);
	});
});
