// @ts-check
'use strict';

/**
 * Faults that strike after the service accepted an ask (docs/api.md#exactly-once): the turn has
 * started and runs on to its end (conversations.js) while the client is left with a dropped
 * connection, a stream without its answer, an empty answer or a proxy's error page. The answer
 * joins the conversation `ms` later, where `GET /conversations/{id}` shows it.
 */

const { endResponse, sendCanned, sendJson, writeHead } = require('./respond');
const { terminalResponse } = require('./faults');
const { COMPLETED_SUCCEEDED } = require('./frames2026');
const { STREAM_CONTENT_TYPE_2026 } = require('./ids2026');

/** @typedef {import('./server').Context} Context */
/** @typedef {import('./ask').Answer} Answer */

/**
 * @typedef {object} AcceptedFault
 * @property {'drop-after-accept' | 'drop-after-headers' | 'empty-answer' | 'empty-json' | 'accepted-502'} name
 *   empty-json: a 200 JSON `{"output": ""}` whatever the ask asked for (seen 2026-09-27)
 * @property {number} status  accepted-502: the status the proxy answers (502 unless given)
 */

/**
 * Answers an accepted ask with its fault instead of the answer. The turn is not ended here: it
 * runs on once the response is closed (ask.js), `ms` more.
 * @param {Context} ctx
 * @param {Answer} answer
 * @param {AcceptedFault} fault
 * @param {boolean} stream  the ask asked for a stream
 */
async function failAfterAcceptance(ctx, answer, fault, stream) {
	const id = answer.conversation.id;
	switch (fault.name) {
		case 'drop-after-accept':
			ctx.req.socket.destroy();
			return;
		case 'drop-after-headers':
			if (stream) {
				writeHead(ctx.res, 200, streamHeaders(id, answer));
				ctx.res.flushHeaders();
				// Once the headers are on their way, the connection goes.
				await new Promise((resolve) => ctx.req.socket.write('', () => resolve(undefined)));
			}
			ctx.req.socket.destroy();
			return;
		case 'empty-json':
			return sendJson(ctx.res, 200, { output: '', conversation_id: id }, answer.headers);
		case 'empty-answer':
			if (!stream)
				return sendJson(ctx.res, 200, { output: '', conversation_id: id }, answer.headers);
			writeHead(ctx.res, 200, streamHeaders(id, answer));
			// 2026: the run completes without a part.
			if (answer.shape.dialect === '2026')
				ctx.res.write(`event: completed\ndata: ${JSON.stringify(COMPLETED_SUCCEEDED)}\n\n`);
			else ctx.res.write(`event: End\ndata: ${JSON.stringify(emptyEnd(answer))}\n\n`);
			if (answer.shape.keepAlive) ctx.res.write('data: [DONE]\n\n');
			endResponse(ctx.res);
			return;
		case 'accepted-502':
			sendCanned(ctx.res, terminalResponse({ name: 'status', status: fault.status }));
			return;
	}
}

/**
 * @param {string} id
 * @param {Answer} answer
 */
function streamHeaders(id, answer) {
	return {
		'content-type':
			answer.shape.dialect === '2026' ? STREAM_CONTENT_TYPE_2026 : 'text/event-stream',
		'cache-control': 'no-cache',
		'x-conversation-id': id,
		...answer.headers,
	};
}

/**
 * End without an answer, in the ask's dialect: `{}`, or the live form with an empty `output`.
 * @param {Answer} answer
 */
function emptyEnd(answer) {
	const id = answer.conversation.id;
	if (answer.shape.end === 'data') return { data: { output: '', conversation_id: id } };
	if (answer.shape.end === 'top') return { output: '', conversation_id: id };
	return {};
}

module.exports = { failAfterAcceptance };
