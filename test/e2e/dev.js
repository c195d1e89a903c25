// @ts-check
'use strict';

/**
 * `npm run dev [-- options]`: an n8n with this package loaded, the API emulator, an owner
 * account, a credential for the emulator and the example workflows, for trying the node by
 * hand in the browser. Ctrl-C stops it all. Run `npm run build` first (npm run dev does).
 *
 * The instance lives in .cache/dev/n8n-user and is kept between runs (your workflows stay);
 * the credential is updated to the emulator of this run, and examples missing are imported.
 */

const fs = require('node:fs');
const path = require('node:path');

const app = require('./app');
const { N8nClient, OWNER, CREDENTIAL_NAME, readExamples } = require('./n8n-client');

const DEV_DIR = path.join(app.CACHE_DIR, 'dev');

const USAGE = `Usage: npm run dev -- [options]
  --port <n>           n8n's port (default: $N8N_PORT, else 5678 when free, else any free port)
  --emulator-port <n>  the emulator's port (default: $EMULATOR_PORT, else 8787 when free, else any)
  --token <value>      the access token the emulator accepts (default: $EMULATOR_TOKEN, else the
                       emulator's built-in token)
  --fresh              start from an empty instance (deletes .cache/dev)
  --quiet              do not print the emulator's requests
  --help               show this text`;

/**
 * @param {string[]} argv
 */
function parseArgs(argv) {
	const options = {
		port: numberOrUndefined('N8N_PORT', process.env.N8N_PORT),
		emulatorPort: numberOrUndefined('EMULATOR_PORT', process.env.EMULATOR_PORT),
		token: process.env.EMULATOR_TOKEN || undefined,
		tokenSource: process.env.EMULATOR_TOKEN
			? 'from EMULATOR_TOKEN'
			: "the emulator's built-in token",
		fresh: false,
		quiet: false,
	};
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const value = () => {
			const next = inline ?? argv[++i];
			if (next === undefined) fail(`${flag} needs a value`);
			return /** @type {string} */ (next);
		};
		if (flag === '--port') options.port = numberOrUndefined(flag, value());
		else if (flag === '--emulator-port') options.emulatorPort = numberOrUndefined(flag, value());
		else if (flag === '--token') {
			options.token = value();
			options.tokenSource = 'from --token';
		} else if (flag === '--fresh') options.fresh = true;
		else if (flag === '--quiet') options.quiet = true;
		else if (flag === '--help' || flag === '-h') {
			process.stdout.write(`${USAGE}\n`);
			process.exit(0);
		} else fail(`unknown option ${argv[i]}`);
	}
	return options;
}

/**
 * @param {string} name
 * @param {string | undefined} value
 */
function numberOrUndefined(name, value) {
	if (value === undefined || value === '') return undefined;
	const number = Number(value);
	if (!Number.isInteger(number) || number < 0 || number > 65535)
		fail(`${name}: not a port: ${value}`);
	return number;
}

/** @param {string} message */
function fail(message) {
	process.stderr.write(`${message}\n\n${USAGE}\n`);
	process.exit(2);
}

/**
 * The wanted port, else the default when free, else any free port.
 * @param {number | undefined} wanted
 * @param {number} preferred
 */
async function choosePort(wanted, preferred) {
	if (wanted === 0) return await app.freePort(); // 0: any free port (n8n cannot listen on 0)
	if (wanted !== undefined) return wanted;
	return (await app.isPortFree(preferred)) ? preferred : await app.freePort();
}

/**
 * Imports the examples the instance does not have yet (publishing the streaming webhook when it
 * is imported); the banner's lines for them and the notes about the two that need more.
 * @param {import('./n8n-client').N8nClient} client
 * @param {string} n8nUrl
 */
