// @ts-check
'use strict';

/**
 * Assistant API emulator: a real HTTP server on loopback that implements the whole Assistant
 * API (see /work/shared/spec) plus switchable faults, for tests and for people without an
 * account. No dependencies beyond node's own modules.
 */

const http = require('node:http');
const crypto = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');
const data = require('./data');
const faults = require('./faults');
const { parseDirectives } = require('./directives');
const { composeReply, extractName } = require('./reply');
const { buildOutput } = require('./schema');
const { validateOutputFormat, isPlainObject } = require('../helpers/outputFormatSubset');
const { resolveShape, DIALECTS, SHAPE_TOKENS } = require('./shapes');
const { bodyFrames, endData, errorFrame } = require('./streamFrames');
const { ResponseWriter } = require('./writer');
const { SessionPool } = require('./sessionPool');

/** @typedef {import('./faults').FaultSpec} FaultSpec */
/** @typedef {import('./faults').FaultPlan} FaultPlan */
/** @typedef {import('./faults').CannedResponse} CannedResponse */
/** @typedef {import('./directives').Directives} Directives */
/** @typedef {import('../helpers/outputFormatSubset').ValidationDetail} ValidationDetail */
/** @typedef {import('./schema').JsonObject} JsonObject */
/** @typedef {import('./shapes').StreamShape} StreamShape */

/**
 * @typedef {object} EmulatorOptions
 * @property {number} [port]  0 (default) picks a free port
 * @property {string} [host]  default '127.0.0.1'
 * @property {string} [token]  the bearer token the emulator accepts (default DEFAULT_TOKEN)
 * @property {'live' | 'documented'} [dialect]  how streams are shaped (default 'live', what the
 *   live service sends; docs/api.md#streams); an ask's `#shape=` overrides it
 * @property {number} [answerDelayMs]  delay before each ask is answered (default 0)
 * @property {number} [chunkDelayMs]  pause between stream chunks (default 0)
 * @property {boolean} [log]  print one line per request to stderr
 * @property {number} [maxRecordedRequests]  cap of stats.requests (default 10000, oldest dropped)
 * @property {import('./sessionPool').SessionPoolOptions} [sessionPool]  the account's pool of
 *   sessions: asks beyond its size are refused as "sessions are busy" (default: no limit)
 */

/**
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} path  the path without the query string
 * @property {boolean} authorization  whether an Authorization header was present
 * @property {unknown} body  parsed JSON; the raw text if it is not JSON; undefined if empty
 * @property {number | null} status  response status once sent; null while pending or if reset
 */

/**
 * @typedef {object} EmulatorStats
 * @property {RecordedRequest[]} requests  API requests (not /__emulator/*), oldest first
 * @property {Map<string, number>} completedAsks  ask input -> asks answered in full
 * @property {number} maxConcurrentPerConversation  most asks in progress at once on one conversation
 * @property {number} conversationOverlaps  asks answered 409 because their conversation was busy
 * @property {number} inFlight  API requests in progress now
 * @property {number} maxInFlight
 */

/**
 * @typedef {object} Emulator
 * @property {string} baseUrl  e.g. 'http://127.0.0.1:41234', no trailing slash
 * @property {string} token
 * @property {() => Promise<void>} close  stops the server and destroys open sockets
 * @property {() => void} reset  clears conversations, stats and queued faults
 * @property {(fault: FaultSpec, times?: number) => void} queueFault  next `times` matching requests get `fault`
 * @property {EmulatorStats} stats  live statistics (the same object for the emulator's lifetime)
 * @property {import('./sessionPool').SessionPoolStats | null} sessionPool  the session pool's
 *   counts (null without a pool)
 */

/**
 * @typedef {object} Config
 * @property {string} token
 * @property {'live' | 'documented'} dialect
 * @property {number} answerDelayMs
 * @property {number} chunkDelayMs
 * @property {boolean} log
 * @property {number} maxRecordedRequests
 */

/**
 * @typedef {object} Conversation
 * @property {string} id
 * @property {string[]} messages  user messages, oldest first
 * @property {string | null} name  from "my name is X"
 * @property {boolean} busy  an answer is in progress
 */

/**
 * @typedef {object} QueuedFault
 * @property {FaultSpec} fault
 * @property {number} remaining
 */

/**
 * @typedef {object} State
 * @property {Config} config
 * @property {Map<string, Conversation>} conversations
 * @property {QueuedFault[]} faultQueue
 * @property {Map<string, number>} directiveUses  input + directive -> times applied (for `times=`)
 * @property {Map<string, number>} activeAsks  conversation id -> asks in progress naming it
 * @property {Set<AbortController>} controllers  one per request in progress
 * @property {SessionPool | null} sessionPool
 * @property {EmulatorStats} stats
 */

