/**
 * Ask with a JSON Schema on the 2026 stream, as pydantic-ai's output modes would tell the object
 * (docs/api.md#structured-output-in-a-stream): ToolOutput (`final_result`, `final_result_<Name>`;
 * arguments whole, as an object, grown through `args_delta` text or object pieces; a call that
 * fails validation answered by a next response; a function tool round first; a text part beside
 * it), NativeOutput and PromptedOutput (the object as the response's text, fenced, after
 * thinking). Each through the real engine and the built node against a scripted server: the
 * object is exactly the one the service produced, the ask is sent once, Include Steps shows no
 * output-tool step, the request echo is nowhere, and a stream without an object fails the item.
 */
import type { IDataObject } from 'n8n-workflow';

import { ECHO_PRIVATE_MARKER } from '../emulator/frames2026';
import { assistantNode, emulatorCredential, everythingShown } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { refuseRead, serveScript, sse, streamAnswer } from '../helpers/scripted-server';
import {
	completed,
	opening,
	partStart,
	textPart,
	toolRound,
	type ToolCall,
} from '../helpers/stream-2026';
import { runAgent } from '../helpers/tool';

const TOKEN = 'tok_structured_2026_engine';
const assistant = useEmulator({ token: TOKEN });

const SCHEMA = {
	type: 'object',
	properties: {
		title: { type: 'string' },
		count: { type: 'number' },
		tags: { type: 'array', items: { type: 'string' } },
	},
	required: ['title', 'count', 'tags'],
};
const RUNNER = 'r-2026';
const metadata = (zmid: string) => ({ zmid, runner_id: RUNNER });

const toolDelta = (
	index: number,
	zmid: string,
	id: string,
	args: unknown,
	nameDelta: string | null = null,
) =>
	sse('PartDeltaEvent', {
		delta: {
			args_delta: args,
			part_delta_kind: 'tool_call',
			provider_details: null,
			provider_name: null,
			tool_call_id: id,
			tool_name_delta: nameDelta,
		},
		event_kind: 'part_delta',
		index,
		metadata: metadata(zmid),
	});
const thinkingPart = (index: number, text: string, zmid: string) =>
	partStart(index, { part_kind: 'thinking', content: text, signature: null }, zmid);
const callPart = (name: string, args: unknown, id: string) => ({
	args,
	part_kind: 'tool-call',
	tool_call_id: id,
	tool_name: name,
});
/** pydantic-ai before 1.93: the output call that failed validation and its retry prompt. */
const outputRetryRound = (name: string, args: string, id: string, zmid: string) =>
	sse('FunctionToolCallEvent', {
		args_valid: false,
		event_kind: 'function_tool_call',
		part: callPart(name, args, id),
		metadata: metadata(zmid),
	}) +
	sse('FunctionToolResultEvent', {
		content: null,
		event_kind: 'function_tool_result',
		result: {
			content: [{ type: 'missing', loc: ['tags'], msg: 'Field required', input: {} }],
			part_kind: 'retry-prompt',
			tool_call_id: id,
			tool_name: name,
			timestamp: '2026-09-20T10:00:00Z',
		},
		metadata: metadata(zmid),
	});

/** The object the service produced, with unicode and escapes in it. */
const ANSWER = {
	title: 'Caf\u00e9 \u201cQ3\u201d \\ report \ud83d\ude00\n"quoted"',
	count: 3,
	tags: ['a/b', '\u00fcber', '<tag>'],
};
const ANSWER_JSON = JSON.stringify(ANSWER);
/** An earlier, different object (one a retried call or a tool round made no answer). */
const EARLIER = { title: 'draft', count: 0, tags: [] as string[] };

async function serve(body: string) {
	return await serveScript(
		(response) => streamAnswer(response, 'con_Structured2026Eng', body),
		// The conversation is never the answer's source here: a read is refused.
		refuseRead,
	);
}

