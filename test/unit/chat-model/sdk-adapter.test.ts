/**
 * The one patch on the AI node SDK's LangChain adapter (sdkAdapter.ts), pinned against the SDK
 * versions n8n ships: the devDependency (always), and the one in the n8n app the e2e suite
 * installs (`.cache/n8n-app`, skipped with a note when it is not installed). Each SDK's own
 * `supplyModel` makes the adapter, around a model that records what it is given; the messages are
 * made with the LangChain that SDK loads, as n8n's AI Agent makes them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ChatModel, GenerateResult, Message, StreamChunk, Tool } from '@n8n/ai-node-sdk';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type * as LangchainMessages from '@langchain/core/messages';
import type { ISupplyDataFunctions } from 'n8n-workflow';

import { StreamedAnswers } from '../../../nodes/AssistantChatModel/logsPanel';
import {
	adapterShapeProblems,
	patchSdkAdapter,
} from '../../../nodes/AssistantChatModel/sdkAdapter';

type Sdk = typeof import('@n8n/ai-node-sdk');
type Messages = typeof LangchainMessages;

/** What the Logs panel and the AI message carry of an answer (logsPanel.ts's keys). */
const DETAILS = {
	modelName: 'openai:gpt-5-mini',
	persona: 'active persona',
	conversationId: 'conv_1',
	steps: [],
};

/** The model the adapter wraps: it records each call's messages and answers "Hello". */
class RecordingModel implements ChatModel {
	readonly provider = 'assistant';
	readonly modelId = 'default';
	readonly streamedAnswers = new StreamedAnswers();

	constructor(
		readonly calls: Message[][],
		private readonly tools: Tool[] = [],
	) {}

	settingsForLogs() {
		const tools = this.tools.map((tool) => tool.name);
		return { model: 'default model', ...(tools.length > 0 ? { tools } : {}) };
	}

	withTools(tools: Tool[]): ChatModel {
		return new RecordingModel(this.calls, [...this.tools, ...tools]);
	}

	async generate(messages: Message[]): Promise<GenerateResult> {
		this.calls.push(messages);
		return {
			finishReason: 'stop',
			// A key that is not an answer detail stays out of the Logs panel's generation.
			providerMetadata: { ...DETAILS, unrelated: 'x' },
			message: { role: 'assistant', id: 'answer-1', content: [{ type: 'text', text: 'Hello' }] },
		};
	}

	async *stream(messages: Message[], callOptions?: unknown): AsyncIterable<StreamChunk> {
		this.calls.push(messages);
		yield { type: 'text-delta', delta: 'Hel' };
		yield { type: 'text-delta', delta: 'lo' };
		this.streamedAnswers.note(callOptions, DETAILS);
		yield { type: 'finish', finishReason: 'stop', providerMetadata: DETAILS };
	}
}

const ROOT = join(__dirname, '../../..');

const SDKS = [
	{ where: 'the devDependency', home: ROOT },
	{ where: "the e2e app's n8n", home: join(ROOT, '.cache/n8n-app') },
];

function versionOf(home: string, name: string): string | undefined {
	const file = join(home, 'node_modules', name, 'package.json');
	return existsSync(file)
		? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
		: undefined;
}

const IMAGE_URL = 'data:image/png;base64,iVBORw0KGgo=';

