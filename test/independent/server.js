// @ts-check
'use strict';

/**
 * A second, independent implementation of the Assistant API, written from the rules of
 * docs/api.md alone, without the emulator's code, so that the packed tarball is checked against
 * a server that did not grow up beside the node.
 *
 * Where the rules allow more than one shape, it takes the less common one:
 * - streams are written to the socket in odd-sized slices, every multi-byte UTF-8 character cut
 *   after its first byte; the documented and live dialects use `\r\n` line endings and open with
 *   keep-alive comments;
 * - documented dialect (`start({ dialect: 'documented' })`, the default): `FrontendModelResponse`
 *   with `content`, every other one with a `parts` snapshot of the message so far beside it
 *   (a thinking part included); `End` carries `conversation_id`; errors are `Error`;
 * - live dialect (`start({ dialect: 'live' })`): a thinking part, then the text part, as Part
 *   events (some deltas without `part_delta_kind`), with `parts` snapshots after every other
 *   piece, so they lag behind; `End {"data": {"output", "conversation_id"}}`, then `data: [DONE]`;
 *   errors are `SSEErrorEvent`; a structured answer is streamed as JSON text as well;
 * - 2026 dialect (`start({ dialect: '2026' })`, what the live service sends today): `\n` line
 *   endings, as docs/api.md#2026-stream-dialect and the captures have them (the other dialects
 *   cover `\r\n`), an `id:` line on every event, a comment line mid-stream; conversation ids
 *   `con_` + 16 letters and digits, in the `x-conversation-id` header only;
 *   `AgentRuntimeStreamChunk` events (dispatching, persisted, progress, a tool's progress with
 *   its `tool_name`) around every model response; before each model response, a
 *   `FrontendModelRequest` echo of the request (files of a workspace, non-ASCII text, and
 *   `ECHO_PRIVATE` in places that look like answer text: `parts`, `content`, `output`, a `delta`,
 *   an `error`, an earlier response, a tool call); a thinking part (its first piece in
 *   `PartStartEvent`, then several deltas), then the text part, its first piece in
 *   `PartStartEvent.part.content` and the rest in `PartDeltaEvent`s, some without
 *   `part_delta_kind`; the events' JSON compact in the service's key order, some with non-ASCII
 *   escaped (`\u2014`) as the service writes it, others as raw UTF-8; the stream ends with
 *   `completed` `{"status": "succeeded", ...}` with every field the captures show; a structured
 *   answer is the arguments of the output tool `final_result_Summary` (a `tool-call` part, its
 *   arguments grown through `args_delta`, announced by a `FinalResultEvent`), beside a text part
 *   that holds another JSON object;
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
 *   "noheader"      a stream without `x-conversation-id` (End carries the id, and the text; in the
 *                   2026 dialect a documented `End` before `completed`, a stream may mix dialects);
 *   "toolcall"      (live) two model messages around a tool call; End carries the final one;
 *                   (2026) a tool round (`TOOL_ROUND`): a response with thinking, a text part
 *                   and a `tool-call` part grown through `args_delta`, `FunctionToolCallEvent`,
 *                   `FunctionToolResultEvent` (`outcome` `error`, text content), a second echo,
 *                   then a second response (a new `metadata.zmid`, part indexes from 0 again)
 *                   whose text part has no start: it opens with a `PartDeltaEvent` for index 0;
 *   "stream-error"  the stream ends with its dialect's error event; (2026) after part of the
 *                   answer, `failed` (`"error_type": "UserError"`, every field the capture has);
 *   "run-cancelled" (2026) `completed` whose `status` is `cancelled`, with its `error`;
 *   "stream-cut"    the stream closes without End; (2026) without `completed`, after part of the
 *                   answer and an event of a type no document names (`event: usage`).
 *
 * CommonJS, node's http only: `const { start } = require('./server'); await start({ token })`.
 * The 2026 dialect too is written from docs/api.md and the captures it cites
 * (test/fixtures/captures/) alone.
 */

const http = require('node:http');
const crypto = require('node:crypto');
const { setTimeout: pause } = require('node:timers/promises');
const { validateOutputFormat } = require('../helpers/outputFormatSubset');
const { MODELS, PERSONAS, CATALOG } = require('./fixtures');

