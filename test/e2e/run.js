// @ts-check
'use strict';

/**
 * End-to-end checks in the real n8n app (npm run test:e2e; run `npm run build` first):
 * installs or re-uses n8n in .cache/n8n-app, starts the API emulator and n8n with this
 * package, then checks
 *   - the editor in headless Chromium: owner setup, the model picker, running the node;
 *   - the example workflows, imported and executed by n8n, outputs checked;
 *   - a published Webhook that streams: the Ask's chunks reach the HTTP caller as they come;
 *   - the Assistant Tool: listed for the AI Agent, saved in the agent example, run alone;
 *   - the REST backend the editor uses: pickers, credential test, node and credential types.
 * Prints PASS/FAIL per check and `N passed, N failed`; exits 1 on any failure. Everything it
 * started is stopped at the end, on failure and on Ctrl-C.
 *
 * Options: --no-browser skips the editor checks (they count as failed).
 */

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const app = require('./app');
const editor = require('./editor');
const {
	N8nClient,
	OWNER,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	CUSTOM_NODE_TYPE,
	CUSTOM_TOOL_TYPE,
	CUSTOM_TYPES,
	readExamples,
	nodeOutput,
} = require('./n8n-client');

const RUN_DIR = path.join(app.CACHE_DIR, 'e2e');
/** The whole run, install excluded: a hung step must not hang CI. */
const RUN_TIMEOUT_MS = 15 * 60_000;
const CHECK_TIMEOUT_MS = 120_000;
/** The emulator's pause between stream chunks in the webhook streaming check. */
const STREAM_CHUNK_MS = 250;

/** @type {{name: string, ok: boolean, ms: number, error?: string}[]} */
const results = [];

/**
 * Runs one check: PASS with its details, or FAIL with the reason; never throws.
 * @param {string} name
 * @param {() => Promise<string | string[] | void>} fn  resolves with detail lines to print
 * @param {{timeoutMs?: number, onFail?: () => Promise<string | void>}} [options]
 */
async function check(name, fn, options = {}) {
	if (app.isStopping()) return false; // interrupted: the handler stops everything and exits
	const started = Date.now();
	/** @type {NodeJS.Timeout | undefined} */
	let timer;
	try {
		const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
		const timeout = new Promise((_, reject) => {
			timer = setTimeout(
				() => reject(new Error(`timed out after ${timeoutMs / 1000} s`)),
				timeoutMs,
			);
		});
		const detail = await Promise.race([fn(), timeout]);
		results.push({ name, ok: true, ms: Date.now() - started });
		log(`PASS  ${name} (${seconds(started)})`);
		for (const line of [detail ?? []].flat()) log(`        ${line}`);
		return true;
	} catch (error) {
		if (app.isStopping()) return false;
		const message = /** @type {Error} */ (error).message ?? String(error);
		results.push({ name, ok: false, ms: Date.now() - started, error: message });
		log(`FAIL  ${name} (${seconds(started)})`);
		for (const line of message.split('\n').slice(0, 30)) log(`        ${line}`);
		if (options.onFail) {
			try {
				const extra = await options.onFail();
				if (extra) log(`        ${extra}`);
			} catch {
				// best effort
			}
		}
		return false;
	} finally {
		clearTimeout(timer);
	}
}

/** @param {string} line */
function log(line) {
	process.stdout.write(`${line}\n`);
}

/** @param {number} since */
function seconds(since) {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
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
 * POSTs JSON to a webhook that streams and reads the answer as it arrives: every line of the
 * body (n8n streams one JSON object a line) with the time it arrived, in ms since the request
 * was sent, and what `probe` said at that moment.
 * @template P
 * @param {string} url
 * @param {unknown} body
 * @param {() => P} probe
 * @returns {Promise<{status: number, contentType: string, lines: {json: any, atMs: number, probe: P}[], endMs: number}>}
 */
async function readStreamedWebhook(url, body, probe) {
	const started = Date.now();
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(60_000),
	});
	/** @type {{json: any, atMs: number, probe: P}[]} */
	const lines = [];
	const decoder = new TextDecoder();
	let buffer = '';
	const take = (/** @type {boolean} */ final) => {
		const parts = buffer.split('\n');
		buffer = final ? '' : /** @type {string} */ (parts.pop());
		for (const part of parts) {
			if (part.trim() === '') continue;
			/** @type {any} */
			let json;
			try {
				json = JSON.parse(part);
			} catch {
				throw new Error(`HTTP ${response.status}: not a JSON line: ${part.slice(0, 300)}`);
			}
			lines.push({ json, atMs: Date.now() - started, probe: probe() });
		}
	};
	if (response.body) {
		// Read with a reader: @types/node 20 does not declare web streams async-iterable.
		const reader = response.body.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			buffer += decoder.decode(value, { stream: true });
			take(false);
		}
	}
	buffer += decoder.decode();
	take(true);
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		lines,
		endMs: Date.now() - started,
	};
}

