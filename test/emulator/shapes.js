// @ts-check
'use strict';

/**
 * Stream shapes: which events carry an answer, in the documented dialect, the live one or the
 * 2026 one (docs/api.md#documented-stream-dialect, docs/api.md#live-stream-dialect,
 * docs/api.md#2026-stream-dialect; the 2026 frames are frames2026.js's). A shape is chosen
 * for the whole emulator (`dialect`) or for one ask (`#shape=<token>+<token>...` in its input).
 */

/**
 * @typedef {'empty' | 'data' | 'top' | 'documented'} EndForm
 *   empty: `End {}`; data: `End {"data": {"output", "conversation_id"}}`; top: the same fields at
 *   the top level; documented: `{}`, or `{"output"}` for a structured ask
 */

/**
 * @typedef {object} StreamShape
 * @property {'documented' | 'live' | '2026'} dialect  names the error event (`Error`,
 *   `SSEErrorEvent`, `failed`); `2026` is told by frames2026.js and ends with `completed`
 * @property {boolean} content  `FrontendModelResponse {"content"}` per piece of text
 * @property {boolean} parts  `PartStartEvent`, `PartDeltaEvent`, `PartEndEvent`
 * @property {boolean} snapshots  `FrontendModelResponse {"parts"}` after every piece (growing)
 * @property {boolean} finalSnapshot  `FrontendModelResponse {"parts"}` once per complete message
 * @property {boolean} thinking  a thinking part before the text of each message
 * @property {boolean} toolCall  two model messages around a `builtin-tool-call` part
 * @property {boolean} toolLead  the message that calls the tool writes text before the call ("Let
 *   me look that up."); the conversation holds it only then, as the stream told it
 * @property {boolean} file  a pydantic-ai `file` part (an image) in the middle of the answer's message
 * @property {boolean} flat  the flat form: no `event:` lines, the event's name as `type` inside the
 *   JSON of a bare `data:` line, an error's text at `data.message` (docs/api.md#flat-stream-form)
 * @property {ToolForm | null} toolForm  how the tool call and its result are told (docs/api.md#steps):
 *   null: a `builtin-tool-call` part alone (`web_search`, no result in the stream)
 * @property {string} toolName  the tool the turn calls (`tool-*` tokens and the tools an input names)
 * @property {boolean} keepAlive  `: keep-alive` comments and a closing `data: [DONE]`
 * @property {EndForm} end
 * @property {'tool' | 'end' | 'text'} output  2026: where a structured answer's object comes (the
 *   arguments of a `final_result` tool call grown through `args_delta`, End's `output`, JSON text)
 * @property {'deltas' | 'whole' | 'no-start'} textForm  2026: a text part's first piece in its
 *   start then deltas; its whole text in its start; deltas without the start
 * @property {'success' | 'error'} toolOutcome  2026: the tool round's `outcome`
 */

/**
 * @typedef {'builtin' | 'function' | 'args-text' | 'args-delta' | 'events'} ToolForm
 *   builtin: `builtin-tool-call` and `builtin-tool-return` parts, arguments an object;
 *   function: `tool-call` and `tool-return` parts; args-text: the same, the arguments as JSON text;
 *   args-delta: a `tool-call` part whose arguments grow through `tool_call` Part deltas, its result
 *   a `FunctionToolResultEvent`; events: a `tool-call` part, then `FunctionToolCallEvent` and
 *   `FunctionToolResultEvent`
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
	toolLead: true,
	file: false,
	flat: false,
	toolForm: null,
	toolName: 'web_search',
	keepAlive: false,
	end: 'documented',
	output: 'end',
	textForm: 'deltas',
	toolOutcome: 'success',
});

/** @type {Readonly<StreamShape>} what the emulator sends in the live dialect by default */
const LIVE = Object.freeze({
	...DOCUMENTED,
	dialect: 'live',
	content: false,
	parts: true,
	finalSnapshot: true,
	keepAlive: true,
	end: 'data',
	output: 'text',
});

/** @type {Readonly<StreamShape>} what the live service sent in 2026 (frames2026.js) */
const TWENTY26 = Object.freeze({
	...LIVE,
	dialect: '2026',
	finalSnapshot: false,
	thinking: true,
	toolForm: 'events',
	toolName: 'search_mail',
	// The captured tool rounds wrote no text before their call.
	toolLead: false,
	keepAlive: false,
	end: 'empty',
	output: 'tool',
});

/** The dialects by name; the first is the default. */
const DIALECTS = Object.freeze(['2026', 'live', 'documented']);

