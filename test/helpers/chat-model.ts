/**
 * Runs the Assistant Chat Model in the real n8n-core engine, as n8n's AI nodes use it: a root node
 * (`test.llmConsumer`) takes the model from its `ai_languageModel` input with
 * getInputConnectionData (n8n-core's SupplyDataContext calls the sub-node's supplyData, which
 * wraps the model with the AI node SDK's LangChain adapter) and then drives it with LangChain's
 * own calls: `invoke` (chains), `stream`, and a tool-calling loop over `bindTools` that runs real
 * LangChain tools and hands back AI and tool messages the way an agent does.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import type { BaseMessage } from '@langchain/core/messages';
import { tool as langchainTool, type StructuredToolInterface } from '@langchain/core/tools';
import type { IDataObject, IExecuteFunctions, INode, INodeParameters } from 'n8n-workflow';
// The node types this helper adds to the package (the consumer's).
import type { INodeType, INodeTypeDescription, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { NodeConnectionTypes, jsonParse } from 'n8n-workflow';
import { z } from 'zod';
import type { ChatModel as SdkChatModel } from '@n8n/ai-node-sdk';

import { rl } from './assistant';
import {
	chain,
	itemsNode,
	manualTrigger,
	runWorkflow,
	withSubNodes,
	type LoadedPackage,
	type RunOptions,
} from './engine';

export const LLM_CONSUMER_TYPE = 'test.llmConsumer';

/**
 * `agentMoreTools` binds a second tool beside the calculator; `sdkStructured` calls the SDK
 * model's own withStructuredOutput (the `structuredSchema` parameter) and then generate.
 */
/**
 * How the consumer uses its model. `agentRounds`: the agent loop taking the model from its input
 * anew for every round, as n8n's AI Agent v3 does (each of its executes asks for it again, and
 * the chat model's supplyData runs again).
 */
export type Scenario =
	| 'invoke'
	| 'stream'
	| 'agent'
	| 'agentStream'
	| 'agentMoreTools'
	| 'agentRounds'
	| 'sdkStructured';

/** A message of the conversation handed to the model: role and text. */
export interface ScriptMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string;
	/** An assistant message's id (the chat model marks its answers' ids with their conversation). */
	id?: string;
	/** An assistant message's tool calls, as an agent's memory keeps them. */
	toolCalls?: Array<{ id: string; name: string; args: IDataObject }>;
	/** A tool message's call id. */
	toolCallId?: string;
	/** A user message's author (a chat of several users). */
	name?: string;
	/**
	 * A user message's image, as n8n's AI Agent hands on binary images: an `image_url` block with
	 * a data URL (with an empty `content`, the agent's own message of images alone).
	 */
	image?: { mimeType: string; base64: string };
}

export interface ConsumerOutput extends IDataObject {
	/** The final answer's text. */
	text: string;
	/** The final AI message's id. */
	id: string | null;
	/** The final AI message's response metadata (invoke). */
	metadata: IDataObject;
	/** Stream chunks' texts, in order (stream scenarios). */
	chunks: string[];
	/** Tool calls the model made, in order, with what the tool returned. */
	toolCalls: Array<{ id: string; name: string; args: IDataObject; result: string }>;
}

/** A tool with a Zod schema, as n8n's Calculator and Code tools are. */
const calculator = langchainTool(
	async ({ input }: { input: string }) => {
		if (!/^[\d\s+\-*/().]+$/.test(input)) throw new Error(`Not an arithmetic expression: ${input}`);
		return String(Function(`"use strict"; return (${input});`)());
	},
	{
		name: 'calculator',
		description: 'Evaluates an arithmetic expression, e.g. 6 * 7',
		schema: z.object({ input: z.string().describe('The expression') }),
	},
);

/** A second tool with a JSON-Schema-sized description, to change the bound catalogue. */
const wordCount = langchainTool(
	async ({ text }: { text: string }) => String(text.split(/\s+/).filter(Boolean).length),
	{
		name: 'word_count',
		description: 'Counts the words of a text',
		schema: z.object({ text: z.string().describe('The text') }),
	},
);

function toMessages(script: ScriptMessage[]): BaseMessage[] {
	return script.map(({ role, content, id, toolCalls, toolCallId, name, image }) => {
		if (role === 'system') return new SystemMessage(content);
		if (role === 'tool') return new ToolMessage({ content, tool_call_id: toolCallId ?? '' });
		if (role === 'assistant') {
			return new AIMessage({
				content,
				id,
				tool_calls: toolCalls?.map((call) => ({ ...call, type: 'tool_call' as const })),
			});
		}
		if (image) {
			return new HumanMessage({
				content: [
					...(content ? [{ type: 'text' as const, text: content }] : []),
					{
						type: 'image_url' as const,
						image_url: { url: `data:${image.mimeType};base64,${image.base64}` },
					},
				],
			});
		}
		return new HumanMessage({ content, name });
	});
}