/**
 * The API requests the emulator received while `fn` ran.
 * @param {{stats: {requests: any[]}}} emulator
 * @param {() => Promise<any>} fn
 */
async function recording(emulator, fn) {
	const before = emulator.stats.requests.length;
	const result = await fn();
	return { result, requests: emulator.stats.requests.slice(before) };
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
 * The label the model picker shows for an emulator model (e.g. "Claude Haiku 4.5 · Anthropic
 * · fast · 200k tokens") starts with the model's label: the check looks for that.
 * @param {string[]} shown
 * @param {{label: string}[]} models
 */
function missingLabels(shown, models) {
	return models.filter((model) => !shown.some((entry) => entry.startsWith(`${model.label} · `)));
}

async function main() {
	const runStarted = Date.now();
	app.handleSignals();
	const withBrowser = !process.argv.includes('--no-browser');

	// Preparation: failures here stop the run (nothing could be checked).
	app.ensureApp();
	const chromium = withBrowser ? app.ensureChromium() : undefined;
	fs.rmSync(RUN_DIR, { recursive: true, force: true });
	fs.rmSync(app.ARTIFACTS_DIR, { recursive: true, force: true });
	const extensionsDir = app.stageExtension(RUN_DIR);

	const { startEmulator } = require('../emulator/server.js');
	const token = `e2e-${crypto.randomBytes(12).toString('hex')}`;
	const emulator = await startEmulator({ port: 0, token });
	app.registerCleanup(() => emulator.close());
	app.log(`emulator: ${emulator.baseUrl} (token generated for this run)`);

	const n8nStarted = Date.now();
	const n8n = await app.startN8n({ userFolder: path.join(RUN_DIR, 'n8n-user'), extensionsDir });
	app.log(
		`n8n: ${n8n.url} ready in ${seconds(n8nStarted)} (log: ${path.relative(app.REPO_ROOT, n8n.logFile)})`,
	);
	const client = new N8nClient(n8n.url);
	const examples = readExamples();
	const emulatorModels = (await emulatorGet(emulator, '/models/available')).models;
	const emulatorPersonas = (await emulatorGet(emulator, '/personas/available')).personas;

	/** @type {import('./editor').Page | undefined} */
	let page;
	const pageFailure = async () =>
		page ? `screenshot: ${await editor.screenshot(page, `failure-${results.length}`)}` : undefined;

	// 1. The editor: owner setup (the REST checks then sign in with the same account).
	let ownerReady = false;
	if (chromium) {
		ownerReady = await check(
			'editor: set up the owner account in the browser',
			async () => {
				({ page } = await editor.launchEditorBrowser(chromium));
				await editor.setUpOwnerInEditor(page, n8n.url, OWNER);
				assert.equal(await client.needsOwnerSetup(), false, 'n8n still asks for owner setup');
				await client.login(OWNER);
				return `signed up ${OWNER.email}; the editor moved on to ${new URL(page.url()).pathname}`;
			},
			{ onFail: pageFailure },
		);
	} else {
		await check('editor: set up the owner account in the browser', async () => {
			throw new Error('skipped (--no-browser)');
		});
	}
	if (!ownerReady) {
		// So the other checks still run.
		await client.signIn(OWNER);
	}

	// 2. Workflows: the examples, imported with a credential for the emulator, run by n8n.
	const credential = await client.upsertEmulatorCredential(emulator);
	/** @type {Record<string, any>} */
	const saved = {};
	await check('workflows: the examples import and find the credential by name', async () => {
		assert.ok(
			Object.keys(examples).length >= 9,
			`expected the 9 examples, found ${Object.keys(examples).join(', ')}`,
		);
		const ours = Object.keys(CUSTOM_TYPES);
		const custom = Object.values(CUSTOM_TYPES);
		let linked = 0;
		for (const [name, workflow] of Object.entries(examples)) {
			const assistantNodes = workflow.nodes.filter((/** @type {any} */ node) =>
				ours.includes(node.type),
			);
			assert.ok(assistantNodes.length > 0, `${name}: no ${ours.join(' or ')} node`);
			for (const node of assistantNodes) {
				assert.equal(
					node.credentials?.assistantApi?.name,
					CREDENTIAL_NAME,
					`${name}: node "${node.name}" must point at the credential "${CREDENTIAL_NAME}"`,
				);
			}
			saved[name] = await client.importWorkflow(workflow);
			const savedNodes = saved[name].nodes.filter((/** @type {any} */ n) =>
				custom.includes(n.type),
			);
			assert.equal(
				savedNodes.length,
				assistantNodes.length,
				`${name}: n8n saved ${savedNodes.length} of ${assistantNodes.length} Assistant nodes`,
			);
			for (const node of savedNodes) {
				assert.equal(
					node.credentials?.assistantApi?.id,
					credential.id,
					`${name}: node "${node.name}" is not linked to the credential`,
				);
				linked++;
			}
		}
		return `${Object.keys(saved).length} workflows; credential "${CREDENTIAL_NAME}" (${credential.id}) linked in all ${linked} Assistant nodes (Assistant Tool included)`;
	});

	/**
	 * Runs an example in n8n and returns its run data and the emulator requests it caused.
	 * @param {string} name
	 */
	const runExample = async (name) => {
		const workflow = saved[name];
		assert.ok(workflow, `example ${name} was not imported`);
		const { result, requests } = await recording(emulator, () => client.runWorkflow(workflow));
		assert.equal(
			result.status,
			'success',
			`execution ${result.executionId} ended "${result.status}": ${result.error?.message ?? ''} ${result.error?.description ?? ''}`,
		);
		return { run: result, requests };
	};

	await check('workflow "Assistant: ask (text)": a text answer and a conversation id', async () => {
		const { run, requests } = await runExample('ask-text');
		const [item, ...rest] = nodeOutput(run.runData, 'Ask');
		assert.equal(rest.length, 0, 'one item expected');
		assert.deepEqual(Object.keys(item).sort(), ['conversation_id', 'output']);
		assert.equal(typeof item.output, 'string');
		const input = examples['ask-text'].nodes[1].parameters.input;
		assert.ok(
			item.output.includes(input),
			`the emulator echoes the input; got ${JSON.stringify(item.output)}`,
		);
		assert.match(item.conversation_id, /^\S+$/);
		const [ask] = asks(requests);
		assert.ok(ask, 'the emulator received no ask');
		assert.equal(ask.authorization, true, 'the ask was sent without the access token');
		assert.equal(ask.body.input, input);
		return `output: ${JSON.stringify(item.output)}; conversation_id ${item.conversation_id}`;
	});

	await check(
		'workflow "Assistant: ask with a JSON Schema": an object matching the schema',
		async () => {
			const { run, requests } = await runExample('ask-json-schema');
			const [item] = nodeOutput(run.runData, 'Ask for JSON');
			const schema = JSON.parse(examples['ask-json-schema'].nodes[1].parameters.jsonSchema);
			assert.equal(
				typeof item.output,
				'object',
				`output must be an object, got ${JSON.stringify(item.output)}`,
			);
			assert.equal(typeof item.output.summary, 'string');
			assert.ok(
				schema.properties.sentiment.enum.includes(item.output.sentiment),
				`sentiment ${item.output.sentiment}`,
			);
			assert.ok(
				Array.isArray(item.output.topics) &&
					item.output.topics.every((/** @type {unknown} */ t) => typeof t === 'string'),
				'topics: strings',
			);
			for (const key of schema.required) assert.ok(key in item.output, `required "${key}" missing`);
			assert.match(item.conversation_id, /^\S+$/);
			const [ask] = asks(requests);
			assert.deepEqual(ask.body.output_format, schema, 'the schema sent is the parameter, parsed');
			assert.equal(
				ask.body.model_name,
				examples['ask-json-schema'].nodes[1].parameters.model.value,
				'the model set by ID is sent',
			);
			return `output: ${JSON.stringify(item.output)}`;
		},
	);

	await check(
		'workflow "Assistant: continue a conversation": the second ask continues the first',
		async () => {
			const { run, requests } = await runExample('conversation-chain');
			const [first] = nodeOutput(run.runData, 'Introduce');
			const [second] = nodeOutput(run.runData, 'Follow Up');
			assert.match(first.conversation_id, /^\S+$/);
			assert.equal(second.conversation_id, first.conversation_id, 'same conversation');
			const sent = asks(requests);
			assert.equal(sent.length, 2, 'two asks');
			assert.equal(sent[0].body.conversation_id, undefined, 'the first ask starts a conversation');
			assert.equal(
				sent[1].body.conversation_id,
				first.conversation_id,
				"the second ask names the first one's conversation",
			);
			assert.ok(
				/\bAda\b/.test(second.output),
				`the emulator remembers the name from the first ask; got ${JSON.stringify(second.output)}`,
			);
			return [
				`conversation ${first.conversation_id}`,
				`follow-up: ${JSON.stringify(second.output)}`,
			];
		},
	);

	await check('workflow "Assistant: ask, streamed": the streamed answer, assembled', async () => {
		const { run, requests } = await runExample('ask-streamed');
		const [item] = nodeOutput(run.runData, 'Ask (stream)');
		const input = examples['ask-streamed'].nodes[1].parameters.input;
		assert.equal(typeof item.output, 'string');
		assert.ok(item.output.includes(input), `got ${JSON.stringify(item.output)}`);
		assert.match(item.conversation_id, /^\S+$/);
		const [ask] = asks(requests);
		assert.equal(ask.body.stream, true, 'the ask asked for a stream');
		assert.equal(ask.status, 200);
		return `output: ${JSON.stringify(item.output)}`;
	});

	await check(
		'workflow "Assistant: list models": one item per model, as the API lists them',
		async () => {
			const { run } = await runExample('list-models');
			const items = nodeOutput(run.runData, 'List Models');
			assert.deepEqual(items, emulatorModels);
			return `${items.length} models: ${items.map((/** @type {any} */ model) => model.model_name).join(', ')}`;
		},
	);

	await check('workflow "Assistant: list personas": one item per persona', async () => {
		const { run } = await runExample('list-personas');
		const items = nodeOutput(run.runData, 'List Personas');
		assert.deepEqual(items, emulatorPersonas);
		return `${items.length} personas: ${items.map((/** @type {any} */ persona) => persona.id).join(', ')}`;
	});

	await check(
		'workflow "Assistant: get the public catalog": the catalog, fetched without the token',
		async () => {
			const { run, requests } = await runExample('get-catalog');
			const items = nodeOutput(run.runData, 'Get Catalog');
			assert.equal(items.length, 1, 'one item');
			const catalog = await emulatorGet(emulator, '/models/catalog');
			assert.deepEqual(items[0], catalog);
			const sent = requests.filter((request) => request.path === '/models/catalog');
			assert.equal(sent.length, 1);
			assert.equal(sent[0].authorization, false, 'the catalog request carried the access token');
			return `${items[0].models.length} catalog models`;
		},
	);

	// The webhook that streams: published like the editor's "Publish" button, then called.
	await check(
		'webhook "Assistant: stream an answer to a webhook caller": chunks arrive live, joined they are the answer',
		async () => {
			const workflow = saved['webhook-streaming'];
			assert.ok(workflow, 'the webhook-streaming example was not imported');
			const webhook = workflow.nodes.find(
				(/** @type {any} */ node) => node.type === 'n8n-nodes-base.webhook',
			);
			assert.equal(webhook.parameters.responseMode, 'streaming');
			const published = await client.publishWorkflow(workflow);
			// 8 chunks or so, 250 ms apart (the emulator's slow-chunks fault, set in the question).
			const question = `Tell me about lighthouses #fault=slow-chunks&ms=${STREAM_CHUNK_MS}`;
			const url = `${n8n.url}/webhook/${webhook.parameters.path}`;
			const before = emulator.stats.requests.length;
			const stream = await readStreamedWebhook(url, { question }, () => ({
				emulatorInFlight: emulator.stats.inFlight,
				emulatorFinished: emulator.stats.completedAsks.get(question) ?? 0,
			}));
			const [ask, ...moreAsks] = asks(emulator.stats.requests.slice(before));
			assert.ok(ask, 'the emulator received no ask');
			assert.equal(moreAsks.length, 0, 'one ask');
			assert.equal(ask.body.input, question, "the request body's question was asked");
			assert.equal(ask.body.stream, true, 'the ask asked for a stream');
			assert.equal(stream.status, 200);
			assert.match(stream.contentType, /^application\/json/, 'n8n streams JSON lines');

			// n8n's format: one JSON object a line, {type: begin|item|end, content?, metadata}.
			const lines = stream.lines.filter((line) => line.json.type !== 'keepalive');
			const types = lines.map((line) => line.json.type);
			assert.equal(types[0], 'begin', `first line: ${JSON.stringify(lines[0]?.json)}`);
			assert.equal(types.at(-1), 'end', `last line: ${JSON.stringify(lines.at(-1)?.json)}`);
			assert.ok(
				lines.every(
					(line) => line.json.metadata?.nodeName === 'Ask' && line.json.metadata?.itemIndex === 0,
				),
				'every line comes from the Ask node, item 0',
			);
			const items = lines.filter((line) => line.json.type === 'item');
			assert.deepEqual(
				types,
				['begin', ...items.map(() => 'item'), 'end'],
				`line types: ${types.join(', ')}`,
			);
			assert.ok(items.length >= 5, `expected one chunk a word, got ${items.length}`);

			// Live: the first chunk came while the emulator was still writing the answer.
			const [first, last] = [items[0], /** @type {any} */ (items.at(-1))];
			assert.equal(
				first.probe.emulatorFinished,
				0,
				'the emulator had already finished the answer when the first chunk arrived',
			);
			assert.ok(
				first.probe.emulatorInFlight > 0,
				'no request in flight at the emulator when the first chunk arrived',
			);
			const spread = last.atMs - first.atMs;
			const minSpread = (items.length - 1) * STREAM_CHUNK_MS * 0.8;
			assert.ok(
				spread >= minSpread,
				`the chunks arrived within ${spread} ms, expected >= ${minSpread} ms (they were buffered, not streamed)`,
			);
			assert.ok(
				stream.endMs - first.atMs >= minSpread,
				`the first chunk arrived ${stream.endMs - first.atMs} ms before the end of the response`,
			);

			// Joined, the chunks are the answer: what the emulator answers for that input...
			const joined = items.map((line) => line.json.content).join('');
			const reference = await emulatorAsk(emulator, { ...ask.body, stream: false });
			assert.equal(joined, reference.output, "the joined chunks are the emulator's answer");
			// ...and what n8n recorded as the Ask node's output.
			const execution = await client.lastExecution(workflow.id);
			assert.equal(
				execution.status,
				'success',
				`execution ${execution.executionId}: ${execution.error?.message ?? ''}`,
			);
			const [output] = nodeOutput(execution.runData, 'Ask');
			assert.equal(output.output, joined, "the execution's output is the streamed answer");
			return [
				`published in ${published.waitedMs} ms (POST /rest/workflows/:id/activate, then publication-status "published"); POST ${new URL(url).pathname}`,
				`${items.length} chunks: first after ${first.atMs} ms (emulator still answering: ${first.probe.emulatorInFlight} in flight, answer not finished), last after ${last.atMs} ms, response ended after ${stream.endMs} ms: the first chunk came ${stream.endMs - first.atMs} ms before the end`,
				`joined (${joined.length} chars) = the emulator's answer = the execution's output: ${JSON.stringify(joined)}`,
			];
		},
	);

	// The tool variant, in the agent example: it cannot run without an LLM, but its tool can.
	await check(
		'workflow "Assistant: a tool for the AI Agent": n8n saves it with the Assistant Tool linked to the credential',
		async () => {
			const example = examples['agent-tool'];
			const workflow = saved['agent-tool'];
			assert.ok(workflow, 'the agent-tool example was not imported');
			const reread = await client.request('GET', `/rest/workflows/${workflow.id}`);
			const byType = (/** @type {string} */ type) =>
				reread.nodes.filter((/** @type {any} */ node) => node.type === type);
			const [tool, ...moreTools] = byType(CUSTOM_TOOL_TYPE);
			assert.ok(tool && moreTools.length === 0, `one ${CUSTOM_TOOL_TYPE} node expected`);
			assert.equal(
				tool.credentials?.assistantApi?.id,
				credential.id,
				'the tool is linked to the credential',
			);
			const exampleTool = example.nodes.find((/** @type {any} */ node) => node.name === tool.name);
			assert.equal(
				tool.parameters.input,
				exampleTool.parameters.input,
				'input keeps its $fromAI expression',
			);
			assert.equal(
				tool.parameters.conversationId,
				exampleTool.parameters.conversationId,
				'conversationId keeps its $fromAI expression',
			);
			assert.match(tool.parameters.input, /^=\{\{ \$fromAI\('question',/);
			assert.match(
				tool.parameters.conversationId,
				/^=\{\{ \$fromAI\('conversationId',.*'string', ''\) \}\}$/,
			);
			const [agent] = byType('@n8n/n8n-nodes-langchain.agent');
			assert.ok(agent, 'the AI Agent is there');
			assert.ok(
				byType('@n8n/n8n-nodes-langchain.chatTrigger').length === 1,
				'the Chat Trigger is there',
			);
			const [model] = byType('@n8n/n8n-nodes-langchain.lmChatOpenAi');
			assert.ok(model, 'the OpenAI Chat Model is there');
			assert.equal(
				model.credentials,
				undefined,
				"the chat model's credential is left for the user to pick",
			);
			assert.deepEqual(
				reread.connections[tool.name]?.ai_tool,
				[[{ node: agent.name, type: 'ai_tool', index: 0 }]],
				"the tool is on the agent's Tool input",
			);
			assert.deepEqual(
				reread.connections[model.name]?.ai_languageModel,
				[[{ node: agent.name, type: 'ai_languageModel', index: 0 }]],
				"the model is on the agent's Chat Model input",
			);
			return `"${tool.name}" (${tool.type}) → "${agent.name}" (ai_tool), credential ${credential.id}; "${model.name}" without a credential (the user picks one)`;
		},
	);

	await check(
		'tool: the Assistant Tool runs alone in n8n with $fromAI values (the editor\'s "Execute step" on a tool)',
		async () => {
			const workflow = saved['agent-tool'];
			assert.ok(workflow, 'the agent-tool example was not imported');
			const tool = workflow.nodes.find((/** @type {any} */ node) => node.type === CUSTOM_TOOL_TYPE);
			/**
			 * @param {Record<string, string>} values
			 */
			const runTool = async (values) => {
				const { result, requests } = await recording(emulator, () =>
					client.runToolNode(workflow, tool.name, values),
				);
				assert.equal(
					result.status,
					'success',
					`execution ${result.executionId} ended "${result.status}": ${result.error?.message ?? ''}`,
				);
				const [run] = result.runData[tool.name] ?? [];
				assert.ok(run, `the tool "${tool.name}" did not run`);
				assert.deepEqual(
					run.inputOverride?.ai_tool?.[0]?.[0]?.json,
					values,
					'the tool got the $fromAI values',
				);
				const response = run.data?.ai_tool?.[0]?.[0]?.json?.response;
				assert.ok(
					Array.isArray(response) && response.length === 1,
					`tool response: ${JSON.stringify(run.data)}`,
				);
				const [ask, ...more] = asks(requests);
				assert.ok(ask && more.length === 0, 'one ask');
				return { answer: response[0], ask };
			};
			const first = await runTool({ question: 'Hi! My name is Grace.', conversationId: '' });
			assert.equal(first.ask.body.input, 'Hi! My name is Grace.');
			assert.equal(
				first.ask.body.conversation_id,
				undefined,
				'an empty conversationId starts a new conversation',
			);
			assert.deepEqual(Object.keys(first.answer).sort(), ['conversation_id', 'output']);
			assert.match(first.answer.conversation_id, /^\S+$/);
			const second = await runTool({
				question: 'What is my name?',
				conversationId: first.answer.conversation_id,
			});
			assert.equal(
				second.ask.body.conversation_id,
				first.answer.conversation_id,
				'the follow-up names the conversation',
			);
			assert.equal(second.answer.conversation_id, first.answer.conversation_id);
			assert.ok(
				/Your name is Grace\b/.test(second.answer.output),
				`the follow-up continues the conversation; got ${JSON.stringify(second.answer.output)}`,
			);
			return [
				`POST /rest/workflows/:id/run with destinationNode "${tool.name}" and agentRequest {query: {${tool.name}: {question, conversationId}}}: n8n put its Tool Executor in place of the AI Agent`,
				`new conversation: ${JSON.stringify(first.answer)}`,
				`follow-up: ${JSON.stringify(second.answer.output)}`,
			];
		},
	);

	// 3. The backend the editor uses.
	const nodeTypeAndVersion = { name: CUSTOM_NODE_TYPE, version: 1 };
	const credentials = { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } };
	/**
	 * @param {'model' | 'persona'} parameter
	 * @param {string} methodName
	 * @param {string} filter
	 * @returns {Promise<{name: string, value: string}[]>}
	 */
	const picker = async (parameter, methodName, filter) => {
		const answer = await client.request(
			'POST',
			'/rest/dynamic-node-parameters/resource-locator-results',
			{
				path: `parameters.${parameter}`,
				nodeTypeAndVersion,
				methodName,
				filter,
				currentNodeParameters: {
					operation: 'ask',
					input: '',
					[parameter]: { __rl: true, mode: 'list', value: '' },
				},
				credentials,
			},
		);
		return answer.results;
	};

	await check(
		"backend: the model picker lists the emulator's models, and search filters them",
		async () => {
			const all = await picker('model', 'searchModels', '');
			assert.deepEqual(
				all.map((entry) => entry.value),
				emulatorModels.map((/** @type {any} */ model) => model.model_name),
			);
			const missing = missingLabels(
				all.map((entry) => entry.name),
				emulatorModels,
			);
			assert.deepEqual(missing, [], 'every model label is shown');
			const claude = await picker('model', 'searchModels', 'claude');
			const expectedClaude = emulatorModels.filter((/** @type {any} */ model) =>
				/claude/i.test(`${model.label} ${model.model_name}`),
			);
			assert.ok(expectedClaude.length > 0 && expectedClaude.length < emulatorModels.length);
			assert.deepEqual(
				claude.map((entry) => entry.value),
				expectedClaude.map((/** @type {any} */ model) => model.model_name),
			);
			const byok = await picker('model', 'searchModels', 'byok');
			assert.deepEqual(
				byok.map((entry) => entry.value),
				emulatorModels
					.filter((/** @type {any} */ model) => model.is_byok)
					.map((/** @type {any} */ model) => model.model_name),
			);
			const none = await picker('model', 'searchModels', 'no-such-model-xyz');
			assert.deepEqual(none, []);
			return [
				`${all.length} entries, e.g. "${all[0].name}"`,
				`"claude" → ${claude.length}, "byok" → ${byok.length}, "no-such-model-xyz" → 0`,
			];
		},
	);

	await check(
		"backend: the persona picker lists the emulator's personas, and search filters them",
		async () => {
			const all = await picker('persona', 'searchPersonas', '');
			assert.deepEqual(
				all.map((entry) => entry.value),
				emulatorPersonas.map((/** @type {any} */ persona) => persona.id),
			);
			for (const persona of emulatorPersonas) {
				assert.ok(
					all.some((entry) => entry.name.startsWith(persona.name)),
					`persona "${persona.name}" shown`,
				);
			}
			const pirate = await picker('persona', 'searchPersonas', 'pirate');
			assert.deepEqual(
				pirate.map((entry) => entry.value),
				['persona_pirate'],
			);
			return `${all.length} entries: ${all.map((entry) => `"${entry.name}"`).join(', ')}; "pirate" → ${pirate[0].name}`;
		},
	);

	await check('backend: the credential test succeeds with the right token', async () => {
		const answer = await client.request('POST', '/rest/credentials/test', {
			credentials: {
				id: credential.id,
				name: credential.name,
				type: CREDENTIAL_TYPE,
				data: { baseUrl: emulator.baseUrl, accessToken: emulator.token },
			},
		});
		assert.equal(answer.status, 'OK', JSON.stringify(answer));
		return `"${answer.message}"`;
	});

	await check(
		'backend: the credential test fails with a clear message for a wrong token',
		async () => {
			const answer = await client.request('POST', '/rest/credentials/test', {
				credentials: {
					id: '',
					name: 'Wrong token',
					type: CREDENTIAL_TYPE,
					data: { baseUrl: emulator.baseUrl, accessToken: 'not-the-token' },
				},
			});
			assert.equal(answer.status, 'Error', JSON.stringify(answer));
			assert.match(answer.message, /token/i, 'the message names the token');
			assert.match(answer.message, /401|reject|invalid/i, 'the message says it was refused');
			return `"${answer.message}"`;
		},
	);

	await check('backend: n8n lists the Assistant node type and its credential type', async () => {
		const nodeTypes = await client.request('GET', '/types/nodes.json');
		const node = nodeTypes.find((/** @type {any} */ type) => type.name === CUSTOM_NODE_TYPE);
		assert.ok(node, `${CUSTOM_NODE_TYPE} missing from /types/nodes.json`);
		assert.equal(node.displayName, 'Assistant');
		assert.ok(
			node.credentials.some((/** @type {any} */ c) => c.name === CREDENTIAL_TYPE),
			'node uses assistantApi',
		);
		// n8n appends "Custom API Call" (__CUSTOM_API_CALL__) to nodes whose credential can
		// authenticate other requests; the editor then points at the HTTP Request node.
		const operations = node.properties
			.find((/** @type {any} */ p) => p.name === 'operation')
			.options.map((/** @type {any} */ o) => o.value)
			.filter((/** @type {string} */ value) => value !== '__CUSTOM_API_CALL__')
			.sort();
		assert.deepEqual(operations, ['ask', 'getCatalog', 'listModels', 'listPersonas']);
		const credentialTypes = await client.request('GET', '/types/credentials.json');
		const type = credentialTypes.find((/** @type {any} */ t) => t.name === CREDENTIAL_TYPE);
		assert.ok(type, `${CREDENTIAL_TYPE} missing from /types/credentials.json`);
		const fields = type.properties.map((/** @type {any} */ p) => p.name);
		assert.ok(
			fields.includes('baseUrl') && fields.includes('accessToken'),
			`fields: ${fields.join(', ')}`,
		);
		return `node "${node.displayName}" (${node.name}) with ${operations.join(', ')}; credential "${type.displayName}" with ${fields.join(', ')}`;
	});

	await check('backend: n8n lists the tool variant "Assistant Tool" for the AI Agent', async () => {
		const nodeTypes = await client.request('GET', '/types/nodes.json');
		const tool = nodeTypes.find((/** @type {any} */ type) => type.name === CUSTOM_TOOL_TYPE);
		assert.ok(tool, `${CUSTOM_TOOL_TYPE} missing from /types/nodes.json`);
		assert.equal(tool.displayName, 'Assistant Tool');
		assert.deepEqual(tool.inputs, [], 'a tool has no main input');
		assert.deepEqual(tool.outputs, ['ai_tool'], 'a tool outputs ai_tool');
		assert.ok(
			tool.credentials.some((/** @type {any} */ c) => c.name === CREDENTIAL_TYPE),
			'the tool uses assistantApi',
		);
		const names = tool.properties.map((/** @type {any} */ p) => p.name);
		for (const name of [
			'toolDescription',
			'operation',
			'input',
			'conversationId',
			'model',
			'persona',
			'options',
		]) {
			assert.ok(names.includes(name), `parameter "${name}" missing; has ${names.join(', ')}`);
		}
		const operations = tool.properties
			.find((/** @type {any} */ p) => p.name === 'operation')
			.options.map((/** @type {any} */ o) => o.value);
		assert.ok(operations.includes('ask'), `operations: ${operations.join(', ')}`);
		return `"${tool.displayName}" (${tool.name}): inputs [], outputs ${JSON.stringify(tool.outputs)}, credential ${CREDENTIAL_TYPE}, parameters ${names.join(', ')}`;
	});

	// 4. The editor: the node, its model picker, a run.
	const editorWorkflow = saved['ask-text'];
	const chosen =
		emulatorModels.find((/** @type {any} */ model) => model.label === 'Claude Sonnet 4.5') ??
		emulatorModels[1];
	const editorInput = 'Hello from the n8n editor';
	await check(
		"editor: the model picker shows the emulator's models (screenshot)",
		async () => {
			assert.ok(page, 'no browser');
			assert.ok(editorWorkflow, 'the ask-text example was not imported');
			await editor.openNode(page, n8n.url, editorWorkflow.id, 'Ask');
			const shown = await editor.openPicker(page, 'model');
			const missing = missingLabels(shown, emulatorModels);
			assert.deepEqual(
				missing.map((model) => model.label),
				[],
				`labels missing from the picker; shown: ${shown.join(' | ')}`,
			);
			const file = await editor.screenshot(page, 'model-picker');
			const filtered = await editor.searchPicker(page, chosen.label, 1);
			assert.ok(
				filtered.length >= 1 && filtered.every((entry) => entry.includes(chosen.label)),
				`search "${chosen.label}" → ${filtered.join(' | ')}`,
			);
			await editor.pickEntry(page, chosen.label);
			return [`${shown.length} entries: ${shown.join(' | ')}`, `screenshot: ${file}`];
		},
		{ onFail: pageFailure },
	);

	await check(
		'editor: run the node from the editor and see the answer (screenshot)',
		async () => {
			assert.ok(page, 'no browser');
			await editor.typeIntoParameter(page, 'input', editorInput);
			const { result: text, requests } = await recording(emulator, () =>
				editor.runNodeAndReadOutput(page, editorInput),
			);
			const [ask] = asks(requests);
			assert.ok(ask, 'the emulator received no ask');
			assert.equal(ask.body.input, editorInput, 'the typed input was sent');
			assert.equal(ask.body.model_name, chosen.model_name, 'the picked model was sent');
			assert.match(text, /conversation_id/, 'the output panel shows the item');
			const file = await editor.screenshot(page, 'output-panel');
			return [
				`asked ${chosen.model_name}; the output panel shows the answer`,
				`screenshot: ${file}`,
			];
		},
		{ onFail: pageFailure },
	);

	if (app.isStopping()) return 130;
	const passed = results.filter((result) => result.ok).length;
	const failed = results.length - passed;
	if (failed > 0) {
		log('');
		log(`n8n's log: ${n8n.logFile}`);
	}
	log('');
	log(`e2e run took ${seconds(runStarted)}`);
	log(`${passed} passed, ${failed} failed`);
	return failed === 0 ? 0 : 1;
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
		const passed = results.filter((result) => result.ok).length;
		log(`${passed} passed, ${results.length - passed + 1} failed`);
		process.exit(1);
	});
