// @ts-check
'use strict';

/**
 * Conversations as the live service keeps them (docs/api.md#reading-a-conversation): each ask the
 * emulator accepts starts a turn, and a turn runs on to its end whatever happens to the
 * connection that asked (docs/api.md#exactly-once); `GET /conversations/{id}` shows whether one
 * is still `running` and holds its messages in pydantic-ai's shape. Also counts how many times
 * each ask was started (`stats.startedAsks`), so tests can assert that an ask was started once.
 */

const { authorize, sendJson } = require('./respond');
const { TOOL_LEAD_TEXT } = require('./reply');
const { toolParts } = require('./streamFrames');

/** @typedef {import('./server').Context} Context */
/** @typedef {import('./server').State} State */
/** @typedef {import('./server').Conversation} Conversation */
/** @typedef {import('./server').Handler} Handler */
/** @typedef {import('./shapes').StreamShape} StreamShape */

/**
 * A message of a conversation's history, as pydantic-ai keeps it: the user's `request` (a
 * `user-prompt` part; `tool-return` parts after a tool call) or the model's `response` (`text`,
 * `thinking`, tool-call parts).
 * @typedef {{ kind: 'request' | 'response', parts: Array<Record<string, unknown>> }} HistoryMessage
 */

/**
 * @typedef {object} Turn
 * @property {boolean} done
 * @property {(responses: HistoryMessage[]) => void} answerWith  what the turn writes into the
 *   conversation when it ends (set once the answer is known)
 * @property {() => void} complete  the turn ends now: its answer joins the conversation
 * @property {() => void} fail  the turn ends now without an answer (an error event)
 * @property {(ms: number) => void} completeAfter  the turn ends `ms` from now, whatever the
 *   connection does meanwhile (the earliest of several calls wins)
 */

const PATH_PREFIX = '/conversations/';
const OBJECT_TOOL = 'final_result';

/**
 * Starts a turn of `conversation` for an accepted ask: the conversation is `running` and holds the
 * request until the turn ends.
 * @param {State} state
 * @param {Conversation} conversation
 * @param {string} input
 * @param {{ counted?: boolean }} [options]  counted: false for a turn no client asked (a fault's)
 * @returns {Turn}
 */
function beginTurn(state, conversation, input, { counted = true } = {}) {
	conversation.busy = true;
	conversation.history.push({
		kind: 'request',
		parts: [{ part_kind: 'user-prompt', content: input, timestamp: new Date().toISOString() }],
	});
	if (counted) {
		const { startedAsks } = state.stats;
		startedAsks.set(input, (startedAsks.get(input) ?? 0) + 1);
	}
	/** @type {HistoryMessage[]} */
	let responses = [];
	/** @type {NodeJS.Timeout | undefined} */
	let timer;
	let endsAt = Infinity;
	const end = (/** @type {HistoryMessage[]} */ written) => {
		if (turn.done) return;
		turn.done = true;
		if (timer) {
			clearTimeout(timer);
			state.turnTimers.delete(timer);
		}
		conversation.history.push(...written);
		conversation.busy = false;
	};
	/** @type {Turn} */
	const turn = {
		done: false,
		answerWith: (written) => {
			responses = written;
		},
		complete: () => end(responses),
		fail: () => end([]),
		completeAfter: (ms) => {
			if (turn.done || Date.now() + ms >= endsAt) return;
			endsAt = Date.now() + ms;
			if (timer) {
				clearTimeout(timer);
				state.turnTimers.delete(timer);
			}
			const scheduled = setTimeout(() => {
				state.turnTimers.delete(scheduled);
				timer = undefined;
				turn.complete();
			}, ms);
			// A turn still running never keeps the process alive (a response closed by close()
			// schedules its turn after stopTurns has run).
			scheduled.unref();
			timer = scheduled;
			state.turnTimers.add(scheduled);
		},
	};
	return turn;
}

/**
 * The messages a finished turn adds: the model's response, as its stream showed it (a thinking
 * part, a tool call before the answer, with the text written before it when the stream told
 * some); a structured answer as pydantic-ai's output tool call
 * (`final_result` with the object as its arguments) and that tool's return.
 * @param {{ text: string, structured: boolean, output: unknown, shape: StreamShape, input: string }} answer
 * @param {{ cutObject?: boolean }} [options]  cutObject: the object's arguments are stored cut in
 *   half, as JSON text (the conversation does not hold it whole)
 * @returns {HistoryMessage[]}
 */
