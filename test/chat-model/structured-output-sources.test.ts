/**
 * The chat model's structured output and tool calling (output_format) read from each source of
 * a 2026 stream (docs/api.md#structured-output-in-a-stream) a scripted server replays, through
 * the real engine.
 */
import type { INodeParameters } from 'n8n-workflow';

import { assistantPackage, emulatorCredential } from '../helpers/assistant';
import {
	runChatModel,
	toolEnvelope,
	type ConsumerOutput,
	type Scenario,
} from '../helpers/chat-model';
import { refuseRead, serveScript, sse, streamAnswer } from '../helpers/scripted-server';
import { partStart } from '../helpers/stream-2026';

const TOKEN = 'tok_structured_sources_chat';
const COMPLETED = sse('completed', { status: 'succeeded', error: null });
const meta = (zmid: string) => ({ zmid, runner_id: 'r-1' });
const argsDelta = (index: number, args: string, zmid = 'z1') =>
	sse('PartDeltaEvent', {
		delta: {
			args_delta: args,
			part_delta_kind: 'tool_call',
			tool_call_id: 'call_f',
			tool_name_delta: null,
		},
		event_kind: 'part_delta',
		index,
		metadata: meta(zmid),
	});
const call = (args: string, id = 'call_f') => ({
	part_kind: 'tool-call',
	tool_name: 'final_result',
	tool_call_id: id,
	args,
});
const CALC = toolEnvelope({ tool_arguments_json: '{"input":"6 * 7"}' });
const FINAL = toolEnvelope({ action: 'final_answer', final_answer: 'It is 42.' });
const GUESS = toolEnvelope({ action: 'final_answer', final_answer: 'I guess 41.' });

async function run(
	scenario: Scenario,
	bodies: string[],
	parameters: INodeParameters = {},
	user = 'What is 6 * 7?',
) {
	const server = await serveScript(
		(response, n) =>
			streamAnswer(response, 'con_ReviewR3Chat0001', bodies[Math.min(n, bodies.length) - 1]),
		// The conversation read is refused (as the live service answered one kind of token).
		refuseRead,
	);
	try {
		const result = await runChatModel(
			await assistantPackage(),
			scenario,
			[{ role: 'user', content: user }],
			parameters,
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
		);
		return { result, asks: server.asks.length };
	} finally {
		await server.close();
	}
}

const output = (result: Awaited<ReturnType<typeof run>>['result']) =>
	result.outputs('Consumer')[0].json as ConsumerOutput;

const schema = {
	type: 'object',
	properties: { summary: { type: 'string' }, count: { type: 'number' } },
	required: ['summary', 'count'],
};
const responseFormat = { responseFormat: 'jsonSchema', jsonSchema: JSON.stringify(schema) };
const A = { summary: 'apples', count: 42 };

test('agent: the envelope as final_result args grown through args_delta: tool runs, then the answer', async () => {
	const grown = (text: string) =>
		partStart(0, call(''), 'z1') +
		[text.slice(0, 7), text.slice(7, 40), text.slice(40, 41), text.slice(41)]
			.map((p) => argsDelta(0, p))
			.join('') +
		COMPLETED;
	const { result, asks } = await run('agent', [grown(CALC), grown(FINAL)]);
	expect(result.error()).toBeUndefined();
	expect(output(result).toolCalls.map((c) => c.result)).toEqual(['42']);
	expect(output(result).text).toBe('It is 42.');
	expect(asks).toBe(2);
});

test('Response Format, stream: the object goes out once, whole', async () => {
	const text = JSON.stringify(A);
	const body =
		partStart(0, call(''), 'z1') +
		argsDelta(0, text.slice(0, 9)) +
		argsDelta(0, text.slice(9)) +
		COMPLETED;
	const { result } = await run('stream', [body], responseFormat);
	expect(result.error()).toBeUndefined();
	const out = output(result);
	expect(JSON.parse(out.text)).toEqual(A);
	expect(out.chunks.join('')).toBe(out.text);
});

test('agentStream: no envelope JSON reaches the streamed chunks', async () => {
	const { result } = await run('agentStream', [
		partStart(0, call(CALC), 'z1') + COMPLETED,
		partStart(0, call(FINAL), 'z1') + COMPLETED,
	]);
	expect(result.error()).toBeUndefined();
	const out = output(result);
	expect(out.text).toBe('It is 42.');
	expect(out.chunks.join('')).not.toContain('final_answer');
	expect(out.chunks.join('')).not.toContain('call_tool');
});

test('agent: the envelope as final_result in a snapshot (FrontendModelResponse parts): the tool runs', async () => {
	const snap = (args: string) =>
		sse('FrontendModelResponse', { parts: [call(args)] }) + sse('End', {});
	const { result } = await run('agent', [snap(CALC), snap(FINAL)]);
	expect(result.error()).toBeUndefined();
	expect(output(result).toolCalls.map((c) => c.result)).toEqual(['42']);
	expect(output(result).text).toBe('It is 42.');
});

test('agent: two final_result calls, the second "not used" by the framework: the first (the tool call) is the reply', async () => {
	const second = call(GUESS, 'call_2');
	const twoCalls =
		partStart(0, call(CALC, 'call_1'), 'z1') +
		partStart(1, second, 'z1') +
		sse('FinalResultEvent', {
			event_kind: 'final_result',
			tool_name: 'final_result',
			tool_call_id: 'call_1',
		}) +
		sse('FunctionToolCallEvent', {
			args_valid: null,
			event_kind: 'function_tool_call',
			part: second,
			metadata: meta('z1'),
		}) +
		sse('FunctionToolResultEvent', {
			event_kind: 'function_tool_result',
			result: {
				part_kind: 'tool-return',
				tool_name: 'final_result',
				tool_call_id: 'call_2',
				content: 'Output tool not used - a final result was already processed.',
			},
			metadata: meta('z1'),
		}) +
		COMPLETED;
	const { result } = await run('agent', [twoCalls, partStart(0, call(FINAL), 'z1') + COMPLETED]);
	expect(result.error()).toBeUndefined();
	expect(output(result).toolCalls.map((c) => c.result)).toEqual(['42']);
	expect(output(result).text).toBe('It is 42.');
});

test('Response Format: a stray "{" in prose before the object: the object is the answer', async () => {
	const body =
		partStart(
			0,
			{
				part_kind: 'text',
				content: `Objects open with { and close later. Here: ${JSON.stringify(A)}`,
			},
			'z1',
		) + COMPLETED;
	const { result } = await run('invoke', [body], responseFormat);
	expect(result.error()).toBeUndefined();
	expect(JSON.parse(output(result).text)).toEqual(A);
});
