import type { AttemptOutcome, AttemptPace, BusyVerdict } from './pace';
import { MAX_DELAY_MS } from './retryPolicy';

export type { AttemptPace } from './pace';

/**
 * How many asks of one node run are in flight, found as the run goes (docs/api.md#full-session-pool).
 *
 * An account has a few assistant sessions; asks beyond them come back busy (a full pool, 429,
 * 503). Concurrency is the upper bound; each busy answer lowers the number of asks allowed at
 * once to those still in flight (they hold the sessions), at most one multiplicative step per
 * round; asks that succeed while every allowed slot is used raise it by one per round (additive
 * increase), and a level that was refused is probed again less and less often. A refused ask
 * waits the server's Retry-After, or about as long as an answer takes, doubling while it stays
 * refused; when none of the run's asks holds a session, nobody starts before that.
 *
 * Waiting uses the clock's `sleep`, which is `AbortSignal.timeout` in n8n (no setTimeout in a
 * community node), and a fake clock in the unit tests.
 */

export interface PaceClock {
	now(): number;
	/** Resolves after `ms`; rejects with the signal's reason if it aborts first. */
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface PaceSummary {
	/** The configured Concurrency. */
	max: number;
	/** Asks that came back busy. */
	busyAnswers: number;
	/** The fewest asks allowed at once during the run. */
	lowest: number;
	/** Asks allowed at once when the run ended. */
	final: number;
}

/** Multiplicative decrease: once per round of busy answers. */
const DECREASE = 0.9;
/** A refused level is probed again after 2, 4, then every 8 rounds, not every round. */
const MAX_PROBE_BACKOFF = 3;
/** The pause after a first busy answer while no answer has been timed yet. */
const FIRST_BUSY_PAUSE_MS = 1000;
/** Weight of the newest answer in the running answer time. */
const ANSWER_TIME_WEIGHT = 0.2;

interface Ticket {
	/** The decrease count when the attempt started: busy answers of one round decrease once. */
	epoch: number;
	startedAt: number;
}

interface Waiter {
	priority: number;
	start: () => void;
	refuse: (error: Error) => void;
}

/**
 * The attempt of an item after one that failed (Continue On Fail off): the node ends with that
 * failure, so this attempt is not sent (concurrency.ts). Never shown: a lower item's error is.
 */
export class RunStopped extends Error {
	constructor(readonly failedItem: number) {
		super(`Not sent: item ${failedItem} failed, and the node stops there`);
		this.name = 'RunStopped';
	}
}

export const realClock: PaceClock = {
	now: () => Date.now(),
	sleep: async (ms, signal) => {
		if (signal?.aborted) throw signal.reason;
		const elapsed = AbortSignal.timeout(Math.min(Math.max(Math.ceil(ms), 0), 2 ** 31 - 1));
		await new Promise<void>((resolve, reject) => {
			const onAbort = () => {
				elapsed.removeEventListener('abort', onElapsed);
				reject(signal?.reason);
			};
			const onElapsed = () => {
				signal?.removeEventListener('abort', onAbort);
				resolve();
			};
			elapsed.addEventListener('abort', onElapsed, { once: true });
			signal?.addEventListener('abort', onAbort, { once: true });
		});
	},
};

export class AdaptivePace {
	/** Asks allowed at once, fractional so that it grows by one per round of successes. */
	private window: number;
	private inFlight = 0;
	private readonly waiters: Waiter[] = [];
	private epoch = 0;
	private pausedUntil = 0;
	private wakeAt = 0;
	private probeBackoff = 0;
	private refusedLevel = Infinity;
	private answerMs: number | undefined;
	private busyAnswers = 0;
	private lowest: number;
	/** The lowest item that failed the run: no later item's attempt starts (stopAfter). */
	private stoppedAfter = Infinity;

	constructor(
		readonly max: number,
		readonly clock: PaceClock = realClock,
		private readonly random: () => number = Math.random,
	) {
		this.window = max;
		this.lowest = max;
	}

	/** Asks allowed at once now. */
	get allowed(): number {
		return Math.max(1, Math.floor(this.window));
	}

	/** The pace of one request (or one item's requests, one after another); lower priority first. */
	lane(priority: number): AttemptPace {
		return new PaceLane(this, priority);
	}

	summary(): PaceSummary {
		return {
			max: this.max,
			busyAnswers: this.busyAnswers,
			lowest: this.lowest,
			final: this.allowed,
		};
	}

	/**
	 * Item `priority` failed and the node ends with it (Continue On Fail off): from now on no
	 * attempt of a later item is sent, a retry neither (one at a time, none would have been), and
	 * those waiting for their turn are refused with RunStopped. Earlier items go on: their
	 * failure, if any, is the one the node shows.
	 */
	stopAfter(priority: number): void {
		this.stoppedAfter = Math.min(this.stoppedAfter, priority);
		for (const waiter of this.waiters.filter((other) => other.priority > this.stoppedAfter)) {
			this.waiters.splice(this.waiters.indexOf(waiter), 1);
			waiter.refuse(new RunStopped(this.stoppedAfter));
		}
		this.pump();
	}

	/** @internal A ticket at once, when nobody waits and a slot is free; undefined otherwise. */
	tryEnter(priority: number): Ticket | undefined {
		return priority <= this.stoppedAfter && this.waiters.length === 0 && this.canStart()
			? this.start()
			: undefined;
	}

