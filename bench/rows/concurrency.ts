/**
 * Row 2: concurrency. Ask over N items against the emulator answering each ask in 100 ms, with
 * Options > Concurrency at 1, 4 and 16, versus the ideal ceil(N / c) × 100 ms.
 *
 * The emulator runs in a worker thread (its own event loop, like a remote service), so its CPU
 * time does not queue behind the node's. Beside the node: a pool of c fetch workers sending the
 * same requests to the same emulator (what a bare client reaches); at 16 also the minimal n8n
 * node (bench/lib/bareNode.ts) with a pool of 16, for what n8n itself reaches.
 */
import type { INodeProperties } from 'n8n-workflow';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import {
	chain,
	itemsNode,
	manualTrigger,
	runWorkflow,
	type LoadedPackage,
} from '../../test/helpers/engine';
import { BARE_NODE_TYPE, withBareNode } from '../lib/bareNode';
import type { Row } from '../lib/report';
import { fmtMs, fmtRatio, fmtSpreadMs, spread, timed } from '../lib/stats';
import { startWorkerEmulator } from '../lib/workerEmulator';

const TOKEN = 'bench-token-0123456789abcdef';
/**
 * At 16, within 5 % of the minimal n8n node at the same concurrency: n8n's own HTTP path costs
 * about 17 % over the ideal there, and a node cannot beat n8n from inside it.
 */
const TARGET_AT_16 = 1.05;

export interface ConcurrencyOptions {
	items: number;
	answerDelayMs: number;
	/** Measured in this order; the first one also warms up. */
	levels: Array<{ concurrency: number; runs: number; fetchRuns: number }>;
}

/** Whether the built node offers Ask's Options > Concurrency. */
export function hasConcurrencyOption(pkg: LoadedPackage): boolean {
	const type = pkg.nodeTypes.getByNameAndVersion(pkg.nodeType('assistant'));
	const options = type.description.properties.find(
		(p) => p.name === 'options' && p.type === 'collection',
	);
	return Boolean(
		(options?.options as INodeProperties[] | undefined)?.some((o) => o.name === 'concurrency'),
	);
}

function targetText(concurrency: number): string {
	return concurrency === 16 ? `≤ ${TARGET_AT_16}× minimal node` : 'reported';
}

export function pendingRows(levels: ConcurrencyOptions['levels']): Row[] {
	return levels.map(({ concurrency }) => ({
		name: `2. Concurrency ${concurrency}`,
		measure: 'pending',
		figure: 'pending: concurrency option not available',
		baseline: '—',
		ratio: '—',
		target: targetText(concurrency),
		verdict: 'pending' as const,
		why: 'pending: concurrency option not available (the built node has no Options > Concurrency yet)',
		details: [
			'The built package (dist/) has no `options.concurrency` on Ask: the row runs once it does.',
		],
	}));
}

