/**
 * How much of a response the node holds for one request (docs/api.md#memory-bounds): no server,
 * however broken, makes it hold more. Each bound is decided here and passed down.
 */

/** Characters of answer text one ask may hold; Ask's Options > Max Answer Length raises it. */
export const DEFAULT_ANSWER_LIMIT_CHARS = 32_000_000;

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

/** Of an error response's body, only the start is read: it only goes into a message. */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/** In MiB, for messages. */
export function mebibytes(bytes: number): string {
	return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}