async function ask(body: string, options: Record<string, unknown>) {
	const server = await serve(body);
	try {
		const run = await assistant.run(
			{
				input: 'Summarize my week',
				responseFormat: 'jsonSchema',
				jsonSchema: JSON.stringify(SCHEMA),
				options: { retries: 0, ...options },
			},
			{
				credentials: [emulatorCredential(server.baseUrl, TOKEN)],
				streaming: options.stream === true,
			},
		);
		return { run, paths: server.paths };
	} finally {
		await server.close();
	}
}

const MODES: Array<[string, Record<string, unknown>]> = [
	['Stream off', { stream: false }],
	['Stream on', { stream: true }],
	['Include Steps', { stream: true, includeSteps: true, includeThinking: true }],
];

const bash: ToolCall = { name: 'bash', id: 'call_bash', args: '{"cmd": "ls notes"}' };

/** Each shape: its stream, and the steps Include Steps shows (never the output tool). */
const SHAPES: Array<[string, string, Array<Record<string, unknown>>]> = [
	[
		'ToolOutput: final_result args as one JSON string in the start',
		opening() + partStart(0, callPart('final_result', ANSWER_JSON, 'call_f'), 'z1') + completed(),
		[],
	],
	[
		'ToolOutput: final_result args as an object in the start',
		opening() + partStart(0, callPart('final_result', ANSWER, 'call_f'), 'z1') + completed(),
		[],
	],
	[
		'ToolOutput: args grown through args_delta text, a character of a surrogate pair apart',
		opening() +
			partStart(0, callPart('final_result', '', 'call_f'), 'z1') +
			ANSWER_JSON.match(/[\s\S]{1,3}/g)!
				.map((piece) => toolDelta(0, 'z1', 'call_f', piece))
				.join('') +
			completed(),
		[],
	],
	[
		'ToolOutput: args grown through args_delta objects (fields merged)',
		opening() +
			partStart(0, callPart('final_result', null, 'call_f'), 'z1') +
			toolDelta(0, 'z1', 'call_f', { title: ANSWER.title }) +
			toolDelta(0, 'z1', 'call_f', { count: ANSWER.count, tags: ANSWER.tags }) +
			completed(),
		[],
	],
	[
		'ToolOutput of several types: final_result_<Name>, the name grown through tool_name_delta',
		opening() +
			partStart(0, callPart('final_result', '', 'call_f'), 'z1') +
			toolDelta(0, 'z1', 'call_f', ANSWER_JSON.slice(0, 20), '_Weekly') +
			toolDelta(0, 'z1', 'call_f', ANSWER_JSON.slice(20), 'Report') +
			completed(),
		[],
	],
	[
		'ToolOutput: a call that fails validation, retried in the next response (indexes restart)',
		opening() +
			thinkingPart(0, 'Draft first.', 'z1') +
			partStart(
				1,
				callPart('final_result', JSON.stringify({ title: 'draft', count: 0 }), 'c1'),
				'z1',
			) +
			outputRetryRound('final_result', JSON.stringify({ title: 'draft', count: 0 }), 'c1', 'z1') +
			partStart(0, callPart('final_result', '', 'c2'), 'z2') +
			toolDelta(0, 'z2', 'c2', ANSWER_JSON.slice(0, 30)) +
			toolDelta(0, 'z2', 'c2', ANSWER_JSON.slice(30)) +
			completed(),
		[{ type: 'thinking', content: 'Draft first.' }],
	],
	[
		'ToolOutput: a call that fails validation (pydantic-ai 1.93 events), retried',
		opening() +
			partStart(0, callPart('final_result', JSON.stringify(EARLIER), 'c1'), 'z1') +
			sse('OutputToolCallEvent', {
				args_valid: false,
				event_kind: 'output_tool_call',
				part: callPart('final_result', JSON.stringify(EARLIER), 'c1'),
				metadata: metadata('z1'),
			}) +
			sse('OutputToolResultEvent', {
				event_kind: 'output_tool_result',
				part: { part_kind: 'retry-prompt', content: 'bad', tool_name: 'final_result' },
				metadata: metadata('z1'),
			}) +
			partStart(0, callPart('final_result', ANSWER_JSON, 'c2'), 'z2') +
			completed(),
		[],
	],
	[
		'ToolOutput after a function tool round; the first response wrote an object as text',
		opening() +
			textPart(0, `Looking first: ${JSON.stringify(EARLIER)}`, 'z1') +
			partStart(1, callPart('bash', bash.args, bash.id), 'z1') +
			toolRound(bash, 'notes.md', 'z1') +
			partStart(0, callPart('final_result', ANSWER_JSON, 'call_f'), 'z2') +
			completed(),
		[
			{
				type: 'tool_call',
				tool_name: 'bash',
				args: { cmd: 'ls notes' },
				tool_call_id: 'call_bash',
			},
			{
				type: 'tool_result',
				tool_name: 'bash',
				tool_call_id: 'call_bash',
				content: 'notes.md',
				outcome: 'success',
			},
		],
	],
	[
		'ToolOutput beside a text part holding another object, in the same response',
		opening() +
			textPart(0, `For example ${JSON.stringify(EARLIER)}, and so:`, 'z1') +
			partStart(1, callPart('final_result', ANSWER_JSON, 'call_f'), 'z1') +
			completed(),
		[],
	],
	[
		'NativeOutput: the response text is the object',
		opening() + textPart(0, ANSWER_JSON, 'z1') + completed(),
		[],
	],
	[
		'PromptedOutput: the object in a ```json fence after thinking',
		opening() +
			thinkingPart(0, `Maybe ${JSON.stringify(EARLIER)}?`, 'z1') +
			textPart(1, '```json\n' + JSON.stringify(ANSWER, null, 2) + '\n```', 'z1') +
			completed(),
		[{ type: 'thinking', content: `Maybe ${JSON.stringify(EARLIER)}?` }],
	],
	[
		'PromptedOutput: text that failed validation, retried in the next response',
		opening() +
			textPart(0, JSON.stringify(EARLIER).replace(',"tags":[]', ''), 'z1') +
			textPart(0, ANSWER_JSON, 'z2') +
			completed(),
		[],
	],
	[
		'an object larger than one event (64 KiB in 1 KiB args_delta pieces)',
		opening() +
			partStart(0, callPart('final_result', '', 'call_f'), 'z1') +
			JSON.stringify({ ...ANSWER, title: 'x'.repeat(64 * 1024) })
				.match(/[\s\S]{1,1024}/g)!
				.map((piece) => toolDelta(0, 'z1', 'call_f', piece))
				.join('') +
			completed(),
		[],
	],
];

