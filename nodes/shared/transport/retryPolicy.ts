import { headerValue, type ResponseHeaders } from './request';

/**
 * When to try a call again, and how long to wait first (docs/api.md#errors). Pure: the clock and
 * the random source are passed in, so the policy is tested without waiting.
 *
 * Network errors, 408, 429 and 5xx are passing states; a 409 is a conversation still answering
 * (docs/api.md#busy-conversation-409); a full session pool clears within minutes
 * (docs/api.md#full-session-pool). Every other failure means the request itself is wrong.
 */

export type RetryCause = 'network' | 'status' | 'busy-conversation' | 'session-pool';

export interface RetryClock {
	now(): number;
	/** In [0, 1). */
	random(): number;
}

export const systemClock: RetryClock = { now: () => Date.now(), random: () => Math.random() };

export const DEFAULT_RETRIES = 2;
export const MAX_RETRIES = 10;

const BASE_DELAY_MS = 1000;
/** The service's clients wait about 2.5 s for a busy conversation. */
const BUSY_BASE_DELAY_MS = 2500;
/** No single wait is longer than this, whatever the server asks (session pool aside). */
export const MAX_DELAY_MS = 60_000;
/** A full session pool: a public client retries after these pauses. */
export const SESSION_POOL_DELAYS_MS = [15_000, 30_000, 60_000, 120_000];

export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * How many retries a cause gets. A full session pool gets its whole schedule whatever the
 * Retries option says, unless retries are off: it is the one failure known to clear by waiting.
 */
export function retryLimit(cause: RetryCause, retries: number): number {
	if (cause === 'session-pool') return retries > 0 ? SESSION_POOL_DELAYS_MS.length : 0;
	return retries;
}

/** A number of seconds or milliseconds as the headers write it: digits, a decimal part at most. */
const DELAY_NUMBER = /^\d+(\.\d+)?$/;

/**
 * The three forms of an HTTP date (RFC 9110): `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete
 * `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`. Date.parse alone
 * reads almost anything as some date (`-1`, `5.`, `later 2`): a pause of none, which would send
 * a possibly taken ask again at once.
 */
const HTTP_DATE = [
	/^[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
	/^[A-Za-z]{6,9}, \d{1,2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
	/^[A-Za-z]{3} [A-Za-z]{3} [ \d]?\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * `retry-after-ms`, else `Retry-After` as seconds or an HTTP date; undefined when absent or when
 * it is neither (then no pause was asked for, and the retry policy's own applies).
 */
export function serverRequestedDelayMs(headers: ResponseHeaders, now: number): number | undefined {
	const ms = headerValue(headers, 'retry-after-ms')?.trim();
	if (ms && DELAY_NUMBER.test(ms)) return Number(ms);
	const after = headerValue(headers, 'retry-after')?.trim();
	if (!after) return undefined;
	if (DELAY_NUMBER.test(after)) return Number(after) * 1000;
	if (!HTTP_DATE.some((form) => form.test(after))) return undefined;
	const date = Date.parse(after);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The pause before retry number `attempt + 1` of a cause (`attempt` counts retries of that cause
 * already made), or undefined when that cause has no retry left.
 * The server's Retry-After wins; otherwise exponential backoff with jitter (half fixed, half
 * random, so that items failing together do not come back together), and for a full session
 * pool its schedule plus up to a fifth more.
 */
export function retryDelayMs(
	cause: RetryCause,
	attempt: number,
	retries: number,
	headers: ResponseHeaders,
	clock: RetryClock,
): number | undefined {
	if (attempt >= retryLimit(cause, retries)) return undefined;
	const requested = serverRequestedDelayMs(headers, clock.now());
	if (cause === 'session-pool') {
		const scheduled = SESSION_POOL_DELAYS_MS[attempt];
		const cap = SESSION_POOL_DELAYS_MS[SESSION_POOL_DELAYS_MS.length - 1];
		if (requested !== undefined) return Math.min(requested, cap);
		return Math.round(scheduled * (1 + clock.random() / 5));
	}
	if (requested !== undefined) return Math.min(requested, MAX_DELAY_MS);
	const base = cause === 'busy-conversation' ? BUSY_BASE_DELAY_MS : BASE_DELAY_MS;
	const exponential = Math.min(base * 2 ** attempt, MAX_DELAY_MS);
	return Math.round(exponential / 2 + (clock.random() * exponential) / 2);
}
