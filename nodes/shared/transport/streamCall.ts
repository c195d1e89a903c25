import { ERROR_BODY_LIMIT_BYTES, messageLimitBytes } from '../limits';
import {
	createSseDecoder,
	SseLimitError,
	type EventNames,
	type SseMessage,
} from '../stream/decode';
import { readSseBody, type SseBody } from '../stream/sseBody';
import { AttemptFailure } from './attemptFailure';
import { statusFailure, type FailureScope } from './failures';
import {
	brokenResponseFailure,
	stalledStreamFailure,
	stoppedFailure,
	tooLargeFailure,
} from './transportFailures';
import { parseJsonAnswer } from './jsonCall';
import { StoppedError, type RequestLifetime } from './lifetime';
import { headerValue, type RawResponse, type ResponseHeaders } from './request';
import {
	BodyTooLarge,
	discard,
	readAll,
	readErrorBody,
	sendOnce,
	takenFailure,
	type Attempt,
} from './send';

type ByteStream = SseBody & { destroy?: (error?: Error) => void };

/**
 * After the answer's end, how long the body may take to end by itself before it is released
 * (sseBody.ts's afterAnswer): a server ends it at once; one that keeps it open is not waited for.
 */
const AFTER_ANSWER_GRACE_MS = 250;

/**
 * What a stream request got: an event stream, or (tolerated) a whole JSON answer declared so; one
 * that is not declared is told by its first byte as the events are read. `seeOther`:
 * the "303 See Other" it came through (RawResponse's); what fails in reading it is a failure of
 * a request the service took (send.ts's takenFailure).
 */
export type OpenedStream = (
	| {
			kind: 'events';
			headers: ResponseHeaders;
			/**
			 * Reads the messages as they arrive, until the stream ends or `onMessage` returns false;
			 * once, under the call's deadline and idle limit. `names`: the events the reader knows,
			 * and those it does not read (stream/decode.ts). Resolves with undefined, or, when the
			 * body (not declared JSON) held a whole JSON answer (no message is then read), with that
			 * answer parsed, as the `json` kind's `body`.
			 */
			read(
				onMessage: (message: SseMessage) => boolean,
				names?: EventNames,
			): Promise<{ body: unknown } | undefined>;
	  }
	| { kind: 'json'; headers: ResponseHeaders; body: unknown }
) & { seeOther?: ResponseHeaders };

/**
 * One attempt of a streaming request. A failed status becomes its AttemptFailure; a 2xx event
 * stream comes back as SSE messages, read as they arrive, under the call's deadline and idle
 * limit. Only bytes and failures here: what the messages mean is stream/answer.ts's business.
 * Once a 2xx answer has begun, the service has accepted the ask: a connection that breaks off or
 * a stream that goes silent past the idle limit is a lost response (docs/api.md#exactly-once).
 */
export async function openStream(attempt: Attempt): Promise<OpenedStream> {
	const { scope, lifetime } = attempt;
	const idleMs = scope.request.idleTimeoutMs;
	// A silent stream is given up, not the call: the answer may still be read elsewhere. So this
	// attempt's request has a signal of its own, which the call's stop aborts too.
	const stall = idleMs ? new AbortController() : undefined;
	if (stall) lifetime.onStop(() => stall.abort(lifetime.signal.reason));
	const response = await sendOnce<ByteStream>(attempt, 'events', stall?.signal);
	try {
		return await openedBody(attempt, response, stall);
	} catch (error) {
		throw takenFailure(attempt, response.seeOther, error);
	}
}

/** The response of openStream's request: its failure, a JSON answer, or its events to read. */
async function openedBody(
	attempt: Attempt,
	response: RawResponse<ByteStream>,
	stall: AbortController | undefined,
): Promise<OpenedStream> {
	const { scope, lifetime } = attempt;
	const messageLimit = messageLimitBytes(scope.request.answerLimitChars);
	const idleMs = scope.request.idleTimeoutMs;
	const { statusCode, headers, seeOther } = response;
	if (statusCode < 200 || statusCode >= 300) {
		const bodyText =
			isJsonType(headerValue(headers, 'content-type')) === false
				? await readErrorEvents(response.body)
				: await readErrorBody(response.body);
		throw statusFailure(scope, statusCode, headers, bodyText);
	}
	const body = response.body;
	lifetime.onStop(() => body.destroy?.(new StoppedError(lifetime.reason ?? 'cancelled')));
	if (isJsonType(headerValue(headers, 'content-type'))) {
		// A whole JSON answer is read under the Timeout alone, as a JSON call's body is.
		let jsonText: string;
		try {
			jsonText = await readAll(body, messageLimit);
		} catch (error) {
			discard(body);
			if (error instanceof BodyTooLarge) {
				throw tooLargeFailure(scope, 'a JSON answer', messageLimit);
			}
			// The headers came: the conversation they name may hold the answer the body lost.
			throw lostOrStopped(scope, lifetime, error, false).with({ headers });
		}
		// A service that answered the stream request with plain JSON (docs/api.md#how-a-stream-ends).
		const parsed = parseJsonAnswer<unknown>(scope, statusCode, headers, jsonText);
		return { kind: 'json', headers, seeOther, body: parsed };
	}
	// From the headers on: a body silent from its start is as stalled as one silent mid-way.
	if (stall && idleMs) {
		lifetime.watchIdle(idleMs, () => {
			stall.abort(new StoppedError('idle'));
			body.destroy?.(new StoppedError('idle'));
		});
	}
	return {
		kind: 'events',
		headers,
		seeOther,
		read: (onMessage, names) =>
			readEvents(
				{ body, messageLimit, statusCode, headers },
				{ scope, lifetime, stall },
				{ onMessage, names },
			),
	};
}

