/**
 * Row 6: a busy session pool (docs/api.md#full-session-pool). Ask over 400 items at Concurrency 16
 * against an emulator whose account has 4 sessions: it answers 4 asks at once in 100 ms each and
 * refuses any more as "sessions are busy" (HTTP 503), with Retry-After: 1 (6) or without (6b).
 * The node finds the pace itself; the baseline is the same requests at a fixed concurrency of 16
 * (the minimal n8n node, bench/lib/bareNode.ts, retrying busy answers twice after Retry-After or
 * a 1 s, 2 s backoff, as the node's retries would without a pace). Ideal: ceil(400 / 4) × 100 ms.
 */
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import { chain, itemsNode, manualTrigger, runWorkflow } from '../../test/helpers/engine';
import { BARE_NODE_TYPE, withBareNode } from '../lib/bareNode';
import type { Row } from '../lib/report';
import { fmtMs, fmtRatio, fmtSpreadMs, spread, timed } from '../lib/stats';
import { startWorkerEmulator, type WorkerEmulator } from '../lib/workerEmulator';

const TOKEN = 'bench-token-0123456789abcdef';
const TARGET = 1.25;

export interface BusyPoolOptions {
	items: number;
	concurrency: number;
	sessions: number;
	answerDelayMs: number;
	runs: number;
}

interface Outcome {
	failed: number;
	refused: number;
	mostAtOnce: number;
}

type Output = { json: { output?: unknown; error?: unknown } };

export async function busyPoolRows(options: BusyPoolOptions): Promise<Row[]> {
	const rows: Row[] = [];
	for (const retryAfter of [true, false]) {
		const emulator = await startWorkerEmulator({
			token: TOKEN,
			answerDelayMs: options.answerDelayMs,
			sessionPool: { size: options.sessions, retryAfterSeconds: retryAfter ? 1 : null },
		});
		try {
			rows.push(await busyPoolRow(emulator, retryAfter, options));
		} finally {
			await emulator.close();
		}
	}
	return rows;
}

async function busyPoolRow(
	emulator: WorkerEmulator,
	retryAfter: boolean,
	{ items, concurrency, sessions, answerDelayMs, runs }: BusyPoolOptions,
): Promise<Row> {
	const pkg = await assistantPackage();
	const credential = emulatorCredential(emulator.baseUrl, TOKEN);
	const inputs = Array.from({ length: items }, (_, i) => ({ q: `Busy pool question ${i}` }));
	const outcome = async (label: string, outputs: Output[]): Promise<Outcome> => {
		if (outputs.length !== items) throw new Error(`${label}: ${outputs.length} outputs`);
		let failed = 0;
		outputs.forEach((item, index) => {
			if (item.json.error !== undefined) failed += 1;
			else if (!String(item.json.output).includes(`"Busy pool question ${index}"`)) {
				throw new Error(`${label}: item ${index} out of order or wrong`);
			}
		});
		const stats = await emulator.stats();
		return {
			failed,
			refused: stats.sessionPool?.refused ?? 0,
			mostAtOnce: stats.sessionPool?.maxActive ?? 0,
		};
	};
	const node = assistantNode(
		pkg,
		'Ask',
		{ operation: 'ask', input: '={{ $json.q }}', options: { concurrency } },
		{ onError: 'continueRegularOutput' },
	);
	const runNode = async () => {
		await emulator.reset();
		const run = await runWithItems(inputs, [node], { credentials: [credential] });
		return await outcome('node', run.outputs('Ask'));
	};
	const bare = {
		...assistantNode(pkg, 'Bare', {
			input: '={{ $json.q }}',
			url: `${emulator.baseUrl}/assistant/ask`,
			concurrency,
			retries: 2,
		}),
		type: BARE_NODE_TYPE,
	};
	const runFixed = async () => {
		await emulator.reset();
		const workflow = chain(manualTrigger(), itemsNode(inputs), bare);
		const run = await runWorkflow(withBareNode(pkg), workflow, { credentials: [credential] });
		return await outcome('fixed concurrency', run.outputs('Bare'));
	};

	const nodeMs: number[] = [];
	const nodeOutcomes: Outcome[] = [];
	for (let i = 0; i < runs; i++) {
		const { ms, value } = await timed(runNode);
		nodeMs.push(ms);
		nodeOutcomes.push(value);
	}
	const fixed = await timed(runFixed);
	const ideal = Math.ceil(items / sessions) * answerDelayMs;
	const s = spread(nodeMs);
	const failed = Math.max(...nodeOutcomes.map((o) => o.failed));
	const ratio = s.median / ideal;
	const met = failed === 0 && ratio <= TARGET;
	const name = retryAfter
		? '6. Busy pool, Retry-After: 1'
		: "6b. Busy pool, no Retry-After (the node's own pauses)";
	return {
		name,
		measure: `Ask ×${items}, Concurrency ${concurrency}, ${sessions} sessions of ${answerDelayMs} ms`,
		figure: `${fmtSpreadMs(s)}, ${failed} failed`,
		baseline: `${fmtMs(ideal)} ideal; fixed 16: ${fmtMs(fixed.ms)}, ${fixed.value.failed} failed`,
		ratio: `${fmtRatio(ratio)} ideal`,
		target: `0 failed, ≤ ${TARGET}× ideal`,
		verdict: met ? 'met' : 'missed',
		why: met
			? undefined
			: `${failed} failed items, ${fmtMs(s.median)} = ${fmtRatio(ratio)} the ideal ${fmtMs(ideal)}`,
		details: [
			`Ask (Input \`={{ $json.q }}\`, Options > Concurrency ${concurrency}, On Error: continue) over ${items} items in the engine; the emulator (a worker thread) has ${sessions} sessions: ${sessions} asks at once answered in ${answerDelayMs} ms, any more refused at once with HTTP 503 "sessions are busy"${retryAfter ? ' and Retry-After: 1' : ', without Retry-After'}. Ideal = ceil(${items} / ${sessions}) × ${answerDelayMs} ms = ${fmtMs(ideal)}. ${runs} runs: ${nodeMs.map(fmtMs).join(', ')}; answers checked in input order.`,
			`Node: refused asks per run ${nodeOutcomes.map((o) => o.refused).join(', ')}; failed items ${nodeOutcomes.map((o) => o.failed).join(', ')}; most asks answered at once ${nodeOutcomes.map((o) => o.mostAtOnce).join(', ')}.`,
			`Baseline, fixed concurrency (one run): the minimal n8n node (bench/lib/bareNode.ts) with the same helper at Concurrency ${concurrency}, each busy answer retried up to 2 times after Retry-After, else after 1 s then 2 s with jitter: ${fmtMs(fixed.ms)}, ${fixed.value.failed} of ${items} items failed (retries used up), ${fixed.value.refused} asks refused.`,
		],
	};
}