async function importExamples(client, n8nUrl) {
	/** @type {string[]} */
	const workflowLines = [];
	/** @type {string[]} */
	const noteLines = [];
	for (const workflow of Object.values(readExamples())) {
		const exists = await client
			.request('GET', `/rest/workflows/${workflow.id}/exists`)
			.catch(() => undefined);
		const streamingWebhook = workflow.nodes.find(
			(/** @type {any} */ node) =>
				node.type === 'n8n-nodes-base.webhook' && node.parameters?.responseMode === 'streaming',
		);
		if (!exists?.exists) {
			const saved = await client.importWorkflow(workflow);
			// Published once, when imported (a webhook is only live then); if you unpublish it
			// later, it stays so.
			if (streamingWebhook) {
				await client.publishWorkflow(saved).catch((error) => {
					noteLines.push(
						`  Could not publish "${workflow.name}": ${/** @type {Error} */ (error).message}`,
					);
				});
			}
		}
		workflowLines.push(`    ${workflow.name.padEnd(48)} ${n8nUrl}/workflow/${workflow.id}`);
		if (streamingWebhook) {
			noteLines.push(
				`  Streaming webhook ("${workflow.name}", published when imported):`,
				`    curl -N -X POST ${n8nUrl}/webhook/${streamingWebhook.parameters.path} -H 'content-type: application/json' \\`,
				`      -d '{"question": "Tell me a short story #fault=slow-chunks&ms=300"}'`,
			);
		}
		if (
			workflow.nodes.some(
				(/** @type {any} */ node) => node.type === '@n8n/n8n-nodes-langchain.agent',
			)
		) {
			noteLines.push(
				`  "${workflow.name}" runs on the Assistant Chat Model (no other LLM needed): open its chat and`,
				'    ask e.g. "Use the calculator to work out 6 * 7"; the Assistant Tool alone runs with "Execute step".',
			);
		}
	}

	return { workflowLines, noteLines };
}

async function main() {
	const options = parseArgs(process.argv.slice(2));
	app.handleSignals();

	app.ensureApp();
	if (options.fresh) fs.rmSync(DEV_DIR, { recursive: true, force: true });
	const userFolder = path.join(DEV_DIR, 'n8n-user');
	// As users install it: the credential test then finds the node that runs it.
	app.installPackage(userFolder);

	const { startEmulator } = require('../emulator/server.js');
	const emulator = await startEmulator({
		port: await choosePort(options.emulatorPort, 8787),
		token: options.token,
		log: !options.quiet,
	});
	app.registerCleanup(() => emulator.close());

	app.log('starting n8n…');
	const n8n = await app.startN8n({
		userFolder,
		port: await choosePort(options.port, 5678),
	});

	const client = new N8nClient(n8n.url, { packageLoadedAs: 'installed' });
	try {
		await client.signIn(OWNER);
	} catch (error) {
		throw new Error(
			`could not sign in as ${OWNER.email} (${/** @type {Error} */ (error).message}). If you changed the owner's login in this instance, run "npm run dev -- --fresh" to start over.`,
		);
	}
	const credential = await client.upsertEmulatorCredential(emulator);
	const { workflowLines, noteLines } = await importExamples(client, n8n.url);

	const lines = [
		'',
		'n8n with the Assistant node is running.',
		'',
		`  Editor:      ${n8n.url}`,
		`  Login:       ${OWNER.email} / ${OWNER.password}`,
		`  Credential:  "${CREDENTIAL_NAME}" (${credential.id}) → the emulator`,
		`  Emulator:    ${emulator.baseUrl}`,
		`  Token:       ${emulator.token}  (${options.tokenSource})`,
		'  Workflows:',
		...workflowLines,
		'',
		...noteLines,
		...(noteLines.length > 0 ? [''] : []),
		`  n8n's log:   ${n8n.logFile}`,
		`  Instance:    ${path.relative(app.REPO_ROOT, DEV_DIR)} (kept between runs; --fresh starts over)`,
		'',
		'Open a workflow, click "Execute workflow", or open the Assistant node to try the pickers.',
		'After changing the node\'s code, stop with Ctrl-C and run "npm run dev" again.',
		...(options.quiet ? [] : ['The emulator prints each request below.']),
		'Press Ctrl-C to stop n8n and the emulator.',
		'',
	];
	process.stdout.write(`${lines.join('\n')}\n`);

	const reason = await n8n.exited;
	if (app.isStopping()) return;
	throw new Error(
		`n8n stopped by itself (${reason}); its log: ${n8n.logFile}\n${app.tail(n8n.logFile, 30)}`,
	);
}

main().catch(async (error) => {
	if (app.isStopping()) return;
	process.stderr.write(`[dev] ${error instanceof Error ? error.message : String(error)}\n`);
	await app.cleanupAll();
	process.exit(1);
});
