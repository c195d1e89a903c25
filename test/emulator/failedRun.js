// @ts-check
'use strict';

/**
 * A run the service takes and then fails, as captured on 2026-08-19 for an unknown `model_name`:
 * HTTP 200, the run's first runtime chunk, then `event: failed` with the service's words
 * (docs/api.md#2026-stream-dialect).
 */

const crypto = require('node:crypto');
const { beginTurn } = require('./conversations');
const { runtimeChunk, failureData } = require('./frames2026');
const { eventIds, STREAM_CONTENT_TYPE_2026 } = require('./ids2026');
const { writeHead, endResponse } = require('./respond');
const { ResponseWriter } = require('./writer');
const { isPlainObject } = require('../helpers/outputFormatSubset');

/** @typedef {import('../helpers/outputFormatSubset').ValidationDetail} ValidationDetail */

/**
 * The unknown model of a streamed 2026 ask whose only problem it is, else null (a 422 then).
 * @param {unknown} body
 * @param {ValidationDetail[]} errors
 * @param {boolean} is2026
 * @returns {string | null}
 */
function unknownModelOf(body, errors, is2026) {
	if (!is2026 || !isPlainObject(body) || body.stream !== true || errors.length !== 1) return null;
	const [error] = errors;
	const aboutModel = error.loc[1] === 'model_name' && error.type === 'value_error';
	return aboutModel && typeof body.model_name === 'string' ? body.model_name : null;
}

/**
 * Takes the ask (its turn starts and fails) and streams the failed run.
 * @param {import('./server').Context} ctx
 * @param {import('./server').Conversation} conversation
 * @param {string} input
 * @param {string} model
 */
async function failedRun(ctx, conversation, input, model) {
	const turn = beginTurn(ctx.state, conversation, input);
	writeHead(ctx.res, 200, {
		'content-type': STREAM_CONTENT_TYPE_2026,
		'cache-control': 'no-cache',
		'x-conversation-id': conversation.id,
	});
	const writer = new ResponseWriter(ctx.res, { signal: ctx.signal, nextId: eventIds() });
	const dispatching = runtimeChunk('status', { status: 'dispatching' });
	await writer.event(dispatching.type, dispatching.data);
	turn.fail();
	await writer.event(
		'failed',
		failureData(`Unknown model: ${model}`, {
			runnerId: crypto.randomUUID(),
			errorType: 'UserError',
			owner: 'ours',
			kind: 'unknown_model',
		}),
	);
	endResponse(ctx.res);
}

module.exports = { unknownModelOf, failedRun };
