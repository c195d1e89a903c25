/**
 * When to read a running conversation again (docs/api.md#recovery-after-a-failure). Pure.
 *
 * A public client of the live service reads it 5, 10, 15 and 20 s apart, then every 30 s. The
 * node reads once at once (a conversation whose turn is already over needs no wait), then on that
 * schedule, within the ask's Timeout: the last read comes shortly before it runs out. A server
 * that says when to look again (`Retry-After`, `retry-after-ms` on the read) is followed instead,
 * within bounds.
 */

/** The public client's pauses between reads; every later pause is the last one. */
export const POLL_PAUSES_MS = [5_000, 10_000, 15_000, 20_000, 30_000] as const;

/** A server's own pause is followed, but never below this (no busy loop) nor above a minute. */
export const MIN_POLL_PAUSE_MS = 50;
export const MAX_POLL_PAUSE_MS = 60_000;

/** The last read is made at least this long before the deadline, so that it can answer. */
export const LAST_READ_MS = 1_000;

/**
 * The pause before the next read, `pausesMade` pauses in; undefined when the time left is too
 * short for another read.
 */
export function nextPollPauseMs(
	pausesMade: number,
	remainingMs: number,
	serverRequestedMs?: number,
): number | undefined {
	if (remainingMs <= LAST_READ_MS) return undefined;
	const scheduled = POLL_PAUSES_MS[Math.min(pausesMade, POLL_PAUSES_MS.length - 1)];
	const wanted =
		serverRequestedMs === undefined
			? scheduled
			: Math.min(Math.max(serverRequestedMs, MIN_POLL_PAUSE_MS), MAX_POLL_PAUSE_MS);
	return Math.min(wanted, remainingMs - LAST_READ_MS);
}
