// @ts-check
'use strict';

/**
 * The editor as a power user sees it, in the browser, with screenshots: the chat model's canvas
 * subtitle names its model; the nodes panel finds the chat model for "personal" and lists the
 * Assistant Tool in a line or two; the Logs panel shows the chat model's settings and which
 * model, persona and conversation answered; what a failing chat model shows; the credential
 * dialog's success message.
 */

const assert = require('node:assert/strict');

const editor = require('../editor');
const { CREDENTIAL_TYPE, PUBLISHED_CHAT_MODEL_TYPE: CHAT_MODEL_TYPE } = require('../n8n-client');
const {
	agentNode,
	aiWorkflow,
	chainNode,
	chatModelNode,
	manualTrigger,
} = require('../workflow-json');

/**
 * The agent example saved once more under another name, its chat model set as given.
 * @param {import('../env').E2eEnv} env
 * @param {string} name
 * @param {Record<string, unknown>} modelParameters
 */
async function savedAgentWorkflow(env, name, modelParameters) {
	const workflow = structuredClone(env.examples['agent-tool']);
	workflow.id = undefined;
	workflow.name = name;
	const model = workflow.nodes.find((/** @type {any} */ node) => node.type === CHAT_MODEL_TYPE);
	model.parameters = { ...model.parameters, ...modelParameters };
	return { saved: await env.client.importWorkflow(workflow), modelName: model.name };
}

/**
 * The text a canvas node shows (its name and subtitle).
 * @param {any} page
 * @param {string} baseUrl
 * @param {string} workflowId
 * @param {string} nodeName
 */
async function canvasNodeText(page, baseUrl, workflowId, nodeName) {
	await page.goto(`${baseUrl}/workflow/${workflowId}`, { timeout: 60_000 });
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
	await node.waitFor({ timeout: 60_000 });
	await page.waitForTimeout(500);
	return (await node.innerText()).trim();
}

/** @param {import('../env').E2eEnv} env */
async function chatModelSubtitle(env) {
	const page = await env.page();
	const lines = [];
	const cases = [
		{ mode: 'list', value: 'openai:gpt-5-mini', cachedResultName: 'GPT-5 mini' },
		{ mode: 'id', value: 'anthropic:claude-sonnet-4-5' },
	];
	for (const [index, picked] of cases.entries()) {
		const { saved, modelName } = await savedAgentWorkflow(
			env,
			`Assistant: chat model subtitle (${picked.mode})`,
			{ model: { __rl: true, ...picked } },
		);
		const text = await canvasNodeText(page, env.n8n.url, saved.id, modelName);
		assert.ok(text.includes(picked.value), `the canvas shows "${text}" for ${picked.value}`);
		assert.ok(!text.includes('default model'), `the canvas shows "${text}"`);
		const file = await editor.screenshot(page, `chat-model-subtitle-${index + 1}`);
		lines.push(
			`model ${picked.mode} ${picked.value} → "${text.replace(/\s+/g, ' ')}"`,
			`screenshot: ${file}`,
		);
	}
	const example = (await env.workflows())['agent-tool'];
	const model = example.nodes.find((/** @type {any} */ node) => node.type === CHAT_MODEL_TYPE);
	const text = await canvasNodeText(page, env.n8n.url, example.id, model.name);
	assert.ok(text.includes('default model'), `no model chosen: the canvas shows "${text}"`);
	lines.push(`no model → "${text.replace(/\s+/g, ' ')}"`);
	return lines;
}

/**
 * Searches the nodes panel opened from the canvas' "+" button; the entries shown, with the
 * number of lines each entry's description takes.
 * @param {any} page
 * @param {string} search
 * @returns {Promise<{name: string, lines: number}[]>}
 */
async function searchNodesPanel(page, search) {
	const box = page.getByTestId('node-creator-search-bar');
	await box.fill(search);
	await page.waitForTimeout(1_500);
	// Runs in the page: the browser's globals, not Node's.
	return await page.evaluate(() =>
		Array.from(globalThis.document.querySelectorAll('[data-test-id="node-creator-item-name"]')).map(
			(name) => {
				let entry = name.parentElement;
				while (entry && !entry.querySelector('[data-test-id="node-creator-item-description"]')) {
					entry = entry.parentElement;
				}
				const description = entry?.querySelector('[data-test-id="node-creator-item-description"]');
				const lineHeight = description
					? parseFloat(globalThis.getComputedStyle(description).lineHeight || '0')
					: 0;
				return {
					name: (name.textContent ?? '').trim(),
					lines:
						description && lineHeight
							? Math.round(description.getBoundingClientRect().height / lineHeight)
							: 0,
				};
			},
		),
	);
}