function responseMessages(answer, { cutObject = false } = {}) {
	const { shape } = answer;
	const thinking = shape.thinking ? [{ part_kind: 'thinking', content: 'Let me think.' }] : [];
	/** @type {HistoryMessage[]} */
	const messages = [];
	if (shape.toolCall) {
		const { call, result } = toolParts(answer, shape);
		const builtin = call.part_kind === 'builtin-tool-call';
		// pydantic-ai's history: a builtin tool's return is in the response, a function tool's in
		// the next request.
		const returned = result ?? {
			part_kind: 'builtin-tool-return',
			tool_name: call.tool_name,
			tool_call_id: call.tool_call_id,
			content: { results: [] },
		};
		messages.push({
			kind: 'response',
			parts: [
				...thinking,
				// The lead text only where the stream told it (the 2026 captures wrote none).
				...(shape.toolLead ? [{ part_kind: 'text', content: TOOL_LEAD_TEXT }] : []),
				call,
				...(builtin ? [returned] : []),
			],
		});
		if (!builtin) messages.push({ kind: 'request', parts: [returned] });
	}
	if (!answer.structured) {
		messages.push({
			kind: 'response',
			parts: [...thinking, { part_kind: 'text', content: answer.text }],
		});
		return messages;
	}
	const json = JSON.stringify(answer.output);
	const call = { tool_name: OBJECT_TOOL, tool_call_id: 'call_final_result' };
	const args = cutObject ? json.slice(0, Math.floor(json.length / 2)) : answer.output;
	messages.push(
		{ kind: 'response', parts: [...thinking, { part_kind: 'tool-call', ...call, args }] },
		{
			kind: 'request',
			parts: [{ part_kind: 'tool-return', ...call, content: 'Final result processed.' }],
		},
	);
	return messages;
}

/**
 * Whether a path is `/conversations/{id}` (an id without slashes).
 * @param {string} path
 */
function isConversationPath(path) {
	return path.startsWith(PATH_PREFIX) && /^[^/]+$/.test(path.slice(PATH_PREFIX.length));
}

/**
 * GET /conversations/{id}: `{"state": "running" | "idle", "messages": [...]}`; 404 for an id the
 * emulator never gave. With `conversationRetryAfterMs`, the answer says when to look again
 * (`retry-after-ms`), which lets tests poll fast.
 * @type {Handler}
 */
async function handleConversation(ctx) {
	if (!authorize(ctx)) return;
	let id;
	try {
		id = decodeURIComponent(ctx.path.slice(PATH_PREFIX.length));
	} catch {
		id = '';
	}
	const conversation = ctx.state.conversations.get(id);
	if (!conversation) return sendJson(ctx.res, 404, { detail: 'Conversation not found' });
	const running = conversation.busy;
	const after = ctx.state.config.conversationRetryAfterMs;
	/** @type {Record<string, string>} */
	const headers = after !== null ? { 'retry-after-ms': String(after) } : {};
	sendJson(
		ctx.res,
		200,
		{ state: running ? 'running' : 'idle', messages: conversation.history },
		headers,
	);
}

/**
 * A turn no client is waiting for: an earlier ask of the same conversation, still running for
 * `ms` (the `conversation-busy` fault).
 * @param {State} state
 * @param {Conversation} conversation
 * @param {number} ms
 */
function runEarlierTurn(state, conversation, ms) {
	const turn = beginTurn(state, conversation, 'An earlier ask, still being answered', {
		counted: false,
	});
	turn.answerWith([
		{ kind: 'response', parts: [{ part_kind: 'text', content: 'The earlier answer.' }] },
	]);
	turn.completeAfter(ms);
}

/**
 * Ends every turn still running (the emulator is reset or closed): no timer outlives it.
 * @param {State} state
 */
function stopTurns(state) {
	for (const timer of state.turnTimers) clearTimeout(timer);
	state.turnTimers.clear();
}

module.exports = {
	beginTurn,
	responseMessages,
	isConversationPath,
	handleConversation,
	runEarlierTurn,
	stopTurns,
};