/** @type {Record<string, Partial<StreamShape>>} tokens that go with `2026` only */
const TOKENS_2026 = {
	'tool-call': { toolCall: true },
	'tool-error': { toolCall: true, toolOutcome: 'error' },
	'tool-lead': { toolCall: true, toolLead: true },
	'output-tool': { output: 'tool' },
	'output-end': { output: 'end' },
	'output-text': { output: 'text' },
	'whole-part': { textForm: 'whole' },
	'no-start': { textForm: 'no-start' },
	'no-thinking': { thinking: false },
};

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
/** @type {Record<string, ToolForm>} a tool call and its result, told in one of their shapes */
const TOOL_TOKENS = {
	'tool-builtin': 'builtin',
	'tool-function': 'function',
	'tool-args-text': 'args-text',
	'tool-args-delta': 'args-delta',
	'tool-events': 'events',
};
const SHAPE_TOKENS = Object.freeze([
	'2026',
	'documented',
	'live',
	...Object.keys(TOKENS_2026).filter((token) => token !== 'tool-call'),
	...Object.keys(SOURCE_TOKENS),
	...Object.keys(END_TOKENS),
	...Object.keys(TURN_TOKENS),
	...Object.keys(TOOL_TOKENS),
]);

/**
 * The tools the emulated assistant uses for an input that asks about the user's own mail or
 * files, as the real one would (docs/api.md#steps): `search_mail` for "my mail", "my inbox",
 * "my emails"; `search_files` for "my files", "my documents".
 * @param {string} input
 * @returns {string | null}
 */
function toolAskedFor(input) {
	if (/\bmy (?:unread )?(?:e-?mails?|mail|inbox)\b/i.test(input)) return 'search_mail';
	if (/\bmy (?:files?|documents?)\b/i.test(input)) return 'search_files';
	return null;
}

/**
 * The shape of an ask's stream: the one its `#shape=` names, else the emulator's dialect. In the
 * live dialect, an input that asks about the user's mail or files makes a turn that calls that
 * tool first (a builtin tool call and its result).
 * @param {'documented' | 'live' | '2026'} dialect
 * @param {StreamShape | null} asked
 * @param {string} [input]
 * @returns {StreamShape}
 */
function resolveShape(dialect, asked, input = '') {
	if (asked) return asked;
	const shape = { ...{ documented: DOCUMENTED, live: LIVE, 2026: TWENTY26 }[dialect] };
	const tool = dialect === 'documented' ? null : toolAskedFor(input);
	if (tool && dialect === 'live') {
		Object.assign(shape, { toolCall: true, toolForm: 'builtin', toolName: tool });
	}
	if (tool && dialect === '2026') Object.assign(shape, { toolCall: true, toolName: tool });
	return shape;
}

/**
 * `2026` with its own tokens (`2026+tool-call+output-end`, …).
 * @param {string[]} tokens
 * @returns {StreamShape}
 */
function parse2026(tokens) {
	/** @type {StreamShape} */
	const shape = { ...TWENTY26 };
	for (const token of tokens.filter((t) => t !== '2026')) {
		if (!(token in TOKENS_2026)) {
			throw new TypeError(
				`'${token}' does not go with '2026'. With it: ${Object.keys(TOKENS_2026).join(', ')}`,
			);
		}
		Object.assign(shape, TOKENS_2026[token]);
	}
	return shape;
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
	if (tokens.includes('2026')) return parse2026(tokens);
	const only2026 = tokens.find((token) => token in TOKENS_2026 && token !== 'tool-call');
	if (only2026)
		throw new TypeError(`'${only2026}' goes with '2026' only (#shape=2026+${only2026})`);
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
	const tools = tokens.filter((token) => token in TOOL_TOKENS);
	if (tools.length > 1) throw new TypeError('a stream has one tool form');
	if (tools.length === 1) {
		Object.assign(shape, {
			toolCall: true,
			toolForm: TOOL_TOKENS[tools[0]],
			toolName: 'search_mail',
		});
		if (ends.length === 0) shape.end = 'data';
	}
	for (const token of tokens) {
		const key = SOURCE_TOKENS[token] ?? /** @type {Record<string, string>} */ (TURN_TOKENS)[token];
		if (key) /** @type {Record<string, unknown>} */ (shape)[key] = true;
	}
	if (!shape.content && !shape.parts && !shape.snapshots && !shape.finalSnapshot)
		shape.parts = true;
	return shape;
}

module.exports = { resolveShape, parseShape, DIALECTS, SHAPE_TOKENS };
