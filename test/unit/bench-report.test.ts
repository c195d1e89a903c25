/**
 * `npm run bench -- --only <rows>` writes only those rows into BENCHMARKS.md
 * (bench/lib/report.ts): their table lines and details change, and so does the list of targets
 * not met, which must follow the table as it now stands.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
	markdownResults,
	mergeRowsIntoBenchmarksFile,
	writeBenchmarksFile,
	type Machine,
	type Row,
} from '../../bench/lib/report';

const MACHINE: Machine = {
	cpu: 'CPU',
	cores: 2,
	memory: '24 GiB',
	node: 'v20',
	os: 'linux',
	date: '2026-11-25T00:00:00Z',
};

function row(name: string, verdict: Row['verdict'], why?: string): Row {
	return {
		name,
		measure: 'what',
		figure: '1 ms',
		baseline: '1 ms',
		ratio: '1×',
		target: '< 2 ms',
		verdict,
		why,
		details: [`details of ${name}`],
	};
}

describe('a partial bench run written into BENCHMARKS.md', () => {
	let file: string;
	beforeEach(() => {
		file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-')), 'BENCHMARKS.md');
		fs.writeFileSync(file, '# Benchmarks\n\nHand-written text.\n');
		const full = [
			row('1. One', 'met'),
			row('2. Two', 'missed', 'two is slow'),
			row('3. Three', 'missed', 'three is slow'),
		];
		writeBenchmarksFile(file, markdownResults(full, MACHINE, 'settings'));
	});

	afterEach(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

	test('a row that now meets its target leaves the list; the others keep their lines', () => {
		mergeRowsIntoBenchmarksFile(file, [row('2. Two', 'met')], MACHINE);
		const text = fs.readFileSync(file, 'utf8');
		expect(text).toContain(
			'Targets not met in this run:\n- **3. Three** (MISSED): three is slow\n',
		);
		expect(text).not.toContain('two is slow');
		expect(text).toContain('| 2. Two: what | 1 ms | 1 ms | 1× | < 2 ms | met |');
		expect(text).toContain('Hand-written text.');
	});

	test('when every row meets its target, the list says so', () => {
		mergeRowsIntoBenchmarksFile(file, [row('2. Two', 'met'), row('3. Three', 'met')], MACHINE);
		const text = fs.readFileSync(file, 'utf8');
		expect(text).toContain('Every target was met in this run.');
		expect(text).not.toContain('Targets not met');
	});

	test('a row that misses now is listed with its reason', () => {
		mergeRowsIntoBenchmarksFile(file, [row('1. One', 'missed', 'one got slow')], MACHINE);
		const text = fs.readFileSync(file, 'utf8');
		expect(text).toContain(
			'Targets not met in this run:\n- **1. One** (MISSED): one got slow\n- **2. Two** (MISSED): two is slow\n- **3. Three** (MISSED): three is slow\n',
		);
	});
});