/**
 * @typedef {object} Context
 * @property {State} state
 * @property {http.IncomingMessage} req
 * @property {http.ServerResponse} res
 * @property {string} method
 * @property {string} path
 * @property {string} rawBody
 * @property {AbortSignal} signal  aborted when the response closes or the emulator stops
 * @property {(callback: () => void) => void} onClose  runs callback once the response has closed
 */

/**
 * @typedef {object} Ask
 * @property {string} input
 * @property {string | null} conversationId
 * @property {string} modelId
 * @property {string} personaId
 * @property {JsonObject | null} outputFormat
 * @property {boolean} stream
 */

/** @typedef {(ctx: Context, queued: FaultSpec[]) => Promise<void>} Handler */

const DEFAULT_TOKEN = 'emu-token-7f3c9a1e5b';
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const CONTROL_PREFIX = '/__emulator/';
const MEMORY_MODES = ['enabled', 'off'];

/** @type {WeakMap<http.ServerResponse, RecordedRequest>} so writeHead can note the status */
const recordByResponse = new WeakMap();

/** @type {Record<string, Record<string, Handler>>} */
const ROUTES = {
	'/assistant/ask': { POST: handleAsk },
	'/models/available': { GET: handleModels },
	'/personas/available': { GET: handlePersonas },
	'/models/catalog': { GET: handleCatalog },
	'/__emulator/faults': { POST: handleQueueFault },
	'/__emulator/reset': { POST: handleReset },
	'/__emulator/stats': { GET: handleStats },
};

// ---------------------------------------------------------------------------------------------
// Start and stop

/**
 * Starts the emulator and resolves once it listens.
 * @param {EmulatorOptions} [options]
 * @returns {Promise<Emulator>}
 */
async function startEmulator(options = {}) {
	const state = createState(options);
	const host = options.host ?? '127.0.0.1';
	const server = http.createServer((req, res) => {
		handleRequest(state, req, res).catch((error) => handleFailure(req, res, error));
	});
	const sockets = trackSockets(server);
	await listen(server, options.port ?? 0, host);
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	return {
		baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
		token: state.config.token,
		close: closeOnce(server, state, sockets),
		reset: () => resetState(state),
		queueFault: (fault, times = 1) => queueFault(state, fault, times),
		stats: state.stats,
		sessionPool: state.sessionPool?.stats ?? null,
	};
}

/**
 * @param {EmulatorOptions} options
 * @returns {State}
 */
function createState(options) {
	const dialect = options.dialect ?? 'live';
	if (!DIALECTS.includes(dialect)) {
		throw new TypeError(`dialect must be one of ${DIALECTS.join(', ')}, got '${String(dialect)}'`);
	}
	return {
		config: {
			token: options.token ?? DEFAULT_TOKEN,
			dialect,
			answerDelayMs: options.answerDelayMs ?? 0,
			chunkDelayMs: options.chunkDelayMs ?? 0,
			log: Boolean(options.log),
			maxRecordedRequests: options.maxRecordedRequests ?? 10_000,
		},
		conversations: new Map(),
		faultQueue: [],
		directiveUses: new Map(),
		activeAsks: new Map(),
		controllers: new Set(),
		sessionPool: options.sessionPool ? new SessionPool(options.sessionPool) : null,
		stats: {
			requests: [],
			completedAsks: new Map(),
			maxConcurrentPerConversation: 0,
			conversationOverlaps: 0,
			inFlight: 0,
			maxInFlight: 0,
		},
	};
}

/**
 * @param {http.Server} server
 * @param {number} port
 * @param {string} host
 * @returns {Promise<void>}
 */
function listen(server, port, host) {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
}

/**
 * Remembers open sockets, so close() can destroy keep-alive and stalled connections at once.
 * @param {http.Server} server
 * @returns {Set<import('node:net').Socket>}
 */
function trackSockets(server) {
	/** @type {Set<import('node:net').Socket>} */
	const sockets = new Set();
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	});
	return sockets;
}

/**
 * @param {http.Server} server
 * @param {State} state
 * @param {Set<import('node:net').Socket>} sockets
 * @returns {() => Promise<void>}
 */
function closeOnce(server, state, sockets) {
	/** @type {Promise<void> | null} */
	let closing = null;
	return () => {
		closing ??= new Promise((resolve) => {
			server.close(() => resolve());
			// Cancel every pending delay and drop every connection, so nothing keeps the server up.
			for (const controller of state.controllers) controller.abort();
			for (const socket of sockets) socket.destroy();
		});
		return closing;
	};
}

