// @ts-check
'use strict';

/**
 * What a stream carries, frame by frame, for one answer in one shape (shapes.js): the documented
 * `FrontendModelResponse {"content"}` chunks, the live Part events and `parts` snapshots, or any
 * mix of them, then `End` or an error event (docs/api.md#streams). Pure: the server writes the
 * frames, with the pauses and faults of the ask.
 */

const { splitIntoChunks, TOOL_LEAD_TEXT } = require('./reply');
const { failureData } = require('./frames2026');

/** @typedef {import('./shapes').StreamShape} StreamShape */

/**
 * @typedef {{ kind: 'event', type: string, data: unknown, startsPiece?: boolean }
 *   | { kind: 'comment', text: string }} Frame
 *   `startsPiece`: the first frame of a new piece of answer text (where pauses and cuts go)
 */

/**
 * @typedef {object} StreamedAnswer
 * @property {string} text  the reply text (the final message's text in a tool-call turn)
 * @property {boolean} structured  output_format was given
 * @property {unknown} output  what End's `output` carries: the text, or the structured object
 * @property {string} conversationId
 * @property {string} input  the ask's input (a tool call's arguments quote it)
 */

/** @typedef {{ part_kind: string, content?: unknown, [key: string]: unknown }} Part */

const THINKING_TEXT = 'Let me think about that.';

/**
 * The model messages of the turn: one, or two around a tool call; each may open with thinking.
 * In the documented dialect a structured answer has no text (it comes in End); in the live one
 * the text parts carry the object as JSON text, and End carries the object.
 * @param {StreamedAnswer} answer
 * @param {StreamShape} shape
 * @returns {Part[][]}
 */
function modelMessages(answer, shape) {
	const text = answer.structured ? JSON.stringify(answer.output) : answer.text;
	/** @param {string} content @returns {Part[]} */
	const withThinking = (content) => [
		...(shape.thinking ? [{ part_kind: 'thinking', content: THINKING_TEXT }] : []),
		...(content === '' ? [] : [{ part_kind: 'text', content }]),
	];
	const final = answer.structured && shape.dialect === 'documented' ? [] : withThinking(text);
	if (shape.file) withFile(final);
	if (!shape.toolCall) return [final];
	const { call, result } = toolParts(answer, shape);
	// A function tool's result is not a part of the model's message: it comes as an event.
	const resultPart = result && !eventForms.has(String(shape.toolForm)) ? [result] : [];
	const lead = shape.toolLead ? TOOL_LEAD_TEXT : '';
	return [[...withThinking(lead), call, ...resultPart], final];
}

/** The tool forms whose result comes as a `FunctionToolResultEvent`, not as a part. */
const eventForms = new Set(['args-delta', 'events']);

/**
 * The turn's tool call and its result, as parts, in the shape's tool form (null: the call alone,
 * a `builtin-tool-call` without a result). The conversation holds the same parts.
 * @param {{ input: string }} answer
 * @param {StreamShape} shape
 * @returns {{ call: Part, result: Part | null }}
 */
function toolParts(answer, shape) {
	const args = { query: answer.input.slice(0, 80) };
	const ids = { tool_name: shape.toolName, tool_call_id: 'call_emulated_1' };
	const form = shape.toolForm;
	if (form === null)
		return { call: { part_kind: 'builtin-tool-call', ...ids, args }, result: null };
	const builtin = form === 'builtin';
	return {
		call: {
			part_kind: builtin ? 'builtin-tool-call' : 'tool-call',
			...ids,
			args: form === 'args-text' || form === 'args-delta' ? JSON.stringify(args) : args,
		},
		result: {
			part_kind: builtin ? 'builtin-tool-return' : 'tool-return',
			...ids,
			content: toolResultContent(shape.toolName),
		},
	};
}

/** @param {string} toolName */
function toolResultContent(toolName) {
	if (toolName === 'search_mail') {
		return [{ from: 'ada@example.com', subject: 'Quarterly report', unread: true }];
	}
	if (toolName === 'search_files') return [{ path: 'reports/q3.pdf', size: 48213 }];
	return { results: [] };
}

/**
 * Splits the message's text part after the answer's model tag (`[model=…]`; else at a word in its
 * middle) and puts a `file` part (an image the model made) between the halves. The text parts run
 * on to the whole text, as pydantic-ai's text output (End's `output`) reads them; a client that
 * reads a response's text as pydantic-ai's ModelResponse.text does sees two paragraphs.
 * @param {Part[]} message  changed in place
 */
