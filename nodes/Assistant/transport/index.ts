import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
} from 'n8n-workflow';

import type { AskRequest, AskResponse, InBandErrorResponse } from '../api';
import { parseAssistantStreamBatches, type AssistantStreamEvent } from '../sse';
import { apiError, headerValue, httpStatusError, redact, type FailedResponse } from './errors';
import { RequestLifetime, StoppedError } from './lifetime';
import { DEFAULT_RETRIES, isRetryableStatus, retryDelayMs } from './retry';

/** The one place that does HTTP: base URL, auth, timeouts, cancellation and error mapping. */

export const CREDENTIAL_TYPE = 'assistantApi';

/** Answers can take minutes while the assistant runs tools (n8n's usual 300 s is too short). */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** Silence allowed between stream chunks; the assistant can work a while between parts. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60 * 1000;

export type AssistantContext = IExecuteFunctions | ILoadOptionsFunctions;

export interface AssistantCredentials {
	baseUrl: string;
	accessToken: string;
}

export interface RequestSpec {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with '/'. */
	path: string;
	body?: AskRequest;
	/** False only for the public catalog: the token grants full access, so it is not sent there. */
	authenticated: boolean;
	/** For the whole call: every attempt, the pauses between them and, for a stream, its last byte. */
	timeoutMs?: number;
	/** For streams: the longest silence allowed between two chunks. */
	idleTimeoutMs?: number;
	retries?: number;
	itemIndex?: number;
}

interface RawResponse<TBody> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: TBody;
}

type ByteStream = AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void };

/** Per node run: the credential does not change between items, and reading it decrypts it. */
const credentialsOfRun = new WeakMap<AssistantContext, Promise<AssistantCredentials>>();

export async function getCredentials(ctx: AssistantContext): Promise<AssistantCredentials> {
	let credentials = credentialsOfRun.get(ctx);
	if (!credentials) {
		credentials = readCredentials(ctx);
		credentialsOfRun.set(ctx, credentials);
		credentials.catch(() => credentialsOfRun.delete(ctx));
	}
	return await credentials;
}

async function readCredentials(ctx: AssistantContext): Promise<AssistantCredentials> {
	const credentials = await ctx.getCredentials<{ baseUrl?: unknown; accessToken?: unknown }>(
		CREDENTIAL_TYPE,
	);
	return {
		baseUrl: typeof credentials.baseUrl === 'string' ? credentials.baseUrl : '',
		accessToken: typeof credentials.accessToken === 'string' ? credentials.accessToken : '',
	};
}

/** `https://host/api/` and `https://host/api` both work. */
export function joinUrl(baseUrl: string, path: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${path}`;
}

/** A JSON request; resolves with the parsed body of a 2xx answer, throws NodeApiError otherwise. */
export async function apiRequest<TResponse>(
	ctx: AssistantContext,
	spec: RequestSpec,
): Promise<TResponse> {
	const credentials = await getCredentials(ctx);
	const lifetime = new RequestLifetime(spec.timeoutMs ?? DEFAULT_TIMEOUT_MS, cancelSignalOf(ctx));
	let response: RawResponse<string>;
	try {
		response = await sendWithRetries<string>(ctx, spec, credentials, 'text', lifetime);
	} finally {
		lifetime.dispose();
	}
	const body = typeof response.body === 'string' ? response.body : String(response.body ?? '');
	return parseAnswer<TResponse>(ctx, { ...response, body }, spec, credentials);
}

/** The JSON of an answer; statuses, non-JSON bodies and in-band errors become NodeApiErrors. */
function parseAnswer<TResponse>(
	ctx: AssistantContext,
	{ statusCode, headers, body: bodyText }: RawResponse<string>,
	spec: RequestSpec,
	credentials: AssistantCredentials,
): TResponse {
	if (statusCode < 200 || statusCode >= 300) {
		throw httpStatusError(
			ctx.getNode(),
			{ status: statusCode, bodyText, headers } satisfies FailedResponse,
			spec.itemIndex,
			credentials.accessToken,
		);
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(bodyText);
	} catch {
		throw apiError(
			ctx.getNode(),
			{
				message: `The assistant sent a response that is not JSON (HTTP ${statusCode})`,
				description: `Received: ${redact(bodyText.slice(0, 200), credentials.accessToken) || '(empty body)'}. Check that the credential's base URL points at the Assistant API.`,
				httpCode: String(statusCode),
			},
			spec.itemIndex,
		);
	}
	if (isInBandError(parsed)) {
		throw apiError(
			ctx.getNode(),
			{
				message: `The assistant could not answer: ${redact(parsed.error, credentials.accessToken)}`,
				description: 'The service reported this failure inside a successful (HTTP 200) response.',
				httpCode: String(statusCode),
			},
			spec.itemIndex,
		);
	}
	return parsed as TResponse;
}

