// @ts-check
'use strict';

const http = require('node:http');

/**
 * A fault to inject into a response.
 * @typedef {object} FaultSpec
 * @property {string} name  one of FAULT_NAMES, or a status shorthand such as '429' or '503'
 * @property {string} [path]  queueFault only: the exact request path to hit (default: any path)
 * @property {number} [status]  for 'status': the HTTP status to answer
 * @property {string} [retryAfter]  429/503: Retry-After value, seconds or an HTTP date (429 default '1')
 * @property {number} [retryAfterMs]  429/503: also send a retry-after-ms header
 * @property {number} [ms]  slow-first-byte (default 5000), slow-chunks (250), stall-stream (60000)
 * @property {string} [message]  body text for error200, status faults, error-event and pool faults
 * @property {'error-object' | 'data' | 'detail' | 'error'} [bodyForm]  named faults only: the words
 *   inside `{"error": {"message", "code"}}` (a 200) or `{"data": {"message"}}` (a status) instead of
 *   the usual `{"error": "…"}` / `{"detail": "…"}`; `detail` and `error`: JSON `{"detail": "…"}` or
 *   `{"error": "…"}` from the service, whatever the status (no proxy's page for a 502 or 503)
 * @property {'cut'} [object]  faults after acceptance: the conversation holds a structured answer
 *   cut in half (acceptedFaults.js)
 */

/**
 * What the server does with the faults that apply to one request.
 * @typedef {object} FaultPlan
 * @property {FaultSpec | null} terminal  a fault that replaces the whole response
 * @property {number} slowFirstByteMs  wait before sending anything (0 = no wait)
 * @property {number | null} chunkDelayMs  overrides the emulator's chunk delay
 * @property {number | null} stallMs  pause in the middle of a stream
 * @property {boolean} resetMidStream
 * @property {string | null} errorEvent  message of an error event that cuts the stream short
 * @property {boolean} errorBeforeText  the error event comes before any answer text
 * @property {string | null} retryAfter  Retry-After on the stream's headers (a pool-busy-event asked for it)
 * @property {boolean} noEnd
 * @property {boolean} unreadableEvent  the middle piece of text comes in an event whose JSON is
 *   cut short; the conversation holds the whole answer
 * @property {string | null} completedFailure  2026: the stream ends with `completed` whose status
 *   is `failed`, with this error
 * @property {boolean} crlf
 * @property {'empty' | 'top' | null} endForm  end-empty, end-extra: End's form, whatever the shape
 * @property {boolean} noHeaderId
 * @property {boolean} unknownEvents
 * @property {boolean} splitBytes
 * @property {import('./acceptedFaults').AcceptedFault | null} accepted  a fault that strikes
 *   after the ask was accepted (acceptedFaults.js)
 * @property {number | null} runOnMs  how long the turn runs on once its connection failed
 *   (faults after acceptance, reset-mid-stream)
 * @property {boolean} cutObject  the conversation holds a structured answer cut in half
 * @property {number | null} busyMs  conversation-busy: an earlier ask runs this long
 */

// Faults that strike after the ask was accepted (acceptedFaults.js answers them).
const ACCEPTED_FAULT_NAMES = Object.freeze([
	'empty-json',
	'drop-after-accept',
	'drop-after-headers',
	'empty-answer',
	'accepted-502',
]);

// docs/api.md#credit-failures: a provider's credit failure passes through the service in its
// words (OpenRouter's here), as a 402, inside a 5xx, inside a 200 or as a stream error event.
const CREDIT_MESSAGE =
	'This request requires more credits, or fewer max_tokens. You requested up to 64000 tokens, but can only afford 1843. To increase, visit https://openrouter.ai/settings/credits and add more credits';

/** @type {Record<string, FaultSpec>} the credit faults, as the faults they are spelled with */
const CREDIT_FAULTS = {
	'credit-402': { name: 'status', status: 402, message: CREDIT_MESSAGE },
	'credit-500': { name: 'status', status: 500, message: CREDIT_MESSAGE, bodyForm: 'data' },
	'credit-200': { name: 'error200', message: CREDIT_MESSAGE, bodyForm: 'error-object' },
	'credit-event': { name: 'error-event', message: CREDIT_MESSAGE },
};

// The errors users of the live service met in 2026 (docs/api.md#errors-the-live-service-answered-in-2026).
const PROVIDER_429_MESSAGE =
	"The model stream was interrupted... (status_code: 429, model_name: zai/glm-5.2, body: You've exceeded your subscription rate limits)";