	/** @internal */
	async enter(priority: number, signal: AbortSignal): Promise<Ticket> {
		if (signal.aborted) throw signal.reason;
		if (priority > this.stoppedAfter) throw new RunStopped(this.stoppedAfter);
		const now = this.tryEnter(priority);
		if (now) return now;
		return await new Promise<Ticket>((resolve, reject) => {
			const waiter: Waiter = {
				priority,
				start: () => {
					signal.removeEventListener('abort', onAbort);
					resolve(this.start());
				},
				refuse: (error) => {
					signal.removeEventListener('abort', onAbort);
					reject(error);
				},
			};
			const onAbort = () => {
				const index = this.waiters.indexOf(waiter);
				if (index >= 0) this.waiters.splice(index, 1);
				reject(signal.reason);
			};
			signal.addEventListener('abort', onAbort, { once: true });
			// Lower priority (earlier item) first; equal priorities in arrival order.
			const at = this.waiters.findIndex((other) => other.priority > priority);
			this.waiters.splice(at < 0 ? this.waiters.length : at, 0, waiter);
			this.pump();
		});
	}

	/** @internal An attempt ended without a busy answer. */
	leave(ticket: Ticket, outcome: 'ok' | 'failed'): void {
		const saturated = this.inFlight >= this.allowed || this.waiters.length > 0;
		if (outcome === 'ok' && this.inFlight >= this.refusedLevel) {
			// The level that was refused holds now: probe upwards at full speed again.
			this.probeBackoff = 0;
			this.refusedLevel = Infinity;
		}
		this.inFlight -= 1;
		if (outcome === 'ok') {
			const took = this.clock.now() - ticket.startedAt;
			this.answerMs =
				this.answerMs === undefined
					? took
					: this.answerMs + ANSWER_TIME_WEIGHT * (took - this.answerMs);
			// Only a limit in use is evidence that a higher one would be used too.
			if (saturated && this.window < this.max) this.grow();
		}
		this.pump();
	}

	/** @internal A busy answer; how the refused lane goes on. */
	busy(ticket: Ticket, retryAfterMs: number | undefined, streak: number): BusyVerdict {
		this.inFlight -= 1;
		this.busyAnswers += 1;
		if (ticket.epoch === this.epoch) {
			// The first busy answer of its round: one multiplicative step for the whole round.
			this.epoch += 1;
			this.refusedLevel = this.allowed;
			this.window = Math.max(1, this.window * DECREASE);
			this.probeBackoff = Math.min(this.probeBackoff + 1, MAX_PROBE_BACKOFF);
		}
		// The asks still in flight hold the sessions there are: more at once would be refused too.
		this.window = Math.max(1, Math.min(this.window, this.inFlight));
		this.lowest = Math.min(this.lowest, this.allowed);
		const delay = Math.min(retryAfterMs ?? this.ownPauseMs(streak), MAX_DELAY_MS);
		// Nothing of this run holds a session: the service refuses all, so nobody starts before then.
		const paced = this.inFlight > 0;
		if (!paced) this.pauseUntil(this.clock.now() + delay);
		this.pump();
		return { paced, delayMs: delay };
	}

	/** One more ask at once per round of successes; a round is longer after refusals. */
	private grow(): void {
		this.window = Math.min(this.max, this.window + 1 / (this.allowed * 2 ** this.probeBackoff));
	}

	/** About one answer's time (a session frees by then), doubling while refused; with jitter. */
	private ownPauseMs(streak: number): number {
		const base = this.answerMs ?? FIRST_BUSY_PAUSE_MS;
		const exponential = Math.min(base * 2 ** Math.max(0, streak - 1), MAX_DELAY_MS);
		return Math.round(exponential / 2 + (this.random() * exponential) / 2);
	}

	private canStart(): boolean {
		return this.inFlight < this.allowed && this.clock.now() >= this.pausedUntil;
	}

	private start(): Ticket {
		this.inFlight += 1;
		return { epoch: this.epoch, startedAt: this.clock.now() };
	}

	private pump(): void {
		while (this.waiters.length > 0 && this.canStart()) this.waiters.shift()?.start();
		if (this.waiters.length > 0 && this.clock.now() < this.pausedUntil) this.wakeAtPauseEnd();
	}

	private pauseUntil(time: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, time);
	}

	private wakeAtPauseEnd(): void {
		if (this.wakeAt >= this.pausedUntil) return;
		const target = this.pausedUntil;
		this.wakeAt = target;
		void this.clock.sleep(target - this.clock.now()).then(() => {
			// A timer may fire a millisecond before `now()` reaches its end (they read different
			// clocks): the wake is over, so a pause still running gets the next one, not a hang.
			if (this.wakeAt === target) this.wakeAt = 0;
			this.pump();
		});
	}
}

/** One request's view of the pace: its turn, and how long it waits after a busy answer. */
class PaceLane implements AttemptPace {
	private ticket: Ticket | undefined;
	private busyStreak = 0;
	private notBefore = 0;

	constructor(
		private readonly pace: AdaptivePace,
		private readonly priority: number,
	) {}

	tryAcquire(): boolean {
		if (this.notBefore > this.pace.clock.now()) return false;
		this.ticket = this.pace.tryEnter(this.priority);
		return this.ticket !== undefined;
	}

	async acquire(signal: AbortSignal): Promise<void> {
		const wait = this.notBefore - this.pace.clock.now();
		if (wait > 0) await this.pace.clock.sleep(wait, signal);
		this.ticket = await this.pace.enter(this.priority, signal);
	}

	release(outcome: AttemptOutcome, retryAfterMs?: number): BusyVerdict | void {
		const ticket = this.ticket;
		if (!ticket) return;
		this.ticket = undefined;
		if (outcome === 'busy') {
			this.busyStreak += 1;
			const verdict = this.pace.busy(ticket, retryAfterMs, this.busyStreak);
			this.notBefore = this.pace.clock.now() + verdict.delayMs;
			return verdict;
		}
		this.busyStreak = 0;
		this.pace.leave(ticket, outcome);
	}
}
