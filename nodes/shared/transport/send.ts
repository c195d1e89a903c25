import { NodeOperationError, type IHttpRequestOptions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, joinUrl, type AssistantCredentials } from './credentials';
import { networkFailure, stoppedError, type FailureScope } from './failures';
import type { RequestLifetime } from './lifetime';
import type { AssistantContext, RawResponse } from './request';

/** One attempt on the wire, through n8n's HTTP helpers. */
export interface Attempt {
	ctx: AssistantContext;
	scope: FailureScope;
	credentials: AssistantCredentials;
	lifetime: RequestLifetime;
}

/**
 * Sends the request once. Every status comes back as a response (to be mapped by the caller);
 * a connection failure throws a RetryableFailure, a stop (deadline, cancellation) its error.
 * `signal` aborts this request alone, besides the call's lifetime, when given.
 */
export async function sendOnce<TBody>(
	{ ctx, scope, credentials, lifetime }: Attempt,
	encoding: 'text' | 'stream',
	signal: AbortSignal = lifetime.signal,
): Promise<RawResponse<TBody>> {
	const { request } = scope;
	const url = joinUrl(credentials.baseUrl, request.path);
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: { Accept: encoding === 'stream' ? 'text/event-stream' : 'application/json' },
		encoding,
		returnFullResponse: true,
		// Statuses are mapped by the caller, so that errors carry the server's words, never the request.
		ignoreHttpStatusErrors: true,
		// The lifetime enforces the deadline; this replaces the HTTP client's 300 s default, or
		// bounds one attempt that has its own limit.
		timeout: Math.min(lifetime.remainingMs() + 1000, request.attemptTimeoutMs ?? Infinity),
		abortSignal: signal,
		json: false,
	};
	if (request.body !== undefined) {
		options.body = request.body as IHttpRequestOptions['body'];
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}
	try {
		if (!request.authenticated) {
			return (await ctx.helpers.httpRequest(options)) as RawResponse<TBody>;
		}
		// n8n sets the request's abort signal to the execution's cancel signal; this context hands
		// it ours instead, which also fires on cancellation and adds the deadline.
		const scoped = Object.create(ctx, {
			getExecutionCancelSignal: { value: () => signal },
		}) as AssistantContext;
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			scoped,
			CREDENTIAL_TYPE,
			options,
		)) as RawResponse<TBody>;
	} catch (error) {
		if (lifetime.reason) throw stoppedError(scope, lifetime);
		// A missing credential and the like. (`new NodeOperationError` of a NodeOperationError
		// returns that same error, on this node.)
		if (error instanceof NodeOperationError) throw new NodeOperationError(ctx.getNode(), error);
		throw networkFailure(scope, url, error);
	}
}

/** Drops a body that will not be read, so its connection is freed. */
export function discard(body: unknown): void {
	const stream = body as { destroy?: () => void } | undefined;
	if (stream && typeof stream.destroy === 'function') stream.destroy();
}

export async function readAll(body: unknown): Promise<string> {
	if (typeof body === 'string') return body;
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		return String(body ?? '');
	}
	const parts: Buffer[] = [];
	for await (const chunk of body as AsyncIterable<Uint8Array | string>)
		parts.push(Buffer.from(chunk));
	return Buffer.concat(parts).toString('utf8');
}
