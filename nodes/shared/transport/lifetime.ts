/** Why a request was stopped from our side. */
export type StopReason = 'timeout' | 'idle' | 'cancelled';

/**
 * What stops the calls of one run: one timer for all their deadlines and idle limits, and one
 * listener on the execution's cancel signal while any of them is live (or while the run holds
 * it), made where the run starts (runContext.ts) and handed to each call, instead of a timer and
 * listeners per call (each costs more than reading a short answer). A call made outside a run
 * gets one of its own.
 *
 * The timer is an `AbortSignal.timeout()`: community nodes may not use setTimeout and clearTimeout
 * (n8n Cloud restricts them; @n8n/community-nodes/no-restricted-globals). It is armed for the
 * earliest moment a live call must be looked at; a call that ends leaves it armed, and when it
 * rings with nothing due it is armed for the next call's moment, or not at all.
 */
export class CallWatch {
	private readonly live = new Set<RequestLifetime>();
	/** When the armed timer rings; Infinity when none is armed. */
	private armedFor = Infinity;
	private timer: AbortSignal | undefined;
	private listening = false;
	private holds = 0;
	private readonly onTimer = () => this.ring();
	private readonly onCancel = () => {
		for (const lifetime of [...this.live]) lifetime.stop('cancelled');
	};

	constructor(private readonly cancelSignal?: AbortSignal) {}

	get cancelled(): boolean {
		return this.cancelSignal?.aborted === true;
	}

	/**
	 * Listens to the cancellation from now until the returned release, whether calls are live or
	 * not: a run whose calls come one after another listens once, not once per call.
	 */
	hold(): () => void {
		this.holds += 1;
		this.listen();
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.holds -= 1;
			this.stopListening();
		};
	}

	/** @internal Watches `lifetime` until it is disposed. */
	add(lifetime: RequestLifetime): void {
		this.listen();
		this.live.add(lifetime);
		this.arm(lifetime.dueAt());
	}

	/** @internal */
	remove(lifetime: RequestLifetime): void {
		if (this.live.delete(lifetime)) this.stopListening();
	}

	private listen(): void {
		if (this.listening || !this.cancelSignal) return;
		this.listening = true;
		this.cancelSignal.addEventListener('abort', this.onCancel, { once: true });
	}

	/** Nothing live and nothing held: the watch outlives none of its calls' needs. */
	private stopListening(): void {
		if (!this.listening || this.live.size > 0 || this.holds > 0) return;
		this.listening = false;
		this.cancelSignal?.removeEventListener('abort', this.onCancel);
	}

	/** @internal Some live call must be looked at by `at` (epoch ms): the timer rings by then. */
	arm(at: number): void {
		if (at >= this.armedFor) return;
		this.timer?.removeEventListener('abort', this.onTimer);
		this.armedFor = at;
		this.timer = timeoutSignal(at - Date.now());
		this.timer.addEventListener('abort', this.onTimer, { once: true });
	}

	/** Stops the calls whose time is up, and arms the timer for the next one due. */
	private ring(): void {
		this.timer = undefined;
		this.armedFor = Infinity;
		const now = Date.now();
		let next = Infinity;
		for (const lifetime of [...this.live]) next = Math.min(next, lifetime.check(now));
		// A timer may ring a moment before the clock reaches its end: a millisecond later then.
		if (next !== Infinity) this.arm(Math.max(next, now + 1));
	}
}

/**
 * The time a call may take, over all its attempts and, for a stream, until its last byte:
 * an overall deadline, an optional idle limit between stream bytes, and the execution's cancel
 * signal, all folded into one AbortSignal for the HTTP client. Its run's CallWatch does the
 * timing; `dispose()` ends the watch over it.
 */
export class RequestLifetime {
	private readonly controller = new AbortController();
	private readonly deadline: number;
	private idleMs = 0;
	private onIdle: (() => void) | undefined;
	private lastActivity = 0;
	private stopReason: StopReason | undefined;
	private stopHandlers: Array<() => void> | undefined;

