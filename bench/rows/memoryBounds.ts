/**
 * Row 9: memory under a hostile stream (docs/api.md#memory-bounds). The process's peak resident
 * memory growth while the node reads 500 MiB of hostile stream (one `data:` line that never
 * ends; an answer that keeps growing), beside the same for an honest 20 MB answer, in the engine
 * against a real server. The hostile streams must fail the item and cost no more than the honest
 * answer does (target: at most 2× its growth, and under 400 MiB).
 */
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import {
	peakRssGrowth,
	startStreamServer,
	type StreamKind,
} from '../../test/helpers/hostile-stream';
import type { Row } from '../lib/report';

const MiB = 1024 * 1024;
const HOSTILE_BYTES = 500 * MiB;
const HONEST_CHARS = 20_000_000;
const CEILING = 400 * MiB;

async function peakOf(
	kind: StreamKind,
	bytes: number,
): Promise<{ growth: number; failed: boolean }> {
	const server = await startStreamServer(kind, bytes);
	try {
		const pkg = await assistantPackage();
		const node = assistantNode(pkg, 'Assistant', {
			operation: 'ask',
			input: 'Hello',
			options: { retries: 0 },
		});
		const { result: run, growth } = await peakRssGrowth(
			async () =>
				await runWithItems([{}], [node], {
					credentials: [emulatorCredential(server.baseUrl, 'bench-token-memory-bounds')],
				}),
		);
		return { growth, failed: run.error() !== undefined };
	} finally {
		await server.close();
	}
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
			`Peak resident memory growth of the bench process (sampled every 10 ms) while one Ask reads the stream, ${runs} runs each; the hostile streams offer 500 MiB and fail the item at the bounds (64 MiB line, 32 million characters of answer). Before the bounds the same streams grew an n8n process by about 800 MiB and 670 MiB.`,
		],
	};
}
