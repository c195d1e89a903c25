/**
 * Row 7: cost grows linearly with the items. Ask over 1,000 and over 10,000 items (answers of
 * about 1 KB, answered at once, Concurrency 8): what one more item costs in time and in memory
 * (held by the run's result after a full GC), beyond a run of one round, stays within 15 % from
 * one size to the other. Beside it, the minimal n8n node (bench/lib/bareNode.ts) on the same items.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import { chain, itemsNode, manualTrigger, runWorkflow } from '../../test/helpers/engine';
import { BARE_NODE_TYPE, withBareNode } from '../lib/bareNode';
import type { Row } from '../lib/report';
import { collectGarbage, fmtRatio, memoryInUse, spread, timed } from '../lib/stats';
import { startWorkerEmulator } from '../lib/workerEmulator';

const TOKEN = 'bench-token-0123456789abcdef';
const TOLERANCE = 0.15;
const ANSWER_CHARS = 1024;
/** The emulator's answer repeats the input: a question of about 1 KB gets an answer of 1 KB. */
const FILLER = ' and the rest of a long question'.repeat(32);

export interface ScalingOptions {
	sizes: [number, number];
	concurrency: number;
	runs: number;
}

/** What one more item costs: beyond a run of one round, per item. */
interface PerItem {
	us: number;
	bytes: number;
	/** The whole run's time per item, fixed costs included. */
	rawUs: number;
}

interface Totals {
	ms: number;
	bytes: number;
}

type Side = (inputs: IDataObject[]) => Promise<Array<{ json: IDataObject }>>;

export async function scalingRow({ sizes, concurrency, runs }: ScalingOptions): Promise<Row> {
	const emulator = await startWorkerEmulator({ token: TOKEN });
	try {
		const pkg = await assistantPackage();
		const credential = emulatorCredential(emulator.baseUrl, TOKEN);
		const node = assistantNode(pkg, 'Ask', {
			operation: 'ask',
			input: '={{ $json.q }}',
			options: { concurrency },
		});
		const runNode: Side = async (inputs) =>
			(await runWithItems(inputs, [node], { credentials: [credential] })).outputs('Ask');
		const bare = {
			...assistantNode(pkg, 'Bare', {
				input: '={{ $json.q }}',
				url: `${emulator.baseUrl}/assistant/ask`,
				concurrency,
			}),
			type: BARE_NODE_TYPE,
		};
		const barePkg = withBareNode(pkg);
		const runBare: Side = async (inputs) =>
			(
				await runWorkflow(barePkg, chain(manualTrigger(), itemsNode(inputs), bare), {
					credentials: [credential],
				})
			).outputs('Bare');

		const measure = async (side: Side, items: number): Promise<Totals> => {
			const inputs = Array.from({ length: items }, (_, i) => ({
				q: `Scaling question ${i}${FILLER}`,
			}));
			await emulator.reset();
			collectGarbage();
			const before = memoryInUse();
			const { ms, value: outputs } = await timed(() => side(inputs));
			collectGarbage();
			const held = memoryInUse() - before;
			check(outputs, items);
			return { ms, bytes: held };
		};
		await measure(runNode, sizes[0]); // warm-up
		await measure(runBare, sizes[0]);
		const results = new Map<string, PerItem[]>();
		for (let i = 0; i < runs; i++) {
			for (const [label, side] of [
				['node', runNode],
				['bare', runBare],
			] as const) {
				// What a run costs whatever its size (start, first round): a run of one round.
				const fixed = await measure(side, concurrency);
				for (const size of sizes) {
					const total = await measure(side, size);
					const key = `${label}:${size}`;
					const extra = size - concurrency;
					const perItem: PerItem = {
						us: ((total.ms - fixed.ms) * 1000) / extra,
						bytes: (total.bytes - fixed.bytes) / extra,
						rawUs: (total.ms * 1000) / size,
					};
					results.set(key, [...(results.get(key) ?? []), perItem]);
				}
			}
		}
		return scalingResult(sizes, concurrency, runs, results);
	} finally {
		await emulator.close();
	}
}

function check(outputs: Array<{ json: IDataObject }>, items: number): void {
	if (outputs.length !== items) throw new Error(`${outputs.length} outputs for ${items} items`);
	outputs.forEach((item, index) => {
		const output = String(item.json.output);
		if (!output.includes(`"Scaling question ${index} `) || output.length < ANSWER_CHARS) {
			throw new Error(`item ${index}: wrong or short answer`);
		}
	});
}

function scalingResult(
	[small, large]: [number, number],
	concurrency: number,
	runs: number,
	results: Map<string, PerItem[]>,
): Row {
	const median = (key: string, pick: (p: PerItem) => number) =>
		spread((results.get(key) ?? []).map(pick)).median;
	const us = (key: string) => median(key, (p) => p.us);
	const kb = (key: string) => median(key, (p) => p.bytes) / 1000;
	const timeRatio = us(`node:${large}`) / us(`node:${small}`);
	const memoryRatio = kb(`node:${large}`) / kb(`node:${small}`);
	const within = (ratio: number) => Math.abs(ratio - 1) <= TOLERANCE;
	const met = within(timeRatio) && within(memoryRatio);
	const side = (label: string) =>
		`${us(`${label}:${small}`).toFixed(0)} / ${us(`${label}:${large}`).toFixed(0)} µs, ${kb(`${label}:${small}`).toFixed(1)} / ${kb(`${label}:${large}`).toFixed(1)} KB per item`;
	const all = (key: string) =>
		(results.get(key) ?? [])
			.map(
				(p) =>
					`${p.us.toFixed(0)} µs ${(p.bytes / 1000).toFixed(1)} KB (whole run ${p.rawUs.toFixed(0)} µs/item)`,
			)
			.join(', ');
	return {
		name: '7. Scaling',
		measure: `Ask ×${small.toLocaleString('en')} / ×${large.toLocaleString('en')}, 1 KB answers, Concurrency ${concurrency}`,
		figure: side('node'),
		baseline: `minimal node ${side('bare')}`,
		ratio: `time ${fmtRatio(timeRatio)}, memory ${fmtRatio(memoryRatio)}`,
		target: `×${large / small} items: per item within ${TOLERANCE * 100} %`,
		verdict: met ? 'met' : 'missed',
		why: met
			? undefined
			: `per item at ${large} vs ${small}: time ${fmtRatio(timeRatio)}, memory ${fmtRatio(memoryRatio)} (more than ${TOLERANCE * 100} % apart)`,
		details: [
			`Ask (Input \`={{ $json.q }}\`, questions of about 1 KB that the emulator repeats in its answer, so each answer is over ${ANSWER_CHARS} characters; Options > Concurrency ${concurrency}) over ${small} and ${large} items in the engine, the emulator in a worker thread answering at once. Per item means what one more item costs: a run of one round (${concurrency} items: the workflow's start and the first requests) is measured beside each size and taken off, and the rest divided by the items beyond it. Time: wall time. Memory: \`heapUsed + external\` after a full GC with the run's result still held, minus the same before the run. ${runs} runs each; medians.`,
			`Node per run: ×${small}: ${all(`node:${small}`)}; ×${large}: ${all(`node:${large}`)}.`,
			`Minimal n8n node (same helper, same concurrency) per run: ×${small}: ${all(`bare:${small}`)}; ×${large}: ${all(`bare:${large}`)}; its ratios: time ${fmtRatio(us(`bare:${large}`) / us(`bare:${small}`))}, memory ${fmtRatio(kb(`bare:${large}`) / kb(`bare:${small}`))}.`,
		],
	};
}