/** @param {State} state */
function resetState(state) {
	const { stats } = state;
	state.conversations.clear();
	state.faultQueue.length = 0;
	state.directiveUses.clear();
	stats.requests.length = 0;
	stats.completedAsks.clear();
	stats.maxConcurrentPerConversation = 0;
	stats.conversationOverlaps = 0;
	state.sessionPool?.reset();
	// inFlight is a gauge of requests still running: it stays, its maximum restarts from it.
	stats.maxInFlight = stats.inFlight;
}

/**
 * @param {State} state
 * @param {FaultSpec} spec
 * @param {number} times
 */
function queueFault(state, spec, times) {
	const fault = faults.normalizeFault(spec);
	if (!Number.isInteger(times) || times < 1)
		throw new TypeError('times must be a whole number >= 1');
	if (fault.path !== undefined && (typeof fault.path !== 'string' || !fault.path.startsWith('/'))) {
		throw new TypeError("A fault's path must start with '/'");
	}
	state.faultQueue.push({ fault, remaining: times });
}

/**
 * The first queued fault that matches the path, used up by one.
 * @param {State} state
 * @param {string} path
 * @returns {FaultSpec[]}
 */
function takeQueuedFault(state, path) {
	const index = state.faultQueue.findIndex(
		(q) => q.fault.path === undefined || q.fault.path === path,
	);
	if (index < 0) return [];
	const queued = state.faultQueue[index];
	queued.remaining -= 1;
	if (queued.remaining === 0) state.faultQueue.splice(index, 1);
	return [queued.fault];
}

// ---------------------------------------------------------------------------------------------
// Request plumbing

/**
 * @param {State} state
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 */
async function handleRequest(state, req, res) {
	const ctx = createContext(state, req, res);
	const isControl = ctx.path.startsWith(CONTROL_PREFIX);
	if (!isControl) trackInFlight(ctx);
	const body = await readBody(req);
	ctx.rawBody = body.text;
	if (!isControl) recordRequest(ctx);
	if (body.tooLarge) return sendJson(res, 413, { detail: 'Request body too large' });
	const queued = isControl ? [] : takeQueuedFault(state, ctx.path);
	if (await applyFaults(ctx, queued)) return;
	const route = ROUTES[ctx.path];
	if (!route) return sendJson(res, 404, { detail: 'Not Found' });
	const handler = route[ctx.method];
	if (!handler) {
		return sendJson(
			res,
			405,
			{ detail: 'Method Not Allowed' },
			{ allow: Object.keys(route).join(', ') },
		);
	}
	await handler(ctx, queued);
}

/**
 * @param {State} state
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @returns {Context}
 */
function createContext(state, req, res) {
	const controller = new AbortController();
	state.controllers.add(controller);
	const started = Date.now();
	/** @type {Array<() => void>} */
	const closeCallbacks = [];
	// One 'close' listener per response, running the bookkeeping of every part of the handler.
	res.once('close', () => {
		controller.abort();
		state.controllers.delete(controller);
		for (const callback of closeCallbacks) callback();
		if (state.config.log) logRequest(req, res, Date.now() - started);
	});
	res.on('error', () => {}); // a write to a vanished client is not the emulator's problem
	return {
		state,
		req,
		res,
		method: req.method ?? 'GET',
		path: new URL(req.url ?? '/', 'http://emulator').pathname,
		rawBody: '',
		signal: controller.signal,
		onClose: (callback) => closeCallbacks.push(callback),
	};
}

/**
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @param {number} ms
 */
function logRequest(req, res, ms) {
	const status = res.headersSent ? String(res.statusCode) : '---';
	const outcome = res.writableFinished ? status : `${status} (cut)`;
	process.stderr.write(`[emulator] ${req.method} ${req.url} -> ${outcome} ${ms}ms\n`);
}

/** @param {Context} ctx */
function trackInFlight(ctx) {
	const { stats } = ctx.state;
	stats.inFlight += 1;
	stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
	ctx.onClose(() => {
		stats.inFlight -= 1;
	});
}

/** @param {Context} ctx */
function recordRequest(ctx) {
	const { stats, config } = ctx.state;
	/** @type {RecordedRequest} */
	const entry = {
		method: ctx.method,
		path: ctx.path,
		authorization: ctx.req.headers.authorization !== undefined,
		body: parseForRecord(ctx.rawBody),
		status: null,
	};
	stats.requests.push(entry);
	if (stats.requests.length > config.maxRecordedRequests) {
		stats.requests.splice(0, stats.requests.length - config.maxRecordedRequests);
	}
	recordByResponse.set(ctx.res, entry);
}

