// @ts-check
'use strict';

/**
 * What every end-to-end check gets: the emulator, a fresh n8n with this package, a REST client
 * signed in as the owner, the credential for the emulator, the example workflows (imported on
 * first use) and the editor in headless Chromium (launched on first use). Also the small
 * helpers the checks share: the requests the emulator received while something ran, and the
 * emulator's own answers as the reference for what n8n must show.
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { staleReason } = require('../helpers/fresh-dist');
const app = require('./app');
const editor = require('./editor');
const { N8nClient, OWNER, readExamples } = require('./n8n-client');
// The checks take the trigger and the AI nodes' package from here, as before.
const { LANGCHAIN, manualTrigger } = require('./workflow-json');

const RUN_DIR = path.join(app.CACHE_DIR, 'e2e');

/**
 * @typedef {import('../emulator/server.js').Emulator} Emulator
 * @typedef {object} E2eEnv
 * @property {Emulator} emulator  the API emulator (base URL, token, stats of what it received)
 * @property {{url: string, logFile: string}} n8n
 * @property {import('./n8n-client').N8nClient} client  REST calls, signed in as the owner
 * @property {typeof OWNER} owner
 * @property {Record<string, any>} examples  examples/*.json by file name
 * @property {any[]} emulatorModels  what the emulator lists at /models/available
 * @property {any[]} emulatorPersonas  what it lists at /personas/available
 * @property {{id: string, name: string}} credential  the credential for the emulator
 * @property {string} artifactsDir  where screenshots go
 * @property {() => Promise<import('./editor').Page>} page  the editor's page (launches Chromium)
 * @property {() => boolean} hasPage  whether the browser was launched
 * @property {() => Promise<Record<string, any>>} workflows  the examples as n8n saved them
 * @property {(name: string) => Promise<{run: any, requests: any[]}>} runExample  runs one in n8n
 */

/**
 * @typedef {object} Check
 * @property {string} id  short, stable, for --only (e.g. 'ask-text')
 * @property {string} name  the rule it checks, printed with PASS/FAIL
 * @property {(env: E2eEnv) => Promise<string | string[] | void>} run  throws when the rule is
 *   broken; resolves with detail lines to print
 * @property {boolean} [browser]  needs the editor in Chromium
 * @property {boolean} [setsUpOwner]  runs before the credential exists, and signs up the owner
 * @property {string[]} [requires]  ids of checks that must run first (e.g. to open the node)
 * @property {number} [timeoutMs]
 */

/**
 * Starts the emulator and n8n (failures here stop the run: nothing could be checked).
 * @param {{withBrowser: boolean}} options
 * @returns {Promise<Omit<E2eEnv, 'credential'> & {signIn: () => Promise<void>}>}
 */
async function startEnv(options) {
	// n8n must load what the sources say: an old dist/ would test old code.
	const stale = staleReason(app.REPO_ROOT);
	if (stale) throw new Error(`${stale}: run "npm run build" first (npm run test:e2e does)`);
	app.ensureApp();
	const chromium = options.withBrowser ? app.ensureChromium() : undefined;
	fs.rmSync(RUN_DIR, { recursive: true, force: true });
	fs.rmSync(app.ARTIFACTS_DIR, { recursive: true, force: true });
	const userFolder = path.join(RUN_DIR, 'n8n-user');
	app.log(`n8n nodes folder: ${app.installPackage(userFolder)}`);

	const { startEmulator } = require('../emulator/server.js');
	const token = `e2e-${crypto.randomBytes(12).toString('hex')}`;
	// Streams in the 2026 dialect, what users of the service meet (docs/api.md#2026-stream-dialect).
	const emulator = await startEmulator({ port: 0, token });
	app.registerCleanup(() => emulator.close());
	app.log(`emulator: ${emulator.baseUrl} (token generated for this run)`);

	const n8nStarted = Date.now();
	const n8n = await app.startN8n({ userFolder });
	app.log(
		`n8n: ${n8n.url} ready in ${app.seconds(n8nStarted)} (log: ${path.relative(app.REPO_ROOT, n8n.logFile)})`,
	);
	const client = new N8nClient(n8n.url, { packageLoadedAs: 'installed' });

	/** @type {Promise<import('./editor').Page> | undefined} */
	let launching;
	let launched = false;
	const page = () => {
		if (!chromium) return Promise.reject(new Error('no browser (--no-browser)'));
		launching ??= editor.launchEditorBrowser(chromium).then(async ({ page }) => {
			launched = true;
			// Signed in over REST already (the owner check did not run): the browser shares it.
			const [name, value] = client.cookie?.split('=') ?? [];
			if (value) await page.context().addCookies([{ name, value, url: n8n.url }]);
			return page;
		});
		return launching;
	};

	return {
		emulator,
		n8n,
		client,
		owner: OWNER,
		examples: readExamples(),
		emulatorModels: (await emulatorGet(emulator, '/models/available')).models,
		emulatorPersonas: (await emulatorGet(emulator, '/personas/available')).personas,
		artifactsDir: app.ARTIFACTS_DIR,
		page,
		hasPage: () => launched,
		// Whoever set up the owner (the editor check, or this REST call), sign in as it.
		signIn: async () => {
			if (client.cookie === undefined) await client.signIn(OWNER);
		},
		workflows: () => Promise.reject(new Error('the credential is not set up yet')),
		runExample: () => Promise.reject(new Error('the credential is not set up yet')),
	};
}

