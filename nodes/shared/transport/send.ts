import { NodeOperationError, type IHttpRequestOptions } from 'n8n-workflow';

import { asBuffer, HeldBytes } from '../heldBytes';
import { ERROR_BODY_LIMIT_BYTES } from '../limits';
import { CREDENTIAL_TYPE, joinUrl, type AssistantCredentials } from './credentials';
import { type FailureScope } from './failures';
import { AttemptFailure } from './attemptFailure';
import {
	afterSeeOther,
	networkFailure,
	redirectElsewhereFailure,
	stoppedFailure,
	tooManyRedirectsFailure,
} from './transportFailures';
import type { RequestLifetime } from './lifetime';
import { MAX_REDIRECTS, redirectOf } from './redirects';
import {
	conversationIdOf,
	headerValue,
	type AssistantContext,
	type RawResponse,
	type ResponseHeaders,
} from './request';

/** One attempt on the wire, through n8n's HTTP helpers. */
export interface Attempt {
	ctx: AssistantContext;
	scope: FailureScope;
	credentials: AssistantCredentials;
	lifetime: RequestLifetime;
}

/** What the request asks for: a JSON body or an event stream. Either comes as a byte stream. */
export type Accepted = 'json' | 'events';

/**
 * Sends the request once, following redirects within the Base URL's origin
 * (transport/redirects.ts); one to another origin throws its AttemptFailure. Every other status
 * comes back as a response (to be mapped by the caller), its body a byte stream to be read
 * within a bound (readAll); a connection failure or a stop (deadline, cancellation) throws its
 * AttemptFailure. `signal` aborts this request alone, besides the call's lifetime.
 */
export async function sendOnce<TBody>(
	attempt: Attempt,
	accepted: Accepted,
	signal: AbortSignal = attempt.lifetime.signal,
): Promise<RawResponse<TBody>> {
	const { scope, credentials } = attempt;
	let url = joinUrl(credentials.baseUrl, scope.request.path);
	// The path is below the Base URL: the request starts at its origin.
	const origin = credentials.origin;
	let method = scope.request.method;
	let body = scope.request.body;
	/** The "303 See Other" that answered the request, once one has: the service took it. */
	let seeOther: ResponseHeaders | undefined;
	for (let redirects = 0; ; redirects++) {
		let response: RawResponse<TBody>;
		try {
			response = await sendHop<TBody>(attempt, { url, method, body }, accepted, signal);
		} catch (error) {
			throw takenFailure(attempt, seeOther, error);
		}
		if (response.statusCode === 303 && method !== 'GET' && method !== 'HEAD') {
			seeOther ??= response.headers;
		}
		const location = headerValue(response.headers, 'location');
		const redirect = redirectOf(response.statusCode, location, url, method, origin);
		if (redirect.kind === 'none') return seeOther ? { ...response, seeOther } : response;
		discard(response.body);
		if (redirect.kind === 'elsewhere') {
			const failure = redirectElsewhereFailure(scope, response.statusCode, redirect.url);
			throw takenFailure(attempt, seeOther, failure);
		}
		if (redirects >= MAX_REDIRECTS) {
			const failure = tooManyRedirectsFailure(scope, response.statusCode, redirect.url);
			throw takenFailure(attempt, seeOther, failure);
		}
		url = redirect.url;
		method = redirect.method;
		if (!redirect.keepsBody) body = undefined;
	}
}

/**
 * What a request's failure is: after a "303 See Other" (`seeOther`, RawResponse's), one of a
 * request the service took (afterSeeOther); otherwise `error` itself. For the failures of the
 * response sendOnce returns, which its caller maps, as well as for sendOnce's own. The failure's
 * conversation is the one it names, else `namedByResponse` (what the response reached named),
 * else the 303's.
 */
export function takenFailure(
	{ scope, lifetime }: Attempt,
	seeOther: ResponseHeaders | undefined,
	error: unknown,
	namedByResponse?: string,
): unknown {
	if (!seeOther || !(error instanceof AttemptFailure)) return error;
	const conversationId = namedByResponse ?? conversationIdOf(seeOther);
	return afterSeeOther(scope, error, conversationId, lifetime.reason !== undefined);
}

interface Hop {
	url: string;
	method: IHttpRequestOptions['method'];
	body: object | undefined;
}