for (const { where, home } of SDKS) {
	const sdkVersion = versionOf(home, '@n8n/ai-node-sdk');
	const n8nVersion = versionOf(home, 'n8n');
	const title = `@n8n/ai-node-sdk ${sdkVersion ?? ''} (${where}${n8nVersion ? ` ${n8nVersion}` : ''})`;
	if (sdkVersion === undefined && home !== ROOT) {
		describe(`${title}: skipped, ${home} is not installed (npm run test:e2e installs it)`, () => {
			test.skip('the adapter patch on this SDK', () => undefined);
		});
		continue;
	}

	describe(title, () => {
		let sdk: Sdk;
		let messages: Messages;
		const debug: string[] = [];
		const logger = { debug: (message: string) => void debug.push(message) };

		beforeAll(async () => {
			sdk = (await import(require.resolve('@n8n/ai-node-sdk', { paths: [home] }))) as Sdk;
			const sdkHome = join(home, 'node_modules/@n8n/ai-node-sdk');
			messages = (await import(
				require.resolve('@langchain/core/messages', { paths: [sdkHome] })
			)) as Messages;
		});
		beforeEach(() => (debug.length = 0));

		/** The adapter this SDK's supplyModel makes (no n8n context: no tracing callback), patched. */
		function supplied(calls: Message[][] = []): BaseChatModel {
			const model = new RecordingModel(calls);
			const { response } = sdk.supplyModel(undefined as unknown as ISupplyDataFunctions, model);
			expect(adapterShapeProblems(response)).toEqual([]);
			return patchSdkAdapter(response as BaseChatModel, logger);
		}

		const image = () =>
			new messages.HumanMessage({
				content: [{ type: 'image_url', image_url: { url: IMAGE_URL } }],
			});

		test('its adapter has the shape the patch knows: patched, nothing logged', () => {
			const adapter = supplied();
			expect(adapter.toJSON()).toEqual({
				lc: 1,
				type: 'constructor',
				id: expect.any(Array),
				kwargs: { model: 'default model' },
			});
			expect(debug).toEqual([]);
		});

		test("a whole call: the Logs panel's generation carries the answer's details", async () => {
			const adapter = supplied();
			const result = await adapter.generate([[new messages.HumanMessage('Hi')]]);
			expect(result.generations[0][0].text).toBe('Hello');
			expect(result.generations[0][0].generationInfo).toEqual(DETAILS);
		});

		test('a streamed call: the finish chunk carries them, on its generation and message', async () => {
			const adapter = supplied();
			let text = '';
			let last: LangchainMessages.AIMessageChunk | undefined;
			for await (const chunk of await adapter.stream([new messages.HumanMessage('Hi')])) {
				text += chunk.text;
				last = chunk;
			}
			expect(text).toBe('Hello');
			expect(last?.response_metadata).toMatchObject({ finish_reason: 'stop', ...DETAILS });
		});

		test("the AI Agent's image reaches the model as an image, whole or streamed", async () => {
			const calls: Message[][] = [];
			const adapter = supplied(calls);
			await adapter.invoke([new messages.HumanMessage('What is this?'), image()]);
			for await (const chunk of await adapter.stream([image()])) expect(chunk).toBeDefined();
			const imagePart = { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' };
			expect(calls[0][0].content).toEqual([{ type: 'text', text: 'What is this?' }]);
			expect(calls[0][1].content).toEqual([imagePart]);
			expect(calls[1][0].content).toEqual([imagePart]);
		});

		test('the adapter its bindTools makes for the agent is patched too', async () => {
			const calls: Message[][] = [];
			const adapter = supplied(calls);
			const bound = adapter.bindTools?.([
				{
					type: 'function',
					function: { name: 'calculator', description: 'Adds', parameters: { type: 'object' } },
				},
			]) as BaseChatModel;
			expect(bound).not.toBe(adapter);
			expect(bound.toJSON()).toMatchObject({
				kwargs: { model: 'default model', tools: ['calculator'] },
			});
			const result = await bound.generate([[image()]]);
			expect(result.generations[0][0].generationInfo).toEqual(DETAILS);
			expect(calls[0][0].content).toEqual([
				{ type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
			]);
			expect(debug).toEqual([]);
		});
	});
}

describe('an adapter of another shape', () => {
	test('is left as it is, and the debug log says what it lacks', () => {
		const debug: string[] = [];
		const logger = { debug: (message: string) => void debug.push(message) };
		const generate = async () => ({ generations: [] });
		const renamed = { chatModel: new RecordingModel([]), generate, invoke: generate };
		expect(patchSdkAdapter(renamed, logger)).toBe(renamed);
		expect(renamed).toEqual({ chatModel: expect.any(RecordingModel), generate, invoke: generate });
		expect(debug).toHaveLength(1);
		expect(debug[0]).toContain('not of the shape this node knows');
		expect(debug[0]).toContain(
			'no method toJSON; no method _generate; no method _streamResponseChunks; no method bindTools',
		);
	});

	test('one wrapping a model that is not this node’s is left as it is too', () => {
		const debug: string[] = [];
		const method = () => undefined;
		const adapter = {
			chatModel: { provider: 'other' },
			toJSON: method,
			_generate: method,
			_streamResponseChunks: method,
			bindTools: method,
		};
		patchSdkAdapter(adapter, { debug: (message: string) => void debug.push(message) });
		expect(adapter._generate).toBe(method);
		expect(adapter.toJSON).toBe(method);
		expect(debug).toEqual([expect.stringContaining('no chatModel holding this node’s model')]);
		expect(patchSdkAdapter(undefined, { debug: () => undefined })).toBeUndefined();
	});
});
