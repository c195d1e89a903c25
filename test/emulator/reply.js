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
 * @property {number | null} longChars  pad the reply to at least this many characters
 * @property {boolean} unicodeProbe  append multi-byte characters (split-bytes faults)
 */

const UNICODE_PROBE = ' Unicode check: café — naïve 😀 ok.';
// Padding for `#long=N`: numbered segments, so a client that loses or repeats a piece of a long
// stream produces visibly wrong text; multi-byte characters included on purpose.
const PADDING_SEGMENT = 'The quick brown fox — café, naïve, façade 😀 — jumps over the lazy dog.';

const NAME_RE = /\bmy name is\s+([\p{L}\p{N}_'-]+)/iu;
const NAME_QUESTION_RE = /\bwhat(?:'s|\s+is)\s+my\s+name\b/i;

/**
 * Reply text for an ask. Format:
 * `[model=<model> persona=<persona>] You said: "<input>".`
 * then ` Earlier you said: "<m1>" | "<m2>".` when the conversation has earlier messages,
 * then ` Your name is <X>.` / ` I don't know your name yet.` when the input asks "what is my name",
 * then the unicode probe and `#long` padding when asked for.
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
	if (context.longChars !== null) text = pad(text, context.longChars);
	return text;
}

/**
 * @param {string} text
 * @param {number} target
 */
function pad(text, target) {
	const pieces = [text];
	let length = text.length;
	for (let n = 1; length < target; n++) {
		const piece = ` [${n}] ${PADDING_SEGMENT}`;
		pieces.push(piece);
		length += piece.length;
	}
	return pieces.join('');
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

module.exports = { composeReply, extractName, splitIntoChunks, UNICODE_PROBE };