/**
 * Signs in, creates the emulator's credential, and from then on imports the examples on first
 * use (once) and runs them.
 * @param {Awaited<ReturnType<typeof startEnv>>} started
 * @returns {Promise<E2eEnv>}
 */
async function completeEnv(started) {
	await started.signIn();
	const { client, emulator } = started;
	const credential = await client.upsertEmulatorCredential(emulator);
	/** @type {Promise<Record<string, any>> | undefined} */
	let importing;
	const workflows = () => {
		importing ??= (async () => {
			/** @type {Record<string, any>} */
			const saved = {};
			for (const [name, workflow] of Object.entries(started.examples)) {
				saved[name] = await client.importWorkflow(workflow);
			}
			return saved;
		})();
		return importing;
	};
	/** @param {string} name */
	const runExample = async (name) => {
		const workflow = (await workflows())[name];
		assert.ok(workflow, `example ${name} was not imported`);
		const { result, requests } = await succeeded(emulator, () => client.runWorkflow(workflow));
		return { run: result, requests };
	};
	return { ...started, credential, workflows, runExample };
}

/**
 * The emulator's own answer to an API call, as the reference for what n8n must show.
 * @param {{baseUrl: string, token: string}} emulator
 * @param {string} apiPath
 */
async function emulatorGet(emulator, apiPath) {
	const response = await fetch(`${emulator.baseUrl}${apiPath}`, {
		headers: { authorization: `Bearer ${emulator.token}` },
	});
	assert.equal(response.status, 200, `emulator GET ${apiPath}`);
	return await response.json();
}

/**
 * The emulator's own answer to an ask (a JSON ask), as the reference for a streamed one.
 * @param {{baseUrl: string, token: string}} emulator
 * @param {Record<string, unknown>} body
 */
async function emulatorAsk(emulator, body) {
	const response = await fetch(`${emulator.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	assert.equal(response.status, 200, 'emulator POST /assistant/ask');
	return await response.json();
}

/**
 * The API requests the emulator received while `fn` ran.
 * @template T
 * @param {{stats: {requests: any[]}}} emulator
 * @param {() => Promise<T>} fn
 * @returns {Promise<{result: T, requests: any[]}>}
 */
async function recording(emulator, fn) {
	const before = emulator.stats.requests.length;
	const result = await fn();
	return { result, requests: emulator.stats.requests.slice(before) };
}

/**
 * The API requests the emulator received while `run` ran an execution, which must succeed.
 * @param {{stats: {requests: any[]}}} emulator
 * @param {() => Promise<any>} run  starts an execution and waits for it (n8n's run record)
 */
async function succeeded(emulator, run) {
	const { result, requests } = await recording(emulator, run);
	assert.equal(
		result.status,
		'success',
		`execution ${result.executionId} ended "${result.status}": ${result.error?.message ?? ''} ${result.error?.description ?? ''}`,
	);
	return { result, requests };
}

/**
 * Imports a workflow and runs it from its manual trigger: the saved workflow, the run (which
 * must succeed) and the asks it sent.
 * @param {E2eEnv} env
 * @param {any} workflow
 */
async function importAndRun(env, workflow) {
	const saved = await env.client.importWorkflow(workflow);
	const { result, requests } = await succeeded(env.emulator, () =>
		env.client.runWorkflow(saved, { timeoutMs: 90_000 }),
	);
	return { saved, result, asks: asks(requests) };
}

/**
 * Ask requests among recorded ones.
 * @param {any[]} requests
 */
function asks(requests) {
	return requests.filter(
		(request) => request.method === 'POST' && request.path === '/assistant/ask',
	);
}

/**
 * The label the model picker shows for a model (e.g. "Claude Haiku 4.5 · Anthropic · fast ·
 * 200k tokens") starts with the model's label: the models whose label no entry starts with.
 * @param {string[]} shown
 * @param {{label: string}[]} models
 */
function missingLabels(shown, models) {
	return models.filter((model) => !shown.some((entry) => entry.startsWith(`${model.label} · `)));
}

module.exports = {
	startEnv,
	completeEnv,
	emulatorGet,
	emulatorAsk,
	recording,
	succeeded,
	importAndRun,
	asks,
	manualTrigger,
	LANGCHAIN,
	missingLabels,
};
