import type { OutputFormatProperty, OutputFormatSchema } from '../api';

/**
 * A JSON Schema derived from a JSON example, inside the subset the service accepts
 * (docs/api.md#ask-request): strings, numbers, booleans, arrays with `items`, objects with
 * `properties`; every property of the example is required, as the example has them all.
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
	return objectSchema(example, '') as OutputFormatSchema;
}

function valueSchema(value: unknown, path: string): OutputFormatProperty {
	if (typeof value === 'string') return { type: 'string' };
	if (typeof value === 'number') return { type: 'number' };
	if (typeof value === 'boolean') return { type: 'boolean' };
	if (Array.isArray(value)) return arraySchema(value, path);
	if (isPlainObject(value)) return objectSchema(value, path);
	throw new SchemaExampleError(
		path,
		'is null: give an example value instead (text, a number, true or false, a list or an object)',
	);
}

function arraySchema(values: unknown[], path: string): OutputFormatProperty {
	if (values.length === 0) {
		throw new SchemaExampleError(path, 'is an empty list: give one example element, e.g. ["…"]');
	}
	// Objects in a list may each show some of the fields: together they give the element's shape.
	if (values.length > 1 && values.every(isPlainObject)) {
		return { type: 'array', items: mergedObjectSchema(values, `${path}[]`) };
	}
	return { type: 'array', items: valueSchema(values[0], `${path}[]`) };
}

function objectSchema(value: Record<string, unknown>, path: string): OutputFormatProperty {
	const keys = Object.keys(value);
	if (keys.length === 0) {
		throw new SchemaExampleError(path, 'is an empty object: give it at least one field');
	}
	const properties: Record<string, OutputFormatProperty> = {};
	for (const key of keys) properties[key] = valueSchema(value[key], join(path, key));
	return { type: 'object', properties, required: keys };
}

/** Fields seen in every element are required; a field's shape comes from its first appearance. */
function mergedObjectSchema(values: Array<Record<string, unknown>>, path: string) {
	const merged: Record<string, unknown> = {};
	for (const value of values) {
		for (const [key, field] of Object.entries(value)) if (!(key in merged)) merged[key] = field;
	}
	const schema = objectSchema(merged, path) as Extract<OutputFormatProperty, { type: 'object' }>;
	schema.required = Object.keys(merged).filter((key) => values.every((value) => key in value));
	return schema;
}

function join(path: string, key: string): string {
	return path ? `${path}.${key}` : key;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
