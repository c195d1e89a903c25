// @ts-check
'use strict';

/**
 * POST /assistant/ask: directives and faults first, then validation, the conversation (409 while
 * it is busy, docs/api.md#busy-conversation-409), the session pool, and the answer as JSON or as
 * a stream (stream.js).
 */

const crypto = require('node:crypto');
const faults = require('./faults');
const { parseDirectives } = require('./directives');
const { composeReply, extractName } = require('./reply');
const { scriptedOutput, scriptedText } = require('./scripted');
const { lastUserText, plainText } = require('./transcript');
const { describeImages, seesImages, takeImages, withImages } = require('./images');
const { CATALOG } = require('./data');
const { buildOutput } = require('./schema');
const { isPlainObject } = require('../helpers/outputFormatSubset');
const { resolveShape } = require('./shapes');
const { validateAsk } = require('./askValidation');
const { streamAnswer } = require('./stream');
const { failAfterAcceptance } = require('./acceptedFaults');
const { beginTurn, responseMessages, runEarlierTurn } = require('./conversations');
const { replayCapture } = require('./replay');
const { conversationId2026 } = require('./ids2026');
const { unknownModelOf, failedRun } = require('./failedRun');
const { splitIntoChunks } = require('./reply');
const { ResponseWriter } = require('./writer');
const respond = require('./respond');
const { applyFaults, authorize, parseJson, sendJson, sendCanned, writeHead } = respond;
const { endResponse, wait, dropConnection } = respond;

/** @typedef {import('./server').Context} Context */
/** @typedef {import('./server').State} State */
/** @typedef {import('./server').Conversation} Conversation */
/** @typedef {import('./server').Handler} Handler */
/** @typedef {import('./askValidation').Ask} Ask */
/** @typedef {import('./faults').FaultSpec} FaultSpec */
/** @typedef {import('./faults').FaultPlan} FaultPlan */
/** @typedef {import('./directives').Directives} Directives */
/** @typedef {import('../helpers/outputFormatSubset').ValidationDetail} ValidationDetail */
/** @typedef {import('./shapes').StreamShape} StreamShape */

/**
 * @typedef {object} Answer
 * @property {Conversation} conversation
 * @property {string} input
 * @property {string} text  the reply text (also for output_format asks, where it is not sent)
 * @property {boolean} structured  output_format was given: output is an object
 * @property {unknown} output  what `output` carries: the text, or the structured object
 * @property {StreamShape} shape  how a stream of this answer is shaped
 * @property {Record<string, string>} headers  sent with the answer, JSON or stream
 * @property {() => void} release  ends the turn: the answer joins the conversation, which is free
 *   again; called just before the last write, so a client that got the whole answer can always
 *   ask again at once
 * @property {() => void} fail  ends the turn without an answer (an error event)
 */

/** @type {Handler} */
async function handleAsk(ctx, queued) {
	if (!authorize(ctx)) return;
	const parsed = parseJson(ctx.rawBody);
	if (!parsed.ok) {
		return sendValidation(ctx, [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }]);
	}
	// Directives act before validation: a fault switched on in the input hits even a bad ask.
	const input = inputOf(parsed.value);
	// In a chat model's transcript the directives are inside its messages' JSON strings.
	const directives = parseDirectives(plainText(input));
	if (directives.errors.length > 0) {
		const detail = directives.errors.map((msg) => ({
			loc: ['body', 'input'],
			msg,
			type: 'value_error',
		}));
		return sendValidation(ctx, detail);
	}
	const directiveFaults = takeDirectiveFaults(ctx.state, input, directives);
	if (await applyFaults(ctx, directiveFaults)) return;
	const checked = validateAsk(ctx.state, parsed.value);
	if (checked.kind === 'invalid') {
		// In 2026 the service takes a streamed ask for a model it does not know, and fails the run.
		const unknownModel = unknownModelOf(parsed.value, checked.errors, stream2026(ctx, directives));
		if (unknownModel === null) return sendValidation(ctx, checked.errors);
		return failedRun(ctx, createConversation(ctx.state), input, unknownModel);
	}
	if (checked.kind === 'unknown-conversation') {
		return sendJson(ctx.res, 404, { detail: 'Conversation not found' });
	}
	if (!takeSession(ctx)) return;
	await runAsk(ctx, checked.ask, faults.planFaults([...queued, ...directiveFaults]), directives);
}

/**
 * Whether this ask's stream is in the 2026 dialect.
 * @param {Context} ctx
 * @param {Directives} directives
 */
