/**
 * A clock for unit tests of code that waits (the adaptive pace): time moves only when the test
 * says so, so minutes of pauses run in milliseconds and every run is the same.
 */
import type { PaceClock } from '../../nodes/shared/transport/adaptivePace';

interface Timer {
	at: number;
	order: number;
	fire: () => void;
}

export class FakeClock implements PaceClock {
	private time = 0;
	private order = 0;
	private timers: Timer[] = [];

	now(): number {
		return this.time;
	}

	sleep(ms: number, signal?: AbortSignal): Promise<void> {
		return new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(signal.reason);
			const onAbort = () => {
				this.timers = this.timers.filter((other) => other !== timer);
				reject(signal?.reason);
			};
			const timer: Timer = {
				at: this.time + Math.max(0, ms),
				order: this.order++,
				fire: () => {
					signal?.removeEventListener('abort', onAbort);
					resolve();
				},
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			this.timers.push(timer);
		});
	}

	/** Timers waiting to fire. */
	get pending(): number {
		return this.timers.length;
	}

	/** Lets every promise that can settle now settle. */
	async settle(): Promise<void> {
		await new Promise((resolve) => setImmediate(resolve));
	}

	/** Moves time forward by `ms`, firing every timer due on the way, in order. */
	async advance(ms: number): Promise<void> {
		const until = this.time + ms;
		await this.settle();
		for (let next = this.nextTimer(); next && next.at <= until; next = this.nextTimer()) {
			this.fire(next);
			await this.settle();
		}
		this.time = until;
		await this.settle();
	}

	/** Fires timers in order until `work` settles; throws if it waits on nothing. */
	async runUntilSettled<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		const watched = work.finally(() => {
			settled = true;
		});
		watched.catch(() => undefined);
		await this.settle();
		while (!settled) {
			const next = this.nextTimer();
			if (!next) throw new Error('the work waits, but no timer is pending: it would hang');
			this.fire(next);
			await this.settle();
		}
		return await watched;
	}

	private nextTimer(): Timer | undefined {
		let best: Timer | undefined;
		for (const timer of this.timers) {
			if (!best || timer.at < best.at || (timer.at === best.at && timer.order < best.order)) {
				best = timer;
			}
		}
		return best;
	}

	private fire(timer: Timer): void {
		this.timers = this.timers.filter((other) => other !== timer);
		this.time = Math.max(this.time, timer.at);
		timer.fire();
	}
}
