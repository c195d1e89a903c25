import type { InBandErrorResponse, Unchecked } from '../api';
import { getCredentials } from './credentials';
import { apiError, headline } from './errors';
import { inBandFailure, statusFailure, type FailureScope } from './failures';
import { RequestLifetime } from './lifetime';
import {
	cancelSignalOf,
	DEFAULT_TIMEOUT_MS,
	type ApiRequest,
	type AssistantContext,
	type ResponseHeaders,
} from './request';
import { withRetries } from './retryLoop';
import { readAll, sendOnce } from './send';
import { redact } from './serverMessage';

/** A JSON answer with the headers it came with. */
export interface JsonAnswer<T> {
	body: T;
	headers: ResponseHeaders;
}

/** A JSON request: the parsed body of a 2xx answer, or a NodeApiError. */
export async function apiRequest<T>(ctx: AssistantContext, request: ApiRequest): Promise<T> {
	return (await callJson<T>(ctx, request)).body;
}

export async function callJson<T>(
	ctx: AssistantContext,
	request: ApiRequest,
): Promise<JsonAnswer<T>> {
	const credentials = await getCredentials(ctx);
	const lifetime = new RequestLifetime(
		request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		cancelSignalOf(ctx),
	);
	const scope: FailureScope = { node: ctx.getNode(), request, secret: credentials.accessToken };
	try {
		return await withRetries({ ctx, scope, lifetime }, async () => {
			const response = await sendOnce<unknown>({ ctx, scope, credentials, lifetime }, 'text');
			const bodyText = await readAll(response.body);
			const body = parseJsonAnswer<T>(scope, response.statusCode, response.headers, bodyText);
			return { body, headers: response.headers };
		});
	} finally {
		lifetime.dispose();
	}
}

/** The JSON of an answer; statuses, non-JSON bodies and in-band errors become failures. */
export function parseJsonAnswer<T>(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	bodyText: string,
): T {
	if (status < 200 || status >= 300) throw statusFailure(scope, status, headers, bodyText);
	let parsed: unknown;
	try {
		parsed = JSON.parse(bodyText);
	} catch {
		const received = redact(bodyText.slice(0, 200), scope.secret).trim() || '(empty body)';
		throw apiError(
			scope.node,
			{
				message: headline('The assistant sent a response that is not JSON', status, received),
				description: "Check that the credential's base URL points at the Assistant API.",
				httpCode: String(status),
			},
			scope.request.itemIndex,
		);
	}
	const inBand = inBandErrorOf(parsed);
	if (inBand !== undefined) throw inBandFailure(scope, status, headers, inBand);
	return parsed as T;
}

/** `{"error": "..."}` without an `output` (docs/api.md#ask-answer). */
function inBandErrorOf(body: unknown): string | undefined {
	if (typeof body !== 'object' || body === null || 'output' in body) return undefined;
	const { error } = body as Unchecked<InBandErrorResponse>;
	return typeof error === 'string' ? error : undefined;
}
