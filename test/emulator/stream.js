// @ts-check
'use strict';

/**
 * A streamed answer on the wire: the frames of its shape (streamFrames.js) written with the
 * pauses and stream faults of the ask, then End or the dialect's error event
 * (docs/api.md#how-a-stream-ends).
 */

const { bodyFrames, endData, errorFrame, toolResultContent } = require('./streamFrames');
const { frames2026, COMPLETED_SUCCEEDED, failureData } = require('./frames2026');
const { runIds, eventIds, STREAM_CONTENT_TYPE_2026 } = require('./ids2026');
const { ResponseWriter } = require('./writer');
const { writeHead, endResponse, wait, dropConnection } = require('./respond');

/** @typedef {import('./server').Context} Context */
/** @typedef {import('./ask').Answer} Answer */
/** @typedef {import('./faults').FaultPlan} FaultPlan */

/**
 * Streams an answer as Server-Sent Events in the ask's shape, with the plan's stream faults.
 * @param {Context} ctx
 * @param {Answer} answer
 * @param {FaultPlan} plan
 * @param {number} delayMs
 * @returns {Promise<boolean>} whether the whole answer, End included, was delivered
 */
async function streamAnswer(ctx, answer, plan, delayMs) {
	const { res, signal } = ctx;
	const is2026 = answer.shape.dialect === '2026';
	const contentType = is2026 ? STREAM_CONTENT_TYPE_2026 : 'text/event-stream';
	/** @type {Record<string, string>} */
	const headers = { 'content-type': contentType, 'cache-control': 'no-cache' };
	if (!plan.noHeaderId) headers['x-conversation-id'] = answer.conversation.id;
	if (plan.retryAfter !== null) headers['retry-after'] = plan.retryAfter;
	writeHead(res, 200, { ...headers, ...answer.headers });
	res.flushHeaders();
	await wait(delayMs, signal);
	const shape = { ...answer.shape, end: plan.endForm ?? answer.shape.end };
	const writer = new ResponseWriter(res, {
		signal,
		crlf: plan.crlf,
		splitBytes: plan.splitBytes,
		flat: shape.flat,
		nextId: is2026 ? eventIds() : undefined,
	});
	const streamed = {
		text: answer.text,
		structured: answer.structured,
		output: answer.output,
		conversationId: answer.conversation.id,
		input: answer.input,
	};
	const extras = { unknownEvents: plan.unknownEvents, toolResult: toolResultContent };
	const frames = is2026
		? frames2026(streamed, shape, runIds(), extras)
		: bodyFrames(streamed, shape, extras);
	if (!(await streamFrames(ctx, writer, plan, frames, answer))) return false;
	if (is2026 && plan.completedFailure !== null) answer.fail();
	else answer.release();
	if (plan.noEnd) {
		endResponse(res);
		return false;
	}
	if (is2026) {
		// End only where a fault asks for it (End's forms, the id the header leaves out).
		if (plan.endForm !== null || plan.noHeaderId) {
			await writer.event('End', endData(streamed, shape, plan.noHeaderId));
		}
		const completed =
			plan.completedFailure === null
				? COMPLETED_SUCCEEDED
				: failureData(plan.completedFailure, { errorType: 'ModelError', kind: 'model_error' });
		await writer.event('completed', completed);
		const ended = endResponse(res);
		return plan.completedFailure === null && ended;
	}
	await writer.event('End', endData(streamed, shape, plan.noHeaderId));
	if (shape.keepAlive) await writer.write('data: [DONE]\n\n');
	return endResponse(res);
}

/**
 * Writes the frames before End, pausing between pieces of text; returns false when a fault cut
 * the stream short.
 * @param {Context} ctx
 * @param {ResponseWriter} writer
 * @param {FaultPlan} plan
 * @param {import('./streamFrames').Frame[]} frames
 * @param {Answer} answer
 * @returns {Promise<boolean>}
 */
async function streamFrames(ctx, writer, plan, frames, answer) {
	const chunkDelayMs = plan.chunkDelayMs ?? ctx.state.config.chunkDelayMs;
	const pieces = frames.filter((frame) => frame.kind === 'event' && frame.startsPiece).length;
	const cut = cutIndex(plan, pieces);
	// unreadable-event: the middle piece's event cut short on the wire.
	const unreadable = plan.unreadableEvent ? Math.floor(pieces / 2) : -1;
	let sent = 0;
	for (const frame of frames) {
		// A full pool refuses the ask before a model is asked: no part, no echo of the request.
		if (
			plan.errorBeforeText &&
			frame.kind === 'event' &&
			frame.type !== 'AgentRuntimeStreamChunk'
		) {
			return interrupt(ctx, writer, plan, answer);
		}
		if (frame.kind === 'comment') {
			await writer.comment(frame.text);
			continue;
		}
		if (frame.startsPiece) {
			if (sent === cut && !(await interrupt(ctx, writer, plan, answer))) return false;
			if (sent > 0) await wait(chunkDelayMs, ctx.signal);
			const cutShort = sent === unreadable;
			sent += 1;
			if (cutShort) {
				await writer.cutEvent(frame.type, frame.data);
				continue;
			}
		}
		await writer.event(frame.type, frame.data);
	}
	return sent === cut ? interrupt(ctx, writer, plan, answer) : true;
}

/**
 * After how many pieces of text a stream fault strikes: before any for a session-pool error, a
 * piece or two for error-event, halfway otherwise.
 * @param {FaultPlan} plan
 * @param {number} count
 */
function cutIndex(plan, count) {
	if (plan.errorBeforeText) return 0;
	if (plan.errorEvent !== null) return Math.min(count, 2);
	if (plan.resetMidStream || plan.stallMs !== null)
		return Math.min(count, Math.max(1, Math.floor(count / 2)));
	return -1;
}

/**
 * Stalls, sends the error event or drops the connection; returns true when the stream goes on.
 * @param {Context} ctx
 * @param {ResponseWriter} writer
 * @param {FaultPlan} plan
 * @param {Answer} answer
 */
async function interrupt(ctx, writer, plan, answer) {
	if (plan.stallMs !== null) await wait(plan.stallMs, ctx.signal);
	// An error event ends the turn; a dropped connection does not: the turn runs on (ask.js).
	if (plan.errorEvent !== null) answer.fail();
	if (plan.errorEvent !== null) {
		const frame = errorFrame(answer.shape, plan.errorEvent);
		if (frame.kind === 'event') await writer.event(frame.type, frame.data);
		endResponse(ctx.res);
		return false;
	}
	if (plan.resetMidStream) {
		await dropConnection(ctx, writer);
		return false;
	}
	return true;
}

module.exports = { streamAnswer };
