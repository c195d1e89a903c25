import type { OutputFormatProperty, OutputFormatSchema } from '../api';
import { MAX_SCHEMA_DEPTH } from './outputFormatGrammar';

/**
 * A JSON Schema derived from a JSON example, inside the subset the service accepts
 * (docs/api.md#ask-request): strings, numbers, booleans, arrays with `items`, objects with
 * `properties`; every property of the example is required, as the example has them all. It
 * follows the grammar's limits (outputFormatGrammar.ts) as the example is read: no deeper than
 * MAX_SCHEMA_DEPTH (an example nested deeper, or an object that holds itself, is refused before
 * it could exhaust the stack), and no property named `__proto__`.
 */

/** Why an example cannot give a schema: the path in the example, and what to change. */
export class SchemaExampleError extends Error {
	constructor(
		readonly path: string,
		readonly fix: string,
	) {
		super(path ? `JSON Example: "${path}" ${fix}` : `JSON Example ${fix}`);
		this.name = 'SchemaExampleError';
	}
}

export function schemaFromExample(example: unknown): OutputFormatSchema {
	if (!isPlainObject(example)) {
		throw new SchemaExampleError('', 'must be an object, e.g. {"summary": "…", "tags": ["…"]}');
	}
	return objectSchema(example, '', 0) as OutputFormatSchema;
}

function valueSchema(value: unknown, path: string, depth: number): OutputFormatProperty {
	if (depth > MAX_SCHEMA_DEPTH) {
		throw new SchemaExampleError(
			path,
			`is nested deeper than ${MAX_SCHEMA_DEPTH} levels: flatten the example`,
		);
	}
	if (typeof value === 'string') return { type: 'string' };
	if (typeof value === 'number') return { type: 'number' };
	if (typeof value === 'boolean') return { type: 'boolean' };
	if (Array.isArray(value)) return arraySchema(value, path, depth);
	if (isPlainObject(value)) return objectSchema(value, path, depth);
	throw new SchemaExampleError(
		path,
		'is null: give an example value instead (text, a number, true or false, a list or an object)',
	);
}

function arraySchema(values: unknown[], path: string, depth: number): OutputFormatProperty {
	if (values.length === 0) {
		throw new SchemaExampleError(path, 'is an empty list: give one example element, e.g. ["…"]');
	}
	// Objects in a list may each show some of the fields: together they give the element's shape.
	if (values.length > 1 && values.every(isPlainObject)) {
		return { type: 'array', items: mergedObjectSchema(values, `${path}[]`, depth + 1) };
	}
	return { type: 'array', items: valueSchema(values[0], `${path}[]`, depth + 1) };
}

function objectSchema(
	value: Record<string, unknown>,
	path: string,
	depth: number,
): OutputFormatProperty {
	const keys = Object.keys(value);
	if (keys.length === 0) {
		throw new SchemaExampleError(path, 'is an empty object: give it at least one field');
	}
	const properties: Record<string, OutputFormatProperty> = {};
	for (const key of keys) {
		properties[fieldName(key, path)] = valueSchema(value[key], join(path, key), depth + 1);
	}
	return { type: 'object', properties, required: keys };
}

/** Fields seen in every element are required; a field's shape comes from its first appearance. */
function mergedObjectSchema(values: Array<Record<string, unknown>>, path: string, depth: number) {
	const merged: Record<string, unknown> = {};
	for (const value of values) {
		for (const [key, field] of Object.entries(value)) {
			if (!Object.hasOwn(merged, fieldName(key, path))) merged[key] = field;
		}
	}
	const schema = objectSchema(merged, path, depth) as Extract<
		OutputFormatProperty,
		{ type: 'object' }
	>;
	schema.required = Object.keys(merged).filter((key) =>
		values.every((value) => Object.hasOwn(value, key)),
	);
	return schema;
}

/**
 * A field's name, as the schema's properties take it: `__proto__` would set an object's prototype
 * there instead, and the field would be lost while `required` names it (the grammar refuses it).
 */
function fieldName(key: string, path: string): string {
	if (key === '__proto__') {
		throw new SchemaExampleError(join(path, key), 'cannot be sent: rename the field, e.g. "proto"');
	}
	return key;
}

function join(path: string, key: string): string {
	return path ? `${path}.${key}` : key;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