async function sendHop<TBody>(
	{ ctx, scope, lifetime }: Attempt,
	{ url, method, body }: Hop,
	accepted: Accepted,
	signal: AbortSignal,
): Promise<RawResponse<TBody>> {
	const { request } = scope;
	const accept = accepted === 'events' ? 'text/event-stream' : 'application/json';
	const options: IHttpRequestOptions = {
		method,
		url,
		headers:
			body === undefined
				? { Accept: accept }
				: { Accept: accept, 'Content-Type': 'application/json' },
		// Every body is read by the node, within a bound: the helper would buffer it without one.
		encoding: 'stream',
		returnFullResponse: true,
		// Statuses are mapped by the caller, so that errors carry the server's words, never the request.
		ignoreHttpStatusErrors: true,
		// Redirects are the node's to follow (sendOnce): n8n's helper would carry the token to any
		// origin (n8n 1.x and 2.x; the last option only exists on 2.x, and only drops the header).
		disableFollowRedirect: true,
		maxRedirects: 0,
		sendCredentialsOnCrossOriginRedirect: false,
		// The lifetime enforces the deadline (and a conversation read its own 30 s, by `signal`);
		// this replaces the HTTP client's 300 s default.
		timeout: lifetime.remainingMs() + 1000,
		abortSignal: signal,
		json: false,
	};
	if (body !== undefined) options.body = body as IHttpRequestOptions['body'];
	try {
		if (!request.authenticated) {
			return (await ctx.helpers.httpRequest(options)) as RawResponse<TBody>;
		}
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(ctx, signal),
			CREDENTIAL_TYPE,
			options,
		)) as RawResponse<TBody>;
	} catch (error) {
		// Stopped while the request was on its way: the service may have taken it.
		if (lifetime.reason) throw stoppedFailure(scope, lifetime, 'maybe');
		// A missing credential and the like. (`new NodeOperationError` of a NodeOperationError
		// returns that same error, on this node.)
		if (error instanceof NodeOperationError) throw new NodeOperationError(ctx.getNode(), error);
		throw networkFailure(scope, url, error);
	}
}

/**
 * The context as n8n's authenticated helper sees it: n8n sets the request's abort signal to the
 * execution's cancel signal, and this view hands it ours instead, which also fires on
 * cancellation and adds the deadline. Every other member is the context's own, a method bound to
 * it, so n8n's code runs on its context as ever: an object derived from the context
 * (`Object.create`) made each item of a run some 30 µs slower in n8n's engine (bench row 1).
 */
function withCancelSignal(ctx: AssistantContext, signal: AbortSignal): AssistantContext {
	return new Proxy(ctx, {
		get(target, key) {
			if (key === CANCEL_SIGNAL) return () => signal;
			const value: unknown = Reflect.get(target, key);
			return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
		},
		has: (target, key) => key === CANCEL_SIGNAL || Reflect.has(target, key),
	});
}

const CANCEL_SIGNAL = 'getExecutionCancelSignal';

/** Drops a body that will not be read, so its connection is freed. */
export function discard(body: unknown): void {
	const stream = body as { destroy?: () => void } | undefined;
	if (stream && typeof stream.destroy === 'function') stream.destroy();
}

/**
 * A body went beyond the bound it was read with (docs/api.md#memory-bounds). Never an attempt's
 * failure as such: each reader turns it into its own (an AttemptFailure, the credential test's
 * sentence) where it reads.
 */
export class BodyTooLarge extends Error {
	constructor(readonly limitBytes: number) {
		super(`The response body is larger than ${limitBytes} bytes`);
		this.name = 'BodyTooLarge';
	}
}

/** The whole body as text; past `limitBytes` it is dropped and BodyTooLarge thrown. */
export async function readAll(body: unknown, limitBytes: number): Promise<string> {
	if (typeof body === 'string') {
		if (Buffer.byteLength(body) > limitBytes) throw new BodyTooLarge(limitBytes);
		return body;
	}
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		return String(body ?? '');
	}
	const held = new HeldBytes(limitBytes);
	for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
		const bytes = asBuffer(chunk);
		if (held.length + bytes.length > limitBytes) {
			discard(body);
			throw new BodyTooLarge(limitBytes);
		}
		held.append(bytes);
	}
	return held.bytes().toString('utf8');
}

/** The start of an error response's body, for its message; the rest is dropped. */
export async function readErrorBody(body: unknown): Promise<string> {
	if (typeof body === 'string') return body.slice(0, ERROR_BODY_LIMIT_BYTES);
	if (!body || typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
		return String(body ?? '');
	}
	const held = new HeldBytes(ERROR_BODY_LIMIT_BYTES);
	try {
		for await (const chunk of body as AsyncIterable<Uint8Array | string>) {
			const bytes = asBuffer(chunk);
			held.append(bytes, 0, Math.min(bytes.length, ERROR_BODY_LIMIT_BYTES - held.length));
			if (held.length >= ERROR_BODY_LIMIT_BYTES) break;
		}
	} catch {
		// What came before the failure is the message, if anything.
	} finally {
		discard(body);
	}
	return held.bytes().toString('utf8');
}
