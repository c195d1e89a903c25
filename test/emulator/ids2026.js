// @ts-check
'use strict';

/**
 * The ids of the 2026 dialect, in the forms the captures show (docs/api.md#2026-stream-dialect):
 * `con_` + 16 letters and digits for a conversation, `<8 hex>@<ms>-<n>` on each event's `id:`
 * line, 12-character message ids (`zmid`), a UUID runner, `call_` + 24 hex for a tool call.
 */

const crypto = require('node:crypto');

const STREAM_CONTENT_TYPE_2026 = 'text/event-stream; charset=utf-8';
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LOWER_ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * @param {string} alphabet
 * @param {number} length
 */
function randomString(alphabet, length) {
	const bytes = crypto.randomBytes(length);
	let text = '';
	for (const byte of bytes) text += alphabet[byte % alphabet.length];
	return text;
}

/** A conversation id as the service gave it in 2026: `con_` + 16 letters and digits. */
function conversationId2026() {
	return `con_${randomString(ALPHANUMERIC, 16)}`;
}

/** @returns {import('./frames2026').RunIds} */
function runIds() {
	const messageId = () => randomString(LOWER_ALPHANUMERIC, 12);
	return {
		runnerId: crypto.randomUUID(),
		userMessageId: messageId(),
		zmids: [messageId(), messageId(), messageId()],
		toolCallId: `call_${crypto.randomBytes(12).toString('hex')}`,
		timestamp: new Date().toISOString().replace('Z', '000Z'),
	};
}

/**
 * The `id:` values of one stream, `3907e0ce@1789870143394-0`: the stream's own prefix, then the
 * time in ms and a counter within that ms, as a Redis stream id.
 * @returns {() => string}
 */
function eventIds() {
	const prefix = crypto.randomBytes(4).toString('hex');
	let lastMs = 0;
	let sequence = 0;
	return () => {
		const now = Math.max(Date.now(), lastMs);
		sequence = now === lastMs ? sequence + 1 : 0;
		lastMs = now;
		return `${prefix}@${now}-${sequence}`;
	};
}

module.exports = { conversationId2026, runIds, eventIds, STREAM_CONTENT_TYPE_2026 };
