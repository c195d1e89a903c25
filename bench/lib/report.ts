/** The results table: printed to the console and written into BENCHMARKS.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/** `info`: a figure reported without a target of its own (e.g. concurrency 1 and 4). */
export type Verdict = 'met' | 'missed' | 'pending' | 'info';

export interface Row {
	/** e.g. "1. Per-item overhead" */
	name: string;
	/** What is measured on the node's side, e.g. "Ask ×1000, engine". */
	measure: string;
	figure: string;
	baseline: string;
	ratio: string;
	target: string;
	verdict: Verdict;
	/** One line shown under the table when the target is missed or pending. */
	why?: string;
	/** Extra lines for BENCHMARKS.md's details section. */
	details: string[];
}

export interface Machine {
	cpu: string;
	cores: number;
	memory: string;
	node: string;
	os: string;
	date: string;
}

export function machine(): Machine {
	const cpus = os.cpus();
	return {
		cpu: cpus[0]?.model.trim() ?? 'unknown',
		cores: cpus.length,
		memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
		node: process.version,
		os: `${os.type()} ${os.release()} ${os.arch()}`,
		date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
	};
}

function verdictText(row: Row): string {
	if (row.verdict === 'met') return 'met';
	if (row.verdict === 'info') return '—';
	if (row.verdict === 'pending') return 'PENDING';
	return 'MISSED';
}

const HEADERS = [
	'Row',
	'Node (median, min–max)',
	'Baseline (median, min–max)',
	'Ratio',
	'Target',
	'Result',
];

function cells(row: Row): string[] {
	return [
		`${row.name}: ${row.measure}`,
		row.figure,
		row.baseline,
		row.ratio,
		row.target,
		verdictText(row),
	];
}

export function consoleTable(rows: Row[]): string {
	const table = [HEADERS, ...rows.map(cells)];
	const widths = HEADERS.map((_, i) => Math.max(...table.map((r) => r[i].length)));
	const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join(' | ');
	const out = [
		line(HEADERS),
		widths.map((w) => '-'.repeat(w)).join('-+-'),
		...table.slice(1).map(line),
	];
	const notes = rows.filter((r) => (r.verdict === 'missed' || r.verdict === 'pending') && r.why);
	if (notes.length > 0) {
		out.push('');
		for (const row of notes) out.push(`${verdictText(row)}: ${row.name}: ${row.why}`);
	}
	return out.join('\n');
}

function escapeCell(text: string): string {
	return text.replace(/\|/g, '\\|');
}

export function markdownResults(rows: Row[], m: Machine, settings: string): string {
	const out: string[] = [];
	out.push(
		`Run: ${m.date} · CPU: ${m.cpu} · ${m.cores} cores · memory ${m.memory} · Node ${m.node} · ${m.os}`,
	);
	out.push('');
	out.push(settings);
	out.push('');
	out.push(`| ${HEADERS.join(' | ')} |`);
	out.push(`| ${HEADERS.map(() => '---').join(' | ')} |`);
	for (const row of rows) out.push(`| ${cells(row).map(escapeCell).join(' | ')} |`);
	out.push('');
	const notMet = rows.filter((r) => r.verdict === 'missed' || r.verdict === 'pending');
	out.push(notMet.length === 0 ? ALL_MET : NOT_MET);
	for (const row of notMet) out.push(notMetLine(row));
	out.push('');
	out.push('#### Details of this run');
	out.push('');
	for (const row of rows) {
		out.push(`**${row.name}**`);
		out.push('');
		for (const detail of row.details) out.push(`- ${detail}`);
		out.push('');
	}
	return out.join('\n').trimEnd();
}

const ALL_MET = 'Every target was met in this run.';
const NOT_MET = 'Targets not met in this run:';

function notMetLine(row: Row): string {
	return `- **${row.name}** (${verdictText(row)}): ${row.why ?? ''}`;
}

const START = '<!-- bench:results:start (written by npm run bench; edit outside these markers) -->';
const END = '<!-- bench:results:end -->';

/** Replaces the generated block of BENCHMARKS.md, keeping the hand-written text around it. */
export function writeBenchmarksFile(file: string, results: string): void {
	const block = `${START}\n${results}\n${END}`;
	let text: string;
	if (existsSync(file)) {
		const current = readFileSync(file, 'utf8');
		const start = current.indexOf(START.slice(0, 30));
		const end = current.indexOf(END);
		text =
			start >= 0 && end > start
				? `${current.slice(0, start)}${block}${current.slice(end + END.length)}`
				: `${current.trimEnd()}\n\n## Results\n\n${block}\n`;
	} else {
		text = `# Benchmarks\n\n## Results\n\n${block}\n`;
	}
	writeFileSync(file, text);
}

/**
 * A partial run (`--only`): its rows replace theirs in the generated block of BENCHMARKS.md (the
 * table line and the details), or are added; every other row's figures stay as the last full run
 * wrote them. Returns false when the file has no generated block (a full run writes it).
 */