const MODEL_NOT_FOUND_MESSAGE =
	'model_not_found: The model `openai/gpt-5.2` does not exist or is not available';
/** @type {Record<string, FaultSpec>} */
const FAULTS_2026 = {
	'model-disabled': {
		name: 'status',
		status: 403,
		message: 'Model is disabled: vercel:zai/glm-5.2',
	},
	'unknown-provider': {
		name: 'status',
		status: 502,
		message: 'Unknown provider',
		bodyForm: 'detail',
	},
	'model-not-found': {
		name: 'status',
		status: 503,
		message: MODEL_NOT_FOUND_MESSAGE,
		bodyForm: 'detail',
	},
	'provider-429': { name: 'status', status: 502, message: PROVIDER_429_MESSAGE, bodyForm: 'error' },
	'insufficient-balance': { name: 'status', status: 402, message: 'Insufficient Balance' },
	'conversation-not-found': { name: 'status', status: 404, message: 'Conversation not found' },
};
/** @type {Record<string, FaultSpec>} faults that are other faults with their words */
const NAMED_FAULTS = { ...CREDIT_FAULTS, ...FAULTS_2026 };
const DEFAULT_COMPLETED_FAILURE = 'The run failed: the model returned an invalid response';

/** How long a turn runs on after its connection failed, unless the fault's `ms` says. */
const DEFAULT_RUN_ON_MS = 200;

const FAULT_NAMES = Object.freeze([
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
	'unreadable-event',
	'error-event',
	'all-variants',
	'pool-busy',
	'pool-evict',
	'pool-busy-200',
	'pool-busy-event',
	'completed-failed',
	...Object.keys(NAMED_FAULTS),
	...ACCEPTED_FAULT_NAMES,
	'conversation-busy',
]);

// These replace the response entirely, so nothing else about the request matters.
const TERMINAL_FAULTS = new Set([
	'status',
	'error200',
	'garbage',
	'reset',
	'pool-busy',
	'pool-evict',
	'pool-busy-200',
]);

const DEFAULT_MS = {
	'slow-first-byte': 5000,
	'slow-chunks': 250,
	'stall-stream': 60000,
	'conversation-busy': 300,
};
const DEFAULT_ERROR200 = 'The assistant could not complete the request: upstream tool failed';
const DEFAULT_ERROR_EVENT = 'Model provider overloaded';
const BUSY_DETAIL = 'Conversation is busy answering an earlier request';
// docs/api.md#full-session-pool: what matters to a client is the phrase, whatever the status.
const POOL_BUSY_MESSAGE = 'All assistant sessions are busy for this account; try again shortly';
const POOL_EVICT_MESSAGE = 'Session pool is full and cannot evict an idle session';
const UNAUTHORIZED_DETAIL = 'Invalid or missing access token';

/**
 * Checks a fault and turns status shorthands ('429') into { name: 'status', status: 429 }.
 * @param {FaultSpec} spec
 * @returns {FaultSpec}
 */
function normalizeFault(spec) {
	if (!spec || typeof spec !== 'object' || typeof spec.name !== 'string') {
		throw new TypeError('A fault needs a string name');
	}
	const credit = NAMED_FAULTS[spec.name];
	const fault = credit
		? { ...spec, ...credit, message: spec.message ?? credit.message }
		: { ...spec };
	if (/^\d{3}$/.test(fault.name)) {
		fault.status = Number(fault.name);
		fault.name = 'status';
	}
	if (!FAULT_NAMES.includes(fault.name)) {
		throw new TypeError(
			`Unknown fault '${fault.name}'. Known: ${FAULT_NAMES.join(', ')}, or a status like 429`,
		);
	}
	const statusNeeded = fault.name === 'status';
	if ((statusNeeded || fault.status !== undefined) && !isHttpErrorStatus(fault.status)) {
		throw new TypeError(
			`Fault '${fault.name}' needs a status between 400 and 599, got ${String(fault.status)}`,
		);
	}
	if (fault.object !== undefined && fault.object !== 'cut') {
		throw new TypeError(`Fault parameter object must be 'cut', got '${String(fault.object)}'`);
	}
	for (const key of /** @type {const} */ (['ms', 'retryAfterMs'])) {
		const value = fault[key];
		if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
			throw new TypeError(`Fault parameter ${key} must be a number >= 0`);
		}
	}
	return fault;
}

/** @param {unknown} status */
function isHttpErrorStatus(status) {
	return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599;
}

