/**
 * The adaptive pace of a node run (docs/api.md#full-session-pool): Concurrency is the upper bound,
 * busy answers lower the asks in flight, successes raise them again, Retry-After is honoured and
 * cancelling stops every wait at once. Time is a fake clock: no test waits for real.
 */
import { setMaxListeners } from 'node:events';

import {
	AdaptivePace,
	RunStopped,
	type AttemptPace,
} from '../../../nodes/shared/transport/adaptivePace';
import { FakeClock } from '../../helpers/fake-clock';

const never = new AbortController().signal;
// Every waiting lane listens to it in these tests (in n8n, each request has its own signal).
setMaxListeners(0, never);

/** Acquires `count` lanes at once; resolves with them once all have their turn. */
async function startLanes(pace: AdaptivePace, count: number, from = 0): Promise<AttemptPace[]> {
	const lanes = Array.from({ length: count }, (_, i) => pace.lane(from + i));
	await Promise.all(lanes.map((lane) => lane.acquire(never)));
	return lanes;
}

/** Whether a promise has settled once everything that can run now has run. */
async function isSettled(clock: FakeClock, promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	void promise.then(
		() => (settled = true),
		() => (settled = true),
	);
	await clock.settle();
	return settled;
}

interface Service {
	/** Sessions of the account at a time (ms since the start). */
	capacity: (now: number) => number;
	answerMs: number;
	retryAfterMs?: number;
}

interface Simulated {
	elapsedMs: number;
	attempts: number;
	refused: number;
	answeredOnce: boolean;
	mostAtOnce: number;
	pace: AdaptivePace;
}

/**
 * A node run as the runner drives it (Concurrency workers taking items in order, each item's
 * attempts through its own lane) against an account whose sessions refuse asks beyond their
 * number at once, on the fake clock.
 */
async function simulate(items: number, concurrency: number, service: Service): Promise<Simulated> {
	const clock = new FakeClock();
	const pace = new AdaptivePace(concurrency, clock, () => 0.5);
	const answers = new Array<number>(items).fill(0);
	let active = 0;
	let mostAtOnce = 0;
	let attempts = 0;
	let refused = 0;
	const askOnce = async (item: number, lane: AttemptPace): Promise<boolean> => {
		await lane.acquire(never);
		attempts += 1;
		if (active >= service.capacity(clock.now())) {
			refused += 1;
			lane.release('busy', service.retryAfterMs);
			return false;
		}
		active += 1;
		mostAtOnce = Math.max(mostAtOnce, active);
		await clock.sleep(service.answerMs);
		active -= 1;
		answers[item] += 1;
		lane.release('ok');
		return true;
	};
	let next = 0;
	const worker = async () => {
		while (next < items) {
			const item = next++;
			const lane = pace.lane(item);
			while (!(await askOnce(item, lane)));
		}
	};
	const run = Promise.all(Array.from({ length: concurrency }, worker));
	await clock.runUntilSettled(run);
	return {
		elapsedMs: clock.now(),
		attempts,
		refused,
		answeredOnce: answers.every((count) => count === 1),
		mostAtOnce,
		pace,
	};
}

describe('Concurrency is the upper bound of asks in flight', () => {
	it('without busy answers, as many asks run at once as Concurrency allows, and no more', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(3, clock);
		const lanes = await startLanes(pace, 3);
		const fourth = pace.lane(3).acquire(never);
		expect(await isSettled(clock, fourth)).toBe(false);
		lanes[0].release('ok');
		expect(await isSettled(clock, fourth)).toBe(true);
		expect(pace.summary()).toEqual({ max: 3, busyAnswers: 0, lowest: 3, final: 3 });
	});

	it('an account that is never busy runs at Concurrency from the first ask to the last', async () => {
		const run = await simulate(200, 16, { capacity: () => Infinity, answerMs: 100 });
		expect(run.elapsedMs).toBe(Math.ceil(200 / 16) * 100);
		expect(run.mostAtOnce).toBe(16);
		expect(run.refused).toBe(0);
	});

	it('a waiting earlier item gets the next free turn before a later one', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(1, clock);
		const [running] = await startLanes(pace, 1);
		const order: number[] = [];
		const turns = [7, 2, 5].map((item) =>
			pace
				.lane(item)
				.acquire(never)
				.then(() => order.push(item)),
		);
		await clock.settle();
		running.release('ok');
		await clock.settle();
		expect(order).toEqual([2]);
		expect(await isSettled(clock, Promise.race(turns))).toBe(true);
	});

	it('a free turn is taken at once (tryAcquire); none past Concurrency, before a waiting lane or after a busy answer', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(2, clock, () => 0.5);
		const [first, second] = [pace.lane(0), pace.lane(1)];
		expect(first.tryAcquire()).toBe(true);
		expect(second.tryAcquire()).toBe(true);
		expect(pace.lane(2).tryAcquire()).toBe(false);
		const waiting = pace.lane(3).acquire(never);
		first.release('ok');
		// The freed turn goes to the lane that waited for it, not to a newcomer.
		expect(await isSettled(clock, waiting)).toBe(true);
		expect(pace.lane(4).tryAcquire()).toBe(false);
		// A busy answer lowers the asks allowed at once to those still in flight (one): none free.
		second.release('busy', 1000);
		const lane = pace.lane(5);
		expect(lane.tryAcquire()).toBe(false);
	});

	it('cancelling stops every wait at once: for a turn and after a busy answer', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(2, clock);
		const [running, refusedLane] = await startLanes(pace, 2);
		refusedLane.release('busy', 60_000);
		const cancel = new AbortController();
		const waitingAfterBusy = refusedLane.acquire(cancel.signal);
		const waitingForTurn = pace.lane(2).acquire(cancel.signal);
		await clock.settle();
		cancel.abort(new Error('cancelled'));
		await expect(waitingForTurn).rejects.toThrow('cancelled');
		await expect(waitingAfterBusy).rejects.toThrow('cancelled');
		expect(clock.now()).toBe(0);
		// The cancelled waiter gave up its place: the next turn goes to a new lane.
		running.release('ok');
		expect(await isSettled(clock, pace.lane(3).acquire(never))).toBe(true);
	});
});