/**
 * Every response head goes through here, so the recorded request gets its status as soon as the
 * status is decided.
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {Record<string, string>} headers
 */
function writeHead(res, status, headers) {
	res.writeHead(status, headers);
	const entry = recordByResponse.get(res);
	if (entry) entry.status = status;
}

/** @param {string} text */
function parseForRecord(text) {
	if (text === '') return undefined;
	const parsed = parseJson(text);
	return parsed.ok ? parsed.value : text;
}

/**
 * @param {string} text
 * @returns {{ ok: true, value: unknown } | { ok: false }}
 */
function parseJson(text) {
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false };
	}
}

/**
 * Reads the whole body; past MAX_BODY_BYTES it keeps reading but drops the bytes.
 * @param {http.IncomingMessage} req
 * @returns {Promise<{ text: string, tooLarge: boolean }>}
 */
function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		let size = 0;
		req.on('data', (/** @type {Buffer} */ chunk) => {
			size += chunk.length;
			if (size <= MAX_BODY_BYTES) chunks.push(chunk);
		});
		req.on('end', () => {
			resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES });
		});
		req.on('error', reject);
		req.on('close', () => {
			if (!req.complete) reject(new Error('client went away while sending the request'));
		});
	});
}

/**
 * Last resort for an error out of a handler: quiet when the client or the emulator hung up,
 * otherwise report it (it is an emulator bug) and answer 500 if still possible.
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @param {unknown} error
 */
function handleFailure(req, res, error) {
	const hungUp =
		res.destroyed || req.destroyed || (error instanceof Error && error.name === 'AbortError');
	if (!hungUp) {
		process.stderr.write(
			`[emulator] internal error: ${error instanceof Error ? error.stack : String(error)}\n`,
		);
	}
	if (!res.headersSent && !res.destroyed) {
		sendJson(res, 500, { detail: 'Internal server error' });
	} else if (!res.writableEnded) {
		res.destroy();
	}
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} value
 * @param {Record<string, string>} [headers]
 */
function sendJson(res, status, value, headers = {}) {
	const body = JSON.stringify(value);
	sendCanned(res, { status, headers: { 'content-type': 'application/json', ...headers }, body });
}

/**
 * @param {http.ServerResponse} res
 * @param {CannedResponse} canned
 */
function sendCanned(res, canned) {
	if (res.destroyed) return;
	writeHead(res, canned.status, {
		...canned.headers,
		'content-length': String(Buffer.byteLength(canned.body)),
	});
	res.end(canned.body);
}

/**
 * Ends the response; tells whether it was still intact, i.e. the whole body has been written.
 * (Synchronous on purpose: a client in the same process must not see the end of the answer
 * before the stats count it.)
 * @param {http.ServerResponse} res
 * @returns {boolean}
 */
function endResponse(res) {
	if (res.destroyed) return false;
	res.end();
	return true;
}

/**
 * @param {number} ms
 * @param {AbortSignal} signal
 */
async function wait(ms, signal) {
	if (ms > 0) await sleep(ms, undefined, { signal });
}

/**
 * Applies slow-first-byte and the faults that replace the whole response.
 * @param {Context} ctx
 * @param {FaultSpec[]} list
 * @returns {Promise<boolean>} true when the response has been dealt with
 */
async function applyFaults(ctx, list) {
	if (list.length === 0) return false;
	const plan = faults.planFaults(list);
	await wait(plan.slowFirstByteMs, ctx.signal);
	const fault = plan.terminal;
	if (!fault) return false;
	if (fault.name === 'reset') ctx.req.socket.resetAndDestroy();
	else sendCanned(ctx.res, faults.terminalResponse(fault));
	return true;
}

/**
 * Checks the bearer token; answers 401 (without echoing what was sent) when it is wrong.
 * @param {Context} ctx
 */
function authorize(ctx) {
	const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.req.headers.authorization ?? '');
	if (match && match[1] === ctx.state.config.token) return true;
	sendJson(ctx.res, 401, { detail: faults.UNAUTHORIZED_DETAIL }, { 'www-authenticate': 'Bearer' });
	return false;
}

// ---------------------------------------------------------------------------------------------
// Listing endpoints

/** @type {Handler} */
async function handleModels(ctx) {
	if (authorize(ctx)) sendJson(ctx.res, 200, { models: data.MODELS });
}

