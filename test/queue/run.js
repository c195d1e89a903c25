// @ts-check
'use strict';

/**
 * The node in n8n's queue mode (npm run test:queue; run `npm run build` first): PostgreSQL and
 * Redis (Debian's, installed when missing, data under .cache/queue), an n8n 2.40.7 main
 * instance and two workers (EXECUTIONS_MODE=queue) with this package loaded in all three, and
 * the API emulator. A published Webhook → Split Out → Ask workflow (Concurrency 4) is called 40
 * times at once; every execution is queued in Redis and run by a worker. Then checks
 *   - every caller gets its own answers, right, in its order;
 *   - n8n recorded 40 successful executions, each Ask item paired to its question, the items
 *     of one execution asked side by side (Concurrency 4) except those of one conversation;
 *   - both workers ran executions, each execution ran once;
 *   - the emulator saw exactly the expected asks: none lost, none doubled, no busy conversation.
 * Prints PASS/FAIL per check and `N passed, N failed`; exits 1 on any failure. Everything it
 * started is stopped by process id at the end, on failure and on Ctrl-C.
 */

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const app = require('../e2e/app');
const { N8nClient, OWNER, withCustomNodeType } = require('../e2e/n8n-client');
const { ensureServices, startPostgres, startRedis } = require('./services');
const batch = require('./batch');

const RUN_DIR = path.join(app.CACHE_DIR, 'queue');
/** The whole run, installs excluded: a hung step must not hang CI. */
const RUN_TIMEOUT_MS = 10 * 60_000;
const CHECK_TIMEOUT_MS = 180_000;
const EXECUTIONS = 40;
const WORKERS = 2;
const WORKER_CONCURRENCY = 5;
/** Each ask takes this long at the emulator, so that asks of one execution overlap visibly. */
const ANSWER_DELAY_MS = 300;

/** @type {{name: string, ok: boolean}[]} */
const results = [];
/** @type {NodeJS.Timeout | undefined} */
let watchdog;

/**
 * Runs one check: PASS with its details, or FAIL with the reason; never throws.
 * @param {string} name
 * @param {() => Promise<string | string[] | void>} fn  resolves with detail lines to print
 */
async function check(name, fn) {
	if (app.isStopping()) return false;
	const started = Date.now();
	const timeout = AbortSignal.timeout(CHECK_TIMEOUT_MS);
	try {
		const detail = await Promise.race([
			fn(),
			new Promise((_, reject) =>
				timeout.addEventListener('abort', () =>
					reject(new Error(`timed out after ${CHECK_TIMEOUT_MS / 1000} s`)),
				),
			),
		]);
		results.push({ name, ok: true });
		log(`PASS  ${name} (${app.seconds(started)})`);
		for (const line of [detail ?? []].flat()) log(`        ${line}`);
		return true;
	} catch (error) {
		if (app.isStopping()) return false;
		results.push({ name, ok: false });
		log(`FAIL  ${name} (${app.seconds(started)})`);
		const message = error instanceof Error ? error.message : String(error);
		for (const line of message.split('\n').slice(0, 30)) log(`        ${line}`);
		return false;
	}
}

/** @param {string} line */
function log(line) {
	process.stdout.write(`${line}\n`);
}

/**
 * PostgreSQL, Redis, the emulator, the main instance and the workers, all on loopback.
 * @param {string} extensionsDir
 */