export async function concurrencyRows({
	items,
	answerDelayMs,
	levels,
}: ConcurrencyOptions): Promise<Row[]> {
	const pkg = await assistantPackage();
	if (!hasConcurrencyOption(pkg)) {
		console.log('pending: concurrency option not available');
		return pendingRows(levels);
	}
	const emulator = await startWorkerEmulator({ token: TOKEN, answerDelayMs });
	const rows: Row[] = [];
	try {
		const inputs = Array.from({ length: items }, (_, i) => ({ q: `Concurrent question ${i}` }));
		const checkOutputs = (label: string, outputs: Array<{ json: { output?: unknown } }>) => {
			if (outputs.length !== items) throw new Error(`${label}: ${outputs.length} outputs`);
			outputs.forEach((item, index) => {
				const output = item.json.output;
				if (typeof output !== 'string' || !output.includes(`"Concurrent question ${index}"`)) {
					throw new Error(`${label}: item ${index} out of order or wrong`);
				}
			});
		};
		const nodeRun = (baseUrl: string, concurrency: number, reset: () => Promise<void> | void) => {
			const credential = emulatorCredential(baseUrl, TOKEN);
			const node = assistantNode(pkg, 'Ask', {
				operation: 'ask',
				input: '={{ $json.q }}',
				options: { concurrency },
			});
			return async () => {
				await reset();
				const run = await runWithItems(inputs, [node], { credentials: [credential] });
				checkOutputs(`node, concurrency ${concurrency}`, run.outputs('Ask'));
			};
		};
		const fetchPool = (concurrency: number) => async () => {
			await emulator.reset();
			const outputs: Array<{ json: { output?: unknown } }> = new Array(items);
			let next = 0;
			const worker = async () => {
				while (next < items) {
					const index = next++;
					const response = await fetch(`${emulator.baseUrl}/assistant/ask`, {
						method: 'POST',
						headers: {
							Accept: 'application/json',
							'Content-Type': 'application/json',
							Authorization: `Bearer ${TOKEN}`,
						},
						body: JSON.stringify({ input: inputs[index].q }),
					});
					outputs[index] = { json: (await response.json()) as { output?: unknown } };
				}
			};
			await Promise.all(Array.from({ length: concurrency }, worker));
			checkOutputs(`fetch pool ${concurrency}`, outputs);
		};

		const barePkg = withBareNode(pkg);
		const bareRun = (concurrency: number, auth: 'helper' | 'header') => {
			const credential = emulatorCredential(emulator.baseUrl, TOKEN);
			const bare = {
				...assistantNode(pkg, 'Bare', {
					input: '={{ $json.q }}',
					url: `${emulator.baseUrl}/assistant/ask`,
					concurrency,
					auth,
				}),
				type: BARE_NODE_TYPE,
			};
			return async () => {
				await emulator.reset();
				const run = await runWorkflow(barePkg, chain(manualTrigger(), itemsNode(inputs), bare), {
					credentials: [credential],
				});
				checkOutputs(`bare node, concurrency ${concurrency}`, run.outputs('Bare'));
			};
		};

		for (const [level, { concurrency, runs, fetchRuns }] of levels.entries()) {
			const runNode = nodeRun(emulator.baseUrl, concurrency, () => emulator.reset());
			const runFetch = fetchPool(concurrency);
			if (level === 0) {
				await runNode(); // warm-up
				await runFetch();
			}
			const inFlight: number[] = [];
			const nodeMs: number[] = [];
			const fetchMs: number[] = [];
			for (let i = 0; i < Math.max(runs, fetchRuns); i++) {
				if (i < runs) {
					nodeMs.push((await timed(runNode)).ms);
					inFlight.push((await emulator.stats()).maxInFlight);
				}
				if (i < fetchRuns) fetchMs.push((await timed(runFetch)).ms);
			}
			const ideal = Math.ceil(items / concurrency) * answerDelayMs;
			const s = spread(nodeMs);
			const f = spread(fetchMs);
			const ratio = s.median / ideal;
			const details = [
				`Ask (Input \`={{ $json.q }}\`, Options > Concurrency ${concurrency}) over ${items} items in the engine; the emulator, in a worker thread, waits ${answerDelayMs} ms before each answer. Ideal = ceil(${items} / ${concurrency}) × ${answerDelayMs} ms = ${fmtMs(ideal)}. ${runs} runs: ${nodeMs.map(fmtMs).join(', ')}. Outputs checked in input order.`,
				`Most asks in flight at the emulator: ${inFlight.join(', ')} (expected ${Math.min(concurrency, items)}). Over the ideal: ${fmtMs(s.median - ideal)} in all, ${((s.median - ideal) / Math.ceil(items / concurrency) || 0).toFixed(1)} ms per round of ${concurrency}.`,
				`Baseline: ${concurrency === 1 ? 'one fetch worker' : `${concurrency} fetch workers`} sending the same requests to the same emulator (${fetchRuns} run${fetchRuns === 1 ? '' : 's'}): ${fmtSpreadMs(f)}, ${fmtRatio(f.median / ideal)} the ideal. Node / fetch pool: ${fmtRatio(s.median / f.median)}.`,
			];
			let minimal: number | undefined;
			if (concurrency === 16) {
				// What n8n itself reaches at 16: the minimal node, both ways of authenticating.
				for (const auth of ['helper', 'header'] as const) {
					const runBare = bareRun(concurrency, auth);
					await runBare();
					const bareMs: number[] = [];
					for (let i = 0; i < Math.min(runs, 3); i++) bareMs.push((await timed(runBare)).ms);
					const b = spread(bareMs);
					if (auth === 'helper') minimal = b.median;
					details.push(
						`Reference: the minimal n8n node (bench/lib/bareNode.ts, a pool of ${concurrency}, nothing else) with ${auth === 'helper' ? '`helpers.httpRequestWithAuthentication` (as the node calls it)' : '`helpers.httpRequest` and the bearer header set from credentials read once'}: ${fmtSpreadMs(b)}, ${fmtRatio(b.median / ideal)} the ideal; node / it ${fmtRatio(s.median / b.median)}.`,
					);
				}
			}
			const toMinimal = minimal === undefined ? undefined : s.median / minimal;
			const verdict =
				toMinimal === undefined ? 'info' : toMinimal <= TARGET_AT_16 ? 'met' : 'missed';
			rows.push({
				name: `2. Concurrency ${concurrency}`,
				measure: `Ask ×${items}, ${answerDelayMs} ms answers`,
				figure: fmtSpreadMs(s),
				baseline:
					minimal === undefined
						? `${fmtMs(ideal)} ideal; fetch pool ${fmtMs(f.median)}`
						: `minimal node ${fmtMs(minimal)}; ${fmtMs(ideal)} ideal; fetch pool ${fmtMs(f.median)}`,
				ratio:
					toMinimal === undefined
						? `${fmtRatio(ratio)} ideal`
						: `${fmtRatio(toMinimal)} minimal node (${fmtRatio(ratio)} ideal)`,
				target: targetText(concurrency),
				verdict,
				why:
					verdict === 'missed' && minimal !== undefined
						? `${fmtMs(s.median)} is ${(((toMinimal ?? 1) - 1) * 100).toFixed(0)} % over the minimal n8n node at the same concurrency (${fmtMs(minimal)}; the ideal ${fmtMs(ideal)}); see "Targets missed"`
						: undefined,
				details,
			});
		}
	} finally {
		await emulator.close();
	}
	const level = (row: Row) => Number(/\d+$/.exec(row.name)?.[0]);
	return rows.sort((a, b) => level(a) - level(b));
}
