/** When a call is tried again and after how long (docs/api.md#errors), with a fake clock. */
import {
	retryDelayMs,
	retryLimit,
	serverRequestedDelayMs,
	SESSION_POOL_DELAYS_MS,
	type RetryClock,
} from '../../../nodes/shared/transport/retryPolicy';

const NOW = Date.parse('2026-11-23T20:00:00Z');
const clock = (random: number): RetryClock => ({ now: () => NOW, random: () => random });

describe('retry policy', () => {
	test('a full session pool waits 15, 30, 60 then 120 s (plus up to a fifth), then gives up', () => {
		const low = SESSION_POOL_DELAYS_MS.map((_, n) =>
			retryDelayMs('session-pool', n, 2, {}, clock(0)),
		);
		expect(low).toEqual([15_000, 30_000, 60_000, 120_000]);
		const high = SESSION_POOL_DELAYS_MS.map((_, n) =>
			retryDelayMs('session-pool', n, 2, {}, clock(0.999)),
		);
		high.forEach((delay, n) => {
			expect(delay).toBeGreaterThan(SESSION_POOL_DELAYS_MS[n]);
			expect(delay).toBeLessThanOrEqual(SESSION_POOL_DELAYS_MS[n] * 1.2);
		});
		expect(retryDelayMs('session-pool', 4, 2, {}, clock(0))).toBeUndefined();
	});

	test('a full session pool gets its whole schedule unless retries are off', () => {
		expect(retryLimit('session-pool', 1)).toBe(4);
		expect(retryLimit('session-pool', 0)).toBe(0);
		expect(retryLimit('status', 3)).toBe(3);
	});

	test("the server's Retry-After is honoured, in seconds, milliseconds or as an HTTP date", () => {
		expect(retryDelayMs('session-pool', 0, 2, { 'retry-after': '40' }, clock(0.5))).toBe(40_000);
		expect(retryDelayMs('status', 0, 2, { 'Retry-After': '3' }, clock(0.5))).toBe(3000);
		expect(retryDelayMs('status', 0, 2, { 'retry-after-ms': '250' }, clock(0.5))).toBe(250);
		const inTenSeconds = new Date(NOW + 10_000).toUTCString();
		expect(serverRequestedDelayMs({ 'retry-after': inTenSeconds }, NOW)).toBe(10_000);
		expect(serverRequestedDelayMs({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
	});

	test('the three forms of an HTTP date are read; anything else asks for no pause, and the schedule applies', () => {
		// Ten seconds after NOW, a Monday.
		for (const form of [
			'Mon, 23 Nov 2026 20:00:10 GMT',
			'Monday, 23-Nov-26 20:00:10 GMT',
			'Mon Nov 23 20:00:10 2026',
		]) {
			expect([form, serverRequestedDelayMs({ 'retry-after': form }, NOW)]).toEqual([form, 10_000]);
		}
		// Date.parse reads each of these as a date long past: a pause of none, an ask sent again at once.
		for (const value of ['-1', '5.', '+5', 'later 2', 'abc 1', '1,5']) {
			expect([value, serverRequestedDelayMs({ 'retry-after': value }, NOW)]).toEqual([
				value,
				undefined,
			]);
		}
		expect(serverRequestedDelayMs({ 'retry-after-ms': '-1' }, NOW)).toBeUndefined();
		expect(retryDelayMs('session-pool', 0, 2, { 'retry-after': '-1' }, clock(0))).toBe(15_000);
	});

	test('a wait the server asks for is capped (60 s; 120 s for a full session pool)', () => {
		expect(retryDelayMs('status', 0, 2, { 'retry-after': '3600' }, clock(0))).toBe(60_000);
		expect(retryDelayMs('session-pool', 0, 2, { 'retry-after': '3600' }, clock(0))).toBe(120_000);
	});

	test('other failures back off exponentially with jitter; a busy conversation from 2.5 s', () => {
		expect(retryDelayMs('network', 0, 2, {}, clock(0))).toBe(500);
		expect(retryDelayMs('network', 0, 2, {}, clock(0.999))).toBeCloseTo(1000, -2);
		expect(retryDelayMs('status', 1, 2, {}, clock(0))).toBe(1000);
		expect(retryDelayMs('busy-conversation', 0, 2, {}, clock(0))).toBe(1250);
		expect(retryDelayMs('busy-conversation', 2, 3, {}, clock(0.999))).toBeCloseTo(10_000, -2);
	});

	test('no retry is left once the Retries option is used up', () => {
		expect(retryDelayMs('status', 2, 2, {}, clock(0))).toBeUndefined();
		expect(retryDelayMs('network', 0, 0, {}, clock(0))).toBeUndefined();
	});
});
