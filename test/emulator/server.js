// @ts-check
'use strict';

/**
 * Assistant API emulator: a real HTTP server on loopback that implements the whole Assistant
 * API as docs/api.md describes it, plus switchable faults, for tests and for people without an
 * account. No dependencies beyond node's own modules. This file starts and stops it, keeps its
 * state and routes requests; ask.js answers asks.
 */

const http = require('node:http');
const data = require('./data');
const faults = require('./faults');
const { DIALECTS } = require('./shapes');
const { parseReplay } = require('./replay');
const { ECHO_PRIVATE_MARKER } = require('./frames2026');
const { SessionPool } = require('./sessionPool');
const { handleAsk } = require('./ask');
const { handleConversation, isConversationPath, stopTurns } = require('./conversations');
const respond = require('./respond');
const { applyFaults, authorize, handleFailure, parseJson, readBody, sendJson } = respond;

/** @typedef {import('./faults').FaultSpec} FaultSpec */

/**
 * @typedef {object} EmulatorOptions
 * @property {number} [port]  0 (default) picks a free port
 * @property {string} [host]  default '127.0.0.1'
 * @property {string} [token]  the bearer token the emulator accepts (default DEFAULT_TOKEN)
 * @property {'2026' | 'live' | 'documented'} [dialect]  how streams are shaped (default '2026',
 *   what the live service sends; docs/api.md#streams); an ask's `#shape=` overrides it
 * @property {string | import('./replay').ReplaySpec} [replay]  every ask is answered with this
 *   capture of test/fixtures/captures/ (a name, or `{ capture, split, seed }`), as `#replay=` does
 * @property {number} [answerDelayMs]  delay before each ask is answered (default 0)
 * @property {number} [chunkDelayMs]  pause between stream chunks (default 0)
 * @property {boolean} [log]  print one line per request to stderr
 * @property {import('./sessionPool').SessionPoolOptions} [sessionPool]  the account's pool of
 *   sessions: asks beyond its size are refused as "sessions are busy" (default: no limit)
 * @property {number} [conversationRetryAfterMs]  GET /conversations/{id} says
 *   `retry-after-ms: <n>` (default: no such header, as the live service)
 */

/**
 * @typedef {object} RecordedRequest
 * @property {string} method
 * @property {string} path  the path without the query string
 * @property {boolean} authorization  whether an Authorization header was present
 * @property {'Bearer <token>' | 'other' | null} authorizationForm  `Bearer <token>` when the header
 *   is exactly the prefix, one space and the emulator's token (not `Bearer Bearer …`, no spaces
 *   around); `other` for any other header; null without one. Never the header itself: it is secret.
 * @property {unknown} body  parsed JSON; the raw text if it is not JSON; undefined if empty
 * @property {number | null} status  response status once sent; null while pending or if reset
 */

/**
 * @typedef {object} EmulatorStats
 * @property {RecordedRequest[]} requests  API requests (not /__emulator/*), oldest first
 * @property {Map<string, number>} completedAsks  ask input -> asks answered in full
 * @property {Map<string, number>} startedAsks  ask input -> turns the emulator started for it
 *   (asks it accepted, whatever became of their connection)
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
 * @property {'2026' | 'live' | 'documented'} dialect
 * @property {import('./replay').ReplaySpec | null} replay
 * @property {number} answerDelayMs
 * @property {number} chunkDelayMs
 * @property {boolean} log
 * @property {number | null} conversationRetryAfterMs
 */

/**
 * @typedef {object} Conversation
 * @property {string} id
 * @property {string[]} messages  user messages, oldest first
 * @property {string | null} name  from "my name is X"
 * @property {boolean} busy  a turn is running (the conversation's `state` is `running`)
 * @property {import('./conversations').HistoryMessage[]} history  the messages
 *   GET /conversations/{id} shows
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
 * @property {Set<NodeJS.Timeout>} turnTimers  turns running on after their connection (conversations.js)
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

/** @typedef {(ctx: Context, queued: FaultSpec[]) => Promise<void>} Handler */

const DEFAULT_TOKEN = 'emu-token-7f3c9a1e5b';
const CONTROL_PREFIX = '/__emulator/';
const MAX_RECORDED_REQUESTS = 10_000;