/**
 * @typedef {{ method: string, path: string, authorization: string | undefined, body: unknown }} RecordedRequest
 * @typedef {'documented' | 'live' | '2026'} Dialect
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
const DIALECTS = ['documented', 'live', '2026'];
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** @param {{ token: string, dialect?: Dialect, host?: string }} options @returns {Promise<IndependentServer>} */
async function start({ token, dialect = 'documented', host = '127.0.0.1' }) {
	if (!DIALECTS.includes(dialect)) throw new TypeError(`unknown dialect ${dialect}`);
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
	const id = request.conversationId ?? newConversationId(state.dialect);
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

/** A new conversation's id: a UUID, or in 2026 `con_` and 16 letters and digits. */
function newConversationId(/** @type {Dialect} */ dialect) {
	return dialect === '2026' ? `con_${randomWord(16, ALPHANUMERIC)}` : crypto.randomUUID();
}

/** `length` characters drawn from `alphabet`. */
function randomWord(/** @type {number} */ length, /** @type {string} */ alphabet) {
	return Array.from(crypto.randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join(
		'',
	);
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
	if (dialect === '2026') {
		await writeSliced(res, Buffer.from(stream2026(answer, noHeader), 'utf8'), SLICES_2026);
		res.end();
		return;
	}
	const frames = dialect === 'live' ? liveFrames(answer) : documentedFrames(answer);
	const wire = [
		comment('keep-alive'),
		comment('ping'),
		...frames,
		...closing(dialect, answer, noHeader),
	];
	await writeSliced(res, Buffer.from(wire.join(''), 'utf8'), SLICES);
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
 * @param {http.ServerResponse} res @param {Buffer} bytes @param {number[]} sizes
 */
async function writeSliced(res, bytes, sizes) {
	let offset = 0;
	for (let slice = 0; offset < bytes.length; slice++) {
		let end = Math.min(bytes.length, offset + sizes[slice % sizes.length]);
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

// ——— the 2026 stream dialect (docs/api.md#2026-stream-dialect) ———

const LF = '\n';
/**
 * Slice sizes for a 2026 stream: its events are ten times the size of the other dialects' (every
 * one with its metadata), so some slices are about an event long; as many are a few bytes.
 */
const SLICES_2026 = [7, 3, 251, 1, 97, 13, 2, 173];
/** In every echo of the request, in places that look like answer text; it must reach nothing. */
const ECHO_PRIVATE = 'echo-private-5c8e1f04 (a file of the workspace, never to be shown)';
const THINKING_2026 = 'The user asks something short — no tool needed; answer at once. ☕';
/** The "toolcall" round of the 2026 dialect: what the first model response writes and calls. */
const TOOL_ROUND = {
	text: 'Let me look that up first.',
	thinking: 'I should look in the user’s files — „Bücher“ first.',
	tool_name: 'bash',
	args: { cmd: 'ls ~/Bücher/Ünterlagen' },
	tool_call_id: 'call_4e1b9d0c7a2f4f63b8e5d1a9',
	content: "ls: cannot access '/home/user/Bücher/Ünterlagen': No such file or directory",
	outcome: 'error',
};
/** pydantic-ai's output tool, as it is named when the output type has a name. */
const OUTPUT_TOOL = 'final_result_Summary';
/** A text part beside the output tool, itself a JSON object: not the answer. */
const DRAFT_TEXT = '{"draft": "not the answer — the output tool’s arguments are"}';
const RUN_ERROR = 'Upstream model failed mid-answer (stream-error)';
const RUN_CANCELLED = {
	status: 'cancelled',
	error: 'The run was cancelled before it answered (run-cancelled)',
	runner_id: null,
	error_type: 'RunCancelled',
	failure_owner: 'user',
	failure_kind: 'cancelled',
};

/**
 * The events of one 2026 stream, numbered as its `id:` lines show them
 * (`<8 hex>@<milliseconds>-<sequence>`).
 * @typedef {{ prefix: string, clock: number, runner: string, count: number, wire: string[] }} Run
 * @typedef {{ kind: 'thinking' | 'text', content: string, unstarted?: boolean }
 *   | { kind: 'tool-call', tool_name: string, args: string, tool_call_id: string, output?: boolean }} ResponsePart
 */

/** @param {Answer} answer @param {boolean} noHeader @returns {string} */
function stream2026(answer, noHeader) {
	/** @type {Run} */
	const run = {
		prefix: randomWord(8, '0123456789abcdef'),
		clock: Date.now(),
		runner: crypto.randomUUID(),
		count: 0,
		wire: [],
	};
	const { input } = answer;
	// The turn opens: dispatched, the user's message stored, a status line, the echo.
	runtime(run, { status: 'dispatching', runner_id: null });
	const userMessage = messageId();
	runtime(run, { type: 'persisted', data: { message_id: userMessage }, message_id: userMessage });
	runtime(run, progress('Thinking…', 'model_request'));
	echo(run, answer, false);
	run.wire.push(`: keep-alive${LF}${LF}`);
	/** @type {ResponsePart} */
	const thinking = { kind: 'thinking', content: THINKING_2026 };
	if (input.includes('toolcall')) toolRound(run, answer);
	else if (input.includes('run-cancelled')) modelResponse(run, [thinking], false);
	else if (input.includes('stream-error') || input.includes('stream-cut')) {
		// Part of the answer, and no more.
		const partial = Array.from(answer.reply).slice(0, 12).join('');
		modelResponse(run, [thinking, { kind: 'text', content: partial }], false);
	} else if (answer.structured) {
		modelResponse(run, [
			thinking,
			{ kind: 'text', content: DRAFT_TEXT },
			{
				kind: 'tool-call',
				tool_name: OUTPUT_TOOL,
				args: pythonJson(answer.output),
				tool_call_id: callId(),
				output: true,
			},
		]);
	} else modelResponse(run, [thinking, { kind: 'text', content: answer.reply }]);
	ending(run, answer, noHeader);
	return run.wire.join('');
}

/**
 * How a 2026 stream ends (docs/api.md#how-a-stream-ends): `failed`, `completed` with another
 * status, an unknown event and nothing more, or `completed` `succeeded` (after a documented `End`
 * when the header has no id).
 * @param {Run} run @param {Answer} answer @param {boolean} noHeader
 */
function ending(run, answer, noHeader) {
	const { input } = answer;
	if (input.includes('stream-error')) {
		emit(run, 'failed', {
			status: 'failed',
			error: RUN_ERROR,
			runner_id: run.runner,
			error_type: 'UserError',
			failure_owner: 'ours',
			failure_kind: 'model_stream_failed',
		});
	} else if (input.includes('stream-cut')) {
		emit(run, 'usage', { input_tokens: 1893, output_tokens: 12, model: 'openai' });
	} else if (input.includes('run-cancelled')) emit(run, 'completed', RUN_CANCELLED);
	else {
		// Without the header, the id must come some way: a documented End (a stream may mix
		// dialects) completes the stream, and `completed` after it is read past.
		if (noHeader) emit(run, 'End', { conversation_id: answer.id, output: answer.output });
		emit(run, 'completed', {
			status: 'succeeded',
			error: null,
			runner_id: null,
			error_type: null,
			failure_owner: null,
			failure_kind: null,
		});
	}
}

/**
 * "toolcall": a response that writes, thinks and calls a tool; the call and its result told on
 * their own; then the answer in a second response that opens with a delta.
 * @param {Run} run @param {Answer} answer
 */
function toolRound(run, answer) {
	const { tool_name, tool_call_id } = TOOL_ROUND;
	const args = pythonJson(TOOL_ROUND.args);
	const zmid = modelResponse(run, [
		{ kind: 'thinking', content: TOOL_ROUND.thinking },
		{ kind: 'text', content: TOOL_ROUND.text },
		{ kind: 'tool-call', tool_name, args, tool_call_id },
	]);
	const metadata = { zmid, runner_id: run.runner };
	runtime(run, progress(`Running ${tool_name}…`, 'tool_call', tool_name));
	const part = toolCallPart(tool_name, tool_call_id, args);
	emit(run, 'FunctionToolCallEvent', {
		args_valid: true,
		event_kind: 'function_tool_call',
		part,
		metadata,
	});
	emit(
		run,
		'FunctionToolResultEvent',
		{
			content: null,
			event_kind: 'function_tool_result',
			result: {
				content: TOOL_ROUND.content,
				metadata: null,
				outcome: TOOL_ROUND.outcome,
				part_kind: 'tool-return',
				timestamp: new Date(run.clock).toISOString().replace('Z', '123Z'),
				tool_call_id,
				tool_name,
			},
			metadata,
		},
		true,
	);
	const toolReturn = messageId();
	runtime(run, { type: 'persisted', data: { message_id: toolReturn }, message_id: toolReturn });
	runtime(run, progress('Thinking…', 'model_request'));
	echo(run, answer, true);
	modelResponse(run, [{ kind: 'text', content: answer.reply, unstarted: true }]);
}

/**
 * One model response: a new `zmid`, part indexes from 0. A thinking or text part's first piece is
 * in its `PartStartEvent`, the rest in deltas (an `unstarted` part has no start: every piece is a
 * delta); a tool call starts with `args: ""` and grows through `args_delta`. The output tool is
 * announced by `FinalResultEvent` once it starts. Persisted at the end when `persist`.
 * @param {Run} run @param {ResponsePart[]} parts @returns {string} the response's zmid
 */
function modelResponse(run, parts, persist = true) {
	const zmid = messageId();
	const metadata = { zmid, runner_id: run.runner };
	/** @type {string | null} */
	let previous = null;
	parts.forEach((part, index) => {
		/** @param {Json} started */
		const start = (started) =>
			emit(run, 'PartStartEvent', {
				event_kind: 'part_start',
				index,
				part: started,
				previous_part_kind: previous,
				metadata,
			});
		/** @param {Json} delta @param {boolean} ascii */
		const more = (delta, ascii) =>
			emit(run, 'PartDeltaEvent', { delta, event_kind: 'part_delta', index, metadata }, ascii);
		if (part.kind === 'tool-call') {
			start(toolCallPart(part.tool_name, part.tool_call_id, ''));
			if (part.output) {
				emit(run, 'FinalResultEvent', {
					tool_name: part.tool_name,
					tool_call_id: part.tool_call_id,
					event_kind: 'final_result',
				});
			}
			for (const piece of splitText(part.args, 4)) {
				more(
					{
						args_delta: piece,
						part_delta_kind: 'tool_call',
						provider_details: null,
						provider_name: null,
						tool_call_id: part.tool_call_id,
						tool_name_delta: null,
					},
					false,
				);
			}
		} else {
			const kind = part.kind;
			const pieces = splitText(part.content, kind === 'text' ? 6 : 4);
			pieces.forEach((piece, n) => {
				if (n === 0 && !part.unstarted) {
					start(
						kind === 'thinking'
							? {
									content: piece,
									id: 'reasoning_content',
									part_kind: 'thinking',
									provider_details: null,
									provider_name: 'openai',
									signature: null,
								}
							: {
									content: piece,
									id: null,
									part_kind: 'text',
									provider_details: null,
									provider_name: null,
								},
					);
					return;
				}
				/** @type {Json} */
				const delta = { content_delta: piece, part_delta_kind: kind };
				// A text delta of a started part may leave out its kind (docs/api.md#live-stream-dialect;
				// a stream may mix dialects); one of a part whose start was not seen says it.
				if (kind === 'text' && n % 3 === 2 && !part.unstarted) delete delta.part_delta_kind;
				delta.provider_details = null;
				delta.provider_name = null;
				if (kind === 'thinking') delta.signature_delta = null;
				// Half the deltas with non-ASCII escaped, as the service writes its JSON.
				more(delta, n % 2 === 1);
			});
		}
		previous = part.kind;
	});
	if (persist) runtime(run, { type: 'persisted', data: { message_id: zmid }, message_id: zmid });
	return zmid;
}

/** A `tool-call` part, in the service's key order. */
function toolCallPart(
	/** @type {string} */ toolName,
	/** @type {string} */ toolCallId,
	/** @type {string} */ args,
) {
	return {
		args,
		id: null,
		part_kind: 'tool-call',
		provider_details: null,
		provider_name: null,
		tool_call_id: toolCallId,
		tool_name: toolName,
	};
}

/**
 * The service's echo of the request the model was given: the system prompt, files of the
 * workspace, the history, the user's message. `ECHO_PRIVATE` is in every field that could pass
 * for an answer.
 * @param {Run} run @param {Answer} answer @param {boolean} afterTool
 */
function echo(run, answer, afterTool) {
	const file = `# Notizen — privé 日記\n${`${ECHO_PRIVATE}: Grüße, café ☕, 東京 😀\n`.repeat(6)}`;
	/** @type {Json[]} */
	const messages = [
		{
			kind: 'request',
			parts: [
				{ part_kind: 'system-prompt', content: 'You are the user’s assistant. Their files:' },
				{ part_kind: 'user-prompt', content: `An earlier question. ${ECHO_PRIVATE}` },
			],
		},
		{
			kind: 'response',
			parts: [
				{ part_kind: 'thinking', content: ECHO_PRIVATE },
				{ part_kind: 'text', content: ECHO_PRIVATE },
				{
					part_kind: 'tool-call',
					tool_name: 'read_file',
					args: { path: ECHO_PRIVATE },
					tool_call_id: 'call_echo',
				},
			],
		},
		{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: answer.input }] },
	];
	if (afterTool) {
		const { tool_name, tool_call_id, content } = TOOL_ROUND;
		messages.push({
			kind: 'request',
			parts: [{ part_kind: 'tool-return', tool_name, tool_call_id, content }],
		});
	}
	emit(run, 'FrontendModelRequest', {
		model_name: null,
		instructions: `Use the workspace. ${ECHO_PRIVATE}`,
		workspace_files: [{ path: 'Privé/Notizen — 日記.md', content: file }],
		messages,
		parts: [{ part_kind: 'text', content: ECHO_PRIVATE }],
		content: ECHO_PRIVATE,
		output: ECHO_PRIVATE,
		delta: { part_delta_kind: 'text', content_delta: ECHO_PRIVATE },
		error: ECHO_PRIVATE,
		message: ECHO_PRIVATE,
		conversation_id: ECHO_PRIVATE,
	});
}

/**
 * The data of an `AgentRuntimeStreamChunk` status line.
 * @param {string} message @param {string} phase @param {string | null} [toolName]
 */
function progress(message, phase, toolName = null) {
	return { tool_name: toolName, status: 'progress', data: { message, phase } };
}

/**
 * An `AgentRuntimeStreamChunk`: every key the captures show, most null.
 * @param {Run} run @param {Json} fields
 */
function runtime(run, fields) {
	const chunk = {
		type: 'status',
		delta: null,
		tool_name: null,
		status: null,
		error: null,
		result: null,
		data: null,
		message_id: null,
		runner_id: run.runner,
		...fields,
	};
	emit(run, 'AgentRuntimeStreamChunk', chunk, true);
}

/**
 * One event: `id:`, `event:`, one `data:` line of compact JSON, a blank line; `\n` endings.
 * With `ascii`, non-ASCII is escaped as the service's Python serializer does (`\u2026`).
 * @param {Run} run @param {string} type @param {unknown} data
 */
function emit(run, type, data, ascii = false) {
	const n = run.count++;
	const id = `${run.prefix}@${run.clock + Math.floor(n / 3)}-${n % 3}`;
	let json = JSON.stringify(data);
	if (ascii)
		json = json.replace(
			/[\u0080-\uffff]/g,
			(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
		);
	run.wire.push(`id: ${id}${LF}event: ${type}${LF}data: ${json}${LF}${LF}`);
}

/**
 * JSON text as Python's json.dumps writes it by default (`", "` and `": "` between items), the
 * way the captures' tool arguments are written.
 * @param {unknown} value @returns {string}
 */
function pythonJson(value) {
	if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
	if (typeof value === 'object' && value !== null) {
		const items = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`);
		return `{${items.join(', ')}}`;
	}
	return JSON.stringify(value);
}

/** A stored message's id (a model response's `zmid`), as the service writes them. */
function messageId() {
	return randomWord(12, 'abcdefghijklmnopqrstuvwxyz0123456789');
}

/** A tool call's id as the service writes them. */
function callId() {
	return `call_${randomWord(24, '0123456789abcdef')}`;
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

module.exports = {
	start,
	MODELS,
	PERSONAS,
	CATALOG,
	FALLBACK_MODEL,
	conform,
	ECHO_PRIVATE,
	THINKING_2026,
	TOOL_ROUND,
	DRAFT_TEXT,
	RUN_ERROR,
	RUN_CANCELLED,
};