	/** `watch`: the run's (runContext.ts); a call outside a run has one of its own. */
	constructor(
		readonly timeoutMs: number,
		private readonly watch: CallWatch = new CallWatch(),
	) {
		this.deadline = Date.now() + timeoutMs;
		if (watch.cancelled) this.stop('cancelled');
		else watch.add(this);
	}

	get signal(): AbortSignal {
		return this.controller.signal;
	}

	get reason(): StopReason | undefined {
		return this.stopReason;
	}

	remainingMs(): number {
		return Math.max(0, this.deadline - Date.now());
	}

	/** Runs `handler` once when the call is stopped (at once if it already is). */
	onStop(handler: () => void): void {
		if (this.stopReason) handler();
		else (this.stopHandlers ??= []).push(handler);
	}

	/**
	 * From now on, `idleMs` without a `touch()` stops the call, or, given `onIdle`, calls it once
	 * instead (the call goes on: only what went silent is given up).
	 */
	watchIdle(idleMs: number, onIdle?: () => void): void {
		this.idleMs = idleMs;
		this.onIdle = onIdle;
		this.touch();
		if (idleMs > 0 && !this.stopReason) this.watch.arm(this.dueAt());
	}

	/** No idle limit (between the attempts of a call, say). */
	unwatchIdle(): void {
		this.idleMs = 0;
		this.onIdle = undefined;
	}

	touch(): void {
		if (this.idleMs <= 0 || this.stopReason) return;
		this.lastActivity = Date.now();
	}

	/** A pause between attempts that ends early, with the reason, when the call is stopped. */
	async pause(ms: number): Promise<void> {
		if (this.signal.aborted) throw new StoppedError(this.stopReason ?? 'cancelled');
		const elapsed = timeoutSignal(ms);
		await new Promise<void>((resolve, reject) => {
			const onElapsed = () => {
				this.signal.removeEventListener('abort', onAbort);
				resolve();
			};
			const onAbort = () => {
				elapsed.removeEventListener('abort', onElapsed);
				reject(new StoppedError(this.stopReason ?? 'cancelled'));
			};
			elapsed.addEventListener('abort', onElapsed, { once: true });
			this.signal.addEventListener('abort', onAbort, { once: true });
		});
	}

	stop(reason: StopReason): void {
		if (this.stopReason) return;
		this.stopReason = reason;
		this.controller.abort(new StoppedError(reason));
		const handlers = this.stopHandlers;
		this.stopHandlers = undefined;
		if (handlers) for (const handler of handlers) handler();
	}

	dispose(): void {
		this.watch.remove(this);
		this.stopHandlers = undefined;
	}

	/** @internal When the watch must look at this call next: its deadline, or its idle limit. */
	dueAt(): number {
		if (this.stopReason) return Infinity;
		return this.idleMs > 0
			? Math.min(this.deadline, this.lastActivity + this.idleMs)
			: this.deadline;
	}

	/** @internal The watch's look at `now`: stops the call if its time is up; when to look next. */
	check(now: number): number {
		if (this.stopReason) return Infinity;
		if (now >= this.deadline) {
			this.stop('timeout');
			return Infinity;
		}
		if (this.idleMs > 0 && now - this.lastActivity >= this.idleMs) {
			const onIdle = this.onIdle;
			if (!onIdle) {
				this.stop('idle');
				return Infinity;
			}
			this.unwatchIdle();
			onIdle();
		}
		return this.dueAt();
	}
}

/** Whole milliseconds up to 2^31-1, as timers take them (AbortSignal.timeout refuses fractions). */
function timeoutSignal(ms: number): AbortSignal {
	return AbortSignal.timeout(Math.min(Math.max(Math.ceil(ms), 0), 2 ** 31 - 1));
}

/**
 * Why the lifetime's signal aborted, and what a paused wait or a destroyed body rejects with.
 * Never an attempt's failure itself: whoever catches it reads `reason` and throws the attempt's
 * AttemptFailure (transportFailures.ts's stoppedFailure, or a stalled stream), knowing what this
 * class cannot: the request, and whether the service had accepted the ask.
 */
export class StoppedError extends Error {
	constructor(readonly reason: StopReason) {
		super(`Request stopped: ${reason}`);
	}
}
