import { AttemptFailure, shownError } from './attemptFailure';
import { getCredentials } from './credentials';
import type { FailureScope } from './failures';
import { stoppedFailure } from './transportFailures';
import { CallWatch, RequestLifetime } from './lifetime';
import type { AttemptPace, BusyVerdict } from './pace';
import {
	cancelSignalOf,
	DEFAULT_TIMEOUT_MS,
	type ApiRequest,
	type AssistantContext,
} from './request';
import {
	DEFAULT_RETRIES,
	retryDelayMs,
	serverRequestedDelayMs,
	systemClock,
	type RetryCause,
	type RetryClock,
} from './retryPolicy';
import type { Attempt } from './send';

/**
 * Waits, instead of the policy's pause, before the retry of `failure` (the call's credential and
 * deadline in `attempt`); true when it did, so that the retry goes at once. A busy conversation
 * is waited out so (docs/api.md#exactly-once).
 */
export type WaitBeforeRetry = (failure: AttemptFailure, attempt: Attempt) => Promise<boolean>;

/**
 * One call: the credential, one deadline over all its attempts (a streamed answer is read within
 * its attempt), and the attempts, retried as the policy says. `attempt` is one try on the wire;
 * its AttemptFailure ends the call as the NodeApiError it shows.
 */
export async function runCall<T>(
	ctx: AssistantContext,
	request: ApiRequest,
	attempt: (attempt: Attempt) => Promise<T>,
	waitBeforeRetry?: WaitBeforeRetry,
): Promise<T> {
	const credentials = await getCredentials(ctx, request.credentials);
	const lifetime = new RequestLifetime(
		request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		request.watch ?? new CallWatch(cancelSignalOf(ctx)),
	);
	const scope: FailureScope = {
		// Asked for only when an error is made: n8n hands out a deep copy of the node each time.
		get node() {
			return ctx.getNode();
		},
		request,
		redaction: credentials.redaction,
	};
	const context: Attempt = { ctx, scope, credentials, lifetime };
	const waitInstead =
		waitBeforeRetry && ((failure: AttemptFailure) => waitBeforeRetry(failure, context));
	const { redaction } = credentials;
	try {
		const value = await withRetries({ ctx, scope, lifetime, waitInstead }, () => attempt(context));
		// What the service sent back: a server may echo the token anywhere in it.
		return redaction ? redaction.json(value) : value;
	} catch (error) {
		throw redaction ? redaction.error(error) : error;
	} finally {
		lifetime.dispose();
	}
}

