import { MAX_JSON_VALUES } from './limits';

/** A JSON object as it comes off the wire: its fields by name, each still to be checked. */
export type JsonObject = Record<string, unknown>;

/** A JSON text of more than MAX_JSON_VALUES values (limits.ts): not parsed. */
export class TooManyJsonValues extends Error {
	constructor() {
		super(`The JSON holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values`);
	}
}

/**
 * JSON.parse of a text from the service, which may not hold more than MAX_JSON_VALUES values
 * (docs/api.md#memory-bounds): TooManyJsonValues then; a SyntaxError as JSON.parse throws it.
 */
export function parseJson(text: string): unknown {
	// Every value takes at least a character: a shorter text cannot hold too many.
	if (text.length > MAX_JSON_VALUES && !valuesAtMost(text, MAX_JSON_VALUES)) {
		throw new TooManyJsonValues();
	}
	return JSON.parse(text);
}

/**
 * Whether the text's values (counted by the characters that open or follow one outside strings:
 * `{`, `[` and `,`) are at most `most`. Strings are skipped whole, so that a long text answer
 * costs one search for its closing quote.
 */
function valuesAtMost(text: string, most: number): boolean {
	let values = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code === QUOTE) {
			i = closingQuote(text, i);
			if (i < 0) return true; // not JSON: JSON.parse says so
		} else if (code === OPEN_BRACE || code === OPEN_BRACKET || code === COMMA) {
			if (++values > most) return false;
		}
	}
	return true;
}

/** Where the string opened at `open` ends, or -1 when it does not. */
function closingQuote(text: string, open: number): number {
	let at = text.indexOf('"', open + 1);
	while (at > 0) {
		let backslashes = 0;
		while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
		if (backslashes % 2 === 0) return at;
		at = text.indexOf('"', at + 1);
	}
	return -1;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * Whether a text that did not parse as JSON opens as JSON's object, list or string does: then it
 * is JSON cut short (or past the bound on values), not words, and none of it is shown.
 */
export function opensAsJson(text: string): boolean {
	return /^\s*[[{"]/.test(text);
}

/** The JSON object a text holds; undefined when it is not JSON, or not an object (or too big). */
export function parseJsonObject(text: string): JsonObject | undefined {
	try {
		const value: unknown = parseJson(text);
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
