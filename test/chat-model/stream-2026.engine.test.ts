/**
 * The 2026 stream (docs/api.md#2026-stream-dialect) through the two ways an AI Agent uses the
 * assistant, in n8n's engine: the Assistant Tool (the Assistant node as the agent's tool) and the
 * Assistant Chat Model (invoked and streamed), against the captures of the live
 * service replayed byte for byte and split anywhere, and a run that failed: the whole answer,
 * each ask sent once, the request echo's private text nowhere; and the chat model's steps as
 * pydantic-ai 2 tells a tool's return, from a scripted server.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ECHO_PRIVATE_MARKER } from '../emulator/server';
import { assistantNode, emulatorCredential } from '../helpers/assistant';
import type { ConsumerOutput } from '../helpers/chat-model';
import { useEmulator } from '../helpers/emulatorFixture';
import type { RunResult } from '../helpers/engine';
import { conversationJson, serveScript, streamAnswer, turn } from '../helpers/scripted-server';
import {
	completed,
	echo,
	opening,
	textPart,
	toolCallPart,
	toolRound,
	type ToolCall,
} from '../helpers/stream-2026';
import { runAgent } from '../helpers/tool';

const TOKEN = 'tok_stream_2026_agents';
const assistant = useEmulator({ token: TOKEN });

const CAPTURES = path.resolve(__dirname, '..', 'fixtures', 'captures');
const TOOL_TYPE = 'n8n-nodes-assistant.assistantTool';

/** The capture's answer, read without the node's code: the last model response's text parts. */
function captureAnswer(name: string): string {
	const texts = new Map<string, string>();
	for (const line of fs.readFileSync(path.join(CAPTURES, `${name}.sse`), 'utf8').split('\n')) {
		if (!line.startsWith('data: ')) continue;
		const data = JSON.parse(line.slice(6));
		const zmid = String(data.metadata?.zmid);
		if (data.event_kind === 'part_start' && data.part.part_kind === 'text') {
			texts.set(zmid, (texts.get(zmid) ?? '') + data.part.content);
		}
		if (data.event_kind === 'part_delta' && data.delta.part_delta_kind === 'text') {
			texts.set(zmid, (texts.get(zmid) ?? '') + data.delta.content_delta);
		}
	}
	return [...texts.values()].join('\n\n');
}

function expectNoEcho(run: RunResult): void {
	const everything = JSON.stringify({ data: run.data, chunks: run.chunks, logs: run.logs });
	expect(everything).not.toContain(ECHO_PRIVATE_MARKER);
}

const consumerOutput = (run: RunResult) => run.outputs('Consumer')[0].json as ConsumerOutput;

const REPLAYS = [
	['2026-08-09-summarize', ''],
	['2026-08-09-research', '&split=random&seed=3'],
] as const;

