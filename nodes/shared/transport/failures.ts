import type { INode, NodeApiError } from 'n8n-workflow';

import { AttemptFailure, type Acceptance } from './attemptFailure';
import {
	apiError,
	creditText,
	describeServiceFailure,
	describeStatus,
	headline,
	isProviderRateLimit,
	rateLimitedRunAdvice,
	sessionPoolText,
	type ErrorText,
	type WaitOutcome,
} from './errors';
import type { ApiRequest, ResponseHeaders } from './request';
import { DEFAULT_RETRIES, isRetryableStatus, type RetryCause } from './retryPolicy';
import { redacted, type Redaction } from './redaction';
import { isCreditMessage, isSessionPoolMessage, serverMessage } from './serverMessage';

/**
 * What the service said, as the AttemptFailure it comes to: whether waiting may help (the retry
 * loop decides how long), whether the service accepted the ask, and what the user reads.
 */

/** Who failed, and what keeps the token out of the words (the call's credential's). */
export interface FailureScope {
	node: INode;
	request: ApiRequest;
	redaction: Redaction | undefined;
	/**
	 * How many times the call was attempted again before the current attempt (the retry loop
	 * counts them): an error may say its retries waited only when there were any.
	 */
	retriesMade?: number;
}

/** How the service's words reached the node (docs/api.md#errors). */
export type SaidThrough =
	/** A non-2xx answer. */
	| { via: 'status'; status: number; headers: ResponseHeaders }
	/** `{"error": "..."}` inside a 200 (docs/api.md#ask-answer). */
	| { via: 'in-band'; status: number; headers: ResponseHeaders }
	/**
	 * A stream's `Error` or `SSEErrorEvent`; `turnBegan`: answer text, a part or a tool event had
	 * come before it (the assistant was at work: no full pool refused the ask).
	 */
	| { via: 'error-event'; headers: ResponseHeaders; turnBegan: boolean }
	/**
	 * The 2026 stream's `failed` (or `completed` with another status): the run failed;
	 * `turnBegan` as for an error event.
	 */
	| { via: 'failed-run'; headers: ResponseHeaders; turnBegan: boolean; run?: RunFailure };

/** The service's class and kind of a failed run, and the run's status. */
export interface RunFailure {
	status: string;
	errorType?: string;
	failureKind?: string;
}

/**
 * What the service said, as an AttemptFailure: the one place that decides what its words mean,
 * whatever carried them. Out of credit is never retried; a full session pool is waited out unless
 * a stream's turn had begun before it (then the assistant was at work on the ask); the rest by
 * the way it came. A refusal in a
 * non-2xx answer was not accepted, a 408 or 5xx may have been (a proxy's, or the service's after
 * it took the ask); words inside a 2xx came after the service had accepted the ask.
 */
export function serviceFailure(
	scope: FailureScope,
	message: string,
	through: SaidThrough,
): AttemptFailure {
	const said = redacted(message, scope.redaction);
	const status = through.via === 'status' || through.via === 'in-band' ? through.status : undefined;
	const headers = through.headers;
	const failure = (shown: NodeApiError, accepted: Acceptance, retry?: RetryCause, busy = false) =>
		new AttemptFailure({ shown, accepted, retry, busy, headers, status });
	// Out of credit, whatever the status: no retry can help (docs/api.md#credit-failures).
	if ((through.via === 'status' && status === 402) || isCreditMessage(said)) {
		// Refused in a non-2xx answer; said inside a 2xx, after the service took the ask.
		return failure(creditError(scope, status, said), through.via === 'status' ? 'no' : 'yes');
	}
	const poolMayClear = through.via === 'status' || through.via === 'in-band' || !through.turnBegan;
	if (poolMayClear && isSessionPoolMessage(said)) {
		// No session took the ask. A stream's headers may carry the server's Retry-After too.
		return failure(sessionPoolError(scope, status, said), 'no', 'session-pool', true);
	}
	const shown = (text: ErrorText, httpStatus = status) => errorOfText(scope, httpStatus, text);
	switch (through.via) {
		case 'status': {
			const known = describeServiceFailure(through.status, said, {
				modelNamed: modelNamed(scope.request),
				asker: scope.request.asker,
				waited: waitOutcome(scope),
			});
			const error = shown(
				known?.text ?? describeStatus(through.status, through.headers, said, scope.request),
			);
			const retryable = known ? known.retryable : isRetryableStatus(through.status);
			// A failure that cannot pass is a refusal of the ask itself.
			if (!retryable) return failure(error, 'no');
			if (through.status === 409) return failure(error, 'no', 'busy-conversation');
			// A 408 or 5xx may have come after the ask was taken (the service's, or a proxy's);
			// a 429 says it was not.
			const accepted = mayHaveTaken(through.status) ? 'maybe' : 'no';
			const busy = known?.rateLimited === true || through.status === 429 || through.status === 503;
			return failure(error, accepted, 'status', busy);
		}
		case 'in-band':
			return failure(
				shown({
					message: headline('The assistant could not answer', undefined, said),
					description:
						'The service reported this failure inside a successful response. Run the item again; if it keeps failing, change the input or the model.',
				}),
				'yes',
			);
		case 'error-event':
			return failure(
				shown({
					message: headline('The assistant reported an error', undefined, said),
					description: `The stream ended with this error and no answer was returned. ${RUN_AGAIN}`,
				}),
				'yes',
			);
		case 'failed-run':
			// The service took the ask and its run failed (not for want of a session: that is the
			// full pool above): never sent again, never read elsewhere.
			return failure(
				shown({
					message: headline("The assistant's run failed", undefined, said),
					description: runFailedAdvice(scope, said, through.run),
				}),
				'yes',
			);
	}
}

