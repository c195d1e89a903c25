import { messageLimitBytes } from '../limits';
import { parseJson, TooManyJsonValues } from '../json';
import { holdsRequestEcho } from '../stream/requestEcho';
import { AttemptFailure } from './attemptFailure';
import { apiError, headline } from './errors';
import { joinUrl } from './credentials';
import { inBandFailure, statusFailure, type FailureScope } from './failures';
import {
	networkFailure,
	stoppedFailure,
	tooLargeFailure,
	tooManyValuesFailure,
} from './transportFailures';
import type { ApiRequest, AssistantContext, ResponseHeaders } from './request';
import { runCall } from './retryLoop';
import { BodyTooLarge, readAll, readErrorBody, sendOnce, takenFailure, type Attempt } from './send';
import { redacted } from './redaction';
import { echoWithheld, eventStreamMessage, inBandErrorOf, stripHtml } from './serverMessage';

/** A JSON answer with the headers it came with. */
export interface JsonAnswer<T> {
	body: T;
	headers: ResponseHeaders;
}

/** A JSON request: the parsed body of a 2xx answer, or a NodeApiError. */
export async function apiRequest<T>(ctx: AssistantContext, request: ApiRequest): Promise<T> {
	return (await runCall(ctx, request, (attempt) => jsonAttempt<T>(attempt))).body;
}

/** One JSON attempt: the body of a 2xx answer with its headers; anything else a failure. */
export async function jsonAttempt<T>(attempt: Attempt): Promise<JsonAnswer<T>> {
	const response = await sendOnce<unknown>(attempt, 'json');
	const { statusCode, headers } = response;
	try {
		const bodyText = await readJsonBody(attempt, statusCode, response.body);
		return { body: parseJsonAnswer<T>(attempt.scope, statusCode, headers, bodyText), headers };
	} catch (error) {
		throw takenFailure(attempt, response.seeOther, error);
	}
}

/** A list's body as the error for one past its bound names it (`npm run check:live` too). */
export const LIST_BODY = 'a list';

/**
 * A 2xx body in full, within its bound (docs/api.md#memory-bounds); of any other, its start (for
 * the error's words).
 */
export async function readJsonBody(
	{ scope, lifetime, credentials }: Attempt,
	status: number,
	body: unknown,
): Promise<string> {
	if (status < 200 || status >= 300) return await readErrorBody(body);
	const { listLimitBytes } = scope.request;
	const limit = listLimitBytes ?? messageLimitBytes(scope.request.answerLimitChars);
	try {
		return await readAll(body, limit);
	} catch (error) {
		if (error instanceof BodyTooLarge) {
			throw listLimitBytes
				? tooLargeFailure(
						scope,
						LIST_BODY,
						limit,
						"No list of the Assistant API is this large: check the credential's Base URL.",
					)
				: tooLargeFailure(scope, 'a JSON response', limit);
		}
		if (lifetime.reason) throw stoppedFailure(scope, lifetime, 'yes');
		throw networkFailure(scope, joinUrl(credentials.baseUrl, scope.request.path), error);
	}
}

/** The JSON of an answer; statuses, non-JSON bodies and in-band errors become AttemptFailures. */
export function parseJsonAnswer<T>(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	bodyText: string,
): T {
	if (status < 200 || status >= 300) throw statusFailure(scope, status, headers, bodyText);
	let parsed: unknown;
	try {
		parsed = parseJson(bodyText);
	} catch (error) {
		if (error instanceof TooManyJsonValues) throw tooManyValuesFailure(scope, status);
		throw notJsonFailure(scope, status, headers, bodyText);
	}
	const inBand = inBandErrorOf(parsed);
	if (inBand !== undefined) throw inBandFailure(scope, status, headers, inBand);
	return parsed as T;
}

/** A 2xx whose body is not JSON: most likely another server than the Assistant API's. */
function notJsonFailure(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	bodyText: string,
): AttemptFailure {
	// An HTML page's text, its character references decoded before the redaction reads it.
	const start = redacted(stripHtml(bodyText.slice(0, 1000)), scope.redaction);
	const received =
		eventStreamMessage(start) ??
		(holdsRequestEcho(start)
			? echoWithheld(undefined)
			: start.slice(0, 200).trim() || '(empty body)');
	const shown = apiError(
		scope.node,
		{
			message: headline('The assistant sent a response that is not JSON', status, received),
			description: "Check that the credential's base URL points at the Assistant API.",
			httpCode: String(status),
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'yes', status, headers });
}
