/** A JSON object as it comes off the wire: its fields by name, each still to be checked. */
export type JsonObject = Record<string, unknown>;

/** The JSON object a text holds; undefined when it is not JSON, or not an object. */
export function parseJsonObject(text: string): JsonObject | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return isObject(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/** An object, or JSON text of one; undefined for anything else. */
export function objectOfJson(value: unknown): JsonObject | undefined {
	if (isObject(value)) return value;
	return typeof value === 'string' ? parseJsonObject(value) : undefined;
}

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