/** @param {import('../env').E2eEnv} env */
async function nodesPanelEntries(env) {
	const page = await env.page();
	await page.goto(`${env.n8n.url}/workflow/new`, { timeout: 60_000 });
	await page.getByTestId('canvas-plus-button').first().click({ timeout: 60_000 });
	const personal = await searchNodesPanel(page, 'personal');
	const file = await editor.screenshot(page, 'nodes-panel-personal');
	const names = personal.map((entry) => entry.name);
	assert.ok(names.includes('Assistant'), `"personal" → ${names.join(', ')}`);
	assert.ok(names.includes('Assistant Chat Model'), `"personal" → ${names.join(', ')}`);
	await page.keyboard.press('Escape');
	// Tools are listed where the agent takes them: from the "+" of its Tool input.
	const example = (await env.workflows())['agent-tool'];
	await page.goto(`${env.n8n.url}/workflow/${example.id}`, { timeout: 60_000 });
	// The handles sit close together.
	const toolPlus = page.locator(
		'[data-test-id="canvas-node-input-handle"][data-connection-type="ai_tool"][data-node-name="AI Agent"] [data-test-id="canvas-handle-plus"]',
	);
	// The panel that lists tools is the one whose search finds tool variants; another panel (the
	// AI nodes one, seen once) lists the node itself: close it and click again.
	/** @type {{name: string, lines: number}[]} */
	let tools = [];
	for (let attempt = 1; attempt <= 3; attempt++) {
		await toolPlus.click({ timeout: 60_000 });
		await page.getByTestId('node-creator-search-bar').waitFor({ timeout: 15_000 });
		tools = await searchNodesPanel(page, 'assistant');
		if (tools.some((entry) => entry.name === 'Assistant Tool')) break;
		await page.keyboard.press('Escape');
		await page.waitForTimeout(800);
	}
	const toolFile = await editor.screenshot(page, 'nodes-panel-assistant-tool');
	const tool = tools.find((entry) => entry.name === 'Assistant Tool');
	assert.ok(
		tool,
		`three clicks on the Tool input's +: "assistant" → ${tools.map((entry) => entry.name).join(', ')}`,
	);
	assert.ok(tool.lines <= 2, `the Assistant Tool entry takes ${tool.lines} lines`);
	await page.keyboard.press('Escape');
	return [
		`"personal" → ${personal.map((entry) => `${entry.name} (${entry.lines} lines)`).join(', ')}`,
		`screenshot: ${file}`,
		`"Assistant Tool" → ${tools.map((entry) => `${entry.name} (${entry.lines} lines)`).join(', ')}`,
		`screenshot: ${toolFile}`,
	];
}

/**
 * Manual trigger → `root` (a Basic LLM Chain or an AI Agent) with the Assistant Chat Model on its
 * Model input, spelled out as n8n exports it.
 * @param {import('../env').E2eEnv} env
 * @param {{id: string, name: string, root: any, model: Record<string, unknown>}} spec
 */
function modelWorkflow(env, { id, name, root, model }) {
	const trigger = { ...manualTrigger, id: `${id}-trigger` };
	const chatModel = chatModelNode(env, model, { id: `${id}-model` });
	return aiWorkflow(id, name, { line: [trigger, root], model: chatModel });
}

/**
 * Opens a saved workflow, clicks "Execute workflow" as a user does, and opens the Logs panel.
 * @param {import('../env').E2eEnv} env
 * @param {any} saved
 */
async function executeInEditor(env, saved) {
	const page = await env.page();
	await page.goto(`${env.n8n.url}/workflow/${saved.id}`, { timeout: 60_000 });
	await page.getByTestId('execute-workflow-button').click({ timeout: 60_000 });
	// n8n opens the Logs panel by itself after some runs (a failed one): open it only if closed.
	const opened = await page
		.getByTestId('logs-overview-body')
		.waitFor({ timeout: 5_000 })
		.then(() => true)
		.catch(() => false);
	if (!opened) await page.getByTestId('logs-overview-header').click({ timeout: 30_000 });
	return page;
}

