// @ts-check
'use strict';

/**
 * End-to-end checks in the real n8n app (npm run test:e2e; run `npm run build` first): installs
 * or re-uses n8n in .cache/n8n-app, starts the API emulator and n8n with this package (env.js),
 * then runs the checks listed in checks/index.js, in order. Prints PASS/FAIL per check and
 * `N passed, N failed`; exits 1 on any failure. Everything it started is stopped at the end,
 * on failure and on Ctrl-C.
 *
 * Options (docs/e2e.md):
 *   --only <id or part of a name>  run only the matching checks (repeatable; the checks they
 *                                  need come along)
 *   --no-browser                   skip the checks that need the browser (reported as SKIP)
 *   --list                         print the checks' ids and names, start nothing
 *   --doc-images                   also write the documentation's screenshots (docs/images/)
 */

const app = require('./app');
const editor = require('./editor');
const { startEnv, completeEnv } = require('./env');
const allChecks = require('./checks');

/** The whole run, install excluded: a hung step must not hang CI. */
const RUN_TIMEOUT_MS = 15 * 60_000;
const CHECK_TIMEOUT_MS = 120_000;

/**
 * @typedef {import('./env').E2eEnv} E2eEnv
 * @typedef {import('./env').Check} Check
 */

/** @type {{id: string, outcome: 'pass' | 'fail' | 'skip'}[]} */
const results = [];

/** @param {string} line */
function log(line) {
	process.stdout.write(`${line}\n`);
}

/** @param {number} since */
function seconds(since) {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * @param {string[]} argv
 * @returns {{only: string[], withBrowser: boolean, list: boolean}}
 */
function parseArgs(argv) {
	const only = [];
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--only') {
			const value = argv[++i];
			if (!value) throw new Error('--only needs a check id or part of its name (see --list)');
			only.push(value);
		} else if (argv[i].startsWith('--only=')) {
			only.push(argv[i].slice('--only='.length));
		} else if (argv[i] === '--doc-images') {
			process.env.E2E_DOC_IMAGES = '1';
		} else if (!['--no-browser', '--list'].includes(argv[i])) {
			throw new Error(
				`unknown option ${argv[i]} (options: --only <check>, --no-browser, --list, --doc-images)`,
			);
		}
	}
	return { only, withBrowser: !argv.includes('--no-browser'), list: argv.includes('--list') };
}

/**
 * The checks to run, in their listed order: all, or those matching --only (by id, or a part of
 * the name, case-insensitive) with the checks they require.
 * @param {Check[]} checks
 * @param {string[]} only
 * @returns {Check[]}
 */
function selectChecks(checks, only) {
	if (only.length === 0) return checks;
	const wanted = new Set();
	for (const pattern of only) {
		const lower = pattern.toLowerCase();
		const matches = checks.filter(
			(check) => check.id === pattern || check.name.toLowerCase().includes(lower),
		);
		if (matches.length === 0) {
			throw new Error(`--only ${pattern}: no such check; the checks are (--list):\n${listing()}`);
		}
		for (const check of matches) wanted.add(check.id);
	}
	const addRequired = (/** @type {string} */ id) => {
		const check = checks.find((candidate) => candidate.id === id);
		if (!check) throw new Error(`a check requires "${id}", which is not listed`);
		wanted.add(id);
		for (const required of check.requires ?? []) addRequired(required);
	};
	for (const id of [...wanted]) addRequired(id);
	return checks.filter((check) => wanted.has(check.id));
}

function listing() {
	return allChecks.map((check) => `  ${check.id.padEnd(28)} ${check.name}`).join('\n');
}

/**
 * Runs one check: PASS with its details, FAIL with the reason (and a screenshot of the editor
 * when it used the browser), or SKIP; never throws.
 * @param {Check} check
 * @param {E2eEnv} env
 * @param {{withBrowser: boolean}} options
 */
async function runCheck(check, env, options) {
	if (app.isStopping()) return; // interrupted: the signal handler stops everything and exits
	if (check.browser && !options.withBrowser) {
		results.push({ id: check.id, outcome: 'skip' });
		log(`SKIP  ${check.name} (--no-browser)`);
		return;
	}
	const started = Date.now();
	const timeoutMs = check.timeoutMs ?? CHECK_TIMEOUT_MS;
	/** @type {NodeJS.Timeout | undefined} */
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
	});
	try {
		const detail = await Promise.race([check.run(env), timeout]);
		results.push({ id: check.id, outcome: 'pass' });
		log(`PASS  ${check.name} (${seconds(started)})`);
		for (const line of [detail ?? []].flat()) log(`        ${line}`);
	} catch (error) {
		if (app.isStopping()) return;
		results.push({ id: check.id, outcome: 'fail' });
		log(`FAIL  ${check.name} (${seconds(started)})`);
		const message = error instanceof Error ? error.message : String(error);
		for (const line of message.split('\n').slice(0, 30)) log(`        ${line}`);
		if (check.browser && env.hasPage()) {
			const file = await editor
				.screenshot(await env.page(), `failure-${check.id}`)
				.catch(() => undefined);
			if (file) log(`        screenshot: ${file}`);
		}
	} finally {
		clearTimeout(timer);
	}
}

function summary() {
	const count = (/** @type {string} */ outcome) =>
		results.filter((result) => result.outcome === outcome).length;
	const skipped = count('skip');
	return `${count('pass')} passed, ${count('fail')} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

async function main() {
	/** @type {ReturnType<typeof parseArgs>} */
	let options;
	/** @type {Check[]} */
	let checks;
	try {
		options = parseArgs(process.argv.slice(2));
		checks = selectChecks(allChecks, options.only);
	} catch (error) {
		log(error instanceof Error ? error.message : String(error));
		return 2;
	}
	if (options.list) {
		log(listing());
		return 0;
	}
	const runStarted = Date.now();
	app.handleSignals();
	const started = await startEnv(options);
	// Checks that sign up the owner run first (with no credential yet); the rest need one.
	const ownerChecks = checks.filter((check) => check.setsUpOwner);
	for (const check of ownerChecks) await runCheck(check, /** @type {any} */ (started), options);
	const env = await completeEnv(started);
	for (const check of checks.filter((candidate) => !candidate.setsUpOwner)) {
		await runCheck(check, env, options);
	}
	if (app.isStopping()) return 130;
	const failed = results.some((result) => result.outcome === 'fail');
	if (failed) log(`\nn8n's log: ${env.n8n.logFile}`);
	log(`\ne2e run took ${seconds(runStarted)}`);
	log(summary());
	return failed ? 1 : 0;
}

const watchdog = setTimeout(
	() => {
		log(`FAIL  the run took longer than ${RUN_TIMEOUT_MS / 60_000} minutes: stopping`);
		app.cleanupAll().finally(() => process.exit(1));
	},
	RUN_TIMEOUT_MS + 10 * 60_000,
);
watchdog.unref();

main()
	.then(async (code) => {
		await app.cleanupAll();
		process.exit(code);
	})
	.catch(async (error) => {
		if (app.isStopping()) return;
		log(`FAIL  e2e setup: ${error instanceof Error ? error.message : String(error)}`);
		await app.cleanupAll();
		results.push({ id: 'setup', outcome: 'fail' });
		log(summary());
		process.exit(1);
	});