export interface OpenedStream {
	/** From the `x-conversation-id` header, when the service sends it. */
	conversationId?: string;
	/** The events, in batches: those of one network chunk together. */
	events: AsyncGenerator<AssistantStreamEvent[]>;
}

/**
 * A streaming ask: retried like any request until a 2xx arrives, then never again (the answer
 * has started). The events come as they arrive; the call's deadline and idle limit run until
 * the stream is consumed or abandoned.
 */
export async function streamRequest(
	ctx: AssistantContext,
	spec: RequestSpec,
): Promise<OpenedStream> {
	const credentials = await getCredentials(ctx);
	const lifetime = new RequestLifetime(spec.timeoutMs ?? DEFAULT_TIMEOUT_MS, cancelSignalOf(ctx));
	let response: RawResponse<ByteStream> | undefined;
	try {
		response = await sendWithRetries<ByteStream>(ctx, spec, credentials, 'stream', lifetime);
	} finally {
		if (!response) lifetime.dispose();
	}
	const header = response.headers['x-conversation-id'];
	const conversationId = (Array.isArray(header) ? header[0] : header) || undefined;
	const contentType = headerValue(response.headers, 'content-type') ?? '';
	const isEventStream = /text\/event-stream/i.test(contentType);
	// A failure, or a service that answered the stream request with plain JSON: read it whole.
	if (
		response.statusCode < 200 ||
		response.statusCode >= 300 ||
		(!isEventStream && /json/i.test(contentType))
	) {
		let body: string;
		try {
			body = await readAll(response.body);
		} finally {
			lifetime.dispose();
		}
		const answer = parseAnswer<AskResponse>(ctx, { ...response, body }, spec, credentials);
		return { conversationId, events: answerAsEvents(answer) };
	}
	const body = response.body;
	lifetime.onStop(() => body.destroy?.(new StoppedError(lifetime.reason ?? 'cancelled')));
	if (spec.idleTimeoutMs) lifetime.watchIdle(spec.idleTimeoutMs);
	return {
		conversationId,
		events: guardedEvents(
			ctx,
			parseAssistantStreamBatches(touching(body, lifetime)),
			spec,
			credentials,
			lifetime,
		),
	};
}

/** A whole JSON answer told as the events a stream would have carried. */
async function* answerAsEvents(answer: AskResponse): AsyncGenerator<AssistantStreamEvent[]> {
	const output = answer?.output;
	const events: AssistantStreamEvent[] = [];
	if (typeof output === 'string') events.push({ type: 'text', content: output });
	events.push({
		type: 'end',
		output: typeof output === 'object' && output !== null ? output : undefined,
		conversationId:
			typeof answer?.conversation_id === 'string' ? answer.conversation_id : undefined,
	});
	yield events;
}

/** Every chunk proves the stream is alive. */
async function* touching(body: ByteStream, lifetime: RequestLifetime): AsyncGenerator<Uint8Array> {
	for await (const chunk of body) {
		lifetime.touch();
		yield chunk;
	}
}

