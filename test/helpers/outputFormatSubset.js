// @ts-check
'use strict';

/**
 * The `output_format` subset of JSON Schema that the service accepts (docs/api.md#ask-request):
 * the root is `{type: 'object', properties, required}`; property types are string, number,
 * boolean, object (with properties and required) and array (with items); `enum` only on strings;
 * `description` anywhere. Anything else is a 422 whose `loc` points at the offending part, as the
 * live service's validation answers. Both test servers (the emulator and the independent one)
 * check schemas with this one module.
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
	// The service's grammar requires `required` on the root and on every nested object.
	if (schema.required === undefined)
		errors.push({ loc: [...loc, 'required'], msg: 'Field required', type: 'missing' });
	else checkRequired(schema.required, properties, [...loc, 'required'], errors);
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

module.exports = { validateOutputFormat, isPlainObject };
