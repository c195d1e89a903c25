// @ts-check
'use strict';

/**
 * The frames of one answer in the 2026 dialect, the stream the live service sent its public
 * clients in August and September 2026 (docs/api.md#2026-stream-dialect;
 * test/fixtures/captures/): runtime chunks, the echo of the model's request, the Part events of
 * each model response with pydantic-ai's fields, a tool round between responses, then `completed`
 * (stream.js writes it) or `failed`. Pure: the ids and the clock come from the caller.
 */

const { splitIntoChunks, TOOL_LEAD_TEXT } = require('./reply');

/** @typedef {import('./streamFrames').Frame} Frame */
/** @typedef {import('./streamFrames').StreamedAnswer} StreamedAnswer */
/** @typedef {import('./shapes').StreamShape} StreamShape */

/**
 * What the echo (`FrontendModelRequest`) carries and nothing else does: a test that finds it in
 * an output item, a step, a log line or a streamed piece has found a leak of the user's files.
 */
const ECHO_PRIVATE_MARKER = 'ECHO_PRIVATE_MARKER_5f1d2c_workspace_secret';

const THINKING_2026 = 'The user asks a question. Let me answer it plainly.';
const SYSTEM_PROMPT = "You are the user's personal assistant. Use their workspace when it helps.";

/**
 * @typedef {object} RunIds  the turn's ids, made by the caller (stream.js)
 * @property {string} runnerId  a UUID
 * @property {string} userMessageId  the persisted user message
 * @property {string[]} zmids  one per model response (and one for a tool round's return)
 * @property {string} toolCallId  `call_` + 24 hex
 * @property {string} timestamp  ISO time of a tool's return
 */

/**
 * An `AgentRuntimeStreamChunk`: all nine keys, most null, as captured.
 * @param {'status' | 'persisted'} type
 * @param {Record<string, unknown>} fields
 * @returns {{ kind: 'event', type: string, data: Record<string, unknown> }}
 */
function runtimeChunk(type, fields) {
	const data = {
		type,
		delta: null,
		tool_name: null,
		status: null,
		error: null,
		result: null,
		data: null,
		message_id: null,
		runner_id: null,
		...fields,
	};
	return { kind: 'event', type: 'AgentRuntimeStreamChunk', data };
}

/**
 * @param {string} messageId
 * @param {string} runnerId
 */
function persisted(messageId, runnerId) {
	return runtimeChunk('persisted', {
		data: { message_id: messageId },
		message_id: messageId,
		runner_id: runnerId,
	});
}

/**
 * The echo of the model's request, as the service sends it: the system prompt, a file of the
 * user's workspace, the user's message (pydantic-ai's ModelRequest). Private, and no answer.
 * @param {string} input
 * @param {RunIds} ids
 * @returns {Frame}
 */
function echoFrame(input, ids) {
	const file = `<workspace_file path="notes/private.md">Bank PIN reminder: ${ECHO_PRIVATE_MARKER}</workspace_file>`;
	const data = {
		kind: 'request',
		parts: [
			{
				part_kind: 'system-prompt',
				content: `${SYSTEM_PROMPT}\n${file}`,
				timestamp: ids.timestamp,
			},
			{ part_kind: 'user-prompt', content: [input, file], timestamp: ids.timestamp },
		],
		instructions: `Private context: ${ECHO_PRIVATE_MARKER}`,
		run_id: ids.runnerId,
	};
	return { kind: 'event', type: 'FrontendModelRequest', data };
}

/**
 * The parts of one model response, each with its pieces: the first one goes in its
 * PartStartEvent, the rest come as deltas.
 * @typedef {{ kind: 'thinking' | 'text' | 'tool-call', pieces: string[], toolName?: string, toolCallId?: string }} Part2026
 */

/**
 * @param {string} text
 * @param {number} size
 */
function cutEvery(text, size) {
	const pieces = [];
	for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
	return pieces;
}

/**
 * The model responses of the turn: the tool round's (thinking, the lead text when the shape has
 * it, the call), then the answer's (thinking, then the text, or the object as the shape says).
 * @param {StreamedAnswer} answer
 * @param {StreamShape} shape
 * @param {RunIds} ids
 * @returns {Part2026[][]}
 */