function stream2026(ctx, directives) {
	return (directives.shape?.dialect ?? ctx.state.config.dialect) === '2026';
}

/**
 * A session of the account's pool for a valid ask, given back when its answer is over; false
 * (and the refusal sent) when the pool is full. Always true without a pool.
 * @param {Context} ctx
 */
function takeSession(ctx) {
	const pool = ctx.state.sessionPool;
	if (!pool) return true;
	const admission = pool.admit();
	if ('refusal' in admission) {
		sendCanned(ctx.res, admission.refusal);
		return false;
	}
	// 'finish' (the last byte handed to the network) comes before the client can ask again.
	ctx.res.once('finish', admission.release);
	ctx.onClose(admission.release);
	return true;
}

/**
 * The input of an ask body, or '' when there is none (validation reports that later).
 * @param {unknown} body
 */
function inputOf(body) {
	return isPlainObject(body) && typeof body.input === 'string' ? body.input : '';
}

/**
 * @param {Context} ctx
 * @param {ValidationDetail[]} detail
 */
function sendValidation(ctx, detail) {
	sendJson(ctx.res, 422, { detail });
}

/**
 * The directive faults of an input, minus those whose `times=` budget for this input is used up.
 * @param {State} state
 * @param {string} input
 * @param {Directives} directives
 * @returns {FaultSpec[]}
 */
function takeDirectiveFaults(state, input, directives) {
	const taken = directives.faults.filter((directive) => {
		if (directive.times === null) return true;
		const key = `${input}\u0000${directive.raw}`;
		const used = state.directiveUses.get(key) ?? 0;
		if (used >= directive.times) return false;
		state.directiveUses.set(key, used + 1);
		return true;
	});
	return taken.map((directive) => directive.fault);
}

/**
 * Answers a valid ask: refuses it when its conversation is busy, otherwise remembers the
 * message and answers (JSON or stream); counts it in completedAsks when delivered in full.
 * @param {Context} ctx
 * @param {Ask} ask
 * @param {FaultPlan} plan
 * @param {Directives} directives
 */
async function runAsk(ctx, ask, plan, directives) {
	const { state } = ctx;
	const replay = directives.replay ?? state.config.replay;
	if (replay) {
		const turnOn = (/** @type {string} */ id) =>
			beginTurn(state, state.conversations.get(id) ?? createConversation(state, id), ask.input);
		const delayMs = directives.delayMs ?? state.config.answerDelayMs;
		if (await replayCapture(ctx, replay, turnOn, delayMs)) countCompleted(state, ask.input);
		return;
	}
	const conversation =
		state.conversations.get(ask.conversationId ?? '') ?? createConversation(state);
	enterConversation(ctx, conversation.id);
	if (plan.busyMs !== null && ask.conversationId) runEarlierTurn(state, conversation, plan.busyMs);
	if (conversation.busy) {
		state.stats.conversationOverlaps += 1;
		return sendJson(ctx.res, 409, { detail: faults.BUSY_DETAIL });
	}
	// Accepted: the turn runs on to its end whatever happens to this connection
	// (docs/api.md#exactly-once).
	const turn = beginTurn(state, conversation, ask.input);
	const earlier = conversation.messages.slice();
	conversation.messages.push(ask.input);
	conversation.name = extractName(ask.input) ?? conversation.name;
	// The input's images are taken out of its text and described after the reply (images.js).
	const { images, text: inputText } = takeImages(ask.input);
	const modelId = directives.fallbackModel ?? ask.modelId;
	const aboutImages = describeImages(images, seesImages(CATALOG, modelId));
	const text =
		scriptedText(ask.input) ??
		// A chat model's transcript is answered as its last user message.
		composeReply(lastUserText(inputText), {
			modelId,
			personaId: ask.personaId,
			earlier: earlier.map((input) => lastUserText(takeImages(input).text)),
			knownName: conversation.name,
			unicodeProbe: plan.splitBytes,
		}) + aboutImages;
	const structured = ask.outputFormat !== null;
	const output = ask.outputFormat
		? (withImages(
				scriptedOutput(
					ask.outputFormat,
					inputText,
					earlier.map((input) => takeImages(input).text),
				),
				aboutImages,
			) ?? buildOutput(ask.outputFormat, ask.input))
		: text;
	/** @type {Answer} */
	const answer = {
		conversation,
		input: ask.input,
		text,
		structured,
		output,
		shape: resolveShape(state.config.dialect, directives.shape, ask.input),
		// docs/api.md#model-fallback
		headers: directives.fallbackModel ? { 'x-model-fallback': directives.fallbackModel } : {},
		release: () => turn.complete(),
		fail: () => turn.fail(),
	};
	turn.answerWith(responseMessages(answer, { cutObject: plan.cutObject }));
	const delayMs = directives.delayMs ?? state.config.answerDelayMs;
	// The client may hang up, or the connection fail half-way: the turn then ends when it would
	// have (or as the fault says).
	const endsAt = Date.now() + plannedTurnMs(ctx, answer, plan, delayMs);
	ctx.onClose(() => turn.completeAfter(plan.runOnMs ?? Math.max(0, endsAt - Date.now())));
	if (plan.accepted) return await failAfterAcceptance(ctx, answer, plan.accepted, ask.stream);
	const delivered = ask.stream
		? await streamAnswer(ctx, answer, plan, delayMs)
		: await jsonAnswer(ctx, answer, plan, delayMs);
	if (delivered) countCompleted(state, ask.input);
}