/**
 * The chat model's row in the Logs panel's overview (under the AI node that called it).
 * @param {any} page
 */
function chatModelRow(page) {
	return page
		.getByTestId('logs-overview-body')
		.getByText('Assistant Chat Model', { exact: true })
		.first();
}

/**
 * The log details' text in each of the views a user can switch to (schema, table, JSON): what
 * the panel shows, whichever view one opens. Ends in the JSON view.
 * @param {any} page
 * @param {any} details
 */
async function textInEveryView(page, details) {
	const texts = [await details.innerText()];
	const switches = details.locator('[data-test-id="ndv-run-data-display-mode"]');
	for (let panel = 0; panel < (await switches.count()); panel++) {
		const views = switches.nth(panel).locator('label, [role="radio"], button');
		for (let view = 0; view < (await views.count()); view++) {
			await views.nth(view).click();
			await page.waitForTimeout(600);
			texts.push(await details.innerText());
		}
	}
	return texts.join('\n');
}

/** @param {import('../env').E2eEnv} env */
async function logsPanel(env) {
	const workflow = modelWorkflow(env, {
		id: 'asstLogsPanel001',
		name: 'Assistant: the chat model in the Logs panel',
		root: chainNode('Name three harbours.', { id: 'asstLogsPanel001-chain' }),
		model: {
			model: { __rl: true, mode: 'id', value: 'openai:gpt-5-mini' },
			persona: { __rl: true, mode: 'id', value: 'persona_pirate' },
			options: { memory: false },
		},
	});
	const saved = await env.client.importWorkflow(workflow);
	const page = await executeInEditor(env, saved);
	const row = chatModelRow(page);
	await row.waitFor({ timeout: 60_000 });
	await row.click();
	const details = page.getByTestId('log-details');
	await details.waitFor({ timeout: 30_000 });
	// Input beside Output, as a user opens them, each in its JSON view.
	await details.getByTestId('log-details-header').getByText('Input', { exact: true }).click();
	await page.waitForTimeout(800);
	const text = await textInEveryView(page, details);
	const execution = await env.client.lastExecution(saved.id);
	const [modelRun] = execution.runData['Assistant Chat Model'];
	const generation = modelRun.data.ai_languageModel[0][0].json.response.generations[0][0];
	const conversationId = generation.generationInfo?.conversationId;
	assert.match(String(conversationId), /\S/, JSON.stringify(generation));
	const options = modelRun.inputOverride.ai_languageModel[0][0].json.options;
	assert.equal(options.model, 'openai:gpt-5-mini', JSON.stringify(options));
	// The emulator's answer text names the model and persona itself: the keys and the conversation
	// id are what only the answer's details put there.
	for (const shown of ['modelName', 'persona', 'conversationId', conversationId]) {
		assert.ok(text.includes(shown), `the Logs panel does not show ${shown}: ${text}`);
	}
	assert.ok(!text.includes('not_implemented'), `the Logs panel shows not_implemented: ${text}`);
	// The JSON view (the last one) once it shows the conversation, for the screenshot.
	await details
		.getByText(String(conversationId))
		.first()
		.waitFor({ timeout: 15_000 })
		.catch(() => undefined);
	const file = await editor.screenshot(page, 'logs-panel-chat-model');
	// The call's input, with the settings as its options.
	await details.getByTestId('log-details-header').getByText('Output', { exact: true }).click();
	const inputShown = await details
		.getByText('timeoutMinutes')
		.first()
		.waitFor({ timeout: 10_000 })
		.then(() => true)
		.catch(() => false);
	const inputFile = await editor.screenshot(page, 'logs-panel-chat-model-input');
	// n8n keeps the choice for the next log details: show the output again.
	await details.getByTestId('log-details-header').getByText('Output', { exact: true }).click();
	return [
		`options: ${JSON.stringify(options)}`,
		`generationInfo: ${JSON.stringify(generation.generationInfo)}`,
		`the panel shows: ${text.replace(/\s+/g, ' ').slice(0, 400)}`,
		`screenshot: ${file}`,
		`input with the settings shown: ${inputShown}; screenshot: ${inputFile}`,
	];
}