/**
 * A connection lost mid-stream, a deadline or a cancellation surfaces as a NodeApiError, never
 * as the raw socket error; the server's Error event text is redacted like any server message.
 */
async function* guardedEvents(
	ctx: AssistantContext,
	events: AsyncGenerator<AssistantStreamEvent[]>,
	spec: RequestSpec,
	credentials: AssistantCredentials,
	lifetime: RequestLifetime,
): AsyncGenerator<AssistantStreamEvent[]> {
	try {
		for await (const batch of events) {
			for (let index = 0; index < batch.length; index++) {
				const event = batch[index];
				if (event.type === 'error') {
					batch[index] = { type: 'error', message: redact(event.message, credentials.accessToken) };
				}
			}
			yield batch;
		}
	} catch (error) {
		if (lifetime.reason) throw stoppedError(ctx, lifetime, spec);
		const detail = errorDetail(error, credentials.accessToken);
		throw apiError(
			ctx.getNode(),
			{
				message: 'The stream broke off before the answer was complete',
				description: `${detail || 'The connection closed unexpectedly.'} No partial answer was returned; run the item again.`,
			},
			spec.itemIndex,
		);
	} finally {
		lifetime.dispose();
	}
}

function cancelSignalOf(ctx: AssistantContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}

/**
 * Sends until an answer is final: a status that is not worth retrying, or retries used up
 * (that response is returned, for the caller to map). Pauses never outlast the deadline.
 */
async function sendWithRetries<TBody>(
	ctx: AssistantContext,
	spec: RequestSpec,
	credentials: AssistantCredentials,
	encoding: 'text' | 'stream',
	lifetime: RequestLifetime,
): Promise<RawResponse<TBody>> {
	const retries = spec.retries ?? DEFAULT_RETRIES;
	for (let attempt = 0; ; attempt++) {
		let response: RawResponse<TBody>;
		try {
			response = await sendOnce<TBody>(ctx, spec, credentials, encoding, lifetime);
		} catch (error) {
			if (lifetime.reason) throw stoppedError(ctx, lifetime, spec);
			// A missing credential and the like; statuses never throw (ignoreHttpStatusErrors).
			// (`new NodeOperationError` of a NodeOperationError returns that same error.)
			if (error instanceof NodeOperationError) throw new NodeOperationError(ctx.getNode(), error);
			const failure = networkError(ctx, error, credentials, spec);
			const delay = retryDelayMs(attempt, undefined);
			if (attempt >= retries || delay >= lifetime.remainingMs()) throw failure;
			await pauseBeforeRetry(ctx, spec, lifetime, attempt, retries, delay, 'network error');
			continue;
		}
		const { statusCode, headers } = response;
		if (!isRetryableStatus(statusCode) || attempt >= retries) return response;
		const delay = retryDelayMs(attempt, statusCode, headers);
		// Waiting past the deadline cannot succeed: the caller reports this answer instead.
		if (delay >= lifetime.remainingMs()) return response;
		discard(response.body);
		await pauseBeforeRetry(ctx, spec, lifetime, attempt, retries, delay, `HTTP ${statusCode}`);
	}
}

async function pauseBeforeRetry(
	ctx: AssistantContext,
	spec: RequestSpec,
	lifetime: RequestLifetime,
	attempt: number,
	retries: number,
	delay: number,
	cause: string,
): Promise<void> {
	ctx.logger.debug(
		`Assistant: ${spec.method} ${spec.path} failed (${cause}); retry ${attempt + 1} of ${retries} in ${delay} ms`,
		{ itemIndex: spec.itemIndex },
	);
	try {
		await lifetime.pause(delay);
	} catch {
		throw stoppedError(ctx, lifetime, spec);
	}
}

