/**
 * A gate around every attempt of a call: `acquire` before it is sent, `release` once it is over
 * (for a stream: when the stream is finished or abandoned). The retry loop drives it when a
 * call has one; what it does (adaptive concurrency, for instance) is up to the implementation.
 */
export interface AttemptPace {
	acquire(signal: AbortSignal): Promise<void>;
	/** `busy`: the service was too busy (a full session pool, 429); `retryAfterMs` if it said. */
	release(outcome: 'ok' | 'busy' | 'failed', retryAfterMs?: number): void;
}