interface LanguageModel {
	invoke(messages: BaseMessage[]): Promise<AIMessage>;
	stream(messages: BaseMessage[]): Promise<AsyncIterable<AIMessage>>;
	bindTools(tools: unknown[]): LanguageModel;
}

/**
 * A reply of the tool envelope (nodes/AssistantChatModel/toolEnvelope.ts) as JSON text: a call of
 * `calculator` without arguments, but for what `fields` say.
 */
export const toolEnvelope = (fields: IDataObject): string =>
	JSON.stringify({
		action: 'call_tool',
		final_answer: '',
		tool_name: 'calculator',
		tool_arguments_json: '{}',
		...fields,
	});

/** A tool the agent loop binds and runs (LangChain's structured tools). */
export type AgentTool = typeof calculator | typeof wordCount | StructuredToolInterface;

class LlmConsumer implements INodeType {
	/** The tools its agent loop binds (the calculator, unless the run names others). */
	constructor(tools?: AgentTool[]) {
		this.execute = async function (this: IExecuteFunctions) {
			return await consume(this, tools);
		};
	}

	execute: (this: IExecuteFunctions) => Promise<Array<Array<{ json: IDataObject }>>>;

	description: INodeTypeDescription = {
		displayName: 'LLM Consumer',
		name: 'llmConsumer',
		group: ['transform'],
		version: 1,
		description: 'Uses its chat model as n8n’s chains and agents do',
		defaults: { name: 'Consumer' },
		inputs: [
			NodeConnectionTypes.Main,
			{
				type: NodeConnectionTypes.AiLanguageModel,
				displayName: 'Model',
				required: true,
				maxConnections: 1,
			},
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Scenario', name: 'scenario', type: 'string', default: 'invoke' },
			{ displayName: 'Messages', name: 'messages', type: 'json', default: '[]' },
			{ displayName: 'Structured Schema', name: 'structuredSchema', type: 'json', default: '{}' },
		],
	};
}

async function consume(
	ctx: IExecuteFunctions,
	customTools: AgentTool[] | undefined,
): Promise<Array<Array<{ json: IDataObject }>>> {
	const model = (await ctx.getInputConnectionData(
		NodeConnectionTypes.AiLanguageModel,
		0,
	)) as LanguageModel;
	const scenario = ctx.getNodeParameter('scenario', 0) as Scenario;
	const raw = ctx.getNodeParameter('messages', 0) as string | ScriptMessage[];
	const messages = toMessages(typeof raw === 'string' ? jsonParse(raw) : raw);
	if (scenario === 'sdkStructured') {
		const schema = jsonParse<IDataObject>(ctx.getNodeParameter('structuredSchema', 0) as string);
		return [[{ json: await sdkStructured(model, schema, messages) }]];
	}
	const tools =
		customTools ??
		(scenario === 'agentMoreTools' ? [calculator, wordCount] : [calculator as AgentTool]);
	const modelOfRound =
		scenario === 'agentRounds'
			? async () =>
					(await ctx.getInputConnectionData(
						NodeConnectionTypes.AiLanguageModel,
						0,
					)) as LanguageModel
			: async () => model;
	const output =
		scenario === 'invoke' || scenario === 'stream'
			? await answerOnce(model, messages, scenario === 'stream')
			: await agentLoop(modelOfRound, messages, scenario === 'agentStream', tools);
	return [[{ json: output }]];
}

async function answerOnce(
	model: LanguageModel,
	messages: BaseMessage[],
	streamed: boolean,
): Promise<ConsumerOutput> {
	const { message, chunks } = streamed
		? await collectStream(model, messages)
		: { message: await model.invoke(messages), chunks: [] };
	const metadata = (message.response_metadata ?? {}) as IDataObject;
	return { text: message.text, id: message.id ?? null, metadata, chunks, toolCalls: [] };
}

async function collectStream(
	model: LanguageModel,
	messages: BaseMessage[],
): Promise<{ message: AIMessage; chunks: string[] }> {
	const chunks: string[] = [];
	let whole: AIMessage | undefined;
	for await (const chunk of await model.stream(messages)) {
		if (chunk.text) chunks.push(chunk.text);
		whole = whole ? (whole as unknown as { concat(c: AIMessage): AIMessage }).concat(chunk) : chunk;
	}
	if (!whole) throw new Error('The stream yielded nothing');
	return { message: whole, chunks };
}

