import { RetryableFailure, stoppedError, type FailureScope } from './failures';
import type { RequestLifetime } from './lifetime';
import type { AssistantContext } from './request';
import {
	DEFAULT_RETRIES,
	retryDelayMs,
	serverRequestedDelayMs,
	systemClock,
	type RetryCause,
	type RetryClock,
} from './retryPolicy';

export interface RetryRun {
	ctx: AssistantContext;
	scope: FailureScope;
	lifetime: RequestLifetime;
	clock?: RetryClock;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or its failure has no retry left within the
 * deadline (then the failure's error is thrown). The request's pace, when it has one, is
 * acquired before every attempt and released after it.
 */
export async function withRetries<T>(run: RetryRun, attempt: () => Promise<T>): Promise<T> {
	const { ctx, scope, lifetime, clock = systemClock } = run;
	const { request } = scope;
	const retries = request.retries ?? DEFAULT_RETRIES;
	const retriesOf = new Map<RetryCause, number>();
	for (;;) {
		await acquire(run);
		const settled = await attempt().then(
			(value) => ({ done: true as const, value }),
			(error: unknown) => ({ done: false as const, error }),
		);
		if (settled.done) {
			request.pace?.release('ok');
			return settled.value;
		}
		if (!(settled.error instanceof RetryableFailure)) {
			request.pace?.release('failed');
			throw settled.error;
		}
		const failure = settled.error;
		const requestedMs = serverRequestedDelayMs(failure.headers, clock.now());
		request.pace?.release(isBusy(failure) ? 'busy' : 'failed', requestedMs);
		const made = retriesOf.get(failure.cause) ?? 0;
		const delay = retryDelayMs(failure.cause, made, retries, failure.headers, clock);
		// Waiting past the deadline cannot succeed: the failure itself is the answer then.
		if (delay === undefined || delay >= lifetime.remainingMs()) throw failure.error;
		retriesOf.set(failure.cause, made + 1);
		ctx.logger.debug(
			`Assistant: ${request.method} ${request.path} failed (${failure.cause}: ${failure.error.httpCode ?? 'no status'}); retry in ${delay} ms`,
			{ itemIndex: request.itemIndex },
		);
		await pause(run, delay);
	}
}

/** The account as a whole is too busy: what a pace adapts to. */
function isBusy(failure: RetryableFailure): boolean {
	return (
		failure.cause === 'session-pool' ||
		(failure.cause === 'status' && failure.error.httpCode === '429')
	);
}

async function acquire({ scope, lifetime }: RetryRun): Promise<void> {
	const pace = scope.request.pace;
	if (!pace) return;
	const refused = await pace.acquire(lifetime.signal).then(
		() => undefined,
		(error: unknown) => error ?? new Error('The pace refused the attempt'),
	);
	if (refused === undefined) return;
	if (lifetime.reason) throw stoppedError(scope, lifetime);
	throw refused;
}

async function pause({ scope, lifetime }: RetryRun, delay: number): Promise<void> {
	try {
		await lifetime.pause(delay);
	} catch {
		throw stoppedError(scope, lifetime);
	}
}
