// @ts-check
'use strict';

/**
 * What an n8n user meets in the editor, in the browser, with screenshots: the credential test
 * says what answered when the Base URL or the token is wrong; the nodes panel finds the node and
 * shows its one-line description; a failed Ask shows no "continue this conversation" hint; an Ask
 * shaped by a JSON example returns the object and shows the schema derived from it.
 */

const assert = require('node:assert/strict');
const http = require('node:http');

const app = require('../app');
const editor = require('../editor');
const { asks, recording } = require('../env');
const { CREDENTIAL_TYPE, nodeOutput } = require('../n8n-client');

/** A web app's address: HTML for every path, whatever the token. */
async function startWebPage() {
	const server = http.createServer((_req, res) => {
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
		res.end('<!doctype html><html><head><title>Assistant</title></head><body>App</body></html>');
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	app.registerCleanup(() => new Promise((resolve) => server.close(() => resolve(undefined))));
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	return `http://127.0.0.1:${address.port}`;
}

/**
 * The credential test as the dialog runs it (POST /rest/credentials/test).
 * @param {import('../env').E2eEnv} env
 * @param {string} baseUrl
 * @param {string} accessToken
 */
async function testOverRest(env, baseUrl, accessToken) {
	return await env.client.request('POST', '/rest/credentials/test', {
		credentials: { id: '', name: 'Test', type: CREDENTIAL_TYPE, data: { baseUrl, accessToken } },
	});
}

/**
 * Saves a credential in the browser's credential dialog and returns what the test said.
 * @param {import('../env').E2eEnv} env
 * @param {{name: string, baseUrl: string, accessToken: string, screenshot: string}} credential
 */
async function testInDialog(env, credential) {
	const page = await env.page();
	const saved = await env.client.request('POST', '/rest/credentials', {
		name: credential.name,
		type: CREDENTIAL_TYPE,
		data: { baseUrl: credential.baseUrl, accessToken: credential.accessToken },
	});
	await page.goto(`${env.n8n.url}/home/credentials/${saved.id}`, { timeout: 60_000 });
	const dialog = page.getByTestId('editCredential-modal');
	await dialog.waitFor({ timeout: 60_000 });
	// Typed as a user does (a trailing slash is allowed); saving runs the test.
	await dialog
		.getByTestId('parameter-input-baseUrl')
		.locator('input')
		.first()
		.fill(`${credential.baseUrl}/`);
	await page.getByTestId('credential-save-button').click();
	await dialog.getByText(/Couldn.t connect with these settings/).waitFor({ timeout: 60_000 });
	await dialog.getByText('More details').click();
	const banner = dialog.getByText(/HTTP|web page|No answer|not a valid/).first();
	await banner.waitFor();
	const sentence = (await banner.innerText()).trim();
	const file = await editor.screenshot(page, credential.screenshot);
	await page.keyboard.press('Escape');
	return { sentence, file };
}

/**
 * An Ask workflow with these parameters, saved in n8n (linked to the emulator's credential).
 * @param {import('../env').E2eEnv} env
 * @param {string} name
 * @param {Record<string, unknown>} parameters
 */
async function savedAsk(env, name, parameters) {
	const workflow = structuredClone(env.examples['ask-text']);
	workflow.id = undefined;
	workflow.name = name;
	const ask = workflow.nodes.find((/** @type {any} */ node) => node.name === 'Ask');
	ask.parameters = { ...ask.parameters, ...parameters };
	return await env.client.importWorkflow(workflow);
}

/** @param {import('../env').E2eEnv} env */
async function nodesPanel(env) {
	const page = await env.page();
	await page.goto(`${env.n8n.url}/workflow/new`, { timeout: 60_000 });
	await page.getByTestId('canvas-plus-button').first().click({ timeout: 60_000 });
	const search = page.getByTestId('node-creator-search-bar');
	await search.fill('personal assistant');
	const first = page.getByTestId('node-creator-item-name').first();
	// The list filters as you type: wait until it has settled on the search.
	await page
		.getByTestId('node-creator-item-name')
		.filter({ hasText: /^Assistant$/ })
		.first()
		.waitFor({ timeout: 15_000 });
	await page.waitForTimeout(500);
	assert.equal((await first.innerText()).trim(), 'Assistant', 'the first result');
	const description = page.getByTestId('node-creator-item-description').first();
	const text = (await description.innerText()).trim();
	const lines = await description.evaluate((/** @type {HTMLElement} */ element) => {
		const style = element.ownerDocument.defaultView?.getComputedStyle(element);
		const lineHeight = parseFloat(style?.lineHeight ?? '0');
		return Math.round(element.getBoundingClientRect().height / lineHeight);
	});
	assert.equal(lines, 1, `the description takes ${lines} lines: "${text}"`);
	const file = await editor.screenshot(page, 'nodes-panel');
	await search.fill('claude');
	await page.waitForTimeout(1_000);
	const forClaude = await page.getByTestId('node-creator-item-name').allInnerTexts();
	assert.ok(
		!forClaude.map((/** @type {string} */ name) => name.trim()).includes('Assistant'),
		'found for "claude"',
	);
	await page.keyboard.press('Escape');
	return [`"personal assistant" → Assistant: "${text}" (one line)`, `screenshot: ${file}`];
}

/** @param {import('../env').E2eEnv} env */
async function failedRunHasNoHint(env) {
	const page = await env.page();
	const workflow = await savedAsk(env, 'Assistant: a failing ask', {
		input: 'This fails #fault=500',
		options: { retries: 0 },
	});
	await editor.openNode(page, env.n8n.url, workflow.id, 'Ask');
	const text = await editor.runNodeAndReadOutput(page, 'HTTP 500');
	assert.doesNotMatch(text, /To continue this conversation/, 'the hint shows on a failed run');
	assert.equal(await page.getByTestId('node-hint').count(), 0, 'a hint is shown');
	const file = await editor.screenshot(page, 'failed-run-no-hint');
	return [`the output shows the error and no hint`, `screenshot: ${file}`];
}

/** @param {import('../env').E2eEnv} env */
async function jsonExampleInEditor(env) {
	const page = await env.page();
	const workflow = (await env.workflows())['ask-json-example'];
	assert.ok(workflow, 'the ask-json-example example was not imported');
	await editor.openNode(page, env.n8n.url, workflow.id, 'Ask');
	const { result: text, requests } = await recording(env.emulator, () =>
		editor.runNodeAndReadOutput(page, 'Schema derived from the JSON Example'),
	);
	const [ask] = asks(requests);
	assert.deepEqual(ask?.body.output_format, {
		type: 'object',
		properties: {
			summary: { type: 'string' },
			sentiment: { type: 'string' },
			topics: { type: 'array', items: { type: 'string' } },
		},
		required: ['summary', 'sentiment', 'topics'],
	});
	for (const field of ['summary', 'sentiment', 'topics']) assert.match(text, new RegExp(field));
	const file = await editor.screenshot(page, 'json-example-output');
	return ['the output shows the object and the derived schema', `screenshot: ${file}`];
}

/**
 * A browser check: a credential with a wrong token at `baseUrl`, saved in the credential dialog;
 * the test's sentence says `says`, and not the token.
 * @param {string} id
 * @param {string} name
 * @param {{credential: string, baseUrl: (env: import('../env').E2eEnv) => Promise<string>, screenshot: string, says: RegExp}} spec
 * @returns {import('../env').Check}
 */
function credentialDialogCheck(id, name, { credential, baseUrl, screenshot, says }) {
	return {
		id,
		name,
		browser: true,
		run: async (env) => {
			const { sentence, file } = await testInDialog(env, {
				name: credential,
				baseUrl: await baseUrl(env),
				accessToken: 'not-the-token',
				screenshot,
			});
			assert.match(sentence, says);
			assert.doesNotMatch(sentence, /not-the-token/);
			return [`"${sentence}"`, `screenshot: ${file}`];
		},
	};
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'ask-json-example',
		name: 'workflow "Assistant: ask for JSON shaped like an example": an object with the example\'s fields',
		run: async (env) => {
			const { run } = await env.runExample('ask-json-example');
			const [item] = nodeOutput(run.runData, 'Ask');
			assert.deepEqual(Object.keys(item.output).sort(), ['sentiment', 'summary', 'topics']);
			assert.equal(typeof item.output.summary, 'string');
			assert.ok(Array.isArray(item.output.topics), 'topics is a list');
			return `output: ${JSON.stringify(item.output)}`;
		},
	},
	{
		id: 'credential-test-ok',
		name: 'credential test: the right token passes, naming how many models the API offers',
		run: async (env) => {
			const answer = await testOverRest(env, env.emulator.baseUrl, env.emulator.token);
			assert.equal(answer.status, 'OK', JSON.stringify(answer));
			assert.match(answer.message, /^Connection tested successfully: \d+ models available\.$/);
			return `"${answer.message}"`;
		},
	},
	{
		id: 'credential-test-no-answer',
		name: 'credential test: an address where nothing answers fails, saying so in one sentence',
		run: async (env) => {
			const port = await app.freePort();
			const answer = await testOverRest(env, `http://127.0.0.1:${port}/api`, 'any');
			assert.equal(answer.status, 'Error', JSON.stringify(answer));
			assert.match(answer.message, /^No answer at 127\.0\.0\.1:\d+: the connection was refused/);
			return `"${answer.message}"`;
		},
	},
	// One credential dialog check per failure a user can meet.
	credentialDialogCheck(
		'credential-dialog-web-page',
		'credential dialog: a web page at the Base URL fails the test, saying it is a web page (screenshot)',
		{
			credential: 'Web app address',
			baseUrl: async () => await startWebPage(),
			screenshot: 'credential-test-web-page',
			says: /answered with a web page \(HTML\), not the Assistant API/,
		},
	),
	credentialDialogCheck(
		'credential-dialog-wrong-token',
		'credential dialog: a wrong token fails the test, saying the token was rejected (screenshot)',
		{
			credential: 'Wrong token',
			baseUrl: async (env) => env.emulator.baseUrl,
			screenshot: 'credential-test-wrong-token',
			says: /^The access token was rejected \(HTTP 401: Invalid or missing access token\)/,
		},
	),
	{
		id: 'nodes-panel',
		name: 'nodes panel: "personal assistant" finds the node, with its one-line description (screenshot)',
		browser: true,
		run: nodesPanel,
	},
	{
		id: 'editor-failed-run-no-hint',
		name: 'editor: a failed Ask shows the error and no "continue this conversation" hint (screenshot)',
		browser: true,
		run: failedRunHasNoHint,
	},
	{
		id: 'editor-json-example',
		name: 'editor: an Ask from a JSON example shows the object and the derived schema (screenshot)',
		browser: true,
		run: jsonExampleInEditor,
	},
];
