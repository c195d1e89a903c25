// @ts-check
'use strict';

/**
 * The emulator's structured answers: an object that conforms to a (validated) output_format, built
 * from the ask's input so that tests can predict it.
 */

/** @typedef {Record<string, unknown>} JsonObject */

const ECHO_PROPERTY_RE = /summary|text|answer|content|message|reply|response|output|input/i;

/**
 * Builds an answer that conforms to a (validated) output_format: every property is present.
 * @param {JsonObject} schema
 * @param {string} input
 * @returns {JsonObject}
 */
function buildOutput(schema, input) {
	/** @type {JsonObject} */
	const out = {};
	const properties = /** @type {Record<string, JsonObject>} */ (schema.properties);
	for (const [name, property] of Object.entries(properties)) {
		// defineProperty, because a property may be called "__proto__".
		Object.defineProperty(out, name, {
			value: buildValue(name, property, input),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return out;
}

/**
 * @param {string} name
 * @param {JsonObject} property
 * @param {string} input
 * @returns {unknown}
 */
function buildValue(name, property, input) {
	switch (property.type) {
		case 'string':
			return buildString(name, property, input);
		case 'number':
			return 42;
		case 'boolean':
			return true;
		case 'array':
			return [buildValue(name, /** @type {JsonObject} */ (property.items), input)];
		default:
			return buildOutput(property, input);
	}
}

/**
 * @param {string} name
 * @param {JsonObject} property
 * @param {string} input
 */
function buildString(name, property, input) {
	if (Array.isArray(property.enum)) return String(property.enum[0]);
	if (ECHO_PROPERTY_RE.test(name)) return input;
	return `${name} of ${truncate(input, 40)}`;
}

/**
 * Cuts by code points, so a surrogate pair is never split.
 * @param {string} text
 * @param {number} max
 */
function truncate(text, max) {
	const points = Array.from(text);
	return points.length <= max ? text : `${points.slice(0, max).join('')}…`;
}

module.exports = { buildOutput };
