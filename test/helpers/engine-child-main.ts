/**
 * The child process of engine-child.ts: runs Assistant nodes in n8n-core's engine, one run after
 * another, and prints what they gave as one line `RESULT <json>`. Started with
 * `node --expose-gc --import tsx` and the request as JSON in argv[2]. With `n8nModules` set (the
 * n8n 1.x run), n8n's packages resolve from there, as jest.n8n1.config.js maps them.
 */
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

import type { ChildRequest, ChildRunResult } from './engine-child';

const request = JSON.parse(process.argv[2] ?? '{}') as ChildRequest;

if (request.n8nModules) mapN8nModules(request.n8nModules);

/** As jest.n8n1.config.js: n8n's packages from `dir`, and no AI node SDK (n8n 1.x has none). */
function mapN8nModules(dir: string): void {
	const mapped = /^(n8n-core|n8n-workflow|@n8n\/di|@n8n\/backend-common)(\/.*)?$/;
	const resolver = Module as unknown as {
		_resolveFilename: (name: string, ...rest: unknown[]) => string;
	};
	const resolve = resolver._resolveFilename;
	resolver._resolveFilename = function (name: string, ...rest: unknown[]) {
		if (name === '@n8n/ai-node-sdk') {
			throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
		}
		const match = mapped.exec(name);
		return resolve.call(this, match ? path.join(dir, name) : name, ...rest);
	};
}

function versionOf(packageJson: string): string {
	return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
	// Loaded after the mapping above, so that the engine gets the n8n line asked for.
	const { assistantNode, assistantPackage, emulatorCredential, runWithItems } =
		(await import('./assistant')) as typeof import('./assistant');
	const pkg = await assistantPackage();
	const n8nCore = versionOf(require.resolve('n8n-core/package.json'));
	const results: ChildRunResult[] = [];
	for (const run of request.runs) {
		gc?.();
		const rssBefore = process.memoryUsage().rss;
		let sampledPeak = rssBefore;
		const timer = setInterval(() => {
			sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
		}, 5);
		const result = await runWithItems([{}], [assistantNode(pkg, 'Assistant', run.parameters)], {
			credentials: [emulatorCredential(run.baseUrl, run.token)],
		});
		clearInterval(timer);
		// The kernel's peak for the whole process (KiB): no sample can miss it.
		const maxRss = process.resourceUsage().maxRSS * 1024;
		sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
		const error = result.error() as
			{ message?: string; description?: string | null; httpCode?: string | null } | undefined;
		const items = error ? [] : result.outputs('Assistant').map((item) => item.json);
		const data = JSON.stringify(result.data);
		results.push({
			error: error
				? {
						message: String(error.message),
						description: error.description ?? undefined,
						httpCode: error.httpCode ?? undefined,
					}
				: undefined,
			outputLengths: items.map((json) =>
				typeof json.output === 'string' ? json.output.length : -1,
			),
			items: data.length <= 100_000 ? items : undefined,
			data: data.length <= 100_000 ? data : undefined,
			rssBefore,
			sampledPeak,
			maxRss,
		});
	}
	// Exits once the line is out: a pipe is written asynchronously.
	await new Promise<void>((resolve) =>
		process.stdout.write(`\nRESULT ${JSON.stringify({ n8nCore, results })}\n`, () => resolve()),
	);
}

main().then(
	// Whatever the engine left open (timers, sockets) must not keep the child alive.
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
		process.exit(1);
	},
);
