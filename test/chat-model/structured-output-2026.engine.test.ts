/**
 * The Assistant Chat Model's tool calling and Response Format over `output_format` on the 2026
 * stream, as pydantic-ai's output modes would tell the reply (docs/api.md#structured-output-in-a-stream):
 * ToolOutput (`final_result`, `final_result_<Name>`; arguments whole, as an object, grown through
 * `args_delta` text or object pieces; a call that fails validation answered by a next response; a
 * function tool round first; a text part beside it) and NativeOutput or PromptedOutput (the reply
 * as the last response's text, fenced, after thinking). Through the real engine against a
 * scripted server: the AI Agent's tool runs once with the arguments the service produced, the
 * final answer is the service's, each ask is sent once, the request echo is nowhere.
 */
import type { INodeParameters } from 'n8n-workflow';

import { ECHO_PRIVATE_MARKER } from '../emulator/frames2026';
import { assistantPackage, emulatorCredential, everythingShown } from '../helpers/assistant';
import { runChatModel, type ConsumerOutput, type Scenario } from '../helpers/chat-model';
import { refuseRead, serveScript, sse, streamAnswer } from '../helpers/scripted-server';
import {
	completed,
	opening,
	partStart,
	textPart,
	toolRound,
	type ToolCall,
} from '../helpers/stream-2026';

const TOKEN = 'tok_structured_2026_chat';
const metadata = (zmid: string) => ({ zmid, runner_id: 'r-2026' });
const toolDelta = (index: number, zmid: string, args: unknown, nameDelta: string | null = null) =>
	sse('PartDeltaEvent', {
		delta: {
			args_delta: args,
			part_delta_kind: 'tool_call',
			tool_call_id: 'call_f',
			tool_name_delta: nameDelta,
		},
		event_kind: 'part_delta',
		index,
		metadata: metadata(zmid),
	});
const callPart = (name: string, args: unknown, id = 'call_f') => ({
	args,
	part_kind: 'tool-call',
	tool_call_id: id,
	tool_name: name,
});
const outputRetryRound = (args: string, zmid: string) =>
	sse('FunctionToolCallEvent', {
		args_valid: false,
		event_kind: 'function_tool_call',
		part: callPart('final_result', args, 'c1'),
		metadata: metadata(zmid),
	}) +
	sse('FunctionToolResultEvent', {
		content: null,
		event_kind: 'function_tool_result',
		result: {
			content: [{ type: 'missing', loc: ['action'], msg: 'Field required', input: {} }],
			part_kind: 'retry-prompt',
			tool_call_id: 'c1',
			tool_name: 'final_result',
		},
		metadata: metadata(zmid),
	});

const envelope = (fields: Record<string, unknown>) => ({
	action: 'call_tool',
	final_answer: '',
	tool_name: 'calculator',
	tool_arguments_json: '{"input":"6 * 7"}',
	...fields,
});
const CALC = envelope({});
const FINAL = envelope({
	action: 'final_answer',
	final_answer: 'It is 42 \u2014 \u201cexactly\u201d.',
});
/** A reply the framework did not take: never run, never the answer. */
const OTHER = envelope({ tool_arguments_json: '{"input":"1 + 1"}' });
const bash: ToolCall = { name: 'bash', id: 'call_bash', args: '{"cmd": "date"}' };