/** At most this much of an error status's event stream is read for the error's words. */
const ERROR_STREAM_READ_BYTES = 64 * 1024 * 1024;

/**
 * An error status's event stream, as text for its words (serverMessage.ts): read as events, so
 * that the request's echo (megabytes of the user's files; the decoder drops its data as it
 * streams) does not push an error event after it past what an error body keeps. The events are
 * written again, the echo left out, up to ERROR_BODY_LIMIT_BYTES; at most ERROR_STREAM_READ_BYTES
 * are read, and no line past ERROR_BODY_LIMIT_BYTES is held.
 */
async function readErrorEvents(body: unknown): Promise<string> {
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		return await readErrorBody(body);
	}
	let text = '';
	let full = false;
	const decoder = createSseDecoder(({ event, data }) => {
		const written = `event: ${event}\ndata: ${data.replace(/\n/g, '\ndata: ')}\n\n`;
		if (full || text.length + written.length > ERROR_BODY_LIMIT_BYTES) full = true;
		else text += written;
	}, ERROR_BODY_LIMIT_BYTES);
	let read = 0;
	try {
		for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
			decoder.push(chunk);
			read += chunk.length;
			if (full || read >= ERROR_STREAM_READ_BYTES) break;
		}
		decoder.finish();
	} catch {
		// A line past the bound, or the body broke off: what was read before it is what there is.
	} finally {
		discard(body);
	}
	return text;
}

/** Whether the content type says the body is an event stream. */
export function isEventStreamType(contentType: string | undefined): boolean {
	return contentType !== undefined && /text\/event-stream/i.test(contentType);
}

/**
 * What the content type says the body is: JSON (true), an event stream (false), or not said
 * (undefined: no content type, or another one).
 */
function isJsonType(contentType: string | undefined): boolean | undefined {
	if (isEventStreamType(contentType)) return false;
	if (contentType && /json/i.test(contentType)) return true;
	return undefined;
}

/** Of a 2xx answer: the call was stopped, or the response stalled or broke off. */
function lostOrStopped(
	scope: FailureScope,
	lifetime: RequestLifetime,
	error: unknown,
	stalled: boolean,
): AttemptFailure {
	if (lifetime.reason) return stoppedFailure(scope, lifetime, 'yes');
	if (stalled) return stalledStreamFailure(scope, lifetime.timeoutMs);
	return brokenResponseFailure(scope, error);
}

/**
 * Reads the events to the stream's end or the answer's. A bound passed, a connection lost
 * mid-stream, a stall, the deadline or a cancellation surfaces as its AttemptFailure, never as the
 * raw socket error (the decoder's SseLimitError is turned into the failure here). Finished or
 * abandoned, the body is released and the idle limit ends. Past the answer's end the body is
 * read on to its own end for a short grace (AFTER_ANSWER_GRACE_MS), and released then: a body
 * given up mid-way costs more than the rest of it, and an aborted read would make an AbortError,
 * stack trace included, for every ask. A body that held a whole JSON answer instead of events
 * (stream/sseBody.ts) resolves with that answer parsed, as openedBody's `json` kind's.
 */
async function readEvents(
	{
		body,
		messageLimit,
		statusCode,
		headers,
	}: {
		body: ByteStream;
		messageLimit: number;
		statusCode: number;
		headers: ResponseHeaders;
	},
	{
		scope,
		lifetime,
		stall,
	}: { scope: FailureScope; lifetime: RequestLifetime; stall?: AbortController },
	{ onMessage, names }: { onMessage: (message: SseMessage) => boolean; names?: EventNames },
): Promise<{ body: unknown } | undefined> {
	let jsonText: string | undefined;
	try {
		jsonText = await readSseBody(body, messageLimit, {
			// Every chunk proves the stream is alive.
			onChunk: () => lifetime.touch(),
			onMessage,
			names,
			// A whole JSON answer is read under the Timeout alone, as a JSON call's body is.
			onJson: () => lifetime.unwatchIdle(),
			// The grace replaces any idle limit: the answer is whole, only the body's end is left.
			afterAnswer: (stop) => lifetime.watchIdle(AFTER_ANSWER_GRACE_MS, stop),
			failureOf: (error) =>
				// Beyond a bound the item fails: its conversation's answer would be as large.
				error instanceof SseLimitError
					? tooLargeFailure(scope, error.noun, error.limitBytes)
					: lostOrStopped(scope, lifetime, error, stall?.signal.aborted ?? false),
			// Broken off from the other side, not stopped here (deadline, idle limit, cancellation):
			// the stream's last event, whole but for its blank line, counts as at a clean end
			// (docs/api.md#how-a-stream-ends).
			cutOff: (failure) => failure instanceof AttemptFailure && failure.lost === 'broken',
		});
	} finally {
		lifetime.unwatchIdle();
		discard(body);
	}
	if (jsonText === undefined) return undefined;
	// Declared an event stream, it was a whole JSON answer (docs/api.md#how-a-stream-ends).
	return { body: parseJsonAnswer<unknown>(scope, statusCode, headers, jsonText) };
}
