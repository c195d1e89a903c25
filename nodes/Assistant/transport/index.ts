import type {
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
} from 'n8n-workflow';

import type { AskRequest, InBandErrorResponse } from '../api';
import { parseAssistantStream, type AssistantStreamEvent } from '../sse';
import { apiError, httpStatusError, redact, type FailedResponse } from './errors';

/** The one place that does HTTP: base URL, auth, timeouts, cancellation and error mapping. */

export const CREDENTIAL_TYPE = 'assistantApi';

/** Answers can take minutes while the assistant runs tools (n8n's usual 300 s is too short). */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

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
	timeoutMs?: number;
	itemIndex?: number;
}

interface RawResponse<TBody> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: TBody;
}

export async function getCredentials(ctx: AssistantContext): Promise<AssistantCredentials> {
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
export async function apiRequest<TResponse>(ctx: AssistantContext, spec: RequestSpec): Promise<TResponse> {
	const credentials = await getCredentials(ctx);
	const response = await send<string>(ctx, spec, credentials, 'text');
	const bodyText = typeof response.body === 'string' ? response.body : String(response.body ?? '');
	if (response.statusCode < 200 || response.statusCode >= 300) {
		throw httpStatusError(
			ctx.getNode(),
			{ status: response.statusCode, bodyText, headers: response.headers },
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
				message: `The assistant sent a response that is not JSON (HTTP ${response.statusCode})`,
				description: `Received: ${redact(bodyText.slice(0, 200), credentials.accessToken) || '(empty body)'}. Check that the credential's base URL points at the Assistant API.`,
				httpCode: String(response.statusCode),
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
				httpCode: String(response.statusCode),
			},
			spec.itemIndex,
		);
	}
	return parsed as TResponse;
}

export interface OpenedStream {
	/** From the `x-conversation-id` header, when the service sends it. */
	conversationId?: string;
	events: AsyncGenerator<AssistantStreamEvent>;
}

/** A streaming ask: checks the status, then hands back the typed events as they arrive. */
export async function streamRequest(ctx: AssistantContext, spec: RequestSpec): Promise<OpenedStream> {
	const credentials = await getCredentials(ctx);
	const response = await send<AsyncIterable<Uint8Array>>(ctx, spec, credentials, 'stream');
	if (response.statusCode < 200 || response.statusCode >= 300) {
		const bodyText = await readAll(response.body);
		throw httpStatusError(
			ctx.getNode(),
			{ status: response.statusCode, bodyText, headers: response.headers } satisfies FailedResponse,
			spec.itemIndex,
			credentials.accessToken,
		);
	}
	const header = response.headers['x-conversation-id'];
	const conversationId = Array.isArray(header) ? header[0] : header;
	return {
		conversationId: conversationId || undefined,
		events: withStreamErrors(ctx, parseAssistantStream(response.body), spec, credentials),
	};
}

/**
 * A connection lost mid-stream surfaces as a NodeApiError, never as the raw socket error;
 * the server's Error event text is redacted like any other server message.
 */
async function* withStreamErrors(
	ctx: AssistantContext,
	events: AsyncGenerator<AssistantStreamEvent>,
	spec: RequestSpec,
	credentials: AssistantCredentials,
): AsyncGenerator<AssistantStreamEvent> {
	try {
		for await (const event of events) {
			yield event.type === 'error'
				? { type: 'error', message: redact(event.message, credentials.accessToken) }
				: event;
		}
	} catch (error) {
		const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
		const detail = redact(
			[code, message].filter((part) => typeof part === 'string' && part).join(': '),
			credentials.accessToken,
		);
		throw apiError(
			ctx.getNode(),
			{
				message: 'The stream broke off before the answer was complete',
				description: `${detail || 'The connection closed unexpectedly.'} No partial answer was returned; run the item again.`,
			},
			spec.itemIndex,
		);
	}
}

async function send<TBody>(
	ctx: AssistantContext,
	spec: RequestSpec,
	credentials: AssistantCredentials,
	encoding: 'text' | 'stream',
): Promise<RawResponse<TBody>> {
	const timeoutMs = spec.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const options: IHttpRequestOptions = {
		method: spec.method,
		url: joinUrl(credentials.baseUrl, spec.path),
		headers: { Accept: encoding === 'stream' ? 'text/event-stream' : 'application/json' },
		encoding,
		returnFullResponse: true,
		// Statuses are mapped here, so that errors carry the server's message and never the request.
		ignoreHttpStatusErrors: true,
		timeout: timeoutMs,
		json: false,
	};
	if (spec.body !== undefined) {
		options.body = spec.body as unknown as IHttpRequestOptions['body'];
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}
	try {
		if (!spec.authenticated) {
			return (await ctx.helpers.httpRequest(options)) as RawResponse<TBody>;
		}
		return (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			CREDENTIAL_TYPE,
			options,
		)) as RawResponse<TBody>;
	} catch (error) {
		throw networkError(ctx, error, credentials, spec, timeoutMs);
	}
}

function networkError(
	ctx: AssistantContext,
	error: unknown,
	credentials: AssistantCredentials,
	spec: RequestSpec,
	timeoutMs: number,
): Error {
	// The raw error (an AxiosError) holds the request config with the Authorization header:
	// only its code and message are used.
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	const codeText = typeof code === 'string' ? code : '';
	const where = joinUrl(credentials.baseUrl, spec.path);
	if (codeText === 'ECONNABORTED' || codeText === 'ETIMEDOUT' || /timeout/i.test(String(message))) {
		return apiError(
			ctx.getNode(),
			{
				message: `The assistant did not answer within ${Math.round(timeoutMs / 1000)} s`,
				description: `No complete answer from ${where}. Raise the node's Timeout option if answers take longer.`,
			},
			spec.itemIndex,
		);
	}
	if (codeText === 'ERR_CANCELED') {
		return apiError(ctx.getNode(), { message: 'The request was cancelled' }, spec.itemIndex);
	}
	const detail = redact(
		[codeText, typeof message === 'string' ? message : ''].filter(Boolean).join(': '),
		credentials.accessToken,
	);
	return apiError(
		ctx.getNode(),
		{
			message: `Could not reach the assistant at ${where}`,
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
	for await (const chunk of body) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
	return Buffer.concat(parts).toString('utf8');
}
