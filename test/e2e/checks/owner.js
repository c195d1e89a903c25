// @ts-check
'use strict';

/** The owner account, signed up in the editor as a person does on n8n's first start. */

const assert = require('node:assert/strict');

const editor = require('../editor');

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'owner-setup',
		name: 'editor: set up the owner account in the browser',
		browser: true,
		setsUpOwner: true,
		run: async (env) => {
			const page = await env.page();
			await editor.setUpOwnerInEditor(page, env.n8n.url, env.owner);
			assert.equal(await env.client.needsOwnerSetup(), false, 'n8n still asks for owner setup');
			await env.client.login(env.owner);
			return `signed up ${env.owner.email}; the editor moved on to ${new URL(page.url()).pathname}`;
		},
	},
];