async function startCluster(extensionsDir) {
	const { startEmulator } = require('../emulator/server.js');
	const token = `queue-${crypto.randomBytes(12).toString('hex')}`;
	const emulator = await startEmulator({ port: 0, token, answerDelayMs: ANSWER_DELAY_MS });
	app.registerCleanup(() => emulator.close());
	app.log(`emulator: ${emulator.baseUrl} (token generated for this run)`);

	const [postgres, redis] = await Promise.all([
		startPostgres(path.join(RUN_DIR, 'postgres')),
		startRedis(path.join(RUN_DIR, 'redis')),
	]);
	app.log(
		`PostgreSQL: 127.0.0.1:${postgres.port} (pid ${postgres.pid}); Redis: 127.0.0.1:${redis.port} (pid ${redis.pid})`,
	);

	/** Every process of one n8n installation shares the database, Redis and the key. */
	const env = {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: 'unused-with-trust-auth',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		N8N_ENCRYPTION_KEY: crypto.randomBytes(24).toString('hex'),
	};
	const started = Date.now();
	// The main instance first: it runs the database migrations the workers expect.
	const main = await app.startN8n({ userFolder: path.join(RUN_DIR, 'main'), extensionsDir, env });
	app.log(`n8n main: ${main.url} ready in ${app.seconds(started)}`);
	const workers = await Promise.all(
		Array.from({ length: WORKERS }, (_, n) =>
			app.startN8n({
				userFolder: path.join(RUN_DIR, `worker-${n + 1}`),
				extensionsDir,
				env,
				worker: { concurrency: WORKER_CONCURRENCY },
			}),
		),
	);
	app.log(`n8n workers: ${workers.length} ready (${app.seconds(started)} since the main started)`);
	return { emulator, main, workers };
}

/**
 * Signs in, creates the emulator's credential, imports and publishes the Ask workflow.
 * @param {N8nClient} client
 * @param {{baseUrl: string, token: string}} emulator
 */
async function publishAskWorkflow(client, emulator) {
	await client.signIn(OWNER);
	await client.upsertEmulatorCredential(emulator);
	const workflow = JSON.parse(fs.readFileSync(path.join(__dirname, 'ask-workflow.json'), 'utf8'));
	const saved = await client.request('POST', '/rest/workflows', withCustomNodeType(workflow));
	const published = await client.publishWorkflow(saved);
	app.log(`workflow "${saved.name}" published in ${published.waitedMs} ms`);
	return saved;
}

async function main() {
	const runStarted = Date.now();
	app.handleSignals();
	app.ensureApp();
	ensureServices();
	watchdog = setTimeout(() => {
		log(`FAIL  the queue-mode run took longer than ${RUN_TIMEOUT_MS / 60_000} minutes`);
		app.cleanupAll().finally(() => process.exit(1));
	}, RUN_TIMEOUT_MS);
	fs.rmSync(RUN_DIR, { recursive: true, force: true });
	const extensionsDir = app.stageExtension(RUN_DIR);
	const { emulator, main: n8n, workers } = await startCluster(extensionsDir);
	const client = new N8nClient(n8n.url);
	const workflow = await publishAskWorkflow(client, emulator);

	const plan = await batch.planBatches(emulator, EXECUTIONS);
	const firstAsk = emulator.stats.requests.length;
	/** @type {Awaited<ReturnType<typeof batch.callWebhooks>>} */
	let responses = [];

	await check(
		`${EXECUTIONS} webhook calls at once: each caller gets its own answers, right and in order`,
		async () => {
			responses = await batch.callWebhooks(`${n8n.url}/webhook/queue-ask`, plan);
			return batch.checkResponses(plan, responses);
		},
	);
	/** @type {string[]} */
	let executionIds = [];
	await check(
		`n8n recorded ${EXECUTIONS} successful executions, every Ask item paired, asks side by side`,
		async () => {
			const checked = await batch.checkExecutions(client, workflow.id, plan, ANSWER_DELAY_MS);
			executionIds = checked.ids;
			return checked.detail;
		},
	);
	await check(
		`both workers ran executions, each execution exactly once`,
		async () =>
			await batch.checkWorkers(
				workers.map((worker) => worker.logFile),
				executionIds,
			),
	);
	await check('the emulator saw exactly the expected asks: none lost, none doubled', async () =>
		batch.checkAsks(emulator, firstAsk, plan),
	);

	const passed = results.filter((result) => result.ok).length;
	log('');
	log(`${passed} passed, ${results.length - passed} failed (${app.seconds(runStarted)})`);
	return results.length > 0 && passed === results.length;
}

main()
	.then(
		(ok) => (process.exitCode = ok ? 0 : 1),
		(error) => {
			log(`FAIL  queue-mode setup: ${error instanceof Error ? error.stack : String(error)}`);
			log('0 passed, 1 failed');
			process.exitCode = 1;
		},
	)
	.finally(async () => {
		clearTimeout(watchdog);
		await app.cleanupAll();
	});
