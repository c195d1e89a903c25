/**
 * Steps (docs/api.md#steps) in the n8n-core engine against the emulator: with Options > Include
 * Steps, the Ask item also has `steps` (each tool call and result, thinking with Include
 * Thinking) and `model`, in every shape the stream may tell them, with Stream on and off, and
 * everything else about the item and its live chunks stays as without the option. The Assistant
 * Tool hands the steps to the agent; the chat model puts them in the AI message's metadata.
 */
import type { IDataObject } from 'n8n-workflow';

import { rl } from '../helpers/assistant';
import type { ConsumerOutput } from '../helpers/chat-model';
import { useEmulator, type AssistantRun } from '../helpers/emulatorFixture';
import { runAgent } from '../helpers/tool';

const TOKEN = 'secret-token-for-steps-tests-7';

/** Each shape of a tool call and its result (test/emulator/shapes.js). */
const TOOL_FORMS = [
	'tool-builtin',
	'tool-function',
	'tool-args-text',
	'tool-args-delta',
	'tool-events',
];
/** The sources that carry them: Part events, growing or final snapshots, mixed with content. */
const SOURCES = ['parts', 'snapshots', 'final-snapshot', 'parts+snapshots+content'];

const assistant = useEmulator({ token: TOKEN, answerDelayMs: 0, chunkDelayMs: 0, dialect: 'live' });

function mailSteps(input: string): IDataObject[] {
	const ids = { tool_name: 'search_mail', tool_call_id: 'call_emulated_1' };
	return [
		{ type: 'tool_call', ...ids, args: { query: input.slice(0, 80) } },
		{
			type: 'tool_result',
			...ids,
			content: [{ from: 'ada@example.com', subject: 'Quarterly report', unread: true }],
		},
	];
}

function chunksOf(run: AssistantRun) {
	return run.chunks.map((chunk) => [chunk.type, chunk.content]);
}

