/** Small statistics and timing helpers shared by the benchmark rows. */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Spread {
	median: number;
	min: number;
	max: number;
	runs: number;
	values: number[];
}

export function spread(values: number[]): Spread {
	if (values.length === 0) throw new Error('spread() of no values');
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
	return { median, min: sorted[0], max: sorted[sorted.length - 1], runs: values.length, values };
}

/** The mean of paired differences, with its standard error. */
export interface MeanDifference {
	mean: number;
	standardError: number;
}

export function meanDifference(values: number[], baseline: number[]): MeanDifference {
	if (values.length < 2 || values.length !== baseline.length) {
		throw new Error('meanDifference() needs two or more pairs');
	}
	const differences = values.map((value, i) => value - baseline[i]);
	const mean = differences.reduce((sum, d) => sum + d, 0) / differences.length;
	const variance =
		differences.reduce((sum, d) => sum + (d - mean) ** 2, 0) / (differences.length - 1);
	return { mean, standardError: Math.sqrt(variance / differences.length) };
}

/**
 * CPU time of this process's main thread so far, in ms (Linux: the kernel's schedstat of the
 * thread; undefined elsewhere). Unlike process.cpuUsage() it leaves out worker threads, such as
 * an emulator's.
 */
export function mainThreadCpuMs(): number | undefined {
	try {
		const stat = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8');
		const nanoseconds = Number(stat.split(' ')[0]);
		return Number.isFinite(nanoseconds) ? nanoseconds / 1e6 : undefined;
	} catch {
		return undefined;
	}
}

/** The p-th percentile (0-100) of the values, nearest-rank. */
export function percentile(values: ArrayLike<number>, p: number): number {
	const sorted = Float64Array.from(values).sort();
	if (sorted.length === 0) return Number.NaN;
	const rank = Math.ceil((p / 100) * sorted.length);
	return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
	const started = performance.now();
	const value = await run();
	return { ms: performance.now() - started, value };
}

/** Full garbage collection, twice (the second pass frees what finalizers of the first let go). */
export function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('Run with --expose-gc (npm run bench does)');
	gc();
	gc();
}

/**
 * Full GC, then again once finalizers have run: what a FinalizationRegistry frees only after a
 * GC found its target dead (the timer behind an `AbortSignal.timeout` no longer listened to, for
 * one) is gone too, as it would be moments later in any process.
 */
export async function collectGarbageSettled(): Promise<void> {
	collectGarbage();
	await new Promise((resolve) => setImmediate(resolve));
	await new Promise((resolve) => setTimeout(resolve, 10));
	collectGarbage();
}

export function hasGc(): boolean {
	return typeof (globalThis as { gc?: unknown }).gc === 'function';
}

/** JS heap plus memory outside it that JS objects hold (Buffers, ArrayBuffers). */
export function memoryInUse(): number {
	const usage = process.memoryUsage();
	return usage.heapUsed + usage.external;
}

/**
 * Peak memory growth over a baseline taken after a full GC: sampled on a 1 ms interval and at
 * every `sample()` call (call it from hot paths, e.g. each network chunk, so bursts of
 * synchronous work that starve the interval are still seen).
 */
export class PeakMemory {
	readonly baseline: number;
	private peak: number;
	private timer: NodeJS.Timeout | undefined;
	samples = 0;

	constructor() {
		collectGarbage();
		this.baseline = memoryInUse();
		this.peak = this.baseline;
		this.timer = setInterval(() => this.sample(), 1);
	}

	sample(): void {
		this.samples++;
		const now = memoryInUse();
		if (now > this.peak) this.peak = now;
	}

	/** Stops sampling; returns the peak growth in bytes. */
	stop(): number {
		this.sample();
		clearInterval(this.timer);
		this.timer = undefined;
		return this.peak - this.baseline;
	}
}

export const MB = 1_000_000;

export function fmtMs(ms: number): string {
	if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
	if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
	if (ms >= 100) return `${ms.toFixed(0)} ms`;
	if (ms >= 10) return `${ms.toFixed(1)} ms`;
	if (ms >= 1) return `${ms.toFixed(2)} ms`;
	return `${(ms * 1000).toFixed(1)} µs`;
}

export function fmtSpreadMs(s: Spread): string {
	return `${fmtMs(s.median)} (${fmtMs(s.min)}–${fmtMs(s.max)})`;
}

export function fmtMb(bytes: number): string {
	return `${(bytes / MB).toFixed(1)} MB`;
}

export function fmtSpreadMb(s: Spread): string {
	return `${fmtMb(s.median)} (${fmtMb(s.min)}–${fmtMb(s.max)})`;
}

export function fmtRatio(r: number): string {
	return `${r.toFixed(2)}×`;
}
