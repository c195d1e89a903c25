// @ts-check
'use strict';

const { normalizeFault } = require('./faults');
const { parseShape } = require('./shapes');
const { ASKABLE_MODEL_IDS } = require('./data');
const { parseReplay } = require('./replay');

/** @typedef {import('./faults').FaultSpec} FaultSpec */
/** @typedef {import('./shapes').StreamShape} StreamShape */

/**
 * @typedef {object} FaultDirective
 * @property {string} raw  the directive as written, e.g. '#fault=429&retryAfter=1'
 * @property {FaultSpec} fault
 * @property {number | null} times  only the first `times` asks with the same input get it
 */

/**
 * @typedef {object} Directives
 * @property {FaultDirective[]} faults
 * @property {number | null} delayMs  `#delay=<ms>`: overrides answerDelayMs
 * @property {StreamShape | null} shape  `#shape=<token>+...`: this ask's stream shape
 * @property {string | null} fallbackModel  `#fallback=<model>`: the model that answers instead
 * @property {import('./replay').ReplaySpec | null} replay  `#replay=<capture>[&split=…][&seed=…]`:
 *   the answer is that capture, byte for byte (replay.js)
 * @property {string[]} errors  problems with the directives, answered as 422
 */

// A directive runs up to the next whitespace or '#', so several can share an input.
const DIRECTIVE_RE = /#(fault|delay|shape|fallback|replay)=([^\s#]*)/g;
const MAX_DELAY_MS = 10 * 60 * 1000;

/**
 * Reads the emulator directives (`#fault=`, `#delay=`, `#shape=`, `#fallback=`, `#replay=`) out of
 * an ask input.
 * @param {string} input
 * @returns {Directives}
 */
function parseDirectives(input) {
	/** @type {Directives} */
	const result = {
		faults: [],
		delayMs: null,
		shape: null,
		fallbackModel: null,
		replay: null,
		errors: [],
	};
	for (const match of input.matchAll(DIRECTIVE_RE)) {
		const [raw, kind, value] = match;
		if (kind === 'fault') addFaultDirective(result, raw, value);
		else if (kind === 'delay') result.delayMs = parseBounded(result, raw, value, MAX_DELAY_MS);
		else if (kind === 'shape') result.shape = attempt(result, raw, () => parseShape(value));
		else if (kind === 'replay') result.replay = attempt(result, raw, () => parseReplay(value));
		else result.fallbackModel = attempt(result, raw, () => knownModel(value));
	}
	return result;
}

/**
 * @template T
 * @param {Directives} result
 * @param {string} raw
 * @param {() => T} read  throws a TypeError saying what is wrong
 * @returns {T | null}
 */
function attempt(result, raw, read) {
	try {
		return read();
	} catch (error) {
		result.errors.push(
			`Directive ${raw}: ${error instanceof Error ? error.message : String(error)}`,
		);
		return null;
	}
}

/** @param {string} id */
function knownModel(id) {
	if (!ASKABLE_MODEL_IDS.has(id)) throw new TypeError(`unknown model '${id}'`);
	return id;
}

/**
 * @param {Directives} result
 * @param {string} raw
 * @param {string} value
 * @param {number} max
 * @returns {number | null}
 */
function parseBounded(result, raw, value, max) {
	const n = Number(value);
	if (value === '' || !Number.isInteger(n) || n < 0 || n > max) {
		result.errors.push(`Directive ${raw}: expected a whole number from 0 to ${max}`);
		return null;
	}
	return n;
}

/**
 * `#fault=<name>[&key=value...]`, keys: status, retryAfter, retryAfterMs, ms, message, object,
 * times.
 * @param {Directives} result
 * @param {string} raw
 * @param {string} value
 */
function addFaultDirective(result, raw, value) {
	const [name, ...params] = value.split('&');
	/** @type {FaultSpec} */
	const spec = { name };
	let times = null;
	const fault = attempt(result, raw, () => {
		for (const param of params) {
			const [key, text] = splitParam(param);
			if (key === 'times') times = parseTimes(text);
			else setFaultParam(spec, key, text);
		}
		return normalizeFault(spec);
	});
	if (fault) result.faults.push({ raw, fault, times });
}

/**
 * @param {string} param
 * @returns {[string, string]}
 */
function splitParam(param) {
	const eq = param.indexOf('=');
	if (eq <= 0) throw new TypeError(`parameter '${param}' is not key=value`);
	const text = param.slice(eq + 1);
	try {
		return [param.slice(0, eq), decodeURIComponent(text)];
	} catch {
		return [param.slice(0, eq), text];
	}
}

/** @param {string} text */
function parseTimes(text) {
	const n = Number(text);
	if (!Number.isInteger(n) || n < 1) throw new TypeError('times must be a whole number >= 1');
	return n;
}

/**
 * @param {FaultSpec} spec
 * @param {string} key
 * @param {string} text
 */
function setFaultParam(spec, key, text) {
	switch (key) {
		case 'status':
		case 'retryAfterMs':
		case 'ms':
			if (text === '' || !Number.isFinite(Number(text)))
				throw new TypeError(`${key} must be a number`);
			spec[key] = Number(text);
			return;
		case 'retryAfter':
		case 'message':
			spec[key] = text;
			return;
		case 'object':
			if (text !== 'cut') throw new TypeError("object must be 'cut'");
			spec.object = text;
			return;
		default:
			throw new TypeError(`unknown parameter '${key}'`);
	}
}

module.exports = { parseDirectives };
