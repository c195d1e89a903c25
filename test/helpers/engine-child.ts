/**
 * Assistant nodes run in n8n-core's engine in a fresh child process (engine-child-main.ts), for
 * what one process cannot show of itself:
 * - memory: the child's peak resident memory above what it held before the run, with nothing
 *   freed by an earlier run to reuse (the bounds suite and bench row 10);
 * - process settings that are read once at start, such as `NODE_EXTRA_CA_CERTS` (the HTTPS
 *   redirect suite trusts its test certificate that way, as an n8n instance would).
 * The servers stay in the calling process; the child gets their addresses. Under the n8n 1.x
 * run (jest.n8n1.config.js) the child loads n8n 1.x too.
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PACKAGE_DIR } from './assistant';

export interface ChildRun {
	/** The credential's Base URL. */
	baseUrl: string;
	token: string;
	/** The Assistant node's parameters. */
	parameters: INodeParameters;
}

export interface ChildRequest {
	runs: ChildRun[];
	/** Where n8n's packages resolve from (the n8n 1.x run); the repository's own by default. */
	n8nModules?: string;
}

export interface ChildRunResult {
	error?: { message: string; description?: string; httpCode?: string };
	/** Each output item's `output` length (-1 when it is not text). */
	outputLengths: number[];
	/** The output items' JSON, when small (under 100,000 characters). */
	items?: IDataObject[];
	/** The run's whole data as JSON, when small: what n8n would store of the execution. */
	data?: string;
	/** Resident memory before the run (after a full GC), in bytes. */
	rssBefore: number;
	/** The highest resident memory sampled every 5 ms during the run. */
	sampledPeak: number;
	/** The kernel's peak resident memory of the whole process (`resourceUsage().maxRSS`). */
	maxRss: number;
}

/** The run's peak resident memory above what the child held before it. */
export function peakGrowth(result: ChildRunResult): number {
	return Math.max(result.maxRss, result.sampledPeak) - result.rssBefore;
}

const MAIN = path.join(__dirname, 'engine-child-main.ts');

/** The n8n packages this process resolves, when they are not the repository's (n8n 1.x run). */
function n8nModulesInUse(): string | undefined {
	const core = path.dirname(require.resolve('n8n-core/package.json'));
	const modules = path.dirname(core);
	const own = realpathSync(path.join(PACKAGE_DIR, 'node_modules'));
	return realpathSync(modules) === own ? undefined : modules;
}

/** Runs `runs` one after another in one fresh child process; `env` adds to its environment. */
export async function runInChild(
	runs: ChildRun[],
	env: Record<string, string> = {},
): Promise<ChildRunResult[]> {
	const request: ChildRequest = { runs, n8nModules: n8nModulesInUse() };
	const child = spawn(
		process.execPath,
		['--expose-gc', '--import', 'tsx', MAIN, JSON.stringify(request)],
		{ cwd: PACKAGE_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const code = await new Promise<number | null>((resolve, reject) => {
		child.once('error', reject);
		child.once('close', resolve);
	});
	const line = stdout.split('\n').find((candidate) => candidate.startsWith('RESULT '));
	if (code !== 0 || !line) {
		throw new Error(`The engine's child process failed (exit ${code}):\n${stderr.slice(-4000)}`);
	}
	const { n8nCore, results } = JSON.parse(line.slice('RESULT '.length)) as {
		n8nCore: string;
		results: ChildRunResult[];
	};
	const packageJson = readFileSync(require.resolve('n8n-core/package.json'), 'utf8');
	const expected = (JSON.parse(packageJson) as { version: string }).version;
	if (n8nCore !== expected) {
		throw new Error(`The child process ran n8n-core ${n8nCore}, not ${expected} as this one does`);
	}
	return results;
}
