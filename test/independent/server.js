// @ts-check
'use strict';

/**
 * A second, independent implementation of the Assistant API, written from the rules of
 * docs/api.md alone, without the emulator's code, so that the packed tarball is checked against
 * a server that did not grow up beside the node.
 *
 * Where the rules allow more than one shape, it takes the less common one:
 * - streams use `\r\n` line endings, open with keep-alive comments and are written to the socket
 *   in odd-sized slices, every multi-byte UTF-8 character cut after its first byte;
 * - documented dialect (`start({ dialect: 'documented' })`, the default): `FrontendModelResponse`
 *   with `content`, every other one with a `parts` snapshot of the message so far beside it
 *   (a thinking part included); `End` carries `conversation_id`; errors are `Error`;
 * - live dialect (`start({ dialect: 'live' })`): a thinking part, then the text part, as Part
 *   events (some deltas without `part_delta_kind`), with `parts` snapshots after every other
 *   piece, so they lag behind; `End {"data": {"output", "conversation_id"}}`, then `data: [DONE]`;
 *   errors are `SSEErrorEvent`; a structured answer is streamed as JSON text as well;
 * - a wrong token is answered 401 with `{"error": {"message": "bad token"}}` (JSON) on most paths
 *   and with plain text on GET /models/available;
 * - validation errors are 422 `detail` arrays naming the field (`loc`);
 * - optional ask fields sent as null are accepted (same as omitted).
 *
 * Replies are deterministic so that a client's result can be checked exactly:
 *   text:       `echo(<input>) via <model_name|default> as <persona_id|default>; history=<n>`
 *               (n = number of earlier asks in the conversation)
 *   structured: an object conforming to output_format (string → 'x', enum → its last value,
 *               number → 1, boolean → false, array → [], object → the same, recursively).
 * Words in the input that change the answer:
 *   "inband-error"  200 `{"error": ...}`;
 *   "pool-once"     the first ask with this exact input: 400 `{"message": "... cannot evict ..."}`
 *                   with `Retry-After: 1` (a full session pool, whatever the status);
 *   "fallback"      another model answers, named in `X-Model-Fallback` (JSON and stream);
 *   "noheader"      a stream without `x-conversation-id` (End carries the id, and the text);
 *   "toolcall"      (live) two model messages around a tool call; End carries the final one;
 *   "stream-error"  the stream ends with its dialect's error event;
 *   "stream-cut"    the stream closes without End.
 *
 * CommonJS, node's http only: `const { start } = require('./server'); await start({ token })`.
 */

const http = require('node:http');
const crypto = require('node:crypto');
const { setTimeout: pause } = require('node:timers/promises');
const { validateOutputFormat } = require('../helpers/outputFormatSubset');
const { MODELS, PERSONAS, CATALOG } = require('./fixtures');

/**
 * @typedef {{ method: string, path: string, authorization: string | undefined, body: unknown }} RecordedRequest
 * @typedef {'documented' | 'live'} Dialect
 * @typedef {{ baseUrl: string, token: string, dialect: Dialect, requests: RecordedRequest[], close(): Promise<void> }} IndependentServer
 * @typedef {{ [key: string]: unknown }} Json
 * @typedef {{ loc: Array<string | number>, msg: string, type: string }} Problem
 * @typedef {{ token: string, dialect: Dialect, requests: RecordedRequest[], conversations: Map<string, string[]>, busy: Set<string>, poolRefused: Set<string> }} State
 * @typedef {{ input: string, conversationId?: string, modelName?: string, personaId?: string, outputFormat?: Json, stream: boolean }} AskRequest
 * @typedef {{ id: string, input: string, reply: string, output: unknown, structured: boolean, headers: Record<string, string> }} Answer
 * @typedef {{ part_kind: string, content?: string, [key: string]: unknown }} Part
 */

/** The method each path answers. */
const ROUTES = {
	'/models/catalog': 'GET',
	'/models/available': 'GET',
	'/personas/available': 'GET',
	'/assistant/ask': 'POST',
};
const CRLF = '\r\n';
/** Slice sizes for writing a stream: odd numbers, so frames and characters get cut anywhere. */
const SLICES = [7, 3, 11, 1, 5, 13, 2, 9];
const THINKING = 'Weighing the question… 🤔';
const FALLBACK_MODEL = 'google:gemini-2.5-flash';