describe('the Assistant Tool', () => {
	const TOOL_PARAMETERS: INodeParameters = {
		operation: 'ask',
		input: "={{ $fromAI('question', 'The question for the personal assistant', 'string') }}",
	};

	async function callTool(question: string) {
		const node = assistantNode(assistant.pkg, 'Personal Assistant', TOOL_PARAMETERS, {
			type: TOOL_TYPE,
		});
		return await runAgent(assistant.pkg, [node], [{ args: { question } }], {
			credentials: [assistant.credential],
			agentInput: { chatInput: 'Ask my assistant' },
		});
	}

	test.each(REPLAYS)('the capture %s%s replayed: the whole answer, once', async (name, split) => {
		const { run, agent } = await callTool(`Summarize #replay=${name}${split}`);
		expect(run.error()).toBeUndefined();
		const [step] = agent.steps;
		expect(step.error).toBeUndefined();
		const [answer] = JSON.parse(step.observation as string) as IDataObject[];
		expect(answer.output).toBe(captureAnswer(name));
		expect(answer.conversation_id).toMatch(/^con_/);
		expect(assistant.askRequests()).toHaveLength(1);
		expectNoEcho(run);
	});

	test("the failed capture reaches the agent as the service's words, once", async () => {
		const { run, agent } = await callTool('Hi #replay=2026-08-19-failed-unknown-model');
		expect(run.error()).toBeUndefined();
		const [step] = agent.steps;
		expect(step.error).toBe("The assistant's run failed: Unknown model: nonexistent-model-xyz");
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test('the 2026 dialect with a tool round: the answer, no echo', async () => {
		const { run, agent } = await callTool('What is new in my mail?');
		expect(run.error()).toBeUndefined();
		const [answer] = JSON.parse(agent.steps[0].observation as string) as IDataObject[];
		expect(String(answer.output)).toContain('You said: "What is new in my mail?"');
		expect(assistant.askRequests()).toHaveLength(1);
		expectNoEcho(run);
	});
});

describe('the Assistant Chat Model', () => {
	// Under an agent the ask carries output_format (docs/api.md#the-chat-models-transcript): a
	// captured text answer is no answer to it; the agent on the 2026 dialect is in the suites
	// the emulator's default dialect runs (chat-model.engine, transcript.engine).
	test.each(['invoke', 'stream'] as const)(
		'%s: the captures replayed give their whole answer, once each',
		async (scenario) => {
			for (const [name, split] of REPLAYS) {
				assistant.emulator.reset();
				const run = await assistant.chat(scenario, [
					{ role: 'user', content: `Summarize #replay=${name}${split}` },
				]);
				expect(run.error()).toBeUndefined();
				const output = consumerOutput(run);
				expect(output.text).toBe(captureAnswer(name));
				if (scenario === 'stream') expect(output.chunks.join('')).toBe(captureAnswer(name));
				expect(assistant.askRequests()).toHaveLength(1);
				expectNoEcho(run);
			}
		},
	);

	test.each(['invoke', 'stream'] as const)(
		"%s: the failed capture is the service's words, never 'incomplete', once",
		async (scenario) => {
			const run = await assistant.chat(scenario, [
				{ role: 'user', content: 'Hi #replay=2026-08-19-failed-unknown-model' },
			]);
			const error = run.error() as { message?: string } | undefined;
			expect(error?.message).toContain('Unknown model: nonexistent-model-xyz');
			expect(error?.message).not.toMatch(/ended before the answer was complete/);
			expect(assistant.askRequests()).toHaveLength(1);
		},
	);

	test('the 2026 dialect: the answer, its steps in the metadata, no echo', async () => {
		const run = await assistant.chat('invoke', [
			{ role: 'user', content: 'What is new in my mail?' },
		]);
		expect(run.error()).toBeUndefined();
		const output = consumerOutput(run);
		expect(output.text).toContain('You said:');
		expect(JSON.stringify(output.metadata)).toContain('"outcome":"success"');
		expectNoEcho(run);
	});

	test('invoke: pydantic-ai 2’s FunctionToolResultEvent (the return under `part`): the result in the message’s steps', async () => {
		const call: ToolCall = { name: 'bash', id: 'call_1', args: '{"cmd": "ls"}' };
		const body =
			opening() +
			toolCallPart(0, call, 'z1') +
			toolRound(call, 'a.txt', 'z1', { field: 'part' }) +
			echo() +
			textPart(0, 'There is one file.', 'z2') +
			completed();
		const server = await serveScript(
			(response) => streamAnswer(response, 'con_ChatSteps2026xx1', body),
			(response) => conversationJson(response, 'idle', []),
		);
		try {
			const run = await assistant.chat(
				'invoke',
				[{ role: 'user', content: 'Files?' }],
				{},
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(run.error()).toBeUndefined();
			const output = consumerOutput(run);
			expect(output.text).toBe('There is one file.');
			expect((output.metadata as { steps?: unknown[] }).steps).toEqual([
				{ type: 'tool_call', tool_name: 'bash', args: { cmd: 'ls' }, tool_call_id: 'call_1' },
				{
					type: 'tool_result',
					tool_name: 'bash',
					tool_call_id: 'call_1',
					content: 'a.txt',
					outcome: 'success',
				},
			]);
			expect(server.asks).toHaveLength(1);
			expectNoEcho(run);
		} finally {
			await server.close();
		}
	});

	test('invoke: a text delta whose data cannot be read: the answer read from the conversation, asked once (docs/api.md#how-a-stream-ends)', async () => {
		const answer = 'The meeting moved to Friday.';
		const body =
			opening() +
			textPart(0, 'The meeting', 'z1') +
			// Its JSON cut short: the words it carried are not known.
			'event: PartDeltaEvent\ndata: {"delta": {"content_delta": " moved to\n\n' +
			textPart(1, ' Friday.', 'z1') +
			completed();
		let asked = '';
		const server = await serveScript(
			(response, _n, request) => {
				asked = request?.input ?? '';
				streamAnswer(response, 'con_ChatUnread2026x1', body);
			},
			(response) => conversationJson(response, 'idle', turn(asked, answer)),
		);
		try {
			const run = await assistant.chat(
				'invoke',
				[{ role: 'user', content: 'When is the meeting?' }],
				{},
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(run.error()).toBeUndefined();
			expect(consumerOutput(run).text).toBe(answer);
			expect(server.asks).toHaveLength(1);
			expect(server.paths).toContain('GET /conversations/con_ChatUnread2026x1');
		} finally {
			await server.close();
		}
	});
});
