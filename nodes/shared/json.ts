/** A JSON object as it comes off the wire: its fields by name, each still to be checked. */
export type JsonObject = Record<string, unknown>;

/** An object, or JSON text of one; undefined for anything else. */
export function objectOfJson(value: unknown): JsonObject | undefined {
	if (isObject(value)) return value;
	if (typeof value !== 'string') return undefined;
	try {
		const parsed: unknown = JSON.parse(value);
		return isObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
