/** Why a request was stopped from our side. */
export type StopReason = 'timeout' | 'idle' | 'cancelled';

/**
 * The time a call may take, over all its attempts and, for a stream, until its last byte:
 * an overall deadline, an optional idle limit between stream bytes, and the execution's cancel
 * signal, all folded into one AbortSignal for the HTTP client.
 *
 * Timers are `AbortSignal.timeout()` signals: community nodes may not use setTimeout and
 * clearTimeout (n8n Cloud restricts them; @n8n/community-nodes/no-restricted-globals).
 */
export class RequestLifetime {
	private readonly controller = new AbortController();
	private readonly deadline: number;
	private readonly deadlineSignal: AbortSignal;
	private idleSignal: AbortSignal | undefined;
	private idleMs = 0;
	private onIdle: (() => void) | undefined;
	private lastActivity = 0;
	private stopReason: StopReason | undefined;
	private readonly onCancel = () => this.stop('cancelled');
	private readonly onDeadline = () => this.stop('timeout');
	private readonly onIdleCheck = () => this.checkIdle();

	constructor(
		readonly timeoutMs: number,
		private readonly cancelSignal?: AbortSignal,
	) {
		this.deadline = Date.now() + timeoutMs;
		this.deadlineSignal = timeoutSignal(timeoutMs);
		this.deadlineSignal.addEventListener('abort', this.onDeadline, { once: true });
		if (cancelSignal?.aborted) this.stop('cancelled');
		else cancelSignal?.addEventListener('abort', this.onCancel, { once: true });
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
		if (this.signal.aborted) handler();
		else this.signal.addEventListener('abort', handler, { once: true });
	}

	/**
	 * From now on, `idleMs` without a `touch()` stops the call, or, given `onIdle`, calls it once
	 * instead (the call goes on: only what went silent is given up).
	 */
	watchIdle(idleMs: number, onIdle?: () => void): void {
		this.idleMs = idleMs;
		this.onIdle = onIdle;
		this.touch();
		if (idleMs > 0 && !this.signal.aborted) this.armIdle(idleMs);
	}

	/** No idle limit (between the attempts of a call, say). */
	unwatchIdle(): void {
		this.idleMs = 0;
		this.onIdle = undefined;
		this.idleSignal?.removeEventListener('abort', this.onIdleCheck);
		this.idleSignal = undefined;
	}

	touch(): void {
		if (this.idleMs <= 0 || this.signal.aborted) return;
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
	}

	dispose(): void {
		this.deadlineSignal.removeEventListener('abort', this.onDeadline);
		this.idleSignal?.removeEventListener('abort', this.onIdleCheck);
		this.cancelSignal?.removeEventListener('abort', this.onCancel);
	}

	/** One timer per idle window, not one per chunk: when it rings, stop or wait the rest. */
	private armIdle(ms: number): void {
		this.idleSignal?.removeEventListener('abort', this.onIdleCheck);
		this.idleSignal = timeoutSignal(ms);
		this.idleSignal.addEventListener('abort', this.onIdleCheck, { once: true });
	}

	private checkIdle(): void {
		if (this.signal.aborted || this.idleMs <= 0) return;
		const quietMs = Date.now() - this.lastActivity;
		if (quietMs < this.idleMs) {
			this.armIdle(this.idleMs - quietMs);
			return;
		}
		const onIdle = this.onIdle;
		if (!onIdle) {
			this.stop('idle');
			return;
		}
		this.unwatchIdle();
		onIdle();
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
