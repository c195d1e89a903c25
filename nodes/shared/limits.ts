/**
 * How much of a response the node holds for one request (docs/api.md#memory-bounds): no server,
 * however broken, makes it hold more. Each bound is decided here and passed down.
 */

/** Characters of answer text one ask may hold; Ask's Options > Max Answer Length raises it. */
export const DEFAULT_ANSWER_LIMIT_CHARS = 32_000_000;

/**
 * What each part, step or other entry a stream's answer holds counts toward the answer's bound,
 * in characters, whatever its text: a stream of countless empty parts or tool calls holds
 * memory too.
 */
export const HELD_ENTRY_CHARS = 64;

/** The most Options > Max Answer Length may be raised to, in characters. */
export const MAX_ANSWER_LIMIT_CHARS = 512_000_000;

/** The least any SSE line, SSE event or JSON body may hold (lists, conversations, answers). */
const MIN_MESSAGE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Bytes one SSE line, one SSE event or one JSON body may hold. One event (a snapshot, `End`'s
 * `output`) or one JSON answer can carry the whole answer, so the bound grows with the answer's.
 */
export function messageLimitBytes(answerLimitChars = DEFAULT_ANSWER_LIMIT_CHARS): number {
	return Math.max(MIN_MESSAGE_LIMIT_BYTES, 2 * answerLimitChars);
}

/**
 * Values (objects, arrays, strings, numbers) one JSON text from the service may hold: within the
 * byte bounds above, a text of tiny values (`[{},{},…]`) would still grow to gigabytes once
 * parsed. A million is far more than any answer, list or conversation holds.
 */
export const MAX_JSON_VALUES = 1_000_000;

/** Bytes a list of models or personas, or the catalog, may hold: they are small. */
export const LIST_LIMIT_BYTES = 8 * 1024 * 1024;

/** Entries a list (models, personas) may have: each becomes an output item. */
export const MAX_LIST_ENTRIES = 10_000;

/** Of an error response's body, only the start is read: it only goes into a message. */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/** In MiB, for messages. */
export function mebibytes(bytes: number): string {
	return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}