export function mergeRowsIntoBenchmarksFile(file: string, rows: Row[], m: Machine): boolean {
	if (!existsSync(file)) return false;
	const current = readFileSync(file, 'utf8');
	const start = current.indexOf(START.slice(0, 30));
	const end = current.indexOf(END);
	if (start < 0 || end <= start) return false;
	const lines = current.slice(start, end).split('\n');
	for (const row of rows) {
		const tableLine = `| ${cells(row).map(escapeCell).join(' | ')} |`;
		const at = lines.findIndex((line) => line.startsWith(`| ${escapeCell(row.name)}: `));
		if (at >= 0) {
			lines[at] = tableLine;
		} else {
			const header = lines.findIndex((line) => line.startsWith(`| ${HEADERS[0]} |`));
			let last = header + 1;
			while (lines[last + 1]?.startsWith('| ')) last++;
			lines.splice(last + 1, 0, tableLine);
		}
		const details = [
			`**${row.name}**`,
			'',
			`- Measured on its own (\`npm run bench -- --only\`): ${m.date}, ${m.cpu}, Node ${m.node}.`,
			...row.details.map((detail) => `- ${detail}`),
			'',
		];
		const from = lines.indexOf(`**${row.name}**`);
		if (from >= 0) {
			let to = from + 1;
			while (to < lines.length && !lines[to].startsWith('**')) to++;
			lines.splice(from, to - from, ...details);
		} else {
			while (lines[lines.length - 1] === '') lines.pop();
			lines.push('', ...details);
		}
	}
	refreshNotMet(lines, rows);
	writeFileSync(file, `${current.slice(0, start)}${lines.join('\n')}${current.slice(end)}`);
	return true;
}

/**
 * The list of targets not met, from the table as it now stands: a merged row's verdict may have
 * changed. A row the partial run did not measure keeps its line from the last run.
 */
function refreshNotMet(lines: string[], rows: Row[]): void {
	const at = lines.findIndex((line) => line === NOT_MET || line === ALL_MET);
	if (at < 0) return;
	let to = at + 1;
	const earlier = new Map<string, string>();
	for (; lines[to]?.startsWith('- **'); to++) {
		const name = /^- \*\*(.+?)\*\*/.exec(lines[to])?.[1];
		if (name) earlier.set(name, lines[to]);
	}
	const notMet: string[] = [];
	for (const line of lines) {
		if (!line.startsWith('| ') || line.startsWith(`| ${HEADERS[0]} |`)) continue;
		const verdict = line.slice(line.lastIndexOf(' | ') + 3, -2).trim();
		if (verdict !== 'MISSED' && verdict !== 'PENDING') continue;
		const name = line.slice(2, line.indexOf(': '));
		const measured = rows.find((row) => row.name === name);
		notMet.push(
			measured ? notMetLine(measured) : (earlier.get(name) ?? `- **${name}** (${verdict})`),
		);
	}
	lines.splice(at, to - at, notMet.length === 0 ? ALL_MET : NOT_MET, ...notMet);
}

interface CpuSnapshot {
	/** Jiffies from /proc/stat's `cpu` line (Linux), all cores. */
	busy: number;
	steal: number;
	total: number;
	/** This process's CPU time (µs). */
	own: number;
	at: number;
}

function cpuSnapshot(): CpuSnapshot | undefined {
	const own = process.cpuUsage();
	try {
		const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
		const [user, nice, system, idle, iowait, irq, softirq, steal] = line
			.trim()
			.split(/\s+/)
			.slice(1)
			.map(Number);
		const busy = user + nice + system + irq + softirq;
		return {
			busy,
			steal,
			total: busy + idle + iowait + steal,
			own: own.user + own.system,
			at: Date.now(),
		};
	} catch {
		return undefined;
	}
}

/**
 * What else the machine did during the bench: the cores' busy share, this process's share of
 * that, and the time the hypervisor took (steal). Other work on the machine shows up here when
 * the load average is too coarse to show it.
 */
export function machineActivity(): () => string {
	const start = cpuSnapshot();
	return () => {
		const end = cpuSnapshot();
		if (!start || !end || end.total <= start.total) return 'machine activity: not available';
		const total = end.total - start.total;
		const busy = (end.busy - start.busy) / total;
		const steal = (end.steal - start.steal) / total;
		const cores = os.cpus().length;
		// /proc/stat counts jiffies of all cores: total ≈ wall seconds × cores × 100.
		const ownShare = (end.own - start.own) / 1e6 / (((end.at - start.at) / 1000) * cores);
		return `cores busy ${(busy * 100).toFixed(0)} % (this process ${(ownShare * 100).toFixed(0)} %, other processes ${Math.max(0, (busy - ownShare) * 100).toFixed(0)} %), steal ${(steal * 100).toFixed(1)} %`;
	};
}