/**
 * The SDK's own structured output: the model under n8n's LangChain adapter (its `chatModel`), as
 * an SDK-based consumer would call it.
 */
async function sdkStructured(
	model: LanguageModel,
	schema: IDataObject,
	messages: BaseMessage[],
): Promise<ConsumerOutput> {
	const sdkModel = (model as unknown as { chatModel: SdkChatModel }).chatModel;
	const structured = sdkModel.withStructuredOutput?.(schema);
	if (!structured) throw new Error('The chat model has no withStructuredOutput');
	const result = await structured.generate(
		messages.map((message) => ({
			role: message.getType() === 'system' ? 'system' : 'user',
			content: [{ type: 'text', text: message.text }],
		})),
	);
	const text = result.message.content
		.map((content) => (content.type === 'text' ? content.text : ''))
		.join('');
	return {
		text,
		id: result.message.id ?? null,
		metadata: (result.providerMetadata ?? {}) as IDataObject,
		chunks: [],
		toolCalls: [],
	};
}

/**
 * An agent's loop: the model (`modelOfRound`'s, each round) calls tools, gets their results, until
 * it answers (at most 5 turns).
 */
async function agentLoop(
	modelOfRound: () => Promise<LanguageModel>,
	messages: BaseMessage[],
	streamed: boolean,
	tools: AgentTool[] = [calculator],
): Promise<ConsumerOutput> {
	const history = [...messages];
	const toolCalls: ConsumerOutput['toolCalls'] = [];
	for (let turn = 0; turn < 5; turn++) {
		const bound = (await modelOfRound()).bindTools(tools);
		const { message, chunks } = streamed
			? await collectStream(bound, history)
			: { message: await bound.invoke(history), chunks: [] };
		const calls = message.tool_calls ?? [];
		if (calls.length === 0) {
			const metadata = (message.response_metadata ?? {}) as IDataObject;
			return { text: message.text, id: message.id ?? null, metadata, chunks, toolCalls };
		}
		history.push(new AIMessage({ content: '', tool_calls: calls }));
		for (const call of calls) {
			const tool = tools.find((candidate) => candidate.name === call.name) ?? calculator;
			const result = String(
				await (tool as typeof calculator).invoke(call.args as { input: string }),
			);
			toolCalls.push({
				id: call.id ?? '',
				name: call.name,
				args: call.args as IDataObject,
				result,
			});
			history.push(
				new ToolMessage({ content: result, tool_call_id: call.id ?? '', name: call.name }),
			);
		}
	}
	throw new Error('The agent loop did not end within 5 turns');
}

class ConsumerNodeTypes implements INodeTypes {
	constructor(
		private readonly base: INodeTypes,
		private readonly consumer: INodeType,
	) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return nodeType === LLM_CONSUMER_TYPE ? this.consumer : this.base.getByName(nodeType);
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return nodeType === LLM_CONSUMER_TYPE
			? this.consumer
			: this.base.getByNameAndVersion(nodeType, version);
	}

	getKnownTypes(): IDataObject {
		return this.base.getKnownTypes();
	}
}

export interface ChatModelRunOptions extends RunOptions {
	structuredSchema?: IDataObject;
	tools?: AgentTool[];
}

/** Trigger → Items → Consumer, with the Assistant Chat Model on the consumer's Model input. */
export async function runChatModel(
	pkg: LoadedPackage,
	scenario: Scenario,
	messages: ScriptMessage[],
	modelParameters: INodeParameters = {},
	options: ChatModelRunOptions = {},
) {
	const trigger = manualTrigger();
	const items = itemsNode([{}]);
	const consumer: INode = {
		id: 'Consumer',
		name: 'Consumer',
		type: LLM_CONSUMER_TYPE,
		typeVersion: 1,
		position: [600, 0],
		parameters: {
			scenario,
			messages: JSON.stringify(messages),
			structuredSchema: JSON.stringify(options.structuredSchema ?? {}),
		},
	};
	const model: INode = {
		id: 'Model',
		name: 'Assistant Chat Model',
		type: pkg.nodeType('assistantChatModel'),
		typeVersion: 1,
		position: [600, 200],
		parameters: { model: rl(''), persona: rl(''), ...modelParameters },
		credentials: { assistantApi: { id: 'assistant-emulator', name: 'Assistant (emulator)' } },
	};
	const run = await runWorkflow(
		{ ...pkg, nodeTypes: new ConsumerNodeTypes(pkg.nodeTypes, new LlmConsumer(options.tools)) },
		withSubNodes(
			chain(trigger, items, consumer),
			consumer.name,
			NodeConnectionTypes.AiLanguageModel,
			[model],
		),
		options,
	);
	return run;
}