/** @param {import('../env').E2eEnv} env */
async function failingChatModel(env) {
	const workflow = modelWorkflow(env, {
		id: 'asstModelError01',
		name: 'Assistant: a failing chat model',
		root: agentNode('Hello #fault=500', { id: 'asstModelError01-agent' }),
		model: { options: { retries: 0 } },
	});
	const saved = await env.client.importWorkflow(workflow);
	const page = await executeInEditor(env, saved);
	const toast = page.locator('.el-notification').first();
	await toast.waitFor({ timeout: 60_000 });
	await page.waitForTimeout(1_000);
	const toastText = (await toast.innerText()).trim().replace(/\s+/g, ' ');
	const row = chatModelRow(page);
	await row.waitFor({ timeout: 30_000 });
	const rowText = (await row.innerText()).trim();
	const rowHtml = await row.evaluate(
		(/** @type {HTMLElement} */ element) =>
			(element.closest('[data-test-id="log-node-row"]') ?? element.parentElement)?.outerHTML ?? '',
	);
	const file = await editor.screenshot(page, 'chat-model-error');
	await row.click();
	await page.waitForTimeout(1_000);
	const detailsPane = page.getByTestId('log-details');
	let details = (await detailsPane.innerText()).trim();
	if (!details.includes('OUTPUT')) {
		// The output was hidden (n8n keeps that choice between details): show it.
		await detailsPane
			.getByTestId('log-details-header')
			.getByText('Output', { exact: true })
			.click();
		await page.waitForTimeout(1_000);
		details = (await detailsPane.innerText()).trim();
	}
	const detailsFile = await editor.screenshot(page, 'chat-model-error-details');
	// What README's "When something fails" says a user sees.
	const message = 'The assistant service failed (HTTP 500): Internal server error';
	assert.match(toastText, /^Problem in node .AI Agent./, toastText);
	assert.ok(toastText.includes(message), toastText);
	assert.match(rowHtml, /class="[^"]*_error_/, 'the log row is not marked failed');
	assert.ok(details.includes(message), details);
	assert.ok(details.includes("This is a problem on the service's side."), details);
	return [
		`toast: ${JSON.stringify(toastText)}`,
		`log row: ${JSON.stringify(rowText)}`,
		`details: ${JSON.stringify(details.slice(0, 600))}`,
		`screenshots: ${file}, ${detailsFile}`,
	];
}

/** @param {import('../env').E2eEnv} env */
async function credentialDialogSuccess(env) {
	const page = await env.page();
	const saved = await env.client.request('POST', '/rest/credentials', {
		name: 'Assistant (right token)',
		type: CREDENTIAL_TYPE,
		data: { baseUrl: env.emulator.baseUrl, accessToken: env.emulator.token },
	});
	await page.goto(`${env.n8n.url}/home/credentials/${saved.id}`, { timeout: 60_000 });
	const dialog = page.getByTestId('editCredential-modal');
	await dialog.waitFor({ timeout: 60_000 });
	await page.getByTestId('credential-save-button').click();
	const success = dialog.getByText(/Connection tested successfully/).first();
	await success.waitFor({ timeout: 60_000 });
	const sentence = (await success.innerText()).trim();
	const file = await editor.screenshot(page, 'credential-test-ok');
	await editor.docImage(dialog, 'credential');
	await page.keyboard.press('Escape');
	assert.equal(sentence, 'Connection tested successfully');
	return [`"${sentence}"`, `screenshot: ${file}`];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'chat-model-subtitle',
		timeoutMs: 300_000,
		name: "editor: the chat model's canvas subtitle names the chosen model, or says default model (screenshots)",
		browser: true,
		run: chatModelSubtitle,
	},
	{
		id: 'nodes-panel-entries',
		timeoutMs: 240_000,
		name: 'nodes panel: "personal" finds the Assistant Chat Model; the Assistant Tool entry takes one or two lines (screenshots)',
		browser: true,
		run: nodesPanelEntries,
	},
	{
		id: 'logs-panel-chat-model',
		timeoutMs: 240_000,
		name: "logs panel: the chat model's row shows its model and settings, and which model, persona and conversation answered (screenshot)",
		browser: true,
		run: logsPanel,
	},
	{
		id: 'chat-model-error-editor',
		timeoutMs: 240_000,
		name: 'editor: what a failing chat model under an AI Agent shows (toast, log row) (screenshots)',
		browser: true,
		run: failingChatModel,
	},
	{
		id: 'credential-dialog-ok',
		timeoutMs: 180_000,
		name: "credential dialog: the right token passes with n8n's own sentence (screenshot)",
		browser: true,
		run: credentialDialogSuccess,
	},
];
