import { NodeApiError } from 'n8n-workflow';

import { MAX_JSON_VALUES, mebibytes } from '../limits';
import { AttemptFailure, type Acceptance } from './attemptFailure';
import { apiError, headline } from './errors';
import type { FailureScope } from './failures';
import type { RequestLifetime } from './lifetime';
import { MAX_REDIRECTS, shownTarget, suggestedBaseUrl } from './redirects';
import { redacted, type Redaction } from './redaction';

/**
 * Failures on the node's side of the wire, as AttemptFailures: no connection, a stream broken
 * off or stalled, a stop (deadline, cancellation), a redirect away from the Base URL's origin, a
 * response past a memory bound. What the service itself said is failures.ts's.
 */

/**
 * The connection failed before an answer: worth retrying. The service may have taken the request
 * unless the failure came before it could leave (neverSent).
 */
export function networkFailure(scope: FailureScope, url: string, error: unknown): AttemptFailure {
	const detail = transportDetail(error, scope.redaction);
	const code = transportCode(error);
	// Shown as a redirect's target is: a hop's address is the server's to choose.
	const where = redacted(shownTarget(url), scope.redaction);
	const shown = apiError(
		scope.node,
		{
			message: headline(`Could not reach the assistant at ${where}`, undefined, detail),
			description: "Check the credential's base URL and that the service is reachable from n8n.",
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({
		shown,
		accepted: neverSent(code) ? 'no' : 'maybe',
		retry: 'network',
		code,
	});
}

/**
 * Network failures that happen before the request can have reached the service: no address, no
 * route, no connection, no TLS. Anything else (a reset, a hang-up, a timeout) may come after.
 */
const NEVER_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EAI_FAIL',
	'EAI_NONAME',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EHOSTDOWN',
	'EADDRNOTAVAIL',
	'EPROTO',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function neverSent(code: string | undefined): boolean {
	if (code === undefined) return false;
	return NEVER_SENT_CODES.has(code) || /^(ERR_TLS_|ERR_SSL_|CERT_)/.test(code);
}

/** The code of a transport failure (ECONNRESET, …), when it has one. */
function transportCode(error: unknown): string | undefined {
	const { code } = rawCause(error);
	return typeof code === 'string' && code ? code : undefined;
}

/** The underlying error of a transport failure (n8n wraps some in a NodeApiError). */
function rawCause(error: unknown): { code?: unknown; message?: unknown } {
	const cause = error instanceof NodeApiError && error.cause ? error.cause : error;
	return (cause ?? {}) as { code?: unknown; message?: unknown };
}

/**
 * The connection of a 2xx answer broke off: the service had taken the ask, and its answer may be
 * in its conversation.
 */
export function brokenResponseFailure(scope: FailureScope, error: unknown): AttemptFailure {
	const shown = apiError(
		scope.node,
		{
			message: headline(
				'The stream broke off before the answer was complete',
				undefined,
				transportDetail(error, scope.redaction),
			),
			description: 'No partial answer was returned. Run the item again.',
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'yes', lost: 'broken' });
}

/**
 * A stream that stayed silent past the idle limit, given up: the service had taken the ask, and
 * its answer may be in its conversation.
 */
export function stalledStreamFailure(scope: FailureScope, timeoutMs: number): AttemptFailure {
	const shown = stoppedError(scope, { reason: 'idle', timeoutMs });
	return new AttemptFailure({ shown, accepted: 'yes', lost: 'stalled' });
}

/**
 * Stopped from our side (the deadline, the idle limit or the execution's cancellation), with
 * what the attempt knew of the ask by then; never retried.
 */
export function stoppedFailure(
	scope: FailureScope,
	lifetime: Pick<RequestLifetime, 'reason' | 'timeoutMs'>,
	accepted: Acceptance,
): AttemptFailure {
	return new AttemptFailure({ shown: stoppedError(scope, lifetime), accepted });
}

/** What a stop from our side shows. */
function stoppedError(
	scope: FailureScope,
	lifetime: Pick<RequestLifetime, 'reason' | 'timeoutMs'>,
): NodeApiError {
	const { request } = scope;
	const where = `${request.method} ${request.path}`;
	const text = (message: string, description: string) =>
		apiError(scope.node, { message, description }, request.itemIndex);
	switch (lifetime.reason) {
		case 'idle':
			return text(
				`The stream stalled: no data for ${seconds(request.idleTimeoutMs ?? 0)}`,
				`No partial answer was returned. Raise Options > Idle Timeout (Seconds) if the assistant pauses longer while it works (${where}).`,
			);
		case 'timeout':
			return text(
				`The assistant did not answer within ${seconds(lifetime.timeoutMs)}`,
				`Raise Options > Timeout (Minutes) if answers take longer; it covers every retry of ${where}.`,
			);
		default:
			return text('The execution was cancelled', `${where} was stopped before it finished.`);
	}
}

export function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `CODE: message` of a transport failure. The raw error (an AxiosError, or n8n's NodeApiError
 * around one) holds the request config with the Authorization header: only the underlying code
 * and message are used, and the token is redacted from them all the same.
 */
export function transportDetail(error: unknown, redaction: Redaction | undefined): string {
	const { code, message } = rawCause(error);
	return redacted(
		[code, message].filter((part) => typeof part === 'string' && part).join(': '),
		redaction,
	);
}

/**
 * A failure after the service answered the request "303 See Other": it took the request and
 * points at its result (docs/api.md#redirects), so the request is never sent again, whatever
 * came after. `conversationId`: the one the response reached named, else the 303's, for a
 * failure that names none. A failure to get the result (a refusal or failure where it pointed, a
 * connection lost, a redirect not followed, a full session pool) is a lost answer of an accepted
 * ask: it is looked for in that conversation. Its status is not the ask's (a 404 there is no
 * unknown conversation), so the error keeps it in its words only. What the service said of the
 * accepted ask itself (a failed run, an answer too large, not JSON) keeps its words, with a
 * reminder that the ask was taken; a stop stays a stop.
 */
export function afterSeeOther(
	scope: FailureScope,
	failure: AttemptFailure,
	conversationId: string | undefined,
	stopped: boolean,
): AttemptFailure {
	const named = failure.conversationId ?? conversationId;
	const headers = named ? { ...failure.headers, 'x-conversation-id': named } : failure.headers;
	if (stopped) return failure.with({ accepted: 'yes', retry: undefined, headers });
	if (failure.accepted === 'yes' && !failure.lost) {
		// The service's own word on the ask, with a reminder that it was taken.
		const { message, description, httpCode } = failure.shown;
		const shown = apiError(
			scope.node,
			{
				message,
				description: [
					description,
					`The service had taken the ask (it answered "303 See Other"). ${NOT_SENT_AGAIN}`,
				]
					.filter(Boolean)
					.join(' '),
				httpCode: httpCode ?? undefined,
			},
			scope.request.itemIndex,
		);
		return failure.with({ shown, retry: undefined, headers });
	}
	const shown = apiError(
		scope.node,
		{
			message: `The service took the ask (it answered "303 See Other"), but its answer could not be read where it pointed: ${failure.shown.message}`,
			description: NOT_SENT_AGAIN,
		},
		scope.request.itemIndex,
	);
	const lost = failure.lost ?? 'broken';
	return failure.with({ shown, accepted: 'yes', retry: undefined, lost, headers });
}

/** What an error of an ask the service took says, and what the user does before running it again. */
export const NOT_SENT_AGAIN =
	'The ask was not sent again, so that the assistant does not do the work twice: look at the conversation in the assistant app before you run the item again.';

/**
 * The service redirected to another origin than the Base URL's: not followed, so the token
 * stays with the service and nothing from there becomes output (docs/api.md#redirects).
 */
export function redirectElsewhereFailure(
	scope: FailureScope,
	status: number,
	target: string,
): AttemptFailure {
	const where = redacted(shownTarget(target), scope.redaction);
	const base = redacted(suggestedBaseUrl(target, scope.request.path), scope.redaction);
	const shown = apiError(
		scope.node,
		{
			message: `The service redirected the request to another address (HTTP ${status}): ${where}. The node does not follow a redirect away from the Base URL's origin, so the access token was not sent there`,
			description: `If that address is the Assistant API's, put it in the credential's Base URL (${base}). Otherwise check the Base URL, and any proxy between n8n and the service.`,
			httpCode: String(status),
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'no', status });
}

/** More redirects within the origin than a service needs: a loop, most likely. */
export function tooManyRedirectsFailure(
	scope: FailureScope,
	status: number,
	target: string,
): AttemptFailure {
	const where = redacted(shownTarget(target), scope.redaction);
	const shown = apiError(
		scope.node,
		{
			message: `The service redirected the request more than ${MAX_REDIRECTS} times (the last, HTTP ${status}, to ${where})`,
			description:
				"The redirects go round in a loop or never end. Check the credential's Base URL: put the API's final address there.",
			httpCode: String(status),
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'no', status });
}

/**
 * A 2xx response beyond a memory bound (docs/api.md#memory-bounds): never retried, never cut,
 * never read from the conversation (its answer there would be as large).
 */
export function tooLargeFailure(
	scope: FailureScope,
	what: string,
	limitBytes: number,
	description = "No partial answer was returned. If the service really answers with this much, raise Ask's Options > Max Answer Length; otherwise check the credential's Base URL.",
): AttemptFailure {
	const shown = apiError(
		scope.node,
		{ message: tooLargeMessage(what, limitBytes), description },
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'yes' });
}

/** tooLargeFailure's words; `npm run check:live` says a list past its bound in them. */
export function tooLargeMessage(what: string, limitBytes: number): string {
	return `The service sent ${what} larger than ${mebibytes(limitBytes)}; the node stopped reading it so as not to exhaust n8n's memory`;
}

/** A JSON body of more values than any answer holds (limits.ts's MAX_JSON_VALUES). */
export function tooManyValuesFailure(scope: FailureScope, status: number): AttemptFailure {
	const shown = apiError(
		scope.node,
		{
			message: `The service sent a JSON response of more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values; the node did not read it so as not to exhaust n8n's memory`,
			description:
				"No answer, list or conversation of the Assistant API holds this many. Check the credential's Base URL; if it is right, the service is broken: try again later.",
			httpCode: String(status),
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'yes', status });
}
