// @ts-check
'use strict';

/**
 * PostgreSQL and Redis, as Debian packages them, for n8n's queue mode (test/queue) and for the
 * checks of n8n's Redis and Postgres Chat Memory (checks/chat-model-conversations.js): installed with apt-get when
 * missing, started on free loopback ports with their data in a folder of the run (fresh every
 * time), each as a child process in its own process group, stopped by its process id.
 *
 * PostgreSQL refuses to run as root: as root, its processes run as the `postgres` user the
 * Debian package creates; otherwise as the current user.
 */

const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const app = require('./app');

const POSTGRES_ROOT = '/usr/lib/postgresql';
const DATABASE_USER = 'n8n';

/**
 * @typedef {object} Service
 * @property {number} port
 * @property {number} pid
 * @property {string} logFile
 * @property {() => Promise<void>} stop
 */

/** The newest installed PostgreSQL's bin folder, or undefined. */
function postgresBinDir() {
	if (!fs.existsSync(POSTGRES_ROOT)) return undefined;
	const versions = fs
		.readdirSync(POSTGRES_ROOT)
		.filter((name) => fs.existsSync(path.join(POSTGRES_ROOT, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? path.join(POSTGRES_ROOT, versions[0], 'bin') : undefined;
}

function redisBin() {
	const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
	return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Installs Debian's postgresql and redis-server when either is missing (seconds). */
function ensureServices() {
	const missing = [];
	if (!postgresBinDir()) missing.push('postgresql');
	if (!redisBin()) missing.push('redis-server');
	if (missing.length === 0) return;
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(
			`${missing.join(' and ')} missing and this is not root: run "sudo apt-get install -y ${missing.join(' ')}"`,
		);
	}
	const started = Date.now();
	app.log(`services: apt-get install -y ${missing.join(' ')}`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const args of [
		['update', '-qq'],
		['install', '-y', '-qq', '--no-install-recommends', ...missing],
	]) {
		const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
		if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed`);
	}
	if (!postgresBinDir() || !redisBin()) {
		throw new Error(`apt-get installed ${missing.join(' and ')} but the binaries are missing`);
	}
	app.log(`services: installed ${missing.join(' and ')} in ${app.seconds(started)}`);
}

/** The uid and gid PostgreSQL runs as: `postgres` when this is root, else this user. */
function postgresIdentity() {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
	const id = (/** @type {string} */ flag) =>
		Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a server in its own process group, logging into `logFile`; `stop` sends `signal`
 * to its process id, waits for it to exit, and kills it if it does not within 15 s.
 * @param {string} command
 * @param {string[]} args
 * @param {{logFile: string, uid?: number, gid?: number, signal: NodeJS.Signals}} options
 */
function startProcess(command, args, options) {
	const { child, exitPromise, hasExited } = app.spawnLogged(command, args, options);
	const stop = async () => {
		if (hasExited() || !child.pid) return;
		process.kill(child.pid, options.signal);
		const done = await Promise.race([
			exitPromise.then(() => true),
			sleep(15_000).then(() => false),
		]);
		if (!done && !hasExited()) process.kill(child.pid, 'SIGKILL');
	};
	app.registerCleanup(stop);
	return { child, stop, hasExited };
}

/**
 * @param {() => Promise<boolean>} probe
 * @param {{name: string, logFile: string, hasExited: () => string | null, timeoutMs?: number}} options
 */
async function waitUntilReady(probe, options) {
	const deadline = Date.now() + (options.timeoutMs ?? 60_000);
	for (;;) {
		const exited = options.hasExited();
		if (exited) {
			throw new Error(
				`${options.name} stopped while starting (${exited}):\n${app.tail(options.logFile, 30)}`,
			);
		}
		if (await probe()) return;
		if (Date.now() > deadline) {
			throw new Error(`${options.name} did not start in time:\n${app.tail(options.logFile, 30)}`);
		}
		await sleep(200);
	}
}

/**
 * A fresh PostgreSQL cluster (see clusterFolder; trust authentication on loopback, its own socket
 * folder, nothing else listens) with one empty database.
 * @param {string} preferredDir  under the repository's .cache/
 * @param {string} database  the database to create
 * @returns {Promise<Service & {database: string, user: string}>}
 */
async function startPostgres(preferredDir, database) {
	const bin = /** @type {string} */ (postgresBinDir());
	const identity = postgresIdentity();
	const dir = clusterFolder(preferredDir, identity);
	const dataDir = path.join(dir, 'data');
	fs.mkdirSync(dataDir);
	if (identity.uid !== undefined) {
		fs.chownSync(dataDir, identity.uid, /** @type {number} */ (identity.gid));
	}
	const logFile = path.join(dir, 'postgres.log');
	const initdb = spawnSync(
		path.join(bin, 'initdb'),
		['-D', dataDir, '-A', 'trust', '-U', DATABASE_USER, '--no-sync', '-E', 'UTF8'],
		{ ...identity, encoding: 'utf8', cwd: dir },
	);
	if (initdb.status !== 0) throw new Error(`initdb failed:\n${initdb.stdout}${initdb.stderr}`);
	const port = await app.freePort();
	const server = startProcess(
		path.join(bin, 'postgres'),
		[
			'-D',
			dataDir,
			'-p',
			String(port),
			'-k',
			dir,
			'-c',
			'listen_addresses=127.0.0.1',
			// A test database: speed over durability.
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
		],
		{ ...identity, logFile, signal: 'SIGINT' },
	);
	const isReady = path.join(bin, 'pg_isready');
	await waitUntilReady(
		async () =>
			spawnSync(isReady, ['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER], {
				stdio: 'ignore',
			}).status === 0,
		{ name: 'PostgreSQL', logFile, hasExited: server.hasExited },
	);
	const created = spawnSync(
		path.join(bin, 'createdb'),
		['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER, database],
		{ encoding: 'utf8' },
	);
	if (created.status !== 0) throw new Error(`createdb failed: ${created.stderr}`);
	return {
		port,
		pid: /** @type {number} */ (server.child.pid),
		logFile,
		stop: server.stop,
		database,
		user: DATABASE_USER,
	};
}

/**
 * A fresh, empty folder for the cluster that PostgreSQL's user can write to: `preferred` (under
 * the repository's .cache/), or, when that user cannot reach it (a clone in root's home folder),
 * a private folder in the system's temporary folder, removed at the end.
 * @param {string} preferred
 * @param {{uid?: number, gid?: number}} identity
 */
function clusterFolder(preferred, identity) {
	fs.rmSync(preferred, { recursive: true, force: true });
	fs.mkdirSync(preferred, { recursive: true });
	if (identity.uid === undefined) return preferred;
	fs.chownSync(preferred, identity.uid, /** @type {number} */ (identity.gid));
	const reachable = spawnSync('test', ['-w', preferred], { ...identity }).status === 0;
	if (reachable) return preferred;
	const fallback = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-assistant-pg-'));
	fs.chownSync(fallback, identity.uid, /** @type {number} */ (identity.gid));
	app.registerCleanup(() => fs.rmSync(fallback, { recursive: true, force: true }));
	app.log(`PostgreSQL: its user cannot reach ${preferred}; its data goes to ${fallback}`);
	return fallback;
}

/**
 * Redis on a free loopback port, nothing persisted.
 * @param {string} dir
 * @returns {Promise<Service>}
 */
async function startRedis(dir) {
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const logFile = path.join(dir, 'redis.log');
	const port = await app.freePort();
	const server = startProcess(
		/** @type {string} */ (redisBin()),
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		{ logFile, signal: 'SIGTERM' },
	);
	await waitUntilReady(() => redisAnswers(port), {
		name: 'Redis',
		logFile,
		hasExited: server.hasExited,
	});
	return { port, pid: /** @type {number} */ (server.child.pid), logFile, stop: server.stop };
}

/**
 * Whether Redis answers PING with PONG.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function redisAnswers(port) {
	const net = require('node:net');
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let reply = '';
		socket.setTimeout(1000, () => socket.destroy());
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			reply += chunk.toString('utf8');
			if (reply.includes('\r\n')) socket.end();
		});
		socket.on('error', () => resolve(false));
		socket.on('close', () => resolve(reply.startsWith('+PONG')));
	});
}

module.exports = { ensureServices, startPostgres, startRedis };