export interface RetryRun {
	ctx: AssistantContext;
	scope: FailureScope;
	lifetime: RequestLifetime;
	clock?: RetryClock;
	/** Waits before a retry instead of the policy's pause; true when it did (WaitBeforeRetry). */
	waitInstead?: (failure: AttemptFailure) => Promise<boolean>;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or its failure has no retry left within the
 * deadline: then the NodeApiError the failure shows is thrown (any other error as it is). Only a
 * failure's `retry` decides whether it is tried again. The request's pace, when it has one, is
 * acquired before every attempt and released after it; it schedules the retries of busy answers
 * (docs/api.md#full-session-pool): one caused by the run's own other asks costs no retry, and
 * the request waits its turn (and the server's Retry-After) instead of the long fixed pauses.
 */
export async function withRetries<T>(run: RetryRun, attempt: () => Promise<T>): Promise<T> {
	const pace = run.scope.request.pace;
	const retriesOf = new Map<RetryCause, number>();
	// Paced attempts too: each waited and asked again. The attempt's errors read it (FailureScope).
	run.scope.retriesMade = 0;
	try {
		for (;;) {
			// A free turn is taken at once; a stopped call goes through acquire, which says so.
			if (pace && (run.lifetime.reason || !pace.tryAcquire())) await acquire(run, pace);
			let value: T;
			try {
				value = await attempt();
			} catch (failure) {
				await beforeRetry(run, failure, retriesOf);
				run.scope.retriesMade += 1;
				continue;
			}
			pace?.release('ok');
			return value;
		}
	} catch (error) {
		throw shownError(error);
	}
}

/**
 * After a failed attempt: throws the failure when it may not be retried, or when no retry or
 * no time is left for one; otherwise waits what the policy, the pace or `waitInstead` says.
 */
async function beforeRetry(
	run: RetryRun,
	failure: unknown,
	retriesOf: Map<RetryCause, number>,
): Promise<void> {
	const { ctx, scope, lifetime, clock = systemClock } = run;
	const { request } = scope;
	const retries = request.retries ?? DEFAULT_RETRIES;
	if (!(failure instanceof AttemptFailure) || !failure.retry) {
		request.pace?.release('failed');
		throw failure;
	}
	const cause = failure.retry;
	const requestedMs = serverRequestedDelayMs(failure.headers, clock.now());
	const verdict = request.pace?.release(failure.busy ? 'busy' : 'failed', requestedMs);
	const made = retriesOf.get(cause) ?? 0;
	if (verdict) {
		await retryBusy(run, failure, cause, verdict, made, retries);
		if (!verdict.paced) retriesOf.set(cause, made + 1);
		return; // the next acquire waits the pace's delay, then the request's turn
	}
	const delay = retryDelayMs(cause, made, retries, failure.headers, clock);
	if (delay === undefined) throw failure;
	if (await run.waitInstead?.(failure)) {
		retriesOf.set(cause, made + 1);
		return;
	}
	// Waiting past the deadline cannot succeed: the failure itself is the answer then.
	if (delay >= lifetime.remainingMs()) throw failure;
	retriesOf.set(cause, made + 1);
	ctx.logger.debug(
		`Assistant: ${request.method} ${request.path} failed (${cause}: ${failure.shown.httpCode ?? 'no status'}); retry in ${delay} ms`,
		{ itemIndex: request.itemIndex },
	);
	await pause(run, delay);
}

/**
 * Before the next attempt of a busy answer the pace took over: one the run's own asks caused
 * waits only the pace's delay and costs no retry; otherwise it is a retry like any other, and
 * waits at least what the retry policy says. Throws the failure when no retry or time is left.
 */
async function retryBusy(
	run: RetryRun,
	failure: AttemptFailure,
	cause: RetryCause,
	verdict: BusyVerdict,
	made: number,
	retries: number,
): Promise<void> {
	const { ctx, scope, lifetime, clock = systemClock } = run;
	const policyMs = verdict.paced ? 0 : retryDelayMs(cause, made, retries, failure.headers, clock);
	if (policyMs === undefined) throw failure;
	const delay = Math.max(policyMs, verdict.delayMs);
	if (delay >= lifetime.remainingMs()) throw failure;
	const { request } = scope;
	ctx.logger.debug(
		`Assistant: ${request.method} ${request.path} busy (${failure.shown.httpCode ?? cause}); ${verdict.paced ? 'paced, no retry used' : 'retry'}, next attempt in ${delay} ms at the earliest`,
		{ itemIndex: request.itemIndex },
	);
	if (policyMs > verdict.delayMs) await pause(run, policyMs);
}

async function acquire({ scope, lifetime }: RetryRun, pace: AttemptPace): Promise<void> {
	const refused = await pace.acquire(lifetime.signal).then(
		() => undefined,
		(error: unknown) => error ?? new Error('The pace refused the attempt'),
	);
	if (refused === undefined) return;
	// Between attempts: nothing of this call is on its way to the service.
	if (lifetime.reason) throw stoppedFailure(scope, lifetime, 'no');
	throw refused;
}

async function pause({ scope, lifetime }: RetryRun, delay: number): Promise<void> {
	try {
		await lifetime.pause(delay);
	} catch {
		throw stoppedFailure(scope, lifetime, 'no');
	}
}
