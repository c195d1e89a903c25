/**
 * Row 7: cost grows linearly with the items. Ask over 1,000 and over 10,000 items (answers of
 * about 1 KB, answered at once, Concurrency 8): what one more item costs in time (beyond a run of
 * one round) and the memory its output holds after a full GC stay within 15 % from one size to
 * the other. Each size is warmed up with a run of that size first, and no full GC is forced
 * before a timed run (V8 would pay to grow its heap back within the run). Beside it, the minimal
 * n8n node (bench/lib/bareNode.ts) on the same items.
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
import { collectGarbageSettled, fmtRatio, memoryInUse, spread, timed } from '../lib/stats';
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
	/** Held by the run's outputs after a full GC (freed when they are dropped), per item. */
	bytes: number;
	/** Held after a full GC with the outputs still referenced, beyond a run of one round, per item. */
	heldBytes: number;
	/** The whole run's time per item, fixed costs included. */
	rawUs: number;
}

interface Memory {
	/** Held after a full GC with the run's outputs still referenced, over the same before the run. */
	held: number;
	/** The part of `held` freed when the outputs are dropped. */
	outputs: number;
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

		const inputsOf = (items: number) =>
			Array.from({ length: items }, (_, i) => ({ q: `Scaling question ${i}${FILLER}` }));
		// Time: no full GC right before a timed run. A forced full GC shrinks V8's heap, and the
		// next thousand or two items then pay for growing it back: a cost of the measurement,
		// which a run of 1,000 items carries proportionally ten times more than one of 10,000.
		const time = async (side: Side, items: number): Promise<number> => {
			const inputs = inputsOf(items);
			await emulator.reset();
			const { ms, value: outputs } = await timed(() => side(inputs));
			check(outputs, items);
			return ms;
		};
		// Memory: in runs of their own, between full GCs.
		const memory = async (side: Side, items: number): Promise<Memory> => {
			const inputs = inputsOf(items);
			await emulator.reset();
			await collectGarbageSettled();
			const before = memoryInUse();
			let outputs = await side(inputs);
			await collectGarbageSettled();
			const held = memoryInUse() - before;
			check(outputs, items);
			outputs = [];
			await collectGarbageSettled();
			return { held, outputs: held - (memoryInUse() - before) };
		};
		const results = new Map<string, PerItem[]>();
		const sides = [
			['node', runNode],
			['bare', runBare],
		] as const;
		const order = (i: number) => (i % 2 === 0 ? sides : [...sides].reverse());
		for (const size of sizes) {
			const extra = size - concurrency;
			const perItem = new Map<string, PerItem[]>();
			// Warm-up at this very size: the engine's code paths, V8's heap and the pools settle at
			// what a run of this size needs before any run of it counts.
			for (const [, side] of sides) await time(side, size);
			// The timed runs back to back (no forced GC among them), then the memory runs.
			for (let i = 0; i < runs; i++) {
				for (const [label, side] of order(i)) {
					// What a run costs whatever its size (start, first round): a run of one round,
					// measured right before the run it is taken off.
					const fixedMs = await time(side, concurrency);
					const totalMs = await time(side, size);
					const entry = {
						us: ((totalMs - fixedMs) * 1000) / extra,
						rawUs: (totalMs * 1000) / size,
					};
					perItem.set(label, [...(perItem.get(label) ?? []), { ...entry, bytes: 0, heldBytes: 0 }]);
				}
			}
			for (let i = 0; i < runs; i++) {
				for (const [label, side] of order(i)) {
					const fixed = await memory(side, concurrency);
					const total = await memory(side, size);
					const entry = (perItem.get(label) ?? [])[i];
					entry.bytes = total.outputs / size;
					entry.heldBytes = (total.held - fixed.held) / extra;
				}
			}
			for (const [label, entries] of perItem) results.set(`${label}:${size}`, entries);
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
					`${p.us.toFixed(0)} µs ${(p.bytes / 1000).toFixed(1)} KB (with what the run leaves behind ${(p.heldBytes / 1000).toFixed(1)} KB; whole run ${p.rawUs.toFixed(0)} µs/item)`,
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
			`Ask (Input \`={{ $json.q }}\`, questions of about 1 KB that the emulator repeats in its answer, so each answer is over ${ANSWER_CHARS} characters; Options > Concurrency ${concurrency}) over ${small} and ${large} items in the engine, the emulator in a worker thread answering at once. Per item means what one more item costs: before the runs of each size, one unmeasured run of that very size on each side (the engine's code paths, V8's heap and the pools warm for that size); then, in each run, a run of one round (${concurrency} items: the workflow's start and the first requests) is measured right before it and taken off, and the rest divided by the items beyond it. Time: wall time, with no forced GC before the timed runs (a full GC shrinks V8's heap and the next thousand or two items pay to grow it back: a cost of the measurement that a run of 1,000 items carries ten times more per item than one of 10,000). Memory, in runs of their own after all the timed runs of the size, between full GCs (each followed, once finalizers have run, by another: an \`AbortSignal.timeout\` no longer listened to frees its timer only then): what the run's outputs hold, i.e. \`heapUsed + external\` after a full GC with the outputs still referenced minus the same once they are dropped, per item; in brackets, everything held after the run over the same before it (what the run leaves behind beyond its outputs included), beyond a run of one round, per item. The sides alternate in order run by run. ${runs} runs each; medians.`,
			`Node per run: ×${small}: ${all(`node:${small}`)}; ×${large}: ${all(`node:${large}`)}.`,
			`Minimal n8n node (same helper, same concurrency) per run: ×${small}: ${all(`bare:${small}`)}; ×${large}: ${all(`bare:${large}`)}; its ratios: time ${fmtRatio(us(`bare:${large}`) / us(`bare:${small}`))}, memory ${fmtRatio(kb(`bare:${large}`) / kb(`bare:${small}`))}.`,
		],
	};
}
