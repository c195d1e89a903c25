/**
 * `npm run bench`: what the node costs over the bare API, measured side by side with a baseline
 * taken in the same run on the same machine. Prints a table and writes it into BENCHMARKS.md
 * (between its generated markers; the hand-written analysis around them stays).
 *
 * Options (after `npm run bench --`):
 *   --runs N        runs per measurement (default 5; per-item overhead N + 2, concurrency 4 at most 3,
 *                   concurrency 1 at most 2: 20 s a run)
 *   --only a,b      only these rows: overhead, concurrency, streaming, memory, pickers, catalog,
 *                   busy, scaling, agentBytes, images
 *   --no-write      print only, leave BENCHMARKS.md alone (a run with --only writes its rows
 *                   alone into BENCHMARKS.md, the others' figures staying)
 *   --quick         smaller sizes for a smoke test (never written to BENCHMARKS.md)
 *   --details       also print each row's details (what was measured, per-run figures)
 *   --strict        exit with status 1 when a target is missed
 *
 * Needs --expose-gc (the npm script passes it) and the built package in dist/ (the npm script
 * builds first).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { PACKAGE_DIR } from '../test/helpers/assistant';
import { agentBytesRow } from './rows/agentBytes';
import { imagesRow } from './rows/images';
import { catalogRow } from './rows/catalog';
import { memoryBoundsRow } from './rows/memoryBounds';
import { concurrencyRows } from './rows/concurrency';
import { overheadRows } from './rows/overhead';
import { pickerRow } from './rows/pickers';
import { busyPoolRows } from './rows/busyPool';
import { scalingRow } from './rows/scaling';
import { streamingRows } from './rows/streaming';
import {
	consoleTable,
	machine,
	machineActivity,
	markdownResults,
	mergeRowsIntoBenchmarksFile,
	writeBenchmarksFile,
	type Row,
} from './lib/report';
import { hasGc } from './lib/stats';

function flag(name: string): boolean {
	return process.argv.includes(`--${name}`);
}

function option(name: string): string | undefined {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? process.argv[at + 1] : undefined;
}

const ROWS = [
	'overhead',
	'concurrency',
	'streaming',
	'pickers',
	'catalog',
	'busy',
	'scaling',
	'agentBytes',
	'images',
	'memory',
] as const;

/** "3b. Streaming…" → 3.02: the number, then the letter. */
function rowOrder(name: string): number {
	const match = /^(\d+)([a-z]?)\./.exec(name);
	if (!match) return Number.MAX_SAFE_INTEGER;
	return Number(match[1]) + (match[2] ? (match[2].charCodeAt(0) - 96) / 100 : 0);
}