/** @type {Handler} */
async function handlePersonas(ctx) {
	if (authorize(ctx)) sendJson(ctx.res, 200, { personas: data.PERSONAS });
}

/** @type {Handler} */
async function handleCatalog(ctx) {
	// Public: no token needed, and a token that is sent anyway is ignored (stats show it).
	sendJson(ctx.res, 200, data.CATALOG, { 'cache-control': 'public, max-age=60' });
}

// ---------------------------------------------------------------------------------------------
// Control endpoints (no auth): drive the emulator from another process

/** @type {Handler} */
async function handleQueueFault(ctx) {
	const parsed = parseJson(ctx.rawBody);
	if (!parsed.ok || !isPlainObject(parsed.value)) {
		return sendJson(ctx.res, 422, {
			detail: 'Body must be a JSON object {fault, path?, times?, ...params}',
		});
	}
	// null means "not given", as in the API itself.
	const given = Object.entries(parsed.value).filter(([, value]) => value !== null);
	const { fault, times = 1, ...params } = Object.fromEntries(given);
	try {
		queueFault(
			ctx.state,
			/** @type {FaultSpec} */ ({ ...params, name: fault }),
			/** @type {number} */ (times),
		);
	} catch (error) {
		return sendJson(ctx.res, 422, {
			detail: error instanceof Error ? error.message : String(error),
		});
	}
	sendJson(ctx.res, 200, {
		queued: { ...params, name: fault, times },
		pending: ctx.state.faultQueue.length,
	});
}

/** @type {Handler} */
async function handleReset(ctx) {
	resetState(ctx.state);
	sendJson(ctx.res, 200, { ok: true });
}

/** @type {Handler} */
async function handleStats(ctx) {
	const { stats, faultQueue } = ctx.state;
	sendJson(ctx.res, 200, {
		...stats,
		completedAsks: Object.fromEntries(stats.completedAsks),
		sessionPool: ctx.state.sessionPool?.stats ?? null,
		pendingFaults: faultQueue.map((q) => ({ ...q.fault, remaining: q.remaining })),
	});
}

// ---------------------------------------------------------------------------------------------
// POST /assistant/ask

/** @type {Handler} */
async function handleAsk(ctx, queued) {
	if (!authorize(ctx)) return;
	const parsed = parseJson(ctx.rawBody);
	if (!parsed.ok) {
		return sendValidation(ctx, [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }]);
	}
	// Directives act before validation: a fault switched on in the input hits even a bad ask.
	const input = inputOf(parsed.value);
	const directives = parseDirectives(input);
	if (directives.errors.length > 0) {
		const detail = directives.errors.map((msg) => ({
			loc: ['body', 'input'],
			msg,
			type: 'value_error',
		}));
		return sendValidation(ctx, detail);
	}
	const directiveFaults = takeDirectiveFaults(ctx.state, input, directives);
	if (await applyFaults(ctx, directiveFaults)) return;
	const checked = validateAsk(ctx.state, parsed.value);
	if (checked.kind === 'invalid') return sendValidation(ctx, checked.errors);
	if (checked.kind === 'unknown-conversation') {
		return sendJson(ctx.res, 404, { detail: 'Conversation not found' });
	}
	if (!takeSession(ctx)) return;
	await runAsk(ctx, checked.ask, faults.planFaults([...queued, ...directiveFaults]), directives);
}

/**
 * A session of the account's pool for a valid ask, given back when its answer is over; false
 * (and the refusal sent) when the pool is full. Always true without a pool.
 * @param {Context} ctx
 */
function takeSession(ctx) {
	const pool = ctx.state.sessionPool;
	if (!pool) return true;
	const admission = pool.admit();
	if ('refusal' in admission) {
		sendCanned(ctx.res, admission.refusal);
		return false;
	}
	// 'finish' (the last byte handed to the network) comes before the client can ask again.
	ctx.res.once('finish', admission.release);
	ctx.onClose(admission.release);
	return true;
}

/**
 * The input of an ask body, or '' when there is none (validation reports that later).
 * @param {unknown} body
 */
function inputOf(body) {
	return isPlainObject(body) && typeof body.input === 'string' ? body.input : '';
}

/**
 * @param {Context} ctx
 * @param {ValidationDetail[]} detail
 */
function sendValidation(ctx, detail) {
	sendJson(ctx.res, 422, { detail });
}

/**
 * The directive faults of an input, minus those whose `times=` budget for this input is used up.
 * @param {State} state
 * @param {string} input
 * @param {Directives} directives
 * @returns {FaultSpec[]}
 */