describe('Ask with Include Steps: every shape, each step once (docs/api.md#steps)', () => {
	const cases = TOOL_FORMS.flatMap((form) =>
		SOURCES.flatMap((sources) => [true, false].map((stream) => [form, sources, stream] as const)),
	);
	test.each(cases)('%s over %s, Stream %s', async (form, sources, stream) => {
		const input = `Check my inbox #shape=${sources}+${form}`;
		const run = await assistant.run({ input, options: { includeSteps: true, stream } });
		expect(run.error()).toBeUndefined();
		const item = run.outputs('Ask')[0].json;
		expect(item.steps).toEqual(mailSteps(input));
		// The default model answered and the service did not name it.
		expect(item.model).toBeNull();
	});

	test('everything else about the item and its live chunks is as without the option', async () => {
		const input = 'Summarize my unread mail #shape=parts+snapshots+content+thinking+tool-builtin';
		const plain = await assistant.run({ input, options: { stream: true } }, { streaming: true });
		const withSteps = await assistant.run(
			{ input, options: { stream: true, includeSteps: true } },
			{ streaming: true },
		);
		const { steps, model, ...rest } = withSteps.outputs('Ask')[0].json;
		// Two asks, two conversations: the rest is the same.
		expect({ ...rest, conversation_id: 'c' }).toEqual({
			...plain.outputs('Ask')[0].json,
			conversation_id: 'c',
		});
		expect(plain.outputs('Ask')[0].json).not.toHaveProperty('steps');
		expect(steps).toEqual(mailSteps(input));
		expect(model).toBeNull();
		expect(chunksOf(withSteps)).toEqual(chunksOf(plain));
		expect(chunksOf(plain).length).toBeGreaterThan(3);
	});

	test('Include Thinking adds each thinking text, in its place among the tool steps', async () => {
		const input = 'What is in my mail? #shape=parts+snapshots+thinking+tool-events';
		const run = await assistant.run({
			input,
			options: { includeSteps: true, includeThinking: true },
		});
		const thinking = { type: 'thinking', content: 'Let me think about that.' };
		const [call, result] = mailSteps(input);
		expect(run.outputs('Ask')[0].json.steps).toEqual([thinking, call, result, thinking]);
		const without = await assistant.run({ input, options: { includeSteps: true } });
		expect(without.outputs('Ask')[0].json.steps).toEqual([call, result]);
	});

	test('the emulated assistant uses the tool an input asks about, in the live dialect', async () => {
		const input = 'List the PDFs among my files';
		const run = await assistant.run({ input, options: { includeSteps: true } });
		expect(run.outputs('Ask')[0].json.steps).toEqual([
			expect.objectContaining({ type: 'tool_call', tool_name: 'search_files' }),
			expect.objectContaining({ type: 'tool_result', tool_name: 'search_files' }),
		]);
	});

	test('a stream with no tool calls has no steps; the model is the one asked for, or the fallback', async () => {
		const model = 'openai:gpt-5-mini';
		const chosen = await assistant.run({
			input: 'Hello',
			options: { includeSteps: true },
			model: rl(model),
		});
		expect(chosen.outputs('Ask')[0].json).toMatchObject({ steps: [], model });
		const fellBack = await assistant.run({
			input: 'Hello #fallback=openai:gpt-5',
			options: { includeSteps: true },
			model: rl(model),
		});
		expect(fellBack.outputs('Ask')[0].json).toMatchObject({
			steps: [],
			model: 'openai:gpt-5',
			model_fallback: 'openai:gpt-5',
		});
	});

	test('the documented dialect tells no steps; a structured answer keeps its steps', async () => {
		const documented = await assistant.run({
			input: 'Check my inbox #shape=documented',
			options: { includeSteps: true },
		});
		expect(documented.outputs('Ask')[0].json.steps).toEqual([]);
		const input = 'Check my inbox #shape=parts+tool-function';
		const run = await assistant.run({
			input,
			options: { includeSteps: true },
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify({
				type: 'object',
				properties: { summary: { type: 'string' } },
				required: ['summary'],
			}),
		});
		expect(run.error()).toBeUndefined();
		expect(run.outputs('Ask')[0].json.output).toEqual({ summary: expect.any(String) });
		expect(run.outputs('Ask')[0].json.steps).toEqual(mailSteps(input));
	});

	test('a bad Include Steps value is a clear error before anything is sent', async () => {
		const run = await assistant.run({ input: 'Hello', options: { includeSteps: 'yes' } });
		expect(run.error()?.message).toBe('Include Steps must be true or false (got "yes")');
		expect(assistant.emulator.stats.requests).toHaveLength(0);
	});
});

describe('the Assistant Tool with Include Steps', () => {
	test('the agent is told which tools the assistant used', async () => {
		const node = assistant.node(
			'Personal Assistant',
			{
				operation: 'ask',
				input: "={{ $fromAI('question', 'The question', 'string') }}",
				options: { includeSteps: true },
			},
			{ type: 'n8n-nodes-assistant.assistantTool' },
		);
		const question = 'Anything urgent in my inbox?';
		const { agent } = await runAgent(assistant.pkg, [node], [{ args: { question } }], {
			credentials: [assistant.credential],
			agentInput: { chatInput: question },
		});
		const [answer] = JSON.parse(String(agent.steps[0].observation)) as IDataObject[];
		expect(answer.steps).toEqual(mailSteps(question));
		expect(answer.output).toEqual(expect.stringContaining('You said'));
	});
});

describe('the Assistant Chat Model puts each ask’s steps in the AI message’s metadata', () => {
	test('invoke: the steps of the ask beside the conversation id', async () => {
		const run = await assistant.chat('invoke', [
			{ role: 'user', content: 'What is new in my mail?' },
		]);
		const output = run.outputs('Consumer')[0].json as ConsumerOutput;
		// The emulated tool's arguments quote what was asked: the chat model's transcript.
		const [sent] = assistant.askRequests();
		const input = String((sent.body as IDataObject).input);
		expect(input).toContain('What is new in my mail?');
		expect(output.metadata).toMatchObject({
			conversationId: expect.stringMatching(/^conv_/),
			steps: mailSteps(input),
		});
	});
});