function withFile(message) {
	const index = message.findIndex((part) => part.part_kind === 'text');
	const textPart = message[index];
	const content = String(textPart?.content ?? '');
	const tagEnd = content.startsWith('[') ? content.indexOf('] ') : -1;
	const cut = tagEnd > 0 ? tagEnd + 1 : content.indexOf(' ', Math.floor(content.length / 2));
	const file = {
		part_kind: 'file',
		content: { kind: 'binary', media_type: 'image/png', data: PNG },
	};
	if (index < 0 || cut < 0) {
		message.push(file);
		return;
	}
	message.splice(index, 1, { part_kind: 'text', content: content.slice(0, cut) }, file, {
		part_kind: 'text',
		content: content.slice(cut),
	});
}

/** A 1x1 transparent PNG, base64: what a `file` part carries. */
const PNG =
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * Every frame before End, in order.
 * @param {StreamedAnswer} answer
 * @param {StreamShape} shape
 * @param {{ unknownEvents: boolean }} extras  `unknown-events`: event types no client knows, and pings
 * @returns {Frame[]}
 */
function bodyFrames(answer, shape, extras) {
	/** @type {Frame[]} */
	const frames = [];
	if (shape.keepAlive) frames.push({ kind: 'comment', text: 'keep-alive' });
	if (extras.unknownEvents) {
		frames.push({ kind: 'comment', text: 'ping' });
		frames.push({ kind: 'event', type: 'RunStatusEvent', data: { status: 'running' } });
	}
	const messages = modelMessages(answer, shape);
	messages.forEach((message, n) => {
		messageFrames(message, shape, frames);
		if (n === 0 && shape.toolCall) toolEventFrames(answer, shape, frames);
	});
	if (extras.unknownEvents) {
		frames.push({
			kind: 'event',
			type: 'UsageEvent',
			data: { input_tokens: 12, output_tokens: 34 },
		});
	}
	return frames;
}

/**
 * The frames of one model message: its parts piece by piece through every source of the shape.
 * @param {Part[]} message
 * @param {StreamShape} shape
 * @param {Frame[]} frames  appended to
 */
function messageFrames(message, shape, frames) {
	/** @type {Part[]} the message so far, every part whole up to now */
	const complete = [];
	/** @param {Part[]} parts */
	const snapshot = (parts) => ({
		kind: /** @type {const} */ ('event'),
		type: 'FrontendModelResponse',
		data: { parts },
	});
	/** @param {number} index */
	const end = (index) => partEvent('PartEndEvent', index, message[index], message[index + 1]);
	message.forEach((part, index) => {
		if (part.part_kind !== 'text' && part.part_kind !== 'thinking') {
			if (shape.parts) toolPartFrames(part, index, shape, frames, end(index));
			complete.push(part);
			if (shape.snapshots) frames.push(snapshot([...complete]));
			return;
		}
		const kind = part.part_kind;
		let sofar = '';
		splitIntoChunks(String(part.content)).forEach((piece, n) => {
			sofar += piece;
			const start = frames.length;
			if (shape.parts) {
				frames.push(
					n === 0
						? partEvent('PartStartEvent', index, { part_kind: kind, content: piece })
						: {
								kind: 'event',
								type: 'PartDeltaEvent',
								data: { index, delta: delta(kind, piece, n) },
							},
				);
			}
			const parts = shape.snapshots ? [...complete, { part_kind: kind, content: sofar }] : null;
			// With both, the chunk and the snapshot share one event: `parts` beside `content`.
			if (shape.content && kind === 'text') {
				const data = parts ? { content: piece, parts } : { content: piece };
				frames.push({ kind: 'event', type: 'FrontendModelResponse', data });
			} else if (parts) frames.push(snapshot(parts));
			if (kind === 'text' && frames.length > start) {
				/** @type {Frame & { kind: 'event' }} */ (frames[start]).startsPiece = true;
				if (shape.keepAlive && n % 5 === 4) frames.push({ kind: 'comment', text: 'keep-alive' });
			}
		});
		if (shape.parts) frames.push(end(index));
		complete.push(part);
	});
	if (shape.finalSnapshot && complete.length > 0) {
		// When no other source streams the text, the snapshot is where it first arrives.
		const onlySource = !shape.parts && !shape.content && !shape.snapshots;
		const hasText = complete.some((part) => part.part_kind === 'text');
		frames.push({ ...snapshot(complete), startsPiece: onlySource && hasText });
	}
}