/** @type {Record<string, Record<string, Handler>>} */
const ROUTES = {
	'/assistant/ask': { POST: handleAsk },
	'/models/available': { GET: handleModels },
	'/personas/available': { GET: handlePersonas },
	'/models/catalog': { GET: handleCatalog },
	'/__emulator/reset': { POST: handleReset },
	'/__emulator/stats': { GET: handleStats },
};
/** @type {Record<string, Handler>} GET /conversations/{id} */
const CONVERSATION_ROUTE = { GET: handleConversation };

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
	const dialect = options.dialect ?? '2026';
	if (!DIALECTS.includes(dialect)) {
		throw new TypeError(`dialect must be one of ${DIALECTS.join(', ')}, got '${String(dialect)}'`);
	}
	return {
		config: {
			token: options.token ?? DEFAULT_TOKEN,
			dialect,
			replay: replaySpec(options.replay),
			answerDelayMs: options.answerDelayMs ?? 0,
			chunkDelayMs: options.chunkDelayMs ?? 0,
			log: Boolean(options.log),
			conversationRetryAfterMs: options.conversationRetryAfterMs ?? null,
		},
		conversations: new Map(),
		faultQueue: [],
		directiveUses: new Map(),
		activeAsks: new Map(),
		controllers: new Set(),
		sessionPool: options.sessionPool ? new SessionPool(options.sessionPool) : null,
		turnTimers: new Set(),
		stats: {
			requests: [],
			completedAsks: new Map(),
			startedAsks: new Map(),
			maxConcurrentPerConversation: 0,
			conversationOverlaps: 0,
			inFlight: 0,
			maxInFlight: 0,
		},
	};
}

/**
 * @param {EmulatorOptions['replay']} replay
 * @returns {import('./replay').ReplaySpec | null}
 */
function replaySpec(replay) {
	if (replay === undefined) return null;
	if (typeof replay === 'string') return parseReplay(replay);
	return { ...parseReplay(replay.capture), split: replay.split, seed: replay.seed };
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
			stopTurns(state);
		});
		return closing;
	};
}

/** @param {State} state */
function resetState(state) {
	const { stats } = state;
	stopTurns(state);
	state.conversations.clear();
	state.faultQueue.length = 0;
	state.directiveUses.clear();
	stats.requests.length = 0;
	stats.completedAsks.clear();
	stats.startedAsks.clear();
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
	const index = state.faultQueue.findIndex((q) => pathMatches(q.fault.path, path));
	if (index < 0) return [];
	const queued = state.faultQueue[index];
	queued.remaining -= 1;
	if (queued.remaining === 0) state.faultQueue.splice(index, 1);
	return [queued.fault];
}

/**
 * A queued fault's path: any path when absent, every path under a prefix when it ends in `*`
 * (`/conversations/*`), else exactly that path.
 * @param {string | undefined} pattern
 * @param {string} path
 */
function pathMatches(pattern, path) {
	if (pattern === undefined) return true;
	return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
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
	const route = ROUTES[ctx.path] ?? (isConversationPath(ctx.path) ? CONVERSATION_ROUTE : undefined);
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

/**
 * @param {string | undefined} header
 * @param {string} token
 * @returns {RecordedRequest['authorizationForm']}
 */
function authorizationForm(header, token) {
	if (header === undefined) return null;
	return header === `Bearer ${token}` ? 'Bearer <token>' : 'other';
}

/** @param {Context} ctx */
function recordRequest(ctx) {
	const { stats } = ctx.state;
	/** @type {RecordedRequest} */
	const entry = {
		method: ctx.method,
		path: ctx.path,
		authorization: ctx.req.headers.authorization !== undefined,
		authorizationForm: authorizationForm(ctx.req.headers.authorization, ctx.state.config.token),
		body: parseForRecord(ctx.rawBody),
		status: null,
	};
	stats.requests.push(entry);
	// Capped, so a long-running emulator (npm run emulator, a load test) does not grow without end.
	if (stats.requests.length > MAX_RECORDED_REQUESTS) stats.requests.shift();
	respond.noteRecord(ctx.res, entry);
}

/** @param {string} text */
function parseForRecord(text) {
	if (text === '') return undefined;
	const parsed = parseJson(text);
	return parsed.ok ? parsed.value : text;
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
		startedAsks: Object.fromEntries(stats.startedAsks),
		sessionPool: ctx.state.sessionPool?.stats ?? null,
		pendingFaults: faultQueue.map((q) => ({ ...q.fault, remaining: q.remaining })),
	});
}

module.exports = {
	startEmulator,
	DEFAULT_TOKEN,
	DIALECTS,
	ECHO_PRIVATE_MARKER,
};