/**
 * @param {State} state
 * @param {string} input
 */
function countCompleted(state, input) {
	state.stats.completedAsks.set(input, (state.stats.completedAsks.get(input) ?? 0) + 1);
}

/**
 * How long an answer's turn takes: its delay, a stall, a pause between pieces.
 * @param {Context} ctx
 * @param {Answer} answer
 * @param {FaultPlan} plan
 * @param {number} delayMs
 */
function plannedTurnMs(ctx, answer, plan, delayMs) {
	const pieces = splitIntoChunks(answer.structured ? JSON.stringify(answer.output) : answer.text);
	const chunkDelayMs = plan.chunkDelayMs ?? ctx.state.config.chunkDelayMs;
	return delayMs + (plan.stallMs ?? 0) + Math.max(0, pieces.length - 1) * chunkDelayMs;
}

/**
 * A new conversation: `con_` + 16 letters and digits in the 2026 dialect, `conv_` + hex before.
 * @param {State} state
 * @param {string} [givenId]  a replayed capture's
 * @returns {Conversation}
 */
function createConversation(state, givenId) {
	const id =
		givenId ??
		(state.config.dialect === '2026'
			? conversationId2026()
			: `conv_${crypto.randomBytes(8).toString('hex')}`);
	/** @type {Conversation} */
	const conversation = { id, messages: [], name: null, busy: false, history: [] };
	state.conversations.set(conversation.id, conversation);
	return conversation;
}

/**
 * Counts the asks in progress on a conversation (the refused ones too), for
 * stats.maxConcurrentPerConversation.
 * @param {Context} ctx
 * @param {string} id
 */
function enterConversation(ctx, id) {
	const { activeAsks, stats } = ctx.state;
	const count = (activeAsks.get(id) ?? 0) + 1;
	activeAsks.set(id, count);
	stats.maxConcurrentPerConversation = Math.max(stats.maxConcurrentPerConversation, count);
	ctx.onClose(() => {
		const left = (activeAsks.get(id) ?? 1) - 1;
		if (left > 0) activeAsks.set(id, left);
		else activeAsks.delete(id);
	});
}

/**
 * @param {Context} ctx
 * @param {Answer} answer
 * @param {FaultPlan} plan
 * @param {number} delayMs
 * @returns {Promise<boolean>} whether the whole answer was delivered
 */
async function jsonAnswer(ctx, answer, plan, delayMs) {
	await wait(delayMs, ctx.signal);
	const body = JSON.stringify({ output: answer.output, conversation_id: answer.conversation.id });
	writeHead(ctx.res, 200, {
		'content-type': 'application/json',
		'content-length': String(Buffer.byteLength(body)),
		...answer.headers,
	});
	answer.release();
	if (!plan.resetMidStream && !plan.splitBytes) {
		ctx.res.write(body);
		return endResponse(ctx.res);
	}
	const writer = new ResponseWriter(ctx.res, { signal: ctx.signal, splitBytes: plan.splitBytes });
	if (!plan.resetMidStream) {
		await writer.write(body);
		return endResponse(ctx.res);
	}
	// Half the body, then the connection drops: content-length tells the client it is short.
	const bytes = Buffer.from(body, 'utf8');
	await writer.writeRaw(bytes.subarray(0, Math.floor(bytes.length / 2)));
	await dropConnection(ctx, writer);
	return false;
}

module.exports = { handleAsk };