/**
 * The Part events of a tool call or result: its start and its end, whole; in the `args-delta`
 * form a call starts without arguments, which then grow through `tool_call` deltas.
 * @param {Part} part
 * @param {number} index
 * @param {StreamShape} shape
 * @param {Frame[]} frames  appended to
 * @param {Frame} endFrame  its PartEndEvent
 */
function toolPartFrames(part, index, shape, frames, endFrame) {
	if (shape.toolForm !== 'args-delta' || typeof part.args !== 'string') {
		frames.push(partEvent('PartStartEvent', index, part), endFrame);
		return;
	}
	const name = String(part.tool_name);
	const half = Math.floor(name.length / 2);
	frames.push(
		partEvent('PartStartEvent', index, { ...part, tool_name: name.slice(0, half), args: '' }),
	);
	const args = part.args;
	const pieces = [args.slice(0, 5), args.slice(5, 17), args.slice(17)].filter(Boolean);
	pieces.forEach((piece, n) => {
		/** @type {Record<string, unknown>} */
		const delta = { part_delta_kind: 'tool_call', args_delta: piece };
		if (n === 0) {
			delta.tool_name_delta = name.slice(half);
			delta.tool_call_id = part.tool_call_id;
		}
		frames.push({ kind: 'event', type: 'PartDeltaEvent', data: { index, delta } });
	});
	frames.push(endFrame);
}

/**
 * After the first message of a tool-call turn, the events that tell the tool's call and result
 * on their own, in the forms that have them (`events`: both; `args-delta`: the result).
 * @param {StreamedAnswer} answer
 * @param {StreamShape} shape
 * @param {Frame[]} frames  appended to
 */
function toolEventFrames(answer, shape, frames) {
	const { call, result } = toolParts(answer, shape);
	if (shape.toolForm === 'events') {
		frames.push({
			kind: 'event',
			type: 'FunctionToolCallEvent',
			data: { part: call, event_kind: 'function_tool_call' },
		});
	}
	if (result && eventForms.has(String(shape.toolForm))) {
		frames.push({
			kind: 'event',
			type: 'FunctionToolResultEvent',
			data: { result, event_kind: 'function_tool_result' },
		});
	}
}

/**
 * A Part event; an end names the kind of the part that follows (`next_part_kind`, null after the
 * last), as pydantic-ai's PartEndEvent does.
 * @param {string} type
 * @param {number} index
 * @param {Part} part
 * @param {Part} [next]
 * @returns {Frame}
 */
function partEvent(type, index, part, next) {
	if (type !== 'PartEndEvent') return { kind: 'event', type, data: { index, part } };
	return {
		kind: 'event',
		type,
		data: { index, part, next_part_kind: next ? next.part_kind : null },
	};
}

/**
 * A delta of a part. Every third one leaves `part_delta_kind` out: it then belongs to the kind
 * its part started with (docs/api.md#live-stream-dialect).
 * @param {string} kind
 * @param {string} piece
 * @param {number} n  the piece's position in its part (1 for the first delta)
 */
function delta(kind, piece, n) {
	return n % 3 === 2 ? { content_delta: piece } : { part_delta_kind: kind, content_delta: piece };
}

/**
 * The End event's data.
 * @param {StreamedAnswer} answer
 * @param {StreamShape} shape
 * @param {boolean} idInEnd  the stream has no `x-conversation-id` header: End must carry the id
 * @returns {Record<string, unknown>}
 */
function endData(answer, shape, idInEnd) {
	const fields = { output: answer.output, conversation_id: answer.conversationId };
	if (shape.end === 'data') return { data: fields };
	if (shape.end === 'top') return fields;
	/** @type {Record<string, unknown>} */
	const end = shape.end === 'documented' && answer.structured ? { output: answer.output } : {};
	if (idInEnd) end.conversation_id = answer.conversationId;
	return end;
}

/**
 * The error event that ends a failed stream: `Error` in the documented dialect, `SSEErrorEvent`
 * in the live one.
 * @param {StreamShape} shape
 * @param {string} message
 * @returns {Frame}
 */
function errorFrame(shape, message) {
	if (shape.dialect === '2026')
		return { kind: 'event', type: 'failed', data: failureData(message) };
	// In the flat form, the text sits under `data`: a client reads it at `data.data.message`.
	if (shape.flat) return { kind: 'event', type: 'Error', data: { data: { message } } };
	return shape.dialect === 'documented'
		? { kind: 'event', type: 'Error', data: { message } }
		: { kind: 'event', type: 'SSEErrorEvent', data: { message, turn_status: 'error' } };
}

module.exports = {
	bodyFrames,
	endData,
	errorFrame,
	toolParts,
	toolResultContent,
	THINKING_TEXT,
};
