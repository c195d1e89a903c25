// @ts-check
'use strict';

/**
 * The editor in headless Chromium: the Assistant node of the "ask (text)" example opened, a
 * model picked from the picker, the node run from its panel, with screenshots.
 */

const assert = require('node:assert/strict');

const editor = require('../editor');
const { asks, missingLabels, recording } = require('../env');

const EDITOR_INPUT = 'Hello from the n8n editor';

/**
 * The model the editor checks pick (and then expect in the ask).
 * @param {import('../env').E2eEnv} env
 */
function chosenModel(env) {
	const models = env.emulatorModels;
	return models.find((model) => model.label === 'Claude Sonnet 4.5') ?? models[1];
}

/** @param {import('../env').E2eEnv} env */
async function pickModelInEditor(env) {
	const page = await env.page();
	const workflow = (await env.workflows())['ask-text'];
	assert.ok(workflow, 'the ask-text example was not imported');
	const chosen = chosenModel(env);
	await editor.openNode(page, env.n8n.url, workflow.id, 'Ask');
	const shown = await editor.openPicker(page, 'model');
	const missing = missingLabels(shown, env.emulatorModels);
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
}

/** @param {import('../env').E2eEnv} env */
async function runNodeInEditor(env) {
	const page = await env.page();
	const chosen = chosenModel(env);
	await editor.typeIntoParameter(page, 'input', EDITOR_INPUT);
	const { result: text, requests } = await recording(env.emulator, () =>
		editor.runNodeAndReadOutput(page, EDITOR_INPUT),
	);
	const [ask] = asks(requests);
	assert.ok(ask, 'the emulator received no ask');
	assert.equal(ask.body.input, EDITOR_INPUT, 'the typed input was sent');
	assert.equal(ask.body.model_name, chosen.model_name, 'the picked model was sent');
	assert.match(text, /conversation_id/, 'the output panel shows the item');
	const file = await editor.screenshot(page, 'output-panel');
	const docFile = await editor.docImage(page.getByTestId('ndv'), 'ask-output');
	return [
		`asked ${chosen.model_name}; the output panel shows the answer`,
		`screenshot: ${file}${docFile ? `, ${docFile}` : ''}`,
	];
}

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'editor-model-picker',
		name: "editor: the model picker shows the emulator's models (screenshot)",
		browser: true,
		run: pickModelInEditor,
	},
	{
		id: 'editor-run-node',
		name: 'editor: run the node from the editor and see the answer (screenshot)',
		browser: true,
		// It runs the node the picker check opened, with the model picked there.
		requires: ['editor-model-picker'],
		run: runNodeInEditor,
	},
];
