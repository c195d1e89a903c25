// @ts-check
'use strict';

/**
 * The ask body checked the way the service's validation answers (docs/api.md#ask-request,
 * docs/api.md#errors): every problem at once, each naming its field in `loc`.
 */

const data = require('./data');
const { validateOutputFormat, isPlainObject } = require('../helpers/outputFormatSubset');

/** @typedef {import('./server').State} State */
/** @typedef {import('../helpers/outputFormatSubset').ValidationDetail} ValidationDetail */
/** @typedef {import('./schema').JsonObject} JsonObject */

/**
 * @typedef {object} Ask
 * @property {string} input
 * @property {string | null} conversationId
 * @property {string} modelId
 * @property {string} personaId
 * @property {JsonObject | null} outputFormat
 * @property {boolean} stream
 */

/**
 * @typedef {{ kind: 'ok', ask: Ask }
 *   | { kind: 'invalid', errors: ValidationDetail[] }
 *   | { kind: 'unknown-conversation' }} AskCheck
 */

const MEMORY_MODES = ['enabled', 'off'];

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

module.exports = { validateAsk };
