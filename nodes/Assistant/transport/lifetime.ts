/** Why a request was stopped from our side. */
export type StopReason = 'timeout' | 'idle' | 'cancelled';

/**
 * The time a call may take, over all its attempts and, for a stream, until its last byte:
 * an overall deadline, an optional idle limit between stream bytes, and the execution's cancel
 * signal, all folded into one AbortSignal for the HTTP client.
 */
export class RequestLifetime {
	private readonly controller = new AbortController();
	private readonly deadline: number;
	private readonly deadlineTimer: ReturnType<typeof setTimeout>;
	private idleTimer: ReturnType<typeof setTimeout> | undefined;
	private idleMs = 0;
	private stopReason: StopReason | undefined;
	private readonly onCancel = () => this.stop('cancelled');

	constructor(
		readonly timeoutMs: number,
		private readonly cancelSignal?: AbortSignal,
	) {
		this.deadline = Date.now() + timeoutMs;
		this.deadlineTimer = setTimeout(() => this.stop('timeout'), timeoutMs);
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

	/** From now on, `idleMs` without a `touch()` stops the call. */
	watchIdle(idleMs: number): void {
		this.idleMs = idleMs;
		this.touch();
	}

	touch(): void {
		if (this.idleMs <= 0 || this.signal.aborted) return;
		if (this.idleTimer) clearTimeout(this.idleTimer);
		this.idleTimer = setTimeout(() => this.stop('idle'), this.idleMs);
	}

	/** A pause between attempts that ends early, with the reason, when the call is stopped. */
	async pause(ms: number): Promise<void> {
		if (this.signal.aborted) throw new StoppedError(this.stopReason ?? 'cancelled');
		await new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => {
				this.signal.removeEventListener('abort', onAbort);
				resolve();
			}, ms);
			const onAbort = () => {
				clearTimeout(timer);
				reject(new StoppedError(this.stopReason ?? 'cancelled'));
			};
			this.signal.addEventListener('abort', onAbort, { once: true });
		});
	}

	stop(reason: StopReason): void {
		if (this.stopReason) return;
		this.stopReason = reason;
		this.controller.abort(new StoppedError(reason));
	}

	dispose(): void {
		clearTimeout(this.deadlineTimer);
		if (this.idleTimer) clearTimeout(this.idleTimer);
		this.cancelSignal?.removeEventListener('abort', this.onCancel);
	}
}

export class StoppedError extends Error {
	constructor(readonly reason: StopReason) {
		super(`Request stopped: ${reason}`);
	}
}