/**
 * Merges the faults that hit one request into a plan. The first terminal fault wins.
 * @param {FaultSpec[]} faults  normalized faults
 * @returns {FaultPlan}
 */
function planFaults(faults) {
	/** @type {FaultPlan} */
	const plan = {
		terminal: null,
		slowFirstByteMs: 0,
		chunkDelayMs: null,
		stallMs: null,
		resetMidStream: false,
		errorEvent: null,
		errorBeforeText: false,
		retryAfter: null,
		noEnd: false,
		unreadableEvent: false,
		completedFailure: null,
		crlf: false,
		endForm: null,
		noHeaderId: false,
		unknownEvents: false,
		splitBytes: false,
		accepted: null,
		runOnMs: null,
		cutObject: false,
		busyMs: null,
	};
	for (const fault of faults) addToPlan(plan, fault);
	return plan;
}

/**
 * @param {FaultPlan} plan
 * @param {FaultSpec} fault
 */
function addToPlan(plan, fault) {
	const ms = fault.ms ?? /** @type {Record<string, number>} */ (DEFAULT_MS)[fault.name];
	if (fault.object === 'cut') plan.cutObject = true;
	switch (fault.name) {
		case 'slow-first-byte':
			plan.slowFirstByteMs += ms;
			return;
		case 'slow-chunks':
			plan.chunkDelayMs = ms;
			return;
		case 'stall-stream':
			plan.stallMs = ms;
			return;
		case 'reset-mid-stream':
			plan.resetMidStream = true;
			plan.runOnMs = fault.ms ?? DEFAULT_RUN_ON_MS;
			return;
		case 'conversation-busy':
			plan.busyMs = ms;
			return;
		case 'error-event':
			plan.errorEvent = fault.message ?? DEFAULT_ERROR_EVENT;
			return;
		case 'pool-busy-event':
			plan.errorEvent = fault.message ?? POOL_BUSY_MESSAGE;
			plan.errorBeforeText = true;
			plan.retryAfter = fault.retryAfter ?? null;
			return;
		case 'completed-failed':
			plan.completedFailure = fault.message ?? DEFAULT_COMPLETED_FAILURE;
			return;
		case 'all-variants':
			Object.assign(plan, { crlf: true, unknownEvents: true, splitBytes: true, endForm: 'top' });
			return;
		case 'end-empty':
			plan.endForm = 'empty';
			return;
		case 'end-extra':
			plan.endForm = 'top';
			return;
		default:
			if (ACCEPTED_FAULT_NAMES.includes(fault.name)) {
				plan.accepted ??= {
					name: /** @type {import('./acceptedFaults').AcceptedFault['name']} */ (fault.name),
					status: fault.status ?? 502,
				};
				plan.runOnMs = fault.ms ?? DEFAULT_RUN_ON_MS;
				return;
			}
			if (TERMINAL_FAULTS.has(fault.name)) {
				plan.terminal = plan.terminal ?? fault;
				return;
			}
			setFlag(plan, fault.name);
	}
}

/** @type {Record<string, keyof FaultPlan>} */
const FLAG_BY_NAME = {
	'no-end': 'noEnd',
	'unreadable-event': 'unreadableEvent',
	crlf: 'crlf',
	'no-header-id': 'noHeaderId',
	'unknown-events': 'unknownEvents',
	'split-bytes': 'splitBytes',
};

/**
 * @param {FaultPlan} plan
 * @param {string} name
 */
function setFlag(plan, name) {
	const flag = FLAG_BY_NAME[name];
	if (flag) /** @type {Record<string, unknown>} */ (plan)[flag] = true;
}

/**
 * @typedef {object} CannedResponse
 * @property {number} status
 * @property {Record<string, string>} headers
 * @property {string} body
 */

/**
 * The response a `status` fault answers with: the bodies the live service and the proxies in
 * front of it send (JSON from the service, plain text or HTML from the proxies for 502-504).
 * @param {FaultSpec} fault
 * @returns {CannedResponse}
 */
function statusFaultResponse(fault) {
	const status = fault.status ?? 500;
	const body =
		fault.bodyForm === 'data'
			? { data: { message: fault.message } }
			: fault.bodyForm === 'error'
				? { error: fault.message }
				: serviceErrorBody(status, fault.message);
	const fromService = fault.bodyForm === 'detail' || fault.bodyForm === 'error';
	const response = (fromService ? null : proxyResponse(status)) ?? jsonResponse(status, body);
	if (status === 401) response.headers['www-authenticate'] = 'Bearer';
	if (status === 429 || (status === 503 && fault.retryAfter !== undefined)) {
		response.headers['retry-after'] = String(fault.retryAfter ?? '1');
	}
	if ((status === 429 || status === 503) && fault.retryAfterMs !== undefined) {
		response.headers['retry-after-ms'] = String(fault.retryAfterMs);
	}
	return response;
}