describe.each(MODES)('%s', (_mode, options) => {
	test.each(SHAPES)('%s', async (label, body, steps) => {
		const { run, paths } = await ask(body, options);
		expect(run.failure).toBeUndefined();
		const expected = label.startsWith('an object larger')
			? { ...ANSWER, title: 'x'.repeat(64 * 1024) }
			: ANSWER;
		expect(run.json.output).toEqual(expected);
		// Sent once, and no conversation read: the stream had the answer.
		expect(paths).toEqual(['POST /assistant/ask']);
		if (options.stream) {
			const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
			expect(pieces.map((chunk) => chunk.content)).toEqual([JSON.stringify(expected)]);
		}
		if (options.includeSteps) expect(run.json.steps).toEqual(steps);
		expect(everythingShown(run)).not.toContain(ECHO_PRIVATE_MARKER);
	});
});

describe('a stream that gives no object fails the item, saying so', () => {
	test.each(MODES)('%s: text only', async (_mode, options) => {
		const body =
			opening() + textPart(0, 'I could not find a week to summarize.', 'z1') + completed();
		const { run, paths } = await ask(body, options);
		expect(run.failure?.message).toBe(
			'The assistant did not return an object for the JSON Schema: its answer begins "I could not find a week to summarize."',
		);
		expect(paths).toEqual(['POST /assistant/ask']);
		expect(everythingShown(run)).not.toContain(ECHO_PRIVATE_MARKER);
	});

	test.each(MODES)(
		'%s: the output tool given a list, and no text: its arguments quoted, not "without an answer"',
		async (_mode, options) => {
			const body =
				opening() + partStart(0, callPart('final_result', '["a", "b"]', 'c1'), 'z1') + completed();
			const { run, paths } = await ask(body, options);
			expect(run.failure?.message).toBe(
				'The assistant did not return an object for the JSON Schema: its answer begins "[\\"a\\", \\"b\\"]"',
			);
			// The stream had the answer, though no object: its conversation is not read for one.
			expect(paths).toEqual(['POST /assistant/ask']);
			expect(everythingShown(run)).not.toContain(ECHO_PRIVATE_MARKER);
		},
	);

	test.each(MODES)(
		'%s: an object only before a tool round, text after it',
		async (_mode, options) => {
			const body =
				opening() +
				partStart(0, callPart('final_result', ANSWER_JSON, 'c1'), 'z1') +
				partStart(1, callPart('bash', bash.args, bash.id), 'z1') +
				toolRound(bash, 'ok', 'z1') +
				textPart(0, 'Done.', 'z2') +
				completed();
			const { run } = await ask(body, options);
			expect(run.failure?.message).toMatch(/did not return an object|not whole/);
			expect(run.json.output).toBeUndefined();
		},
	);

	test.each(MODES)('%s: the run failed after a retried output call', async (_mode, options) => {
		const bad = JSON.stringify({ title: 'draft', count: 0 });
		const body =
			opening() +
			partStart(0, callPart('final_result', bad, 'c1'), 'z1') +
			outputRetryRound('final_result', bad, 'c1', 'z1') +
			partStart(0, callPart('final_result', bad, 'c2'), 'z2') +
			outputRetryRound('final_result', bad, 'c2', 'z2') +
			sse('failed', {
				status: 'failed',
				error: 'Exceeded maximum retries (1) for output validation',
				error_type: 'UnexpectedModelBehavior',
				failure_kind: null,
				runner_id: RUNNER,
			});
		const { run, paths } = await ask(body, options);
		expect(run.failure?.message).toContain('Exceeded maximum retries (1) for output validation');
		expect(paths).toEqual(['POST /assistant/ask']);
		expect(everythingShown(run)).not.toContain(ECHO_PRIVATE_MARKER);
	});
});