/** @param {{ token: string, dialect?: Dialect, host?: string }} options @returns {Promise<IndependentServer>} */
async function start({ token, dialect = 'documented', host = '127.0.0.1' }) {
	if (dialect !== 'documented' && dialect !== 'live')
		throw new TypeError(`unknown dialect ${dialect}`);
	/** @type {State} */
	const state = {
		token,
		dialect,
		requests: [],
		conversations: new Map(),
		busy: new Set(),
		poolRefused: new Set(),
	};
	const server = http.createServer((req, res) => {
		handle(state, req, res).catch((error) => {
			if (!res.headersSent) sendJson(res, 500, { detail: `internal: ${String(error)}` });
			else res.destroy();
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, host, () => resolve(undefined));
	});
	const address = server.address();
	if (address === null || typeof address === 'string') throw new Error('no TCP address');
	return {
		baseUrl: `http://${host}:${address.port}`,
		token,
		dialect,
		requests: state.requests,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** @param {State} state @param {http.IncomingMessage} req @param {http.ServerResponse} res */
async function handle(state, req, res) {
	res.socket?.setNoDelay(true);
	const path = new URL(req.url ?? '/', 'http://independent.invalid').pathname;
	const method = req.method ?? 'GET';
	const body = parseBody(await readBody(req));
	const authorization =
		typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
	state.requests.push({ method, path, authorization, body: body.value });
	const allowed = /** @type {Record<string, string>} */ (ROUTES)[path];
	if (allowed === undefined) return sendJson(res, 404, { detail: 'Not Found' });
	if (method !== allowed) {
		res.setHeader('Allow', allowed);
		return sendJson(res, 405, { detail: 'Method Not Allowed' });
	}
	if (path === '/models/catalog') {
		// Public: any Authorization header is ignored.
		res.setHeader('Cache-Control', 'public, max-age=60');
		return sendJson(res, 200, CATALOG);
	}
	if (authorization !== `Bearer ${state.token}`) return refuse(res, path);
	if (path === '/models/available') return sendJson(res, 200, { models: MODELS });
	if (path === '/personas/available') return sendJson(res, 200, { personas: PERSONAS });
	if (!body.json) {
		return sendJson(res, 422, {
			detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
		});
	}
	return await ask(state, res, body.value);
}

/** A wrong or missing token: plain text on one path, a JSON error object on the others. */
function refuse(/** @type {http.ServerResponse} */ res, /** @type {string} */ path) {
	if (path === '/models/available') return sendText(res, 401, 'Unauthorized: bad token');
	return sendJson(res, 401, { error: { message: 'bad token' } });
}

/** @param {State} state @param {http.ServerResponse} res @param {unknown} body */
async function ask(state, res, body) {
	const { problems, request } = checkAsk(body);
	if (problems.length > 0 || request === null) return sendJson(res, 422, { detail: problems });
	const id = request.conversationId;
	if (id !== undefined && !state.conversations.has(id)) {
		return sendJson(res, 404, { detail: `Conversation ${id} not found` });
	}
	if (id !== undefined && state.busy.has(id)) {
		return sendJson(res, 409, { detail: 'Conversation is busy answering an earlier request' });
	}
	if (request.input.includes('inband-error')) {
		return sendJson(res, 200, {
			error: 'The assistant could not complete this request (inband-error)',
		});
	}
	if (request.input.includes('pool-once') && !state.poolRefused.has(request.input)) {
		state.poolRefused.add(request.input);
		const message = 'Session pool is full: cannot evict an idle session right now';
		return sendJson(res, 400, { message }, { 'Retry-After': '1' });
	}
	const answer = composeAnswer(state, request);
	if (!request.stream) {
		const body = { output: answer.output, conversation_id: answer.id };
		return sendJson(res, 200, body, answer.headers);
	}
	state.busy.add(answer.id);
	try {
		await sendStream(state.dialect, res, answer);
	} finally {
		state.busy.delete(answer.id);
	}
}

/**
 * Checks an ask body (docs/api.md#ask-request), every problem at once.
 * @param {unknown} body
 * @returns {{ problems: Problem[], request: AskRequest | null }}
 */
function checkAsk(body) {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		const problem = { loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' };
		return { problems: [problem], request: null };
	}
	const fields = /** @type {Json} */ (body);
	/** @type {Problem[]} */
	const problems = [];
	if (fields.input === undefined || fields.input === null) {
		problems.push({ loc: ['body', 'input'], msg: 'Field required', type: 'missing' });
	}
	const input = optionalString(fields, 'input', problems);
	const modelName = optionalString(fields, 'model_name', problems);
	const personaId = optionalString(fields, 'persona_id', problems);
	if (modelName !== undefined && !MODELS.some((model) => model.model_name === modelName)) {
		const msg = `Value error, unknown model '${modelName}'; use a model_name from GET /models/available`;
		problems.push({ loc: ['body', 'model_name'], msg, type: 'value_error' });
	}
	if (personaId !== undefined && !PERSONAS.some((persona) => persona.id === personaId)) {
		const msg = `Value error, unknown persona '${personaId}'`;
		problems.push({ loc: ['body', 'persona_id'], msg, type: 'value_error' });
	}
	// Alike to test/emulator/askValidation.js because both answer as docs/api.md#errors says; the
	// two are written apart on purpose (test/README.md).
	const stream = fields.stream ?? false;
	if (typeof stream !== 'boolean') {
		problems.push({
			loc: ['body', 'stream'],
			msg: 'Input should be a valid boolean',
			type: 'bool_type',
		});
	}
	const memoryMode = fields.memory_mode ?? 'enabled';
	if (memoryMode !== 'enabled' && memoryMode !== 'off') {
		const msg = "Input should be 'enabled' or 'off'";
		problems.push({ loc: ['body', 'memory_mode'], msg, type: 'enum' });
	}
	const outputFormat = fields.output_format ?? undefined;
	if (outputFormat !== undefined) {
		problems.push(...validateOutputFormat(outputFormat, ['body', 'output_format']));
	}
	if (problems.length > 0 || input === undefined) return { problems, request: null };
	const conversationId = optionalString(fields, 'conversation_id', problems);
	return {
		problems,
		request: {
			input,
			conversationId,
			modelName,
			personaId,
			outputFormat: /** @type {Json | undefined} */ (outputFormat),
			stream: stream === true,
		},
	};
}

/** A field that may be absent or null; a problem when it is something other than a string. */
function optionalString(
	/** @type {Json} */ fields,
	/** @type {string} */ name,
	/** @type {Problem[]} */ problems,
) {
	const value = fields[name];
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') return value;
	problems.push({
		loc: ['body', name],
		msg: 'Input should be a valid string',
		type: 'string_type',
	});
	return undefined;
}

/**
 * The reply, remembered in the conversation.
 * @param {State} state @param {AskRequest} request @returns {Answer}
 */
function composeAnswer(state, request) {
	const id = request.conversationId ?? crypto.randomUUID();
	const history = state.conversations.get(id) ?? [];
	state.conversations.set(id, history);
	const fallback = request.input.includes('fallback');
	const model = fallback ? FALLBACK_MODEL : (request.modelName ?? 'default');
	const reply = `echo(${request.input}) via ${model} as ${request.personaId ?? 'default'}; history=${history.length}`;
	history.push(request.input);
	const structured = request.outputFormat !== undefined;
	const output = structured ? conform(request.outputFormat) : reply;
	/** @type {Record<string, string>} */
	const headers = fallback ? { 'X-Model-Fallback': FALLBACK_MODEL } : {};
	return { id, input: request.input, reply, output, structured, headers };
}

// ——— streams (docs/api.md#streams) ———

/** @param {Dialect} dialect @param {http.ServerResponse} res @param {Answer} answer */
async function sendStream(dialect, res, answer) {
	const noHeader = answer.input.includes('noheader');
	/** @type {Record<string, string>} */
	const headers = {
		'Content-Type': 'text/event-stream; charset=utf-8',
		'Cache-Control': 'no-cache',
		Connection: 'keep-alive',
		...answer.headers,
	};
	if (!noHeader) headers['x-conversation-id'] = answer.id;
	res.writeHead(200, headers);
	const frames = dialect === 'live' ? liveFrames(answer) : documentedFrames(answer);
	const wire = [
		comment('keep-alive'),
		comment('ping'),
		...frames,
		...closing(dialect, answer, noHeader),
	];
	await writeSliced(res, Buffer.from(wire.join(''), 'utf8'));
	res.end();
}

/** @param {string} type @param {unknown} data */
function frame(type, data) {
	return `event: ${type}${CRLF}data: ${JSON.stringify(data)}${CRLF}${CRLF}`;
}

/** @param {string} text */
function comment(text) {
	return `: ${text}${CRLF}${CRLF}`;
}

/**
 * docs/api.md#documented-stream-dialect: a `content` chunk per piece; every other one carries a
 * snapshot of the message so far beside it. A structured answer comes in End only.
 * @param {Answer} answer @returns {string[]}
 */
function documentedFrames(answer) {
	const pieces = answer.structured ? [] : splitText(answer.reply, 4);
	let sofar = '';
	return pieces.map((piece, index) => {
		sofar += piece;
		/** @type {Json} */
		const data = { content: piece };
		if (index % 2 === 1) {
			data.parts = [
				{ part_kind: 'thinking', content: THINKING },
				{ part_kind: 'text', content: sofar },
			];
		}
		return frame('FrontendModelResponse', data);
	});
}

/**
 * docs/api.md#live-stream-dialect: each model message as Part events, with snapshots that lag
 * behind; with "toolcall", a first message that looks something up, then the answer.
 * @param {Answer} answer @returns {string[]}
 */
function liveFrames(answer) {
	const text = answer.structured ? JSON.stringify(answer.output) : answer.reply;
	/** @type {Part[][]} */
	const messages = [
		[
			{ part_kind: 'thinking', content: THINKING },
			{ part_kind: 'text', content: text },
		],
	];
	if (answer.input.includes('toolcall')) {
		const tool = {
			part_kind: 'builtin-tool-call',
			tool_name: 'lookup',
			args: { q: 'x' },
			tool_call_id: 't1',
		};
		messages.unshift([{ part_kind: 'text', content: 'Let me check that first.' }, tool]);
	}
	return messages.flatMap(messageFrames);
}

/** The frames of one model message, its part indexes from 0. @param {Part[]} parts */
function messageFrames(parts) {
	/** @type {string[]} */
	const frames = [];
	/** @type {Part[]} */
	const done = [];
	parts.forEach((part, index) => {
		if (typeof part.content !== 'string') {
			frames.push(frame('PartStartEvent', { index, part }), frame('PartEndEvent', { index, part }));
			done.push(part);
			return;
		}
		const kind = part.part_kind;
		let sofar = '';
		splitText(part.content, kind === 'text' ? 5 : 2).forEach((piece, n) => {
			sofar += piece;
			if (n === 0)
				frames.push(frame('PartStartEvent', { index, part: { part_kind: kind, content: piece } }));
			else {
				// A delta without its kind belongs to the kind its part started with.
				const delta =
					n % 2 === 0 ? { part_delta_kind: kind, content_delta: piece } : { content_delta: piece };
				frames.push(frame('PartDeltaEvent', { index, delta }));
			}
			if (n % 2 === 1)
				frames.push(
					frame('FrontendModelResponse', { parts: [...done, { part_kind: kind, content: sofar }] }),
				);
		});
		frames.push(frame('PartEndEvent', { index, part }));
		done.push(part);
	});
	return frames;
}

/**
 * How the stream ends (docs/api.md#how-a-stream-ends): the dialect's error event, nothing, or End.
 * @param {Dialect} dialect @param {Answer} answer @param {boolean} noHeader @returns {string[]}
 */
function closing(dialect, answer, noHeader) {
	if (answer.input.includes('stream-error')) {
		const message = 'Upstream model failed mid-answer (stream-error)';
		return dialect === 'live'
			? [frame('SSEErrorEvent', { message, turn_status: 'error' })]
			: [frame('Error', { message })];
	}
	if (answer.input.includes('stream-cut')) return [];
	if (dialect === 'live') {
		const data = { output: answer.output, conversation_id: answer.id };
		return [frame('End', { data }), `data: [DONE]${CRLF}${CRLF}`];
	}
	/** @type {Json} */
	const end = { conversation_id: answer.id };
	if (answer.structured || noHeader) end.output = answer.output;
	return [frame('End', end)];
}

/**
 * Writes the stream in odd-sized slices, pausing between them so that they arrive apart; every
 * multi-byte UTF-8 character is cut after its lead byte.
 * @param {http.ServerResponse} res @param {Buffer} bytes
 */
async function writeSliced(res, bytes) {
	let offset = 0;
	for (let slice = 0; offset < bytes.length; slice++) {
		let end = Math.min(bytes.length, offset + SLICES[slice % SLICES.length]);
		const lead = bytes.subarray(offset, end).findIndex((byte) => byte >= 0xc0);
		if (lead >= 0) end = offset + lead + 1;
		if (res.destroyed) return;
		res.write(bytes.subarray(offset, end));
		offset = end;
		await pause(1);
	}
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

// ——— HTTP plumbing ———

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

/** @param {Buffer} raw @returns {{ json: boolean, value: unknown }} */
function parseBody(raw) {
	if (raw.length === 0) return { json: true, value: undefined };
	try {
		return { json: true, value: JSON.parse(raw.toString('utf8')) };
	} catch {
		return { json: false, value: raw.toString('utf8') };
	}
}

/**
 * @param {http.ServerResponse} res @param {number} status @param {unknown} value
 * @param {Record<string, string>} [headers]
 */
function sendJson(res, status, value, headers = {}) {
	const payload = Buffer.from(JSON.stringify(value), 'utf8');
	res.writeHead(status, {
		'Content-Type': 'application/json',
		'Content-Length': payload.length,
		...headers,
	});
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

module.exports = { start, MODELS, PERSONAS, CATALOG, FALLBACK_MODEL, conform };
