/**
 * Ask's steps in the 2026 stream as pydantic-ai may tell them beyond the captures, sent by a
 * scripted server through the built node, Stream off and on (docs/api.md#steps): tool call ids
 * that restart in each model response (told by Part events, or by one snapshot a message in the
 * live dialect), the tool's return under `part` (pydantic-ai 1.93 and 2.x),
 * the output tool's own events (pydantic-ai 1.93 and 2.x) on a JSON Schema answer.
 */
import type { IDataObject } from 'n8n-workflow';

import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { conversationJson, serveScript, sse, streamAnswer } from '../helpers/scripted-server';
import {
	completed,
	echo,
	opening,
	outputToolRound,
	textPart,
	toolCallPart,
	toolRound,
	type ToolCall,
} from '../helpers/stream-2026';

const TOKEN = 'tok_steps_2026_suite';
const assistant = useEmulator({ token: TOKEN });

/** Ask against a server that streams `body`: the run, and how many asks it sent. */
async function ask(body: string, parameters: IDataObject, stream: boolean) {
	const server = await serveScript(
		(response) => streamAnswer(response, 'con_Steps2026Suite01', body),
		(response) => conversationJson(response, 'idle', []),
	);
	try {
		const run = await assistant.run(parameters, {
			credentials: [emulatorCredential(server.baseUrl, TOKEN)],
			streaming: stream,
		});
		return { run, asks: server.asks.length };
	} finally {
		await server.close();
	}
}

const stepsOf = (json: IDataObject) =>
	(json.steps as Array<Record<string, unknown>>).map((step) => [
		step.type,
		step.tool_name,
		step.tool_call_id,
		step.type === 'tool_call' ? step.args : step.content,
		step.outcome,
	]);

describe.each([false, true])('Stream %s, Include Steps on', (stream) => {
	const parameters = { input: 'Hi', options: { stream, includeSteps: true, retries: 0 } };

	/**
	 * Kimi models served by OpenAI-compatible providers (Fireworks, vLLM) number a response's
	 * tool calls `{tool_name}:{position}`, from 0 in every response, and pydantic-ai keeps the
	 * provider's id: two rounds of `bash` both call `bash:0`.
	 */
	test('tool call ids that restart in each model response (bash:0 twice): each call and its result, in order', async () => {
		const round = (zmid: string, cmd: string, out: string) => {
			const call: ToolCall = { name: 'bash', id: 'bash:0', args: JSON.stringify({ cmd }) };
			return toolCallPart(0, call, zmid) + toolRound(call, out, zmid) + echo();
		};
		const body =
			opening() +
			round('z1', 'ls', 'notes.md') +
			round('z2', 'cat notes.md', 'Buy milk') +
			textPart(0, 'Your note says: Buy milk.', 'z3') +
			completed();
		const { run, asks } = await ask(body, parameters, stream);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toBe('Your note says: Buy milk.');
		expect(stepsOf(run.json)).toEqual([
			['tool_call', 'bash', 'bash:0', { cmd: 'ls' }, undefined],
			['tool_result', 'bash', 'bash:0', 'notes.md', 'success'],
			['tool_call', 'bash', 'bash:0', { cmd: 'cat notes.md' }, undefined],
			['tool_result', 'bash', 'bash:0', 'Buy milk', 'success'],
		]);
		expect(asks).toBe(1);
	});

	/**
	 * The same ids when each model message comes as one snapshot once it is complete
	 * (docs/api.md#live-stream-dialect), its tool events after it: the second message's snapshot
	 * (thinking and a `bash:0` call, as the first's) is not the first told again, because the
	 * first's `bash:0` ran with other arguments (docs/api.md#assembling-the-answer, 3). Read as
	 * the first told again, the second call overwrote the first: `ls` was lost and `cat
	 * notes.md` shown twice.
	 */
	test('snapshots once per message, a tool round each, ids that restart (bash:0): each call and result once', async () => {
		const bash = (cmd: string) => ({
			part_kind: 'tool-call',
			tool_name: 'bash',
			args: JSON.stringify({ cmd }),
			tool_call_id: 'bash:0',
		});
		const returned = (content: string) => ({
			part_kind: 'tool-return',
			tool_name: 'bash',
			content,
			tool_call_id: 'bash:0',
		});
		const round = (thought: string, cmd: string, out: string) =>
			sse('FrontendModelResponse', {
				parts: [{ part_kind: 'thinking', content: thought }, bash(cmd)],
			}) +
			sse('FunctionToolCallEvent', { part: bash(cmd) }) +
			sse('FunctionToolResultEvent', { result: returned(out) });
		const body =
			round('Let me list the files.', 'ls', 'notes.md') +
			round('Now read the note.', 'cat notes.md', 'Buy milk') +
			sse('FrontendModelResponse', {
				parts: [{ part_kind: 'text', content: 'Your note says: Buy milk.' }],
			}) +
			sse('End', { data: { conversation_id: 'con_Steps2026Suite01' } });
		const { run, asks } = await ask(body, parameters, stream);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toBe('Your note says: Buy milk.');
		expect(stepsOf(run.json)).toEqual([
			['tool_call', 'bash', 'bash:0', { cmd: 'ls' }, undefined],
			['tool_result', 'bash', 'bash:0', 'notes.md', undefined],
			['tool_call', 'bash', 'bash:0', { cmd: 'cat notes.md' }, undefined],
			['tool_result', 'bash', 'bash:0', 'Buy milk', undefined],
		]);
		expect(asks).toBe(1);
	});

	test('pydantic-ai 2’s FunctionToolResultEvent (the return under `part`): the result step, its outcome as sent', async () => {
		const call: ToolCall = { name: 'bash', id: 'call_1', args: '{"cmd": "cat a.txt"}' };
		const failed = { returncode: 1, stderr: 'No such file', stdout: '' };
		const body =
			opening() +
			toolCallPart(0, call, 'z1') +
			toolRound(call, failed, 'z1', { field: 'part', outcome: 'failed' }) +
			echo() +
			textPart(0, 'There is no a.txt.', 'z2') +
			completed();
		const { run, asks } = await ask(body, parameters, stream);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toBe('There is no a.txt.');
		expect(stepsOf(run.json)).toEqual([
			['tool_call', 'bash', 'call_1', { cmd: 'cat a.txt' }, undefined],
			['tool_result', 'bash', 'call_1', failed, 'failed'],
		]);
		expect(asks).toBe(1);
	});

	test('a JSON Schema answer followed by pydantic-ai 2’s output tool events: the object, no step, no warning', async () => {
		const schema = {
			type: 'object',
			properties: { summary: { type: 'string' } },
			required: ['summary'],
		};
		const output: ToolCall = {
			name: 'final_result',
			id: 'call_f',
			args: '{"summary": "One file."}',
		};
		const body =
			opening() + toolCallPart(0, output, 'z1') + outputToolRound(output, 'z1') + completed();
		const { run, asks } = await ask(
			body,
			{ ...parameters, responseFormat: 'jsonSchema', jsonSchema: JSON.stringify(schema) },
			stream,
		);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual({ summary: 'One file.' });
		expect(run.json.steps).toEqual([]);
		expect(run.logs.filter((line) => line.includes('does not know'))).toEqual([]);
		expect(asks).toBe(1);
	});
});
