/**
 * How long a call may take (README's Reliability): one deadline over every attempt, an idle
 * limit between stream chunks, and the execution's cancellation, all stopping the request.
 */
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

import { CallWatch, RequestLifetime, StoppedError } from '../../../nodes/shared/transport/lifetime';

describe('a call is stopped by its deadline, its idle limit or cancellation, whichever comes first', () => {
	it('the deadline stops the call and says so', async () => {
		const lifetime = new RequestLifetime(30);
		expect(lifetime.signal.aborted).toBe(false);
		await sleep(60);
		expect(lifetime.signal.aborted).toBe(true);
		expect(lifetime.reason).toBe('timeout');
		expect(lifetime.remainingMs()).toBe(0);
		lifetime.dispose();
	});

	it('a stream that keeps sending is not idle; one that goes quiet is stopped as idle', async () => {
		const lifetime = new RequestLifetime(5_000);
		lifetime.watchIdle(40);
		for (let chunk = 0; chunk < 4; chunk++) {
			await sleep(20);
			lifetime.touch();
		}
		expect(lifetime.reason).toBeUndefined();
		await sleep(80);
		expect(lifetime.reason).toBe('idle');
		lifetime.dispose();
	});

	it('with its own handler, a quiet stream is given up alone: the handler runs once, the call goes on', async () => {
		const lifetime = new RequestLifetime(5_000);
		let stalls = 0;
		lifetime.watchIdle(30, () => (stalls += 1));
		await sleep(90);
		expect(stalls).toBe(1);
		expect(lifetime.reason).toBeUndefined();
		expect(lifetime.signal.aborted).toBe(false);
		lifetime.dispose();
	});

	it('cancelling the execution stops the call at once, even before it started', () => {
		const execution = new AbortController();
		const running = new RequestLifetime(5_000, new CallWatch(execution.signal));
		const stopped: string[] = [];
		running.onStop(() => stopped.push('running'));
		execution.abort();
		expect(running.reason).toBe('cancelled');
		expect(stopped).toEqual(['running']);
		const late = new RequestLifetime(5_000, new CallWatch(execution.signal));
		expect(late.reason).toBe('cancelled');
		running.dispose();
		late.dispose();
	});

	it('the first reason wins', () => {
		const lifetime = new RequestLifetime(5_000);
		lifetime.stop('idle');
		lifetime.stop('cancelled');
		expect(lifetime.reason).toBe('idle');
		expect(lifetime.signal.reason).toEqual(new StoppedError('idle'));
		lifetime.dispose();
	});
});

describe('a pause between attempts ends early when the call is stopped', () => {
	it('a pause waits its time when nothing stops the call', async () => {
		const lifetime = new RequestLifetime(5_000);
		const started = Date.now();
		await lifetime.pause(30);
		expect(Date.now() - started).toBeGreaterThanOrEqual(25);
		lifetime.dispose();
	});

	it('cancellation during a pause rejects it with the reason, without waiting it out', async () => {
		const execution = new AbortController();
		const lifetime = new RequestLifetime(5_000, new CallWatch(execution.signal));
		const pause = lifetime.pause(2_000);
		const outcome = pause.then(
			() => 'waited it out',
			(error: unknown) => error,
		);
		execution.abort();
		// Settled before the next turn of the event loop: no timer, of any length, ran first.
		const nextTurn = new Promise((resolve) => setImmediate(() => resolve('still waiting')));
		expect(await Promise.race([outcome, nextTurn])).toEqual(new StoppedError('cancelled'));
		await expect(pause).rejects.toEqual(new StoppedError('cancelled'));
		lifetime.dispose();
	});
});

describe("a run's calls share one watch: one timer, one listener on the cancellation", () => {
	it('each call stops at its own deadline, whatever order they started in', async () => {
		const watch = new CallWatch();
		const late = new RequestLifetime(120, watch);
		const early = new RequestLifetime(30, watch);
		await sleep(60);
		expect(early.reason).toBe('timeout');
		expect(late.reason).toBeUndefined();
		await sleep(100);
		expect(late.reason).toBe('timeout');
		early.dispose();
		late.dispose();
	});

	it('a call that ended is not stopped later, and the next call still gets its deadline', async () => {
		const watch = new CallWatch();
		const first = new RequestLifetime(30, watch);
		first.dispose();
		const second = new RequestLifetime(80, watch);
		await sleep(50);
		expect(first.reason).toBeUndefined();
		expect(second.reason).toBeUndefined();
		await sleep(60);
		expect(second.reason).toBe('timeout');
		second.dispose();
	});

	it('cancelling the execution stops every live call at once; the watch listens only while one is live', () => {
		const execution = new AbortController();
		const watch = new CallWatch(execution.signal);
		const one = new RequestLifetime(5_000, watch);
		const two = new RequestLifetime(5_000, watch);
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(1);
		const ended = new RequestLifetime(5_000, watch);
		ended.dispose();
		execution.abort();
		expect([one.reason, two.reason, ended.reason]).toEqual(['cancelled', 'cancelled', undefined]);
		one.dispose();
		two.dispose();
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
		expect(new RequestLifetime(5_000, watch).reason).toBe('cancelled');
	});

	it('a run that holds the watch listens once for all its calls, and not after it releases it', () => {
		const execution = new AbortController();
		const watch = new CallWatch(execution.signal);
		const release = watch.hold();
		for (let call = 0; call < 20; call++) {
			new RequestLifetime(5_000, watch).dispose();
			expect(getEventListeners(execution.signal, 'abort')).toHaveLength(1);
		}
		const live = new RequestLifetime(5_000, watch);
		release();
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(1);
		execution.abort();
		expect(live.reason).toBe('cancelled');
		live.dispose();
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
	});

	it('with no call live, nothing listens to the execution', () => {
		const execution = new AbortController();
		const watch = new CallWatch(execution.signal);
		for (let call = 0; call < 20; call++) new RequestLifetime(5_000, watch).dispose();
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
	});
});