function takeDirectiveFaults(state, input, directives) {
	const taken = directives.faults.filter((directive) => {
		if (directive.times === null) return true;
		const key = `${input}\u0000${directive.raw}`;
		const used = state.directiveUses.get(key) ?? 0;
		if (used >= directive.times) return false;
		state.directiveUses.set(key, used + 1);
		return true;
	});
	return taken.map((directive) => directive.fault);
}

/**
 * @typedef {{ kind: 'ok', ask: Ask }
 *   | { kind: 'invalid', errors: ValidationDetail[] }
 *   | { kind: 'unknown-conversation' }} AskCheck
 */

/**
 * Validates an ask body the way the service's FastAPI layer does (all errors at once).
 * @param {State} state
 * @param {unknown} body
 * @returns {AskCheck}
 */
function validateAsk(state, body) {
	if (!isPlainObject(body)) {
		const msg = 'Input should be a valid dictionary or object to extract fields from';
		return { kind: 'invalid', errors: [{ loc: ['body'], msg, type: 'model_attributes_type' }] };
	}
	/** @type {ValidationDetail[]} */
	const errors = [];
	const input = requiredString(body, 'input', errors);
	const conversationId = optionalString(body, 'conversation_id', errors);
	const modelName = knownId(body, 'model_name', data.ASKABLE_MODEL_IDS, 'model', errors);
	const personaId = knownId(body, 'persona_id', data.PERSONA_IDS, 'persona', errors);
	const stream = body.stream ?? false;
	if (typeof stream !== 'boolean') {
		errors.push({
			loc: ['body', 'stream'],
			msg: 'Input should be a valid boolean',
			type: 'bool_type',
		});
	}
	const outputFormat = body.output_format ?? null;
	if (outputFormat !== null) {
		errors.push(...validateOutputFormat(outputFormat, ['body', 'output_format']));
	}
	// docs/api.md#memory-mode; what was sent stays in stats.requests[].body.
	const memoryMode = body.memory_mode ?? null;
	if (memoryMode !== null && !MEMORY_MODES.includes(/** @type {string} */ (memoryMode))) {
		const msg = "Input should be 'enabled' or 'off'";
		errors.push({ loc: ['body', 'memory_mode'], msg, type: 'enum' });
	}
	if (errors.length > 0 || input === null) return { kind: 'invalid', errors };
	if (conversationId !== null && !state.conversations.has(conversationId)) {
		return { kind: 'unknown-conversation' };
	}
	const ask = {
		input,
		conversationId,
		modelId: modelName ?? data.DEFAULT_MODEL_ID,
		personaId: personaId ?? data.DEFAULT_PERSONA_ID,
		outputFormat: /** @type {JsonObject | null} */ (outputFormat),
		stream: stream === true,
	};
	return { kind: 'ok', ask };
}

/**
 * @param {JsonObject} body
 * @param {string} field
 * @param {ValidationDetail[]} errors
 * @returns {string | null}
 */
function requiredString(body, field, errors) {
	if (!(field in body)) {
		errors.push({ loc: ['body', field], msg: 'Field required', type: 'missing' });
		return null;
	}
	return checkString(body[field], field, errors);
}

/**
 * A field that may be absent or null (both mean "omitted").
 * @param {JsonObject} body
 * @param {string} field
 * @param {ValidationDetail[]} errors
 * @returns {string | null}
 */
function optionalString(body, field, errors) {
	const value = body[field];
	return value === undefined || value === null ? null : checkString(value, field, errors);
}

/**
 * @param {unknown} value
 * @param {string} field
 * @param {ValidationDetail[]} errors
 * @returns {string | null}
 */
function checkString(value, field, errors) {
	if (typeof value === 'string') return value;
	errors.push({ loc: ['body', field], msg: 'Input should be a valid string', type: 'string_type' });
	return null;
}

/**
 * An optional id field that must name a known model or persona.
 * @param {JsonObject} body
 * @param {string} field
 * @param {Set<string>} known
 * @param {string} what  'model' or 'persona', for the message
 * @param {ValidationDetail[]} errors
 * @returns {string | null}
 */
function knownId(body, field, known, what, errors) {
	const id = optionalString(body, field, errors);
	if (id === null || known.has(id)) return id;
	errors.push({ loc: ['body', field], msg: `Unknown ${what} '${id}'`, type: 'value_error' });
	return null;
}

/**
 * Answers a valid ask: refuses it when its conversation is busy, otherwise remembers the
 * message and answers (JSON or stream); counts it in completedAsks when delivered in full.
 * @param {Context} ctx
 * @param {Ask} ask
 * @param {FaultPlan} plan
 * @param {Directives} directives
 */