describe('the node as an AI Agent tool: the agent reads the object the service produced', () => {
	test.each(SHAPES.filter(([label]) => !label.startsWith('an object larger')))(
		'%s',
		async (_label, body, steps) => {
			const server = await serve(body);
			try {
				const node = assistantNode(
					assistant.pkg,
					'Personal Assistant',
					{
						operation: 'ask',
						input: "={{ $fromAI('question', 'The question', 'string') }}",
						responseFormat: 'jsonSchema',
						jsonSchema: JSON.stringify(SCHEMA),
						options: { retries: 0, includeSteps: true },
					},
					{ type: 'n8n-nodes-assistant.assistantTool' },
				);
				const { run, agent } = await runAgent(
					assistant.pkg,
					[node],
					[{ args: { question: 'Summarize my week' } }],
					{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
				);
				expect(run.error()).toBeUndefined();
				const [step] = agent.steps;
				expect(step.error).toBeUndefined();
				const [item] = JSON.parse(String(step.observation)) as IDataObject[];
				expect(item.output).toEqual(ANSWER);
				// Include Steps on: the assistant's own steps, never its output tool.
				expect(item.steps).toEqual(steps.filter((entry) => entry.type !== 'thinking'));
				expect(server.paths).toEqual(['POST /assistant/ask']);
				expect(everythingShown(run)).not.toContain(ECHO_PRIVATE_MARKER);
			} finally {
				await server.close();
			}
		},
	);
});