describe('an item failed and the node ends with it (concurrency.ts)', () => {
	it('no later item starts an attempt: those waiting are refused, earlier ones go on', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(2, clock);
		const [running, failing] = await startLanes(pace, 2);
		const earlier = pace.lane(0);
		const later = pace.lane(3);
		const waitingLater = later.acquire(never);
		const waitingEarlier = earlier.acquire(never);
		await clock.settle();
		failing.release('failed');
		pace.stopAfter(1);
		await expect(waitingLater).rejects.toBeInstanceOf(RunStopped);
		// The freed turn went to the earlier item, which waited for it.
		expect(await isSettled(clock, waitingEarlier)).toBe(true);
		running.release('ok');
		// A later item's attempt (its first, or a retry) is refused at once, however free the pace.
		expect(pace.lane(2).tryAcquire()).toBe(false);
		await expect(pace.lane(2).acquire(never)).rejects.toThrow('item 1 failed');
		expect(pace.lane(1).tryAcquire()).toBe(true);
	});
});

describe('busy answers lower the pace, successes raise it again', () => {
	it('a busy answer lowers the asks allowed at once to those still in flight, which hold the sessions', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(16, clock);
		const lanes = await startLanes(pace, 16);
		// A pool of 4: the first four were admitted, the other twelve come back busy.
		for (const lane of lanes.slice(4)) lane.release('busy', 1000);
		expect(pace.allowed).toBe(4);
		expect(pace.summary()).toMatchObject({ busyAnswers: 12, lowest: 4 });
		const fifth = pace.lane(16).acquire(never);
		expect(await isSettled(clock, fifth)).toBe(false);
		lanes[0].release('ok');
		expect(await isSettled(clock, fifth)).toBe(true);
	});

	it('busy answers of one round decrease the pace once, multiplicatively', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(20, clock);
		const lanes = await startLanes(pace, 20);
		// Busy while 19 and then 18 asks are still in flight: one step of 10 % (20 → 18).
		lanes[19].release('busy');
		lanes[18].release('busy');
		expect(pace.allowed).toBe(18);
		// An ask started after that decrease is a new round: its busy answer decreases again.
		lanes[0].release('ok');
		const [late] = await startLanes(pace, 1, 20);
		late.release('busy');
		expect(pace.allowed).toBe(16);
	});

	it('the pace rises again when the account has more sessions', async () => {
		// 4 sessions for the first 5 s, then 12.
		const run = await simulate(1200, 16, {
			capacity: (now) => (now < 5_000 ? 4 : 12),
			answerMs: 100,
			retryAfterMs: 1000,
		});
		expect(run.answeredOnce).toBe(true);
		expect(run.mostAtOnce).toBe(12);
		// 200 asks in the first 5 s, then 1000 at 12 at once: 5 s + 8.4 s ideally.
		expect(run.elapsedMs).toBeLessThan(1.25 * (5_000 + Math.ceil(1000 / 12) * 100));
		expect(run.pace.summary().final).toBeGreaterThanOrEqual(12);
	});

	it('a level that was refused is probed again less and less often', async () => {
		const run = await simulate(2000, 16, { capacity: () => 4, answerMs: 100, retryAfterMs: 0 });
		expect(run.answeredOnce).toBe(true);
		// The first round: the twelve beyond the pool. Then 500 rounds at 4: probing a fifth ask
		// every round would be refused 500 times; after 2, 4 and then every 8 rounds, about 65.
		expect(run.refused - 12).toBeLessThan(80);
		expect(run.pace.summary()).toMatchObject({ max: 16, lowest: 4, final: 4 });
	});
});