/** A 408 or a 5xx: the service, or a proxy before it, may have taken the request first. */
function mayHaveTaken(status: number): boolean {
	return status === 408 || status >= 500;
}

export const RUN_AGAIN = 'Run the item again; if it keeps happening, try another model.';

/** A non-2xx answer (docs/api.md#errors). */
export function statusFailure(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	bodyText: string,
): AttemptFailure {
	// Redacted before the message is clipped: a clip may cut the token. An HTML page's text is
	// redacted again once its character references are decoded.
	const said = serverMessage(redacted(bodyText, scope.redaction), scope.redaction);
	return serviceFailure(scope, said, { via: 'status', status, headers });
}

/** `{"error": "..."}` inside a 200 (docs/api.md#ask-answer). */
export function inBandFailure(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	message: string,
): AttemptFailure {
	return serviceFailure(scope, message, { via: 'in-band', status, headers });
}

/** What to do about a failed run, from the service's class and kind of failure. */
function runFailedAdvice(scope: FailureScope, said: string, run: RunFailure | undefined): string {
	const classed = run?.errorType
		? ` (the service classed it ${run.errorType}${run.failureKind ? `, ${run.failureKind}` : ''})`
		: '';
	if (isProviderRateLimit(said)) return rateLimitedRunAdvice(scope.request.asker, classed);
	if (run?.failureKind === 'unknown_model') {
		return `The service does not know the model this ask named${classed}. Pick a model from the list (Model > From List), or leave Model empty for the account's default, then run the item again.`;
	}
	if (run?.errorType === 'UserError') {
		return `The service says the ask itself is at fault${classed}: change what the message names (the model, the persona, the input), then run the item again.`;
	}
	return `The service accepted the ask and its run failed there${classed}. It was not sent again, so that the assistant does not act twice: run the item again, or try another model.`;
}

/**
 * How the call's retries went, should this failure end it: the one place that decides which
 * advice a failure that waiting may clear gives. With Retries above 0 and none made, the retry
 * loop gives up on such a failure only when its wait does not fit in the Timeout left.
 */
function waitOutcome(scope: FailureScope): WaitOutcome {
	if ((scope.retriesMade ?? 0) > 0) return 'retried';
	return (scope.request.retries ?? DEFAULT_RETRIES) === 0 ? 'retries-off' : 'no-time';
}

/** Whether the request is an ask that names its model. */
function modelNamed(request: ApiRequest): boolean {
	const body = request.body as { model_name?: unknown } | undefined;
	return typeof body?.model_name === 'string' && body.model_name !== '';
}

export function creditError(
	scope: FailureScope,
	status: number | undefined,
	said: string,
): NodeApiError {
	return errorOfText(scope, status, creditText(status, said));
}

export function sessionPoolError(
	scope: FailureScope,
	status: number | undefined,
	said: string,
): NodeApiError {
	return errorOfText(
		scope,
		status,
		sessionPoolText(status, said, scope.request.asker, waitOutcome(scope)),
	);
}

/** The item's error with this text, and the HTTP status when there was one. */
function errorOfText(
	scope: FailureScope,
	status: number | undefined,
	text: ErrorText,
): NodeApiError {
	return apiError(
		scope.node,
		{ ...text, httpCode: status === undefined ? undefined : String(status) },
		scope.request.itemIndex,
	);
}
