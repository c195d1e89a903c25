// @ts-check
'use strict';

/**
 * The emulator's "assistant": deterministic replies that show which model and persona were
 * used and what the conversation remembers, so tests can assert on them exactly.
 */

/**
 * @typedef {object} ReplyContext
 * @property {string} modelId  the model that answered (as requested, deprecated ids included)
 * @property {string} personaId
 * @property {string[]} earlier  the conversation's earlier user messages, oldest first
 * @property {string | null} knownName  the name remembered from "my name is X", if any
 * @property {boolean} unicodeProbe  append multi-byte characters (split-bytes faults)
 */

const UNICODE_PROBE = ' Unicode check: café — naïve 😀 ok.';
/** What the message that calls a tool writes before its call (a shape's `toolLead`). */
const TOOL_LEAD_TEXT = 'Let me look that up.';

const NAME_RE = /\bmy name is\s+([\p{L}\p{N}_'-]+)/iu;
const NAME_QUESTION_RE = /\bwhat(?:'s|\s+is)\s+my\s+name\b/i;

/**
 * Reply text for an ask. Format:
 * `[model=<model> persona=<persona>] You said: "<input>".`
 * then ` Earlier you said: "<m1>" | "<m2>".` when the conversation has earlier messages,
 * then ` Your name is <X>.` / ` I don't know your name yet.` when the input asks "what is my name",
 * then the unicode probe when asked for.
 * @param {string} input
 * @param {ReplyContext} context
 * @returns {string}
 */
function composeReply(input, context) {
	let text = `[model=${context.modelId} persona=${context.personaId}] You said: "${input}".`;
	if (context.earlier.length > 0) {
		text += ` Earlier you said: ${context.earlier.map((m) => `"${m}"`).join(' | ')}.`;
	}
	if (NAME_QUESTION_RE.test(input)) {
		text += context.knownName
			? ` Your name is ${context.knownName}.`
			: " I don't know your name yet.";
	}
	if (context.unicodeProbe) text += UNICODE_PROBE;
	return text;
}

/**
 * The name in "my name is X" (case-insensitive), or null.
 * @param {string} input
 * @returns {string | null}
 */
function extractName(input) {
	const match = NAME_RE.exec(input);
	return match ? match[1] : null;
}

/**
 * Splits text into stream chunks, one word with its leading whitespace each, so that joining
 * the chunks gives the text back exactly.
 * @param {string} text
 * @returns {string[]}
 */
function splitIntoChunks(text) {
	if (text === '') return [];
	return text.split(/(?<=\s)(?=\S)/);
}

module.exports = { composeReply, extractName, splitIntoChunks, TOOL_LEAD_TEXT, UNICODE_PROBE };
