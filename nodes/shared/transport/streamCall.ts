import { decodeSseBatches, type SseMessage } from '../stream/decode';
import { brokenStreamError, statusFailure, stoppedError, type FailureScope } from './failures';
import { parseJsonAnswer } from './jsonCall';
import { StoppedError, type RequestLifetime } from './lifetime';
import { headerValue, type ResponseHeaders } from './request';
import { discard, readAll, sendOnce, type Attempt } from './send';

type ByteStream = AsyncIterable<Uint8Array> & {
	destroy?: (error?: Error) => void;
	/** Node's Readable: its chunks, without destroying it when the reader stops early. */
	iterator?: (options: { destroyOnReturn: boolean }) => AsyncIterable<Uint8Array>;
};

/** What a stream request got: an event stream, or (tolerated) a whole JSON answer. */
export type OpenedStream =
	| { kind: 'events'; headers: ResponseHeaders; messages: AsyncGenerator<SseMessage[]> }
	| { kind: 'json'; headers: ResponseHeaders; body: unknown };

/**
 * One attempt of a streaming request. A failed status becomes a failure; a 2xx event stream
 * comes back as SSE messages, in batches, as they arrive, under the call's deadline and idle
 * limit until it is consumed or abandoned. Only bytes and failures here: what the messages mean
 * is stream/answer.ts's business.
 */
export async function openStream(attempt: Attempt): Promise<OpenedStream> {
	const { scope, lifetime } = attempt;
	const response = await sendOnce<ByteStream>(attempt, 'stream');
	const { statusCode, headers } = response;
	if (statusCode < 200 || statusCode >= 300) {
		throw statusFailure(scope, statusCode, headers, await readAll(response.body));
	}
	const contentType = headerValue(headers, 'content-type') ?? '';
	if (!/text\/event-stream/i.test(contentType) && /json/i.test(contentType)) {
		// A service that answered the stream request with plain JSON (docs/api.md#how-a-stream-ends).
		const body = parseJsonAnswer<unknown>(scope, statusCode, headers, await readAll(response.body));
		return { kind: 'json', headers, body };
	}
	const body = response.body;
	lifetime.onStop(() => body.destroy?.(new StoppedError(lifetime.reason ?? 'cancelled')));
	if (scope.request.idleTimeoutMs) lifetime.watchIdle(scope.request.idleTimeoutMs);
	return {
		kind: 'events',
		headers,
		messages: guarded(decodeSseBatches(touching(body, lifetime)), body, scope, lifetime),
	};
}

/**
 * Every chunk proves the stream is alive. Reading stops at End, before the body ends: the body is
 * then released by `discard`, not by the iterator (which would make an AbortError, stack trace
 * included, for every ask).
 */
async function* touching(body: ByteStream, lifetime: RequestLifetime): AsyncGenerator<Uint8Array> {
	const chunks = body.iterator?.({ destroyOnReturn: false }) ?? body;
	for await (const chunk of chunks) {
		lifetime.touch();
		yield chunk;
	}
}

/**
 * A connection lost mid-stream, the deadline or a cancellation surfaces as a NodeApiError, never
 * as the raw socket error. Finished or abandoned, the body is released and the idle limit ends.
 */
async function* guarded(
	messages: AsyncGenerator<SseMessage[]>,
	body: ByteStream,
	scope: FailureScope,
	lifetime: RequestLifetime,
): AsyncGenerator<SseMessage[]> {
	try {
		yield* messages;
	} catch (error) {
		if (lifetime.reason) throw stoppedError(scope, lifetime);
		throw brokenStreamError(scope, error);
	} finally {
		lifetime.unwatchIdle();
		discard(body);
	}
}
