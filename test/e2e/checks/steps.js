// @ts-check
'use strict';

/**
 * Steps in the real n8n app (docs/api.md#steps): the "ask with steps" example imports, its Ask
 * (Options > Include Steps) gets the emulated assistant's mail tool call and result, and its If
 * node sends the answer to the branch that flags mail and file tools.
 */

const assert = require('node:assert/strict');

const { nodeOutput } = require('../n8n-client');
const { asks } = require('../env');

/** @type {import('../env').Check[]} */
module.exports = [
	{
		id: 'ask-steps',
		name: 'workflow "Assistant: ask with steps, flag mail and file tools": the steps of the ask, the mail tool flagged by the If node',
		run: async (env) => {
			const { run, requests } = await env.runExample('ask-steps');
			const input = env.examples['ask-steps'].nodes[1].parameters.input;
			const [item, ...rest] = nodeOutput(run.runData, 'Ask');
			assert.equal(rest.length, 0, 'one item expected');
			assert.deepEqual(Object.keys(item).sort(), ['conversation_id', 'model', 'output', 'steps']);
			assert.ok(String(item.output).includes(input), `the answer: ${JSON.stringify(item.output)}`);
			assert.equal(item.model, null, 'the default model answered, not named by the service');
			// The emulator speaks the 2026 stream: the call's id is the service's (`call_…`), and the
			// result says how the tool went.
			const callId = item.steps[0]?.tool_call_id;
			assert.match(String(callId), /^call_\w+$/, "the tool call keeps the service's id");
			const ids = { tool_name: 'search_mail', tool_call_id: callId };
			assert.deepEqual(item.steps, [
				{ type: 'tool_call', ...ids, args: { query: input } },
				{
					type: 'tool_result',
					...ids,
					content: [{ from: 'ada@example.com', subject: 'Quarterly report', unread: true }],
					outcome: 'success',
				},
			]);
			const [flagged, ...more] = nodeOutput(run.runData, 'Flag for review');
			assert.equal(more.length, 0, 'one flagged item expected');
			assert.equal(flagged.flagged, true);
			assert.equal(flagged.tools_used, 'search_mail');
			assert.equal(run.runData['No private data used'], undefined, 'the other branch must not run');
			const [ask] = asks(requests);
			assert.equal(ask.body.input, input);
			assert.equal(ask.body.stream, true, 'sent in streamed form');
			return `${item.steps.length} steps (${item.steps.map((/** @type {any} */ s) => `${s.type} ${s.tool_name}`).join(', ')}); flagged, tools_used "${flagged.tools_used}"`;
		},
	},
];