async function runAsk(ctx, ask, plan, directives) {
	const { state } = ctx;
	const conversation =
		state.conversations.get(ask.conversationId ?? '') ?? createConversation(state);
	enterConversation(ctx, conversation.id);
	if (conversation.busy) {
		state.stats.conversationOverlaps += 1;
		return sendJson(ctx.res, 409, { detail: faults.BUSY_DETAIL });
	}
	conversation.busy = true;
	const release = () => {
		conversation.busy = false;
	};
	ctx.onClose(release); // the client may hang up or the answer may fail half-way
	const earlier = conversation.messages.slice();
	conversation.messages.push(ask.input);
	conversation.name = extractName(ask.input) ?? conversation.name;
	const text = composeReply(ask.input, {
		modelId: directives.fallbackModel ?? ask.modelId,
		personaId: ask.personaId,
		earlier,
		knownName: conversation.name,
		longChars: directives.longChars,
		unicodeProbe: plan.splitBytes,
	});
	const structured = ask.outputFormat !== null;
	const output = ask.outputFormat ? buildOutput(ask.outputFormat, ask.input) : text;
	/** @type {Answer} */
	const answer = {
		conversation,
		input: ask.input,
		text,
		structured,
		output,
		shape: resolveShape(state.config.dialect, directives.shape),
		// docs/api.md#model-fallback
		headers: directives.fallbackModel ? { 'x-model-fallback': directives.fallbackModel } : {},
		release,
	};
	const delayMs = directives.delayMs ?? state.config.answerDelayMs;
	const delivered = ask.stream
		? await streamAnswer(ctx, answer, plan, delayMs)
		: await jsonAnswer(ctx, answer, plan, delayMs);
	if (delivered)
		state.stats.completedAsks.set(ask.input, (state.stats.completedAsks.get(ask.input) ?? 0) + 1);
}

/**
 * @param {State} state
 * @returns {Conversation}
 */
function createConversation(state) {
	const id = `conv_${crypto.randomBytes(8).toString('hex')}`;
	/** @type {Conversation} */
	const conversation = { id, messages: [], name: null, busy: false };
	state.conversations.set(conversation.id, conversation);
	return conversation;
}

/**
 * Counts the asks in progress on a conversation (the refused ones too), for
 * stats.maxConcurrentPerConversation.
 * @param {Context} ctx
 * @param {string} id
 */
function enterConversation(ctx, id) {
	const { activeAsks, stats } = ctx.state;
	const count = (activeAsks.get(id) ?? 0) + 1;
	activeAsks.set(id, count);
	stats.maxConcurrentPerConversation = Math.max(stats.maxConcurrentPerConversation, count);
	ctx.onClose(() => {
		const left = (activeAsks.get(id) ?? 1) - 1;
		if (left > 0) activeAsks.set(id, left);
		else activeAsks.delete(id);
	});
}

/**
 * @typedef {object} Answer
 * @property {Conversation} conversation
 * @property {string} input
 * @property {string} text  the reply text (also for output_format asks, where it is not sent)
 * @property {boolean} structured  output_format was given: output is an object
 * @property {unknown} output  what `output` carries: the text, or the structured object
 * @property {StreamShape} shape  how a stream of this answer is shaped
 * @property {Record<string, string>} headers  sent with the answer, JSON or stream
 * @property {() => void} release  frees the conversation; called just before the last write, so a
 *   client that got the whole answer can always ask again at once
 */

/**
 * @param {Context} ctx
 * @param {Answer} answer
 * @param {FaultPlan} plan
 * @param {number} delayMs
 * @returns {Promise<boolean>} whether the whole answer was delivered
 */
async function jsonAnswer(ctx, answer, plan, delayMs) {
	await wait(delayMs, ctx.signal);
	const body = JSON.stringify({ output: answer.output, conversation_id: answer.conversation.id });
	writeHead(ctx.res, 200, {
		'content-type': 'application/json',
		'content-length': String(Buffer.byteLength(body)),
		...answer.headers,
	});
	answer.release();
	if (!plan.resetMidStream && !plan.splitBytes) {
		ctx.res.write(body);
		return endResponse(ctx.res);
	}
	const writer = new ResponseWriter(ctx.res, { signal: ctx.signal, splitBytes: plan.splitBytes });
	if (!plan.resetMidStream) {
		await writer.write(body);
		return endResponse(ctx.res);
	}
	// Half the body, then the connection drops: content-length tells the client it is short.
	const bytes = Buffer.from(body, 'utf8');
	await writer.writeRaw(bytes.subarray(0, Math.floor(bytes.length / 2)));
	await dropConnection(ctx, writer);
	return false;
}

