// @ts-check
'use strict';

/**
 * The `output_format` subset of JSON Schema that the service accepts (field notes): the root is
 * `{type: 'object', properties, required?}`; property types are string, number, boolean,
 * object (with properties, required?) and array (with items); `enum` only on strings;
 * `description` anywhere. Anything else is a 422, like the live service.
 */

/** @typedef {{ loc: Array<string | number>, msg: string, type: string }} ValidationDetail */
/** @typedef {Record<string, unknown>} JsonObject */

const PROPERTY_TYPES = ['string', 'number', 'boolean', 'object', 'array'];
/** @type {Record<string, string[]>} keywords allowed beside `type` and `description` */
const KEYWORDS_BY_TYPE = {
	string: ['enum'],
	number: [],
	boolean: [],
	object: ['properties', 'required'],
	array: ['items'],
};
// Deeper schemas are refused rather than risking the stack on hostile input.
const MAX_DEPTH = 32;
const ECHO_PROPERTY_RE = /summary|text|answer|content|message|reply|response|output|input/i;

/**
 * @param {unknown} value
 * @returns {value is JsonObject}
 */
function isPlainObject(value) {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates an output_format; returns the 422 detail entries (empty when the schema is fine).
 * @param {unknown} schema
 * @param {Array<string | number>} loc  where the schema sits, e.g. ['body', 'output_format']
 * @returns {ValidationDetail[]}
 */
function validateOutputFormat(schema, loc) {
	/** @type {ValidationDetail[]} */
	const errors = [];
	if (!isPlainObject(schema)) {
		errors.push({ loc, msg: 'Input should be a valid dictionary', type: 'dict_type' });
		return errors;
	}
	if (schema.type !== 'object') {
		errors.push(typeError(schema, loc, "Input should be 'object'"));
		return errors;
	}
	checkProperty(schema, loc, errors, 0);
	return errors;
}

/**
 * @param {JsonObject} schema
 * @param {Array<string | number>} loc
 * @param {string} msg
 * @returns {ValidationDetail}
 */
function typeError(schema, loc, msg) {
	if (!('type' in schema)) return { loc: [...loc, 'type'], msg: 'Field required', type: 'missing' };
	return { loc: [...loc, 'type'], msg, type: 'literal_error' };
}

/**
 * @param {unknown} schema
 * @param {Array<string | number>} loc
 * @param {ValidationDetail[]} errors
 * @param {number} depth
 */
function checkProperty(schema, loc, errors, depth) {
	if (!isPlainObject(schema)) {
		errors.push({ loc, msg: 'Input should be a valid dictionary', type: 'dict_type' });
		return;
	}
	if (depth > MAX_DEPTH) {
		errors.push({
			loc,
			msg: `Schema nesting deeper than ${MAX_DEPTH} levels`,
			type: 'value_error',
		});
		return;
	}
	const type = schema.type;
	if (typeof type !== 'string' || !PROPERTY_TYPES.includes(type)) {
		errors.push(
			typeError(schema, loc, "Input should be 'string', 'number', 'boolean', 'object' or 'array'"),
		);
		return;
	}
	checkKeywords(schema, type, loc, errors);
	if (schema.description !== undefined && typeof schema.description !== 'string') {
		errors.push({
			loc: [...loc, 'description'],
			msg: 'Input should be a valid string',
			type: 'string_type',
		});
	}
	if (type === 'string' && schema.enum !== undefined)
		checkEnum(schema.enum, [...loc, 'enum'], errors);
	if (type === 'object') checkObject(schema, loc, errors, depth);
	if (type === 'array') {
		if (!('items' in schema))
			errors.push({ loc: [...loc, 'items'], msg: 'Field required', type: 'missing' });
		else checkProperty(schema.items, [...loc, 'items'], errors, depth + 1);
	}
}

/**
 * Refuses keywords outside the subset (format, minimum, $ref, additionalProperties, ...).
 * @param {JsonObject} schema
 * @param {string} type
 * @param {Array<string | number>} loc
 * @param {ValidationDetail[]} errors
 */
function checkKeywords(schema, type, loc, errors) {
	const allowed = ['type', 'description', ...KEYWORDS_BY_TYPE[type]];
	for (const key of Object.keys(schema)) {
		if (allowed.includes(key)) continue;
		const msg =
			key === 'enum'
				? 'enum is only allowed on string properties'
				: 'Extra inputs are not permitted';
		errors.push({
			loc: [...loc, key],
			msg,
			type: key === 'enum' ? 'value_error' : 'extra_forbidden',
		});
	}
}

/**
 * @param {unknown} values
 * @param {Array<string | number>} loc
 * @param {ValidationDetail[]} errors
 */
function checkEnum(values, loc, errors) {
	if (!Array.isArray(values) || values.length === 0) {
		errors.push({ loc, msg: 'enum must be a non-empty list of strings', type: 'value_error' });
		return;
	}
	values.forEach((value, i) => {
		if (typeof value !== 'string')
			errors.push({ loc: [...loc, i], msg: 'Input should be a valid string', type: 'string_type' });
	});
}

/**
 * @param {JsonObject} schema
 * @param {Array<string | number>} loc
 * @param {ValidationDetail[]} errors
 * @param {number} depth
 */
function checkObject(schema, loc, errors, depth) {
	const properties = schema.properties;
	if (!isPlainObject(properties)) {
		const missing = properties === undefined;
		errors.push({
			loc: [...loc, 'properties'],
			msg: missing ? 'Field required' : 'Input should be a valid dictionary',
			type: missing ? 'missing' : 'dict_type',
		});
		return;
	}
	for (const [name, property] of Object.entries(properties)) {
		checkProperty(property, [...loc, 'properties', name], errors, depth + 1);
	}
	if (schema.required !== undefined)
		checkRequired(schema.required, properties, [...loc, 'required'], errors);
}

/**
 * @param {unknown} required
 * @param {JsonObject} properties
 * @param {Array<string | number>} loc
 * @param {ValidationDetail[]} errors
 */
function checkRequired(required, properties, loc, errors) {
	if (!Array.isArray(required)) {
		errors.push({ loc, msg: 'Input should be a valid list', type: 'list_type' });
		return;
	}
	required.forEach((name, i) => {
		if (typeof name !== 'string') {
			errors.push({ loc: [...loc, i], msg: 'Input should be a valid string', type: 'string_type' });
		} else if (!Object.prototype.hasOwnProperty.call(properties, name)) {
			errors.push({
				loc: [...loc, i],
				msg: `Required property '${name}' is not in properties`,
				type: 'value_error',
			});
		}
	});
}

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

module.exports = { validateOutputFormat, buildOutput, isPlainObject };