async function sendOnce<TBody>(
	ctx: AssistantContext,
	spec: RequestSpec,
	credentials: AssistantCredentials,
	encoding: 'text' | 'stream',
	lifetime: RequestLifetime,
): Promise<RawResponse<TBody>> {
	const options: IHttpRequestOptions = {
		method: spec.method,
		url: joinUrl(credentials.baseUrl, spec.path),
		headers: { Accept: encoding === 'stream' ? 'text/event-stream' : 'application/json' },
		encoding,
		returnFullResponse: true,
		// Statuses are mapped here, so that errors carry the server's message and never the request.
		ignoreHttpStatusErrors: true,
		// The lifetime enforces the deadline; this only replaces the HTTP client's 300 s default.
		timeout: lifetime.remainingMs() + 1000,
		abortSignal: lifetime.signal,
		json: false,
	};
	if (spec.body !== undefined) {
		options.body = spec.body as unknown as IHttpRequestOptions['body'];
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}
	if (!spec.authenticated) {
		return (await ctx.helpers.httpRequest(options)) as RawResponse<TBody>;
	}
	// n8n sets the request's abort signal to the execution's cancel signal; this context hands it
	// ours instead, which also fires on cancellation and adds the deadline.
	const scoped = Object.create(ctx, {
		getExecutionCancelSignal: { value: () => lifetime.signal },
	}) as AssistantContext;
	return (await ctx.helpers.httpRequestWithAuthentication.call(
		scoped,
		CREDENTIAL_TYPE,
		options,
	)) as RawResponse<TBody>;
}

function discard(body: unknown): void {
	const stream = body as { destroy?: () => void } | undefined;
	if (stream && typeof stream.destroy === 'function') stream.destroy();
}

function stoppedError(
	ctx: AssistantContext,
	lifetime: RequestLifetime,
	spec: RequestSpec,
): NodeApiError {
	const where = `${spec.method} ${spec.path}`;
	switch (lifetime.reason) {
		case 'idle':
			return apiError(
				ctx.getNode(),
				{
					message: `The stream stalled: no data for ${seconds(spec.idleTimeoutMs ?? 0)}`,
					description: `${where} stopped sending before the answer was complete. No partial answer was returned; raise Options > Idle Timeout if the assistant pauses longer while it works.`,
				},
				spec.itemIndex,
			);
		case 'timeout':
			return apiError(
				ctx.getNode(),
				{
					message: `The assistant did not answer within ${seconds(lifetime.timeoutMs)}`,
					description: `${where} took longer than Options > Timeout (retries included). Raise it if answers take longer.`,
				},
				spec.itemIndex,
			);
		default:
			return apiError(
				ctx.getNode(),
				{
					message: 'The execution was cancelled',
					description: `${where} was stopped before it finished.`,
				},
				spec.itemIndex,
			);
	}
}

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `CODE: message` of a transport failure. The raw error (an AxiosError, or n8n's NodeApiError
 * around one) holds the request config with the Authorization header: only the underlying code
 * and message are used, and the token is redacted from them all the same.
 */
function errorDetail(error: unknown, secret: string): string {
	const cause = error instanceof NodeApiError && error.cause ? error.cause : error;
	const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
	return redact(
		[code, message].filter((part) => typeof part === 'string' && part).join(': '),
		secret,
	);
}

function networkError(
	ctx: AssistantContext,
	error: unknown,
	credentials: AssistantCredentials,
	spec: RequestSpec,
): NodeApiError {
	const detail = errorDetail(error, credentials.accessToken);
	return apiError(
		ctx.getNode(),
		{
			message: `Could not reach the assistant at ${joinUrl(credentials.baseUrl, spec.path)}`,
			description: `${detail || 'The connection failed.'} Check the credential's base URL and that the service is reachable from n8n.`,
		},
		spec.itemIndex,
	);
}

function isInBandError(body: unknown): body is InBandErrorResponse {
	return (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as { error?: unknown }).error === 'string' &&
		!('output' in body)
	);
}

async function readAll(body: AsyncIterable<Uint8Array | string>): Promise<string> {
	const parts: Buffer[] = [];
	for await (const chunk of body) parts.push(Buffer.from(chunk));
	return Buffer.concat(parts).toString('utf8');
}