describe('a busy ask waits before its next attempt', () => {
	it('as long as the server asks with Retry-After, at most 60 s', async () => {
		for (const [retryAfterMs, waitedMs] of [
			[1500, 1500],
			[10 * 60_000, 60_000],
		]) {
			const clock = new FakeClock();
			const pace = new AdaptivePace(2, clock);
			const [lane, other] = await startLanes(pace, 2);
			lane.release('busy', retryAfterMs);
			other.release('ok');
			const next = lane.acquire(never);
			await clock.advance(waitedMs - 1);
			expect(await isSettled(clock, next)).toBe(false);
			await clock.advance(1);
			expect(await isSettled(clock, next)).toBe(true);
		}
	});

	it('without Retry-After, about one answer time, doubling while it stays refused', async () => {
		const clock = new FakeClock();
		// Random 0.5: the pause is three quarters of its exponential step.
		const pace = new AdaptivePace(2, clock, () => 0.5);
		const [timed, lane] = await startLanes(pace, 2);
		await clock.advance(400);
		timed.release('ok'); // answers take 400 ms here
		const pauses: number[] = [];
		for (let streak = 0; streak < 3; streak++) {
			lane.release('busy');
			const from = clock.now();
			await clock.runUntilSettled(lane.acquire(never));
			pauses.push(clock.now() - from);
		}
		expect(pauses).toEqual([300, 600, 1200]);
	});

	it('when no ask of the run holds a session, nobody starts before the pause is over', async () => {
		const clock = new FakeClock();
		const pace = new AdaptivePace(4, clock);
		const [only] = await startLanes(pace, 1);
		only.release('busy', 2000);
		const fresh = pace.lane(1).acquire(never);
		await clock.advance(1999);
		expect(await isSettled(clock, fresh)).toBe(false);
		await clock.advance(1);
		expect(await isSettled(clock, fresh)).toBe(true);
	});

	it('a timer that fires a millisecond before now() reaches its end still ends the pause', async () => {
		// n8n's timers and Date.now() read different clocks: a 1 ms pause can wake up early.
		class EarlyClock extends FakeClock {
			override sleep(ms: number, signal?: AbortSignal): Promise<void> {
				return super.sleep(Math.max(ms - 1, 1), signal);
			}
		}
		const clock = new EarlyClock();
		const pace = new AdaptivePace(2, clock);
		const [refused] = await startLanes(pace, 1);
		refused.release('busy', 5);
		// The next item's ask comes while the pause runs: both wait for the pause's end.
		const next = pace.lane(1).acquire(never);
		const again = refused.acquire(never);
		await clock.advance(10);
		// One ask at a time after the refusal, the earlier item first; then the next one.
		expect(await isSettled(clock, again)).toBe(true);
		expect(await isSettled(clock, next)).toBe(false);
		refused.release('ok');
		expect(await isSettled(clock, next)).toBe(true);
	});

	it('an account refusing everything for 10 s is not flooded meanwhile', async () => {
		const run = await simulate(100, 16, {
			capacity: (now) => (now < 10_000 ? 0 : 4),
			answerMs: 100,
		});
		expect(run.answeredOnce).toBe(true);
		// Own pauses of 1 s doubling, and nobody starts while none holds a session.
		expect(run.refused).toBeLessThan(60);
	});
});

describe('the busy session pool of the benchmark: 400 asks, Concurrency 16, 4 sessions, 100 ms answers', () => {
	const ideal = Math.ceil(400 / 4) * 100;

	it('with Retry-After: 1, every item is answered once within 1.25 x the ideal', async () => {
		const run = await simulate(400, 16, { capacity: () => 4, answerMs: 100, retryAfterMs: 1000 });
		expect(run.answeredOnce).toBe(true);
		expect(run.elapsedMs).toBeLessThanOrEqual(1.25 * ideal);
		expect(run.pace.summary()).toMatchObject({ lowest: 4, final: 4 });
	});

	it("without Retry-After (the node's own pauses), the same", async () => {
		const run = await simulate(400, 16, { capacity: () => 4, answerMs: 100 });
		expect(run.answeredOnce).toBe(true);
		expect(run.elapsedMs).toBeLessThanOrEqual(1.25 * ideal);
	});
});
