// @ts-check
'use strict';

/**
 * Stream shapes: which events carry an answer, in the documented dialect or the live one
 * (docs/api.md#documented-stream-dialect, docs/api.md#live-stream-dialect). A shape is chosen
 * for the whole emulator (`dialect`) or for one ask (`#shape=<token>+<token>...` in its input).
 */

/**
 * @typedef {'empty' | 'data' | 'top' | 'documented'} EndForm
 *   empty: `End {}`; data: `End {"data": {"output", "conversation_id"}}`; top: the same fields at
 *   the top level; documented: `{}`, or `{"output"}` for a structured ask
 */

/**
 * @typedef {object} StreamShape
 * @property {'documented' | 'live'} dialect  names the error event (`Error` or `SSEErrorEvent`)
 * @property {boolean} content  `FrontendModelResponse {"content"}` per piece of text
 * @property {boolean} parts  `PartStartEvent`, `PartDeltaEvent`, `PartEndEvent`
 * @property {boolean} snapshots  `FrontendModelResponse {"parts"}` after every piece (growing)
 * @property {boolean} finalSnapshot  `FrontendModelResponse {"parts"}` once per complete message
 * @property {boolean} thinking  a thinking part before the text of each message
 * @property {boolean} toolCall  two model messages around a `builtin-tool-call` part
 * @property {boolean} file  a pydantic-ai `file` part (an image) in the middle of the answer's message
 * @property {boolean} flat  the flat form: no `event:` lines, the event's name as `type` inside the
 *   JSON of a bare `data:` line, an error's text at `data.message` (docs/api.md#flat-stream-form)
 * @property {boolean} keepAlive  `: keep-alive` comments and a closing `data: [DONE]`
 * @property {EndForm} end
 */

/** @type {Readonly<StreamShape>} what the emulator sends in the documented dialect */
const DOCUMENTED = Object.freeze({
	dialect: 'documented',
	content: true,
	parts: false,
	snapshots: false,
	finalSnapshot: false,
	thinking: false,
	toolCall: false,
	file: false,
	flat: false,
	keepAlive: false,
	end: 'documented',
});

/** @type {Readonly<StreamShape>} what the emulator sends in the live dialect by default */
const LIVE = Object.freeze({
	dialect: 'live',
	content: false,
	parts: true,
	snapshots: false,
	finalSnapshot: true,
	thinking: false,
	toolCall: false,
	file: false,
	flat: false,
	keepAlive: true,
	end: 'data',
});

const DIALECTS = Object.freeze(['live', 'documented']);

/** @type {Record<string, keyof StreamShape>} the text sources a `#shape` can name */
const SOURCE_TOKENS = {
	content: 'content',
	parts: 'parts',
	snapshots: 'snapshots',
	'final-snapshot': 'finalSnapshot',
};
/** @type {Record<string, EndForm>} */
const END_TOKENS = { 'end-empty': 'empty', 'end-data': 'data', 'end-top': 'top' };
const TURN_TOKENS = { thinking: 'thinking', 'tool-call': 'toolCall', file: 'file', flat: 'flat' };
const SHAPE_TOKENS = Object.freeze([
	'documented',
	'live',
	...Object.keys(SOURCE_TOKENS),
	...Object.keys(END_TOKENS),
	...Object.keys(TURN_TOKENS),
]);

/**
 * The shape of an ask's stream: the one its `#shape=` names, else the emulator's dialect.
 * @param {'documented' | 'live'} dialect
 * @param {StreamShape | null} asked
 * @returns {StreamShape}
 */
function resolveShape(dialect, asked) {
	return asked ?? { ...(dialect === 'documented' ? DOCUMENTED : LIVE) };
}

/**
 * Reads `#shape=` tokens. `documented` and `live` are whole shapes; the other tokens build a live
 * stream from its pieces: the text sources named (Part events when none is), the End form named
 * (an empty End when none is, so the answer has to be assembled from the text; under `data` for
 * `tool-call`, whose End carries the final answer), and the turn's structure.
 * @param {string} value
 * @returns {StreamShape}  throws a TypeError naming a token it does not know
 */
function parseShape(value) {
	const tokens = value.split('+');
	for (const token of tokens) {
		if (!SHAPE_TOKENS.includes(token)) {
			throw new TypeError(`unknown shape '${token}'. Known: ${SHAPE_TOKENS.join(', ')}`);
		}
	}
	if (tokens.includes('documented') || tokens.includes('live')) {
		if (tokens.length > 1) throw new TypeError(`'documented' and 'live' are whole shapes`);
		return { ...(tokens[0] === 'documented' ? DOCUMENTED : LIVE) };
	}
	const ends = tokens.filter((token) => token in END_TOKENS);
	if (ends.length > 1) throw new TypeError('a stream has one End form');
	/** @type {StreamShape} */
	const shape = {
		...LIVE,
		parts: false,
		finalSnapshot: false,
		end: ends.length === 1 ? END_TOKENS[ends[0]] : tokens.includes('tool-call') ? 'data' : 'empty',
	};
	for (const token of tokens) {
		const key = SOURCE_TOKENS[token] ?? /** @type {Record<string, string>} */ (TURN_TOKENS)[token];
		if (key) /** @type {Record<string, unknown>} */ (shape)[key] = true;
	}
	if (!shape.content && !shape.parts && !shape.snapshots && !shape.finalSnapshot)
		shape.parts = true;
	return shape;
}

module.exports = { resolveShape, parseShape, DIALECTS, SHAPE_TOKENS };
