import type { INode, NodeApiError } from 'n8n-workflow';

import {
	apiError,
	creditText,
	describeServiceFailure,
	describeStatus,
	headline,
	sessionPoolText,
	type ErrorText,
} from './errors';
import type { ApiRequest, ResponseHeaders } from './request';
import type { RetryCause } from './retryPolicy';
import { isRetryableStatus } from './retryPolicy';
import { isCreditMessage, isSessionPoolMessage, redact, serverMessage } from './serverMessage';

/**
 * What went wrong in one attempt, as the error to throw: a RetryableFailure when waiting may
 * help (the retry loop decides), a NodeApiError when it cannot.
 */

/** A failure worth another attempt; `error` is what the user sees when none is left. */
export class RetryableFailure extends Error {
	constructor(
		readonly retryCause: RetryCause,
		readonly error: NodeApiError,
		readonly headers: ResponseHeaders = {},
		/** A network failure's code (ECONNREFUSED, ECONNRESET, …), when it has one. */
		readonly code?: string,
	) {
		super(error.message);
		this.name = 'RetryableFailure';
	}
}

/** Who failed and with which secret to keep out of the words. */
export interface FailureScope {
	node: INode;
	request: ApiRequest;
	secret: string;
}

/** How the service's words reached the node (docs/api.md#errors). */
export type SaidThrough =
	/** A non-2xx answer. */
	| { via: 'status'; status: number; headers: ResponseHeaders }
	/** `{"error": "..."}` inside a 200 (docs/api.md#ask-answer). */
	| { via: 'in-band'; status: number; headers: ResponseHeaders }
	/** A stream's `Error` or `SSEErrorEvent`; `afterText`: answer text had come before it. */
	| { via: 'error-event'; headers: ResponseHeaders; afterText: boolean }
	/** The 2026 stream's `failed` (or `completed` with another status): the run failed. */
	| { via: 'failed-run'; run?: RunFailure };

/** The service's class and kind of a failed run, and the run's status. */
export interface RunFailure {
	status: string;
	errorType?: string;
	failureKind?: string;
}

/**
 * What the service said, as the error to throw: the one place that decides what its words mean,
 * whatever carried them. Out of credit is never retried; a full session pool is waited out unless
 * the ask had begun answering or its run failed; the rest by the way it came.
 */
export function serviceFailure(
	scope: FailureScope,
	message: string,
	through: SaidThrough,
): RetryableFailure | NodeApiError {
	const said = redact(message, scope.secret);
	const status = through.via === 'status' || through.via === 'in-band' ? through.status : undefined;
	// Out of credit, whatever the status: no retry can help (docs/api.md#credit-failures).
	if ((through.via === 'status' && status === 402) || isCreditMessage(said)) {
		return creditError(scope, status, said);
	}
	const poolMayClear =
		through.via === 'status' ||
		through.via === 'in-band' ||
		(through.via === 'error-event' && !through.afterText);
	if (poolMayClear && isSessionPoolMessage(said)) {
		// A stream's headers may carry the server's Retry-After too.
		return new RetryableFailure(
			'session-pool',
			sessionPoolError(scope, status, said),
			through.headers,
		);
	}
	const shown = (text: ErrorText, httpStatus = status) => errorOfText(scope, httpStatus, text);
	switch (through.via) {
		case 'status': {
			const known = describeServiceFailure(through.status, said, modelNamed(scope.request));
			const error = shown(known?.text ?? describeStatus(through.status, through.headers, said));
			const retryable = known ? known.retryable : isRetryableStatus(through.status);
			if (!retryable) return error;
			const cause = through.status === 409 ? 'busy-conversation' : 'status';
			return new RetryableFailure(cause, error, through.headers);
		}
		case 'in-band':
			return shown({
				message: headline('The assistant could not answer', undefined, said),
				description:
					'The service reported this failure inside a successful response. Run the item again; if it keeps failing, change the input or the model.',
			});
		case 'error-event':
			return shown({
				message: headline('The assistant reported an error', undefined, said),
				description: `The stream ended with this error and no answer was returned. ${RUN_AGAIN}`,
			});
		case 'failed-run':
			// The service took the ask and its run failed: never sent again, never read elsewhere.
			return shown({
				message: headline("The assistant's run failed", undefined, said),
				description: runFailedAdvice(through.run),
			});
	}
}

export const RUN_AGAIN = 'Run the item again; if it keeps happening, try another model.';

/** A non-2xx answer (docs/api.md#errors). */
export function statusFailure(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	bodyText: string,
): RetryableFailure | NodeApiError {
	return serviceFailure(scope, serverMessage(bodyText), { via: 'status', status, headers });
}

/** `{"error": "..."}` inside a 200 (docs/api.md#ask-answer). */
export function inBandFailure(
	scope: FailureScope,
	status: number,
	headers: ResponseHeaders,
	message: string,
): RetryableFailure | NodeApiError {
	return serviceFailure(scope, message, { via: 'in-band', status, headers });
}

/** What to do about a failed run, from the service's class and kind of failure. */
function runFailedAdvice(run: RunFailure | undefined): string {
	const classed = run?.errorType
		? ` (the service classed it ${run.errorType}${run.failureKind ? `, ${run.failureKind}` : ''})`
		: '';
	if (run?.failureKind === 'unknown_model') {
		return `The service does not know the model this ask named${classed}. Pick a model from the list (Model > From List), or leave Model empty for the account's default, then run the item again.`;
	}
	if (run?.errorType === 'UserError') {
		return `The service says the ask itself is at fault${classed}: change what the message names (the model, the persona, the input), then run the item again.`;
	}
	return `The service accepted the ask and its run failed there${classed}. It was not sent again, so that the assistant does not act twice: run the item again, or try another model.`;
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
	return errorOfText(scope, status, sessionPoolText(status, said));
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