async function main(): Promise<void> {
	if (!hasGc())
		throw new Error('Run with --expose-gc: `npm run bench` (or `tsx --expose-gc bench/run.ts`)');
	if (!existsSync(path.join(PACKAGE_DIR, 'dist', 'nodes', 'Assistant', 'Assistant.node.js'))) {
		throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)');
	}
	const runs = Number(option('runs') ?? 5);
	if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number ≥ 1');
	const quick = flag('quick');
	const only = option('only')?.split(',') ?? [...ROWS];
	for (const name of only) {
		if (!(ROWS as readonly string[]).includes(name))
			throw new Error(`--only: unknown row "${name}" (${ROWS.join(', ')})`);
	}
	const want = (name: (typeof ROWS)[number]) => only.includes(name);

	const m = machine();
	const loadBefore = os.loadavg();
	const activity = machineActivity();
	console.log(
		`Benchmarks: ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}; ${runs} runs per measurement${quick ? ' (quick)' : ''}`,
	);
	console.log(`Load average before: ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
	const started = Date.now();
	const rows: Row[] = [];
	const step = async (name: string, work: () => Promise<Row | Row[]> | Row) => {
		const t = Date.now();
		process.stdout.write(`  ${name}… `);
		const result = await work();
		rows.push(...(Array.isArray(result) ? result : [result]));
		console.log(`${((Date.now() - t) / 1000).toFixed(1)} s`);
	};

	// Streaming first: its memory figures (3b) measured after the per-item rows' 4,000 asks
	// showed twice the peak growth (82 MB against 40 MB), the heap those rows leave behind.
	if (want('streaming')) {
		await step('streaming', () =>
			streamingRows({
				events: quick ? 20_000 : 200_000,
				answerChars: quick ? 2_000_000 : 20_000_000,
				pieceBytes: 64 * 1024,
				runs,
				latencyRuns: runs,
			}),
		);
	}
	// Row 1 is about a second a side and the most sensitive to other load: two more rounds.
	if (want('overhead'))
		await step('per-item overhead', () =>
			overheadRows({
				items: quick ? 200 : 1000,
				runs: runs + 2,
				pairedRounds: quick ? 6 : 20,
			}),
		);
	if (want('concurrency')) {
		await step('concurrency', () =>
			concurrencyRows({
				items: quick ? 40 : 200,
				answerDelayMs: 100,
				// 16 first: the target's level, and a cheap warm-up. Concurrency 1 takes 20 s a run.
				levels: [
					{ concurrency: 16, runs, fetchRuns: runs },
					{ concurrency: 4, runs: Math.min(runs, 3), fetchRuns: Math.min(runs, 3) },
					{ concurrency: 1, runs: Math.min(runs, 2), fetchRuns: 1 },
				],
			}),
		);
	}
	if (want('memory'))
		await step('memory bounds', () => memoryBoundsRow({ runs: Math.min(runs, 3) }));
	if (want('pickers'))
		await step('pickers', () =>
			pickerRow({ models: 2000, callsPerRun: 200, runs, filter: 'claude fast' }),
		);
	if (want('catalog'))
		await step('catalog reuse', () => catalogRow({ items: quick ? 100 : 500, runs }));
	// About 11 s a run at the ideal; the fixed-concurrency baseline runs once.
	if (want('busy'))
		await step('busy session pool', () =>
			busyPoolRows({
				items: quick ? 80 : 400,
				concurrency: 16,
				sessions: 4,
				answerDelayMs: 100,
				runs: Math.min(runs, 3),
			}),
		);
	if (want('scaling'))
		await step('scaling', () =>
			scalingRow({
				sizes: quick ? [200, 2000] : [1000, 10_000],
				concurrency: 8,
				runs: Math.min(runs, 3),
			}),
		);

	if (want('agentBytes')) await step('agent chat bytes', () => agentBytesRow());
	if (want('images'))
		await step('images', () =>
			imagesRow({ items: 10, imageBytes: quick ? 200_000 : 2_000_000, runs: Math.min(runs, 3) }),
		);

	const loadAfter = os.loadavg();
	const busy = activity();
	const seconds = (Date.now() - started) / 1000;
	console.log('');
	// The report goes by row number, whatever order the rows ran in.
	rows.sort((a, b) => rowOrder(a.name) - rowOrder(b.name));
	console.log(consoleTable(rows));
	console.log('');
	if (flag('details')) {
		for (const row of rows) {
			console.log(`\n${row.name}: ${row.measure}`);
			for (const detail of row.details) console.log(`  - ${detail}`);
		}
		console.log('');
	}
	console.log(
		`Done in ${seconds.toFixed(0)} s. Load average after: ${loadAfter.map((l) => l.toFixed(2)).join(' ')}; during the run: ${busy}`,
	);
	if (flag('strict') && rows.some((row) => row.verdict === 'missed')) process.exitCode = 1;

	const partial = only.length !== ROWS.length;
	const file = path.join(PACKAGE_DIR, 'BENCHMARKS.md');
	if (flag('no-write') || quick) {
		if (quick && !flag('no-write')) console.log('Quick run: BENCHMARKS.md left as it is.');
		return;
	}
	if (partial) {
		// Only these rows' lines change; the other rows keep the last full run's figures.
		const merged = mergeRowsIntoBenchmarksFile(file, rows, m);
		console.log(
			merged
				? `These rows written into ${path.relative(process.cwd(), file) || file}; the others left as they were.`
				: 'Partial run and no results block in BENCHMARKS.md yet: left as it is (a full run writes it).',
		);
		return;
	}
	const settings =
		`${runs} runs per measurement (per-item overhead: ${runs + 2} rounds; concurrency 4: ${Math.min(runs, 3)}; concurrency 1: ${Math.min(runs, 2)}, its fetch baseline 1), medians with min–max; ` +
		`whole bench ${seconds.toFixed(0)} s; load average (1/5/15 min) before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}; during the run: ${busy}.`;
	writeBenchmarksFile(file, markdownResults(rows, m, settings));
	console.log(`Written to ${path.relative(process.cwd(), file) || file}`);
}

main().then(
	() => process.exit(process.exitCode ?? 0),
	(error: unknown) => {
		console.error(error instanceof Error ? (error.stack ?? error.message) : error);
		process.exit(1);
	},
);