function responses(answer, shape, ids) {
	const thinking = () =>
		shape.thinking
			? [{ kind: /** @type {const} */ ('thinking'), pieces: splitIntoChunks(THINKING_2026) }]
			: [];
	/** @type {Part2026[]} */
	const final = thinking();
	const json = JSON.stringify(answer.output);
	if (!answer.structured) final.push({ kind: 'text', pieces: splitIntoChunks(answer.text) });
	else if (shape.output === 'text') final.push({ kind: 'text', pieces: cutEvery(json, 7) });
	else if (shape.output === 'tool') {
		// pydantic-ai's tool output mode: the object is the arguments of its output tool.
		final.push({
			kind: 'tool-call',
			pieces: ['', ...cutEvery(json, 7)],
			toolName: 'final_result',
			toolCallId: `${ids.toolCallId}f`,
		});
	}
	if (!shape.toolCall) return [final];
	const args = JSON.stringify(toolArgs(answer.input));
	const call = {
		kind: /** @type {const} */ ('tool-call'),
		pieces: ['', ...cutEvery(args, 9)],
		toolName: shape.toolName,
		toolCallId: ids.toolCallId,
	};
	const lead = shape.toolLead
		? [{ kind: /** @type {const} */ ('text'), pieces: splitIntoChunks(TOOL_LEAD_TEXT) }]
		: [];
	return [[...thinking(), ...lead, call], final];
}

/** @param {string} input */
function toolArgs(input) {
	return { query: input.slice(0, 80) };
}

/**
 * Every frame of the turn before its `completed`: runtime chunks, the echo, each response's Part
 * events and the tool round's events. In an answer's text, each piece's first frame `startsPiece`.
 * @param {StreamedAnswer} answer
 * @param {StreamShape} shape
 * @param {RunIds} ids
 * @param {{ unknownEvents: boolean, toolResult: (name: string) => unknown }} extras
 * @returns {Frame[]}
 */
function frames2026(answer, shape, ids, extras) {
	const { runnerId } = ids;
	/** @type {Frame[]} */
	const frames = [
		runtimeChunk('status', { status: 'dispatching' }),
		persisted(ids.userMessageId, runnerId),
		runtimeChunk('status', {
			status: 'progress',
			data: { message: 'Thinking\u2026', phase: 'model_request' },
			runner_id: runnerId,
		}),
		echoFrame(answer.input, ids),
	];
	if (extras.unknownEvents) {
		frames.push({ kind: 'comment', text: 'ping' });
		frames.push({ kind: 'event', type: 'RunStatusEvent', data: { status: 'running' } });
	}
	const all = responses(answer, shape, ids);
	all.forEach((parts, n) => {
		const zmid = ids.zmids[n];
		partFrames(parts, shape, { zmid, runner_id: runnerId }, frames);
		frames.push(persisted(zmid, runnerId));
		if (n === all.length - 1) return;
		const call = /** @type {Part2026} */ (parts.find((part) => part.kind === 'tool-call'));
		toolRoundFrames(shape, call, { zmid, runner_id: runnerId }, ids, extras, frames);
		frames.push(persisted(ids.zmids[all.length + n], runnerId), echoFrame(answer.input, ids));
	});
	if (extras.unknownEvents) {
		frames.push({
			kind: 'event',
			type: 'UsageEvent',
			data: { input_tokens: 12, output_tokens: 34 },
		});
	}
	if (answer.structured && shape.output === 'end') {
		frames.push({ kind: 'event', type: 'End', data: { output: answer.output } });
	}
	return frames;
}

/**
 * The Part events of one response; indexes start at 0 in each. `whole-part`: a text part's whole
 * text in its start, no deltas; `no-start`: a text part's start is not sent, its deltas are.
 * @param {Part2026[]} parts
 * @param {StreamShape} shape
 * @param {{ zmid: string, runner_id: string }} metadata
 * @param {Frame[]} frames  appended to
 */
