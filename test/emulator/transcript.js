// @ts-check
'use strict';

/**
 * Reads the Assistant Chat Model's transcript (docs/api.md#the-chat-models-transcript), as the
 * service's model would: a preface (none in a later ask of the conversation), a JSON array with
 * one message per line, and the workflow's tool catalogue after it. Written from docs/api.md, apart from the node's own reader, so that
 * the scripted replies depend on the documented form only.
 */

/** @typedef {{ role: string, content: string, tool?: string, failed?: boolean }} TranscriptMessage */
/** @typedef {{ messages: TranscriptMessage[], catalogue: string }} Transcript */

const PREFACE_START = 'This message is a transcript written by n8n (Assistant Chat Model)';

/**
 * The transcript in an ask's input, or null when the input is not one.
 * @param {string} input
 * @returns {Transcript | null}
 */
function readTranscript(input) {
	const continued = input.startsWith('[\n');
	if (!continued && !input.startsWith(PREFACE_START)) return null;
	const lines = input.split('\n');
	const open = lines.indexOf('[');
	const close = lines.indexOf(']', open + 1);
	if (open !== (continued ? 0 : 1) || close < 0) return null;
	let messages;
	try {
		messages = JSON.parse(lines.slice(open, close + 1).join('\n'));
	} catch {
		return null;
	}
	if (!Array.isArray(messages)) return null;
	return {
		// A tool's JSON result may stand as JSON: its text is that JSON.
		messages: messages.map((message) =>
			typeof message?.content === 'string'
				? message
				: { ...message, content: JSON.stringify(message?.content) },
		),
		catalogue: lines
			.slice(close + 1)
			.join('\n')
			.trim(),
	};
}

/**
 * What a reader takes an input to say: the last user message of a transcript (the whole input
 * otherwise).
 * @param {string} input
 */
function lastUserText(input) {
	const transcript = readTranscript(input);
	if (!transcript) return input;
	const users = transcript.messages.filter((message) => message.role === 'user');
	return String(
		(users.pop() ?? transcript.messages[transcript.messages.length - 1])?.content ?? '',
	);
}

/**
 * Every message's text, and the catalogue, as plain text (a transcript's JSON unescaped).
 * @param {string} input
 */
function plainText(input) {
	const transcript = readTranscript(input);
	if (!transcript) return input;
	return [...transcript.messages.map((message) => String(message.content)), transcript.catalogue]
		.filter((text) => text !== '')
		.join('\n\n');
}

module.exports = { readTranscript, lastUserText, plainText, PREFACE_START };
