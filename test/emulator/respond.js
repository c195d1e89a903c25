// @ts-check
'use strict';

/**
 * How the emulator answers at the HTTP level: response heads noted in the recorded request, JSON
 * and canned bodies, faults that replace the whole response, the token check, reading bodies.
 */

const { setTimeout: sleep } = require('node:timers/promises');
const faults = require('./faults');

/** @typedef {import('./server').Context} Context */
/** @typedef {import('./server').RecordedRequest} RecordedRequest */
/** @typedef {import('./faults').FaultSpec} FaultSpec */
/** @typedef {import('./faults').CannedResponse} CannedResponse */
/** @typedef {import('node:http').ServerResponse} ServerResponse */
/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {import('./writer').ResponseWriter} ResponseWriter */

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** @type {WeakMap<ServerResponse, RecordedRequest>} so writeHead can note the status */
const recordByResponse = new WeakMap();

/**
 * @param {ServerResponse} res
 * @param {RecordedRequest} entry  the record that gets the response's status
 */
function noteRecord(res, entry) {
	recordByResponse.set(res, entry);
}

/**
 * Every response head goes through here, so the recorded request gets its status as soon as the
 * status is decided.
 * @param {ServerResponse} res
 * @param {number} status
 * @param {Record<string, string>} headers
 */
function writeHead(res, status, headers) {
	res.writeHead(status, headers);
	const entry = recordByResponse.get(res);
	if (entry) entry.status = status;
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
 * @param {IncomingMessage} req
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
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
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
 * @param {ServerResponse} res
 * @param {number} status
 * @param {unknown} value
 * @param {Record<string, string>} [headers]
 */
function sendJson(res, status, value, headers = {}) {
	const body = JSON.stringify(value);
	sendCanned(res, { status, headers: { 'content-type': 'application/json', ...headers }, body });
}

/**
 * @param {ServerResponse} res
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
 * @param {ServerResponse} res
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

/**
 * @param {Context} ctx
 * @param {ResponseWriter} writer
 */
async function dropConnection(ctx, writer) {
	await writer.flushed();
	ctx.req.socket.destroy();
}

module.exports = {
	noteRecord,
	writeHead,
	parseJson,
	readBody,
	handleFailure,
	sendJson,
	sendCanned,
	endResponse,
	wait,
	applyFaults,
	authorize,
	dropConnection,
};