function partFrames(parts, shape, metadata, frames) {
	/** @type {string | null} */
	let previous = null;
	parts.forEach((part, index) => {
		const text = part.kind === 'text';
		const pieces = text && shape.textForm === 'whole' ? [part.pieces.join('')] : part.pieces;
		const skipStart = text && shape.textForm === 'no-start';
		pieces.forEach((piece, n) => {
			/** @type {Frame} */
			const frame =
				n === 0 && !skipStart
					? {
							kind: 'event',
							type: 'PartStartEvent',
							data: {
								event_kind: 'part_start',
								index,
								part: startPart(part, piece),
								previous_part_kind: previous,
								metadata,
							},
						}
					: {
							kind: 'event',
							type: 'PartDeltaEvent',
							data: { delta: deltaOf(part, piece), event_kind: 'part_delta', index, metadata },
						};
			if (text || part.toolName === 'final_result') frame.startsPiece = piece !== '';
			frames.push(frame);
		});
		previous = part.kind;
	});
}

/**
 * @param {Part2026} part
 * @param {string} piece
 */
function startPart(part, piece) {
	if (part.kind === 'thinking') {
		return {
			content: piece,
			id: 'reasoning_content',
			part_kind: 'thinking',
			provider_details: null,
			provider_name: 'openai',
			signature: null,
		};
	}
	if (part.kind === 'text') {
		return {
			content: piece,
			id: null,
			part_kind: 'text',
			provider_details: null,
			provider_name: null,
		};
	}
	return {
		args: piece,
		id: null,
		part_kind: 'tool-call',
		provider_details: null,
		provider_name: null,
		tool_call_id: part.toolCallId,
		tool_name: part.toolName,
	};
}

/**
 * @param {Part2026} part
 * @param {string} piece
 */
function deltaOf(part, piece) {
	if (part.kind === 'tool-call') {
		return {
			args_delta: piece,
			part_delta_kind: 'tool_call',
			provider_details: null,
			provider_name: null,
			tool_call_id: part.toolCallId,
			tool_name_delta: null,
		};
	}
	const delta = {
		content_delta: piece,
		part_delta_kind: part.kind,
		provider_details: null,
		provider_name: null,
	};
	return part.kind === 'thinking' ? { ...delta, signature_delta: null } : delta;
}

/**
 * The tool round after a response that called a tool: the call, then its result with `outcome`.
 * @param {StreamShape} shape
 * @param {Part2026} call
 * @param {{ zmid: string, runner_id: string }} metadata
 * @param {RunIds} ids
 * @param {{ toolResult: (name: string) => unknown }} extras
 * @param {Frame[]} frames  appended to
 */
function toolRoundFrames(shape, call, metadata, ids, extras, frames) {
	const name = String(call.toolName);
	const part = { ...startPart(call, call.pieces.join('')) };
	frames.push({
		kind: 'event',
		type: 'FunctionToolCallEvent',
		data: { args_valid: true, event_kind: 'function_tool_call', part, metadata },
	});
	const failed = shape.toolOutcome === 'error';
	const content = failed
		? `${name} failed: the integration is not connected`
		: extras.toolResult(name);
	frames.push({
		kind: 'event',
		type: 'FunctionToolResultEvent',
		data: {
			content: null,
			event_kind: 'function_tool_result',
			result: {
				content,
				metadata: null,
				outcome: failed ? 'error' : 'success',
				part_kind: 'tool-return',
				timestamp: ids.timestamp,
				tool_call_id: call.toolCallId,
				tool_name: name,
			},
			metadata,
		},
	});
}

/** The `completed` of a turn that ended as it should. */
const COMPLETED_SUCCEEDED = Object.freeze({
	status: 'succeeded',
	error: null,
	runner_id: null,
	error_type: null,
	failure_owner: null,
	failure_kind: null,
});

/**
 * The data of a run's end that is a failure: `failed`, or `completed` with another status.
 * @param {string} message
 * @param {{ status?: string, runnerId?: string | null, errorType?: string, owner?: string, kind?: string }} [options]
 */
function failureData(message, options = {}) {
	return {
		status: options.status ?? 'failed',
		error: message,
		runner_id: options.runnerId ?? null,
		error_type: options.errorType ?? 'ProviderError',
		failure_owner: options.owner ?? 'provider',
		failure_kind: options.kind ?? 'provider_error',
	};
}

module.exports = {
	frames2026,
	runtimeChunk,
	failureData,
	COMPLETED_SUCCEEDED,
	ECHO_PRIVATE_MARKER,
	THINKING_2026,
};