/** Each shape tells `reply` as pydantic-ai would; the answer after the tool is always FINAL. */
const SHAPES: Array<[string, (reply: Record<string, unknown>) => string]> = [
	[
		'final_result args as JSON text in the start',
		(reply) => opening() + partStart(0, callPart('final_result', JSON.stringify(reply)), 'z1'),
	],
	[
		'final_result args as an object in the start',
		(reply) => opening() + partStart(0, callPart('final_result', reply), 'z1'),
	],
	[
		'args grown through args_delta text',
		(reply) =>
			opening() +
			partStart(0, callPart('final_result', ''), 'z1') +
			JSON.stringify(reply)
				.match(/[\s\S]{1,4}/g)!
				.map((piece) => toolDelta(0, 'z1', piece))
				.join(''),
	],
	[
		'args grown through args_delta objects',
		(reply) =>
			opening() +
			partStart(0, callPart('final_result', null), 'z1') +
			Object.entries(reply)
				.map(([key, value]) => toolDelta(0, 'z1', { [key]: value }))
				.join(''),
	],
	[
		'final_result_<Name>, the name grown through tool_name_delta',
		(reply) =>
			opening() +
			partStart(0, callPart('final_result', ''), 'z1') +
			toolDelta(0, 'z1', JSON.stringify(reply), '_Envelope'),
	],
	[
		'a call that failed validation, retried in the next response',
		(reply) => {
			const bad = JSON.stringify({ tool_name: 'calculator' });
			return (
				opening() +
				partStart(0, callPart('final_result', bad, 'c1'), 'z1') +
				outputRetryRound(bad, 'z1') +
				partStart(0, callPart('final_result', JSON.stringify(reply), 'c2'), 'z2')
			);
		},
	],
	[
		'after a function tool round of the assistant’s own',
		(reply) =>
			opening() +
			partStart(0, callPart('bash', bash.args, bash.id), 'z1') +
			toolRound(bash, 'Mon', 'z1') +
			partStart(0, callPart('final_result', JSON.stringify(reply)), 'z2'),
	],
	[
		'beside a text part quoting another reply',
		(reply) =>
			opening() +
			textPart(0, `A page said ${JSON.stringify(OTHER)}.`, 'z1') +
			partStart(1, callPart('final_result', JSON.stringify(reply)), 'z1'),
	],
	[
		'NativeOutput: the text is the reply',
		(reply) => opening() + textPart(0, JSON.stringify(reply), 'z1'),
	],
	[
		'PromptedOutput: the reply fenced, after thinking',
		(reply) =>
			opening() +
			partStart(0, { part_kind: 'thinking', content: `Maybe ${JSON.stringify(OTHER)}` }, 'z1') +
			textPart(1, '```json\n' + JSON.stringify(reply, null, 2) + '\n```', 'z1'),
	],
];

async function run(scenario: Scenario, bodies: string[], parameters: INodeParameters = {}) {
	const server = await serveScript(
		(response, n) => streamAnswer(response, 'con_Structured2026Chat', bodies[n - 1] ?? ''),
		refuseRead,
	);
	try {
		const result = await runChatModel(
			await assistantPackage(),
			scenario,
			[{ role: 'user', content: 'What is 6 * 7?' }],
			parameters,
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
		);
		return { result, paths: server.paths };
	} finally {
		await server.close();
	}
}

describe.each<[Scenario]>([['agent'], ['agentStream']])('%s', (scenario) => {
	test.each(SHAPES)('%s: the tool runs once, then the final answer', async (_label, tell) => {
		const { result, paths } = await run(scenario, [
			tell(CALC) + completed(),
			tell(FINAL) + completed(),
		]);
		expect(result.error()).toBeUndefined();
		const out = result.outputs('Consumer')[0].json as ConsumerOutput;
		expect(out.toolCalls.map((call) => [call.name, call.args, call.result])).toEqual([
			['calculator', { input: '6 * 7' }, '42'],
		]);
		expect(out.text).toBe(FINAL.final_answer);
		if (scenario === 'agentStream') expect(out.chunks.join('')).toBe(FINAL.final_answer);
		// One ask per model call, no correction, no conversation read.
		expect(paths).toEqual(['POST /assistant/ask', 'POST /assistant/ask']);
		expect(everythingShown(result)).not.toContain(ECHO_PRIVATE_MARKER);
	});
});

const SCHEMA = {
	type: 'object',
	properties: { answer: { type: 'number' }, unit: { type: 'string' } },
	required: ['answer', 'unit'],
};
const OBJECT = { answer: 42, unit: '\u00b0C "deg"' };

describe.each<[Scenario]>([['invoke'], ['stream']])('Response Format, %s', (scenario) => {
	test.each(SHAPES)('%s: the object', async (_label, tell) => {
		const { result, paths } = await run(scenario, [tell(OBJECT) + completed()], {
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(SCHEMA),
		});
		expect(result.error()).toBeUndefined();
		const out = result.outputs('Consumer')[0].json as ConsumerOutput;
		expect(JSON.parse(out.text)).toEqual(OBJECT);
		if (scenario === 'stream') expect(out.chunks.join('')).toBe(out.text);
		expect(paths).toEqual(['POST /assistant/ask']);
		expect(everythingShown(result)).not.toContain(ECHO_PRIVATE_MARKER);
	});
});