/**
 * @param {number} status
 * @param {string | undefined} message
 * @returns {unknown}
 */
function serviceErrorBody(status, message) {
	if (status === 422) {
		return {
			detail: [
				{ loc: ['body', 'input'], msg: message ?? 'Field required', type: 'missing' },
				{ loc: ['body', 'model_name'], msg: "Unknown model 'emulated-fault'", type: 'value_error' },
			],
		};
	}
	/** @type {Record<number, string>} */
	const details = {
		401: UNAUTHORIZED_DETAIL,
		404: 'Not Found',
		408: 'Request timeout',
		409: BUSY_DETAIL,
		429: 'Rate limit exceeded',
		500: 'Internal server error',
	};
	return { detail: message ?? details[status] ?? http.STATUS_CODES[status] ?? `HTTP ${status}` };
}

/**
 * @param {number} status
 * @returns {CannedResponse | null}
 */
function proxyResponse(status) {
	if (status === 502) {
		return htmlResponse(502, 'Bad Gateway');
	}
	if (status === 503) {
		return {
			status,
			headers: { 'content-type': 'text/plain' },
			body: 'upstream connect error or disconnect/reset before headers. reset reason: overflow',
		};
	}
	if (status === 504) {
		return htmlResponse(504, 'Gateway Time-out');
	}
	return null;
}

/**
 * @param {number} status
 * @param {string} title
 * @returns {CannedResponse}
 */
function htmlResponse(status, title) {
	const body =
		`<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n` +
		`<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
	return { status, headers: { 'content-type': 'text/html' }, body };
}

/**
 * @param {number} status
 * @param {unknown} value
 * @returns {CannedResponse}
 */
function jsonResponse(status, value) {
	return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

/**
 * A full session pool (docs/api.md#full-session-pool) as a non-2xx answer: JSON whose message
 * says the sessions are busy (or cannot be evicted), with Retry-After only when given.
 * @param {{ status?: number, retryAfter?: string, message?: string }} options
 * @returns {CannedResponse}
 */
function sessionPoolResponse({ status = 503, retryAfter, message = POOL_BUSY_MESSAGE }) {
	const response = jsonResponse(status, { detail: message });
	if (retryAfter !== undefined) response.headers['retry-after'] = retryAfter;
	return response;
}

/**
 * The response of a fault that replaces the whole answer.
 * @param {FaultSpec} fault  a terminal fault other than `reset`
 * @returns {CannedResponse}
 */
function terminalResponse(fault) {
	switch (fault.name) {
		case 'status':
			return statusFaultResponse(fault);
		case 'pool-busy':
			return sessionPoolResponse({ ...fault, status: fault.status ?? 503 });
		case 'pool-evict':
			return sessionPoolResponse({
				...fault,
				status: fault.status ?? 500,
				message: fault.message ?? POOL_EVICT_MESSAGE,
			});
		case 'pool-busy-200': {
			const response = jsonResponse(200, { error: fault.message ?? POOL_BUSY_MESSAGE });
			if (fault.retryAfter !== undefined) response.headers['retry-after'] = fault.retryAfter;
			return response;
		}
		default:
			return fakeSuccessResponse(fault);
	}
}

/**
 * The response of an `error200` or `garbage` fault.
 * @param {FaultSpec} fault
 * @returns {CannedResponse}
 */
function fakeSuccessResponse(fault) {
	if (fault.name === 'garbage') {
		return { status: 200, headers: { 'content-type': 'application/json' }, body: '<html>oops' };
	}
	const message = fault.message ?? DEFAULT_ERROR200;
	if (fault.bodyForm === 'error-object')
		return jsonResponse(200, { error: { message, code: 402 } });
	return jsonResponse(200, { error: message });
}

module.exports = {
	FAULT_NAMES,
	ACCEPTED_FAULT_NAMES,
	BUSY_DETAIL,
	UNAUTHORIZED_DETAIL,
	POOL_BUSY_MESSAGE,
	CREDIT_MESSAGE,
	FAULTS_2026,
	normalizeFault,
	planFaults,
	terminalResponse,
	sessionPoolResponse,
};
