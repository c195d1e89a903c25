// @ts-check
'use strict';

/**
 * The n8n editor in headless Chromium (Debian's chromium driven by playwright-core), with the
 * steps a person takes. Selectors are n8n's own `data-test-id` attributes (n8n 2.40.7).
 */

const fs = require('node:fs');
const path = require('node:path');

const { ARTIFACTS_DIR, REPO_ROOT, playwright, registerCleanup } = require('./app');

/** The screenshots README.md and docs/ show, written only with --doc-images. */
const DOC_IMAGES_DIR = path.join(REPO_ROOT, 'docs', 'images');

/**
 * playwright-core is installed with the n8n app, not in the repository: its types are not at
 * hand here, so pages and browsers are loosely typed.
 * @typedef {any} Page
 * @typedef {any} Browser
 */

/** playwright adds --headless itself. */
const LAUNCH_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

/**
 * @param {string} executablePath
 * @returns {Promise<{browser: Browser, page: Page}>}
 */
async function launchEditorBrowser(executablePath) {
	const { chromium, selectors } = playwright();
	selectors.setTestIdAttribute('data-test-id');
	const browser = await chromium.launch({
		executablePath,
		args: LAUNCH_ARGS,
		timeout: 60_000,
		// playwright's own handlers would exit the process on Ctrl-C before n8n is stopped.
		handleSIGINT: false,
		handleSIGTERM: false,
		handleSIGHUP: false,
	});
	registerCleanup(() =>
		Promise.race([
			browser.close().catch(() => undefined),
			new Promise((resolve) => setTimeout(resolve, 5_000)),
		]),
	);
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	context.setDefaultTimeout(30_000);
	const page = await context.newPage();
	return { browser, page };
}

/**
 * The owner setup form n8n shows on first start.
 * @param {Page} page
 * @param {string} baseUrl
 * @param {{email: string, firstName: string, lastName: string, password: string}} owner
 */
async function setUpOwnerInEditor(page, baseUrl, owner) {
	await page.goto(baseUrl, { timeout: 60_000 });
	await page.waitForURL((/** @type {URL} */ url) => url.pathname.startsWith('/setup'), {
		timeout: 60_000,
	});
	await page.locator('input[name="email"]').fill(owner.email);
	await page.locator('input[name="firstName"]').fill(owner.firstName);
	await page.locator('input[name="lastName"]').fill(owner.lastName);
	await page.locator('input[name="password"]').fill(owner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((/** @type {URL} */ url) => !url.pathname.startsWith('/setup'), {
		timeout: 30_000,
	});
}

/**
 * Opens a saved workflow and double-clicks one of its nodes: the node's panel (NDV) opens.
 * @param {Page} page
 * @param {string} baseUrl
 * @param {string} workflowId
 * @param {string} nodeName
 */
async function openNode(page, baseUrl, workflowId, nodeName) {
	await page.goto(`${baseUrl}/workflow/${workflowId}`, { timeout: 60_000 });
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
	await node.waitFor({ timeout: 60_000 });
	await node.dblclick();
	const ndv = page.getByTestId('ndv');
	await ndv.waitFor();
	return ndv;
}

/**
 * Opens a resource locator's list (e.g. the model picker) and waits for its entries.
 * @param {Page} page
 * @param {string} parameterName  e.g. 'model'
 * @returns {Promise<string[]>} the entries' labels
 */
async function openPicker(page, parameterName) {
	await page.getByTestId(`resource-locator-${parameterName}`).getByTestId('rlc-input').click();
	const items = page.getByTestId('rlc-item');
	await items.first().waitFor();
	return (await items.allInnerTexts()).map((/** @type {string} */ entry) => entry.trim());
}

/**
 * Types into the open picker's search box and returns the entries left.
 * @param {Page} page
 * @param {string} text
 * @param {number} expectedCount  wait until this many entries are shown
 * @returns {Promise<string[]>} the entries' labels
 */
async function searchPicker(page, text, expectedCount) {
	await page.getByTestId('rlc-search').fill(text);
	const items = page.getByTestId('rlc-item');
	// The list reloads from the server as you type; wait for it to settle on the expected size.
	const deadline = Date.now() + 15_000;
	while ((await items.count()) !== expectedCount && Date.now() < deadline) {
		await page.waitForTimeout(200);
	}
	return (await items.allInnerTexts()).map((/** @type {string} */ entry) => entry.trim());
}

/**
 * @param {Page} page
 * @param {string} label  the entry's label, or a unique part of it
 */
async function pickEntry(page, label) {
	await page.getByTestId('rlc-item').filter({ hasText: label }).first().click();
}

/**
 * @param {Page} page
 * @param {string} parameterName  a multi-line string parameter, e.g. 'input'
 * @param {string} text
 */
async function typeIntoParameter(page, parameterName, text) {
	const field = page
		.getByTestId(`parameter-input-${parameterName}`)
		.locator('textarea, input')
		.first();
	await field.fill(text);
	await field.blur();
}

/**
 * Clicks the node panel's "Execute step" and waits until the output panel shows `expected`.
 * @param {Page} page
 * @param {string} expected
 * @returns {Promise<string>} the output panel's text
 */
async function runNodeAndReadOutput(page, expected) {
	await page.getByTestId('ndv').getByTestId('node-execute-button').click();
	const output = page.getByTestId('output-panel');
	await output.getByText(expected, { exact: false }).first().waitFor({ timeout: 60_000 });
	// Let the panel's transitions (button, toast) settle before anyone takes a screenshot.
	await page
		.getByTestId('ndv')
		.getByTestId('node-execute-button')
		.getByText(/execute/i)
		.waitFor()
		.catch(() => undefined);
	await page.waitForTimeout(800);
	return await output.innerText();
}

/**
 * @param {Page} page
 * @param {string} name  file name without extension
 * @returns {Promise<string>} the file's path
 */
async function screenshot(page, name) {
	fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
	const file = path.join(ARTIFACTS_DIR, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/**
 * Writes docs/images/<name>.png from the real app, so the documentation's pictures stay current:
 * only when the run was started with --doc-images (E2E_DOC_IMAGES=1), so that an ordinary run
 * changes no committed file.
 * @param {Page} target  the page, or a locator (only that element is taken)
 * @param {string} name  file name without extension
 * @param {{hide?: string[]}} [options]  data-test-ids of elements to leave out of the picture
 * @returns {Promise<string | undefined>} the file's path, when written
 */
async function docImage(target, name, options = {}) {
	if (process.env.E2E_DOC_IMAGES !== '1') return undefined;
	fs.mkdirSync(DOC_IMAGES_DIR, { recursive: true });
	const file = path.join(DOC_IMAGES_DIR, `${name}.png`);
	const style = (options.hide ?? [])
		.map((id) => `[data-test-id="${id}"] { visibility: hidden; }`)
		.join('\n');
	await target.screenshot({ path: file, animations: 'disabled', style });
	return file;
}

module.exports = {
	docImage,
	launchEditorBrowser,
	setUpOwnerInEditor,
	openNode,
	openPicker,
	searchPicker,
	pickEntry,
	typeIntoParameter,
	runNodeAndReadOutput,
	screenshot,
};