/**
 * @param {Context} ctx
 * @param {ResponseWriter} writer
 */
async function dropConnection(ctx, writer) {
	await writer.flushed();
	ctx.req.socket.destroy();
}

/**
 * Streams an answer as Server-Sent Events in the ask's shape, with the plan's stream faults.
 * @param {Context} ctx
 * @param {Answer} answer
 * @param {FaultPlan} plan
 * @param {number} delayMs
 * @returns {Promise<boolean>} whether the whole answer, End included, was delivered
 */
async function streamAnswer(ctx, answer, plan, delayMs) {
	const { res, signal } = ctx;
	/** @type {Record<string, string>} */
	const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
	if (!plan.noHeaderId) headers['x-conversation-id'] = answer.conversation.id;
	writeHead(res, 200, { ...headers, ...answer.headers });
	res.flushHeaders();
	await wait(delayMs, signal);
	const writer = new ResponseWriter(res, { signal, crlf: plan.crlf, splitBytes: plan.splitBytes });
	const shape = { ...answer.shape, end: plan.endForm ?? answer.shape.end };
	const streamed = {
		text: answer.text,
		structured: answer.structured,
		output: answer.output,
		conversationId: answer.conversation.id,
		input: answer.input,
	};
	const frames = bodyFrames(streamed, shape, { unknownEvents: plan.unknownEvents });
	if (!(await streamFrames(ctx, writer, plan, frames, answer))) return false;
	answer.release();
	if (plan.noEnd) {
		endResponse(res);
		return false;
	}
	await writer.event('End', endData(streamed, shape, plan.noHeaderId));
	if (shape.keepAlive) await writer.write('data: [DONE]\n\n');
	return endResponse(res);
}

/**
 * Writes the frames before End, pausing between pieces of text; returns false when a fault cut
 * the stream short.
 * @param {Context} ctx
 * @param {ResponseWriter} writer
 * @param {FaultPlan} plan
 * @param {import('./streamFrames').Frame[]} frames
 * @param {Answer} answer
 * @returns {Promise<boolean>}
 */
async function streamFrames(ctx, writer, plan, frames, answer) {
	const chunkDelayMs = plan.chunkDelayMs ?? ctx.state.config.chunkDelayMs;
	const pieces = frames.filter((frame) => frame.kind === 'event' && frame.startsPiece).length;
	const cut = cutIndex(plan, pieces);
	let sent = 0;
	for (const frame of frames) {
		if (frame.kind === 'comment') {
			await writer.comment(frame.text);
			continue;
		}
		if (frame.startsPiece) {
			if (sent === cut && !(await interrupt(ctx, writer, plan, answer))) return false;
			if (sent > 0) await wait(chunkDelayMs, ctx.signal);
			sent += 1;
		}
		await writer.event(frame.type, frame.data);
	}
	return sent === cut ? interrupt(ctx, writer, plan, answer) : true;
}

/**
 * After how many pieces of text a stream fault strikes: before any for a session-pool error, a
 * piece or two for error-event, halfway otherwise.
 * @param {FaultPlan} plan
 * @param {number} count
 */
function cutIndex(plan, count) {
	if (plan.errorBeforeText) return 0;
	if (plan.errorEvent !== null) return Math.min(count, 2);
	if (plan.resetMidStream || plan.stallMs !== null)
		return Math.min(count, Math.max(1, Math.floor(count / 2)));
	return -1;
}

/**
 * Stalls, sends the error event or drops the connection; returns true when the stream goes on.
 * @param {Context} ctx
 * @param {ResponseWriter} writer
 * @param {FaultPlan} plan
 * @param {Answer} answer
 */
async function interrupt(ctx, writer, plan, answer) {
	if (plan.stallMs !== null) await wait(plan.stallMs, ctx.signal);
	if (plan.errorEvent !== null || plan.resetMidStream) answer.release();
	if (plan.errorEvent !== null) {
		const frame = errorFrame(answer.shape, plan.errorEvent);
		if (frame.kind === 'event') await writer.event(frame.type, frame.data);
		endResponse(ctx.res);
		return false;
	}
	if (plan.resetMidStream) {
		await dropConnection(ctx, writer);
		return false;
	}
	return true;
}

module.exports = {
	startEmulator,
	DEFAULT_TOKEN,
	FAULT_NAMES: faults.FAULT_NAMES,
	DIALECTS,
	SHAPE_TOKENS,
};
