/**
 * A server that echoes the access token in a tool call's arguments (one character as `\u005a`)
 * and a tool's result, in an unknown event's name, and in the model fallback header
 * (docs/security.md). With the built package in n8n-core's engine: the token, whole or cut, in
 * any letter case, is in no output item, step, error, log line, streamed chunk, nor the Assistant
 * Chat Model's run (its Logs panel).
 */
import http from 'node:http';

import type { INodeParameters } from 'n8n-workflow';

import {
	assistantPackage,
	emulatorCredential,
	everythingShown,
	askOnceContinuing,
} from '../helpers/assistant';
import { runChatModel } from '../helpers/chat-model';
import { serveNamedAsks } from '../helpers/scripted-server';

const TOKEN = 'Zo_Sk_Steps-Token-Q8w3Er7T';

function event(name: string, data: unknown): string {
	return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

const textPart = (content: string, zmid = 'm1') =>
	event('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { part_kind: 'text', content },
		metadata: { zmid },
	});

const toolCall = {
	part_kind: 'tool-call',
	tool_name: 'bash',
	tool_call_id: 'call_1',
};

const ASKS: Record<string, (response: http.ServerResponse) => void> = {
	stepsToken(response) {
		response.writeHead(200, { 'Content-Type': 'text/event-stream', 'x-conversation-id': 'con_t1' });
		response.end(
			event('PartStartEvent', {
				event_kind: 'part_start',
				index: 0,
				part: { ...toolCall, args: '' },
				metadata: { zmid: 'm1' },
			}) +
				event('FunctionToolCallEvent', {
					event_kind: 'function_tool_call',
					part: { ...toolCall, args: JSON.stringify({ cmd: `echo \\u005a${TOKEN.slice(1)}` }) },
				}) +
				event('FunctionToolResultEvent', {
					event_kind: 'function_tool_result',
					result: {
						part_kind: 'tool-return',
						tool_name: 'bash',
						tool_call_id: 'call_1',
						outcome: 'success',
						content: { returncode: 0, stderr: '', stdout: `AUTH=${TOKEN}\n` },
					},
				}) +
				textPart('Done', 'm2') +
				event('completed', { status: 'succeeded' }),
		);
	},
	/** No end; the conversation read then does not show the ask. */
	unknownEventToken(response) {
		response.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'x-conversation-id': 'con_unknown1',
		});
		response.end(event(`Ended_${TOKEN}`, {}) + textPart('Partial'));
	},
	fallbackHeaderToken(response) {
		response.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'x-conversation-id': 'con_fb1',
			'X-Model-Fallback': `model-${TOKEN}`,
		});
		response.end(textPart('Hello') + event('completed', { status: 'succeeded' }));
	},
};

let server: { origin: string; close(): Promise<void> };
let origin = '';

beforeAll(async () => {
	// A conversation read shows another ask's turn: the asks here are never found there.
	server = await serveNamedAsks(ASKS, (url, response) => {
		if (!url.includes('/conversations/')) return false;
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(
			JSON.stringify({
				state: 'idle',
				messages: [
					{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: 'other' }] },
					{ kind: 'response', parts: [{ part_kind: 'text', content: 'other answer' }] },
				],
			}),
		);
		return true;
	});
	origin = server.origin;
});

afterAll(async () => await server.close());

const credential = () => emulatorCredential(`${origin}/api`, TOKEN);

/** Neither the token's beginning nor its end, in any letter case. */
function expectNoToken(shown: string): void {
	expect(shown.toLowerCase()).not.toContain(TOKEN.toLowerCase().slice(0, 8));
	expect(shown.toLowerCase()).not.toContain(TOKEN.toLowerCase().slice(-8));
}

async function ask(input: string, extra: INodeParameters = {}) {
	return await askOnceContinuing(credential(), input, extra);
}

test.each([false, true])(
	'a tool call’s arguments and a tool’s result that hold the token (Include Steps, Stream %s): redacted in the steps',
	async (stream) => {
		const run = await ask('#stepsToken#', { includeSteps: true, stream });
		const [item] = run.outputs('Assistant');
		expect(item.json.output).toBe('Done');
		expect(JSON.stringify(item.json.steps)).toContain('[redacted');
		expectNoToken(everythingShown(run));
	},
);

test('an unknown event named with the token, then a conversation that does not show the ask: the item fails without it', async () => {
	const run = await ask('#unknownEventToken#');
	expect(run.outputs('Assistant')[0].json.error).toBeDefined();
	expectNoToken(everythingShown(run));
});

test.each(['stream', 'invoke'] as const)(
	'the Assistant Chat Model (%s): a fallback header with the token is in no log line nor the Logs panel',
	async (scenario) => {
		const pkg = await assistantPackage();
		const run = await runChatModel(
			pkg,
			scenario,
			[{ role: 'user', content: '#fallbackHeaderToken#' }],
			{},
			{ credentials: [credential()] },
		);
		expect(run.error()).toBeUndefined();
		expectNoToken(everythingShown(run));
	},
);
