/**
 * Row 10: memory under a hostile stream (docs/api.md#memory-bounds). The peak resident memory
 * growth of a fresh process (test/helpers/engine-child.ts: the kernel's `maxRSS` above what it
 * held before the run, so nothing freed by an earlier run is reused) while the node reads 500 MiB
 * of hostile stream (one `data:` line that never ends; an answer that keeps growing), beside the
 * same for an honest 20 MB answer, in the engine against a real server (in the bench's process).
 * The hostile streams must fail the item and cost no more than the honest answer does (target:
 * at most 2× its growth, and under 400 MiB).
 */
import { peakGrowth } from '../../test/helpers/engine-child';
import { askAgainstStream, type StreamKind } from '../../test/helpers/hostile-stream';
import type { Row } from '../lib/report';

const MiB = 1024 * 1024;
const HOSTILE_BYTES = 500 * MiB;
const HONEST_CHARS = 20_000_000;
const CEILING = 400 * MiB;

/** One Ask in a fresh child process: its peak growth, and whether the item failed. */
async function peakOf(
	kind: StreamKind,
	bytes: number,
): Promise<{ growth: number; failed: boolean }> {
	const { result } = await askAgainstStream(kind, bytes, 'bench-token-memory-bounds');
	return { growth: peakGrowth(result), failed: result.error !== undefined };
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

export async function memoryBoundsRow({ runs }: { runs: number }): Promise<Row> {
	const honest: number[] = [];
	const line: number[] = [];
	const answer: number[] = [];
	for (let i = 0; i < runs; i++) {
		const ok = await peakOf('honest-answer', HONEST_CHARS);
		if (ok.failed) throw new Error('Memory bounds: the honest 20 MB answer failed');
		honest.push(ok.growth);
		const endlessLine = await peakOf('endless-line', HOSTILE_BYTES);
		const endlessAnswer = await peakOf('endless-answer', HOSTILE_BYTES);
		if (!endlessLine.failed || !endlessAnswer.failed) {
			throw new Error('Memory bounds: a hostile stream did not fail the item');
		}
		line.push(endlessLine.growth);
		answer.push(endlessAnswer.growth);
	}
	const worstHostile = Math.max(...line, ...answer);
	const honestPeak = Math.max(...honest);
	const ratio = worstHostile / Math.max(honestPeak, 1);
	const verdict = ratio <= 2 && worstHostile < CEILING ? 'met' : 'missed';
	return {
		name: '10. Memory under a hostile stream',
		measure: 'Ask, 500 MiB endless line / endless answer, peak RSS growth',
		figure: `${mib(worstHostile)} (line ${line.map(mib).join(', ')}; answer ${answer.map(mib).join(', ')})`,
		baseline: `${mib(honestPeak)} (honest 20 MB answer: ${honest.map(mib).join(', ')})`,
		ratio: `${ratio.toFixed(2)}×`,
		target: `≤ 2× and < ${mib(CEILING)}`,
		verdict,
		why:
			verdict === 'missed' ? 'a hostile stream cost more memory than the target allows' : undefined,
		details: [
			`Each Ask runs alone in a fresh Node process (the built package in n8n-core's engine; the server stays in the bench's process): the figure is that process's peak resident memory (the kernel's maxRSS, also sampled every 5 ms) above what it held after loading, before the run, ${runs} runs of each case; the hostile streams offer 500 MiB and fail the item at the bounds (64 MiB line, 32 million characters of answer). Before the bounds the same streams grew an n8n process by about 800 MiB and 670 MiB.`,
		],
	};
}
