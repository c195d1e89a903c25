/**
 * When to try a request again, and how long to wait first.
 * Network errors, 408, 409 (a conversation still answering), 429 and 5xx are passing states;
 * every other 4xx means the request itself is wrong, and sending it again cannot help.
 */

export const DEFAULT_RETRIES = 2;
export const MAX_RETRIES = 10;

const BASE_DELAY_MS = 1000;
/** The service's clients wait about 2.5 s for a busy conversation. */
const BUSY_BASE_DELAY_MS = 2500;
/** No single wait is longer than this, whatever the server asks. */
export const MAX_DELAY_MS = 60_000;

export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 409 || status === 429 || status >= 500;
}

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** `retry-after-ms`, else `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function serverRequestedDelayMs(headers: Headers, now = Date.now()): number | undefined {
	const ms = header(headers, 'retry-after-ms');
	if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) {
		return Math.max(0, Number(ms));
	}
	const after = header(headers, 'retry-after')?.trim();
	if (!after) return undefined;
	if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
	const date = Date.parse(after);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter (half fixed, half random, so that many items failing together
 * do not come back together), unless the server said how long to wait.
 * `attempt` counts from 0 for the first retry.
 */
export function retryDelayMs(
	attempt: number,
	status: number | undefined,
	headers: Headers = {},
	random: () => number = Math.random,
): number {
	const requested = serverRequestedDelayMs(headers);
	if (requested !== undefined) return Math.min(requested, MAX_DELAY_MS);
	const base = status === 409 ? BUSY_BASE_DELAY_MS : BASE_DELAY_MS;
	const exponential = Math.min(base * 2 ** attempt, MAX_DELAY_MS);
	return Math.round(exponential / 2 + (random() * exponential) / 2);
}
