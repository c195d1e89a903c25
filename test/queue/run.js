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
 *   - the emulator saw exactly the expected asks: none lost, none doubled, no busy conversation;
 * then the agent example (AI Agent on the Assistant Chat Model, Calculator and Assistant tools)
 * through its public chat, 40 chats at once: each answered with its own tool result, 40
 * successful executions, two turns per chat each in its own conversation; and finally that both
 * workers ran executions, each execution once.
 * Prints PASS/FAIL per check and `N passed, N failed`; exits 1 on any failure. Everything it
 * started is stopped by process id at the end, on failure and on Ctrl-C.
 */

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const app = require('../e2e/app');
const { N8nClient, OWNER, withCustomNodeType } = require('../e2e/n8n-client');
const { ensureServices, startPostgres, startRedis } = require('../e2e/services');
const agent = require('./agent');
const batch = require('./batch');

/**
 * @typedef {object} Cluster
 * @property {import('../emulator/server').Emulator} emulator
 * @property {import('../e2e/app').N8nInstance} n8n  the main instance
 * @property {import('../e2e/app').N8nInstance[]} workers
 * @property {N8nClient} client  signed in as the owner
 */

const RUN_DIR = path.join(app.CACHE_DIR, 'queue');
/** The whole run, installs excluded: a hung step must not hang CI. */
const RUN_TIMEOUT_MS = 10 * 60_000;
const CHECK_TIMEOUT_MS = 180_000;
const EXECUTIONS = 40;
const WORKERS = 2;
const WORKER_CONCURRENCY = 5;
/** Each ask takes this long at the emulator, so that asks of one execution overlap visibly. */
const ANSWER_DELAY_MS = 500;

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
		startPostgres(path.join(RUN_DIR, 'postgres'), 'n8n_queue'),
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
	const n8n = await app.startN8n({ userFolder: path.join(RUN_DIR, 'main'), extensionsDir, env });
	app.log(`n8n main: ${n8n.url} ready in ${app.seconds(started)}`);
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
	return { emulator, n8n, workers };
}

/**
 * Imports and publishes the Ask workflow.
 * @param {N8nClient} client
 */
async function publishAskWorkflow(client) {
	const workflow = JSON.parse(fs.readFileSync(path.join(__dirname, 'ask-workflow.json'), 'utf8'));
	const saved = await client.request('POST', '/rest/workflows', withCustomNodeType(workflow));
	const published = await client.publishWorkflow(saved);
	app.log(`workflow "${saved.name}" published in ${published.waitedMs} ms`);
	return saved;
}

/**
 * 40 executions of the Ask workflow at once through its production webhook, checked.
 * @param {Cluster} cluster
 * @returns {Promise<string[]>} the ids of the executions n8n recorded
 */
async function askPhase({ emulator, n8n, client }) {
	const workflow = await publishAskWorkflow(client);
	const plan = await batch.planBatches(emulator, EXECUTIONS);
	const firstAsk = emulator.stats.requests.length;
	await check(
		`${EXECUTIONS} webhook calls at once: each caller gets its own answers, right and in order`,
		async () => {
			const responses = await batch.callWebhooks(`${n8n.url}/webhook/queue-ask`, plan);
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
	await check('the emulator saw exactly the expected asks: none lost, none doubled', async () =>
		batch.checkAsks(emulator, firstAsk, plan),
	);
	return executionIds;
}

/**
 * The agent example on the Assistant Chat Model: 40 chats at once, checked.
 * @param {Cluster} cluster
 * @returns {Promise<string[]>} the ids of the executions n8n recorded
 */
async function agentPhase({ emulator, n8n, client }) {
	const workflow = await agent.publishAgentExample(client);
	const chats = agent.planChats(EXECUTIONS);
	const firstAsk = emulator.stats.requests.length;
	await check(
		`the agent example on the Assistant Chat Model: ${EXECUTIONS} chats at once, each answered with its own tool result`,
		async () => await agent.chatAll(n8n.url, chats),
	);
	/** @type {string[]} */
	let executionIds = [];
	await check(`n8n recorded ${EXECUTIONS} successful agent executions`, async () => {
		const executions = await batch.finishedExecutions(client, workflow.id, EXECUTIONS);
		const statuses = executions.map((/** @type {any} */ execution) => execution.status);
		if (executions.length !== EXECUTIONS || statuses.some((status) => status !== 'success')) {
			throw new Error(`agent executions: ${JSON.stringify(statuses)}`);
		}
		executionIds = executions.map((/** @type {any} */ execution) => String(execution.id));
		return `${executions.length} executions, status success`;
	});
	await check("the agent's asks: two turns per chat, each chat in its own conversation", async () =>
		agent.checkAgentAsks(emulator, firstAsk, chats),
	);
	return executionIds;
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
	const started = await startCluster(extensionsDir);
	/** @type {Cluster} */
	const cluster = { ...started, client: new N8nClient(started.n8n.url) };
	await cluster.client.signIn(OWNER);
	await cluster.client.upsertEmulatorCredential(cluster.emulator);

	const executionIds = [...(await askPhase(cluster)), ...(await agentPhase(cluster))];
	await check(
		'both workers ran executions, each execution exactly once',
		async () =>
			await batch.checkWorkers(
				cluster.workers.map((worker) => worker.logFile),
				executionIds,
			),
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
