/**
 * A gate around every attempt of a call: `acquire` before it is sent, `release` once it is over
 * (for a stream: when the stream is finished or abandoned). The retry loop drives it when a
 * call has one; what it does (adaptive concurrency, for instance) is up to the implementation.
 */
export interface AttemptPace {
	/** Takes the turn at once when one is free, with nothing to wait for; false: `acquire` it. */
	tryAcquire(): boolean;
	acquire(signal: AbortSignal): Promise<void>;
	/**
	 * `busy`: the service was too busy (a full session pool, 429, 503); `retryAfterMs` if it said.
	 * For a busy answer, a pace that schedules the retry itself returns how (see BusyVerdict).
	 */
	release(outcome: AttemptOutcome, retryAfterMs?: number): BusyVerdict | void;
}

export type AttemptOutcome = 'ok' | 'busy' | 'failed';

/** A busy answer as the pace sees it (docs/api.md#full-session-pool). */
export interface BusyVerdict {
	/**
	 * Other asks of the same run held the sessions: the refusal is the pace's business, not a
	 * failed attempt, so it costs no retry. Otherwise it counts as one, as without a pace.
	 */
	paced: boolean;
	/** How long the request waits before its next attempt: its next `acquire` waits it. */
	delayMs: number;
}
