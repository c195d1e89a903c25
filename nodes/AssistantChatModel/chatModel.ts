import type { ChatModel, GenerateResult, Message, StreamChunk, Tool } from '@n8n/ai-node-sdk';
import { NodeOperationError, type ISupplyDataFunctions } from 'n8n-workflow';

import type { AskRequest, OutputFormatSchema } from '../shared/api';
import { answeringModel } from '../shared/askAssistant';
import { outputFormatProblems } from '../shared/outputFormat/outputFormatGrammar';
import type { RunContext } from '../shared/runContext';
import type { RequestSettings } from '../shared/parameters/requestOptions';
import { askOnce, askStreamed, type AskResult } from './ask';
import { planAsk, type PlannedAsk } from './askPlan';
import { imagePolicyFor } from './chatImages';
import { markOfConversation } from './conversationMark';
import { StreamedAnswers, type LogDetails, type ModelShownInLogs } from './logsPanel';
import { checkToolArguments, type JsonSchema } from './toolArguments';
import { withCatalogue } from './transcript';
import {
	catalogueFingerprint,
	correctionRequest,
	readEnvelope,
	toolEnvelopeSchema,
	toolInstructions,
	type ToolForEnvelope,
} from './toolEnvelope';

/**
 * The assistant as a chat model of n8n's AI node SDK (`ChatModel`): n8n wraps it for LangChain,
 * so chains and the AI Agent can use it. It implements the interface rather than extending the
 * SDK's base class, so that this file loads without the SDK (n8n versions before 2.16).
 */

/** docs/api.md#memory-mode */
export type MemoryMode = NonNullable<AskRequest['memory_mode']>;

export interface AssistantModelSettings extends RequestSettings {
	modelName?: string;
	personaId?: string;
	memoryMode?: MemoryMode;
	/** Options > Conversation ID: the assistant conversation to continue. */
	conversationId?: string;
	/** Response Format (or withStructuredOutput): the schema the answer must match. */
	outputFormat?: OutputFormatSchema;
	/** What the model's calls share: the credential, the catalog, what was told once. */
	run: RunContext<ISupplyDataFunctions>;
}

/** The SDK's `getParametersJsonSchema` (Zod or JSON Schema to JSON Schema), passed in by the node. */
export type ParametersJsonSchema = (tool: FunctionTool) => object;

type FunctionTool = Extract<Tool, { type: 'function' }>;

interface BoundTool extends ToolForEnvelope {
	/** The tool's own schema: Zod (checked with its safeParse) or JSON Schema. */
	schema: unknown;
}

/** How the Logs panel and the AI message's metadata name the assistant's defaults. */
const DEFAULT_MODEL = 'default model';
const ACTIVE_PERSONA = 'active persona';

export class AssistantChatModel implements ChatModel, ModelShownInLogs {
	readonly provider = 'assistant';
	readonly modelId: string;
	private tools: Tool[] = [];
	/** The Logs panel's details of this model's streamed calls (logsPanel.ts). */
	readonly streamedAnswers = new StreamedAnswers();

	constructor(
		private readonly ctx: ISupplyDataFunctions,
		private readonly settings: AssistantModelSettings,
		private readonly parametersJsonSchema?: ParametersJsonSchema,
	) {
		this.modelId = settings.modelName ?? 'default';
	}

	/** The model's settings, as the Logs panel shows them for each call (logsPanel.ts). */
	settingsForLogs(): LogDetails {
		const { modelName, personaId, memoryMode, timeoutMs, idleTimeoutMs, retries } = this.settings;
		return {
			model: modelName ?? DEFAULT_MODEL,
			persona: personaId ?? ACTIVE_PERSONA,
			memory: memoryMode === 'off' ? 'off' : 'on',
			timeoutMinutes: timeoutMs / 60_000,
			idleTimeoutSeconds: idleTimeoutMs / 1000,
			retries,
			...(this.tools.length > 0 ? { tools: this.tools.map((tool) => tool.name) } : {}),
		};
	}

	withTools(tools: Tool[]): ChatModel {
		const bound = new AssistantChatModel(this.ctx, this.settings, this.parametersJsonSchema);
		bound.tools = [...this.tools, ...tools];
		return bound;
	}

	/**
	 * The SDK's structured output: every ask carries the schema as its `output_format`, which the
	 * service enforces, and the AI message's text is the answer object's JSON.
	 */
	withStructuredOutput(schema: Record<string, unknown>): ChatModel {
		// The same grammar check as Response Format's: nothing is sent that the service refuses.
		const [problem] = outputFormatProblems(schema);
		if (problem) {
			throw new NodeOperationError(this.ctx.getNode(), `Structured output: ${problem.message}`, {
				description: problem.fix,
			});
		}
		const settings = { ...this.settings, outputFormat: schema as OutputFormatSchema };
		const structured = new AssistantChatModel(this.ctx, settings, this.parametersJsonSchema);
		structured.tools = [...this.tools];
		return structured;
	}

	async generate(messages: Message[]): Promise<GenerateResult> {
		const tools = this.boundTools();
		if (tools.length > 0) return await this.generateWithTools(messages, tools);
		const plan = await this.plan(messages);
		const answer = await this.ask(this.request(plan.input, plan.conversationId));
		return textResult(
			answerText(answer.output),
			answer,
			messages.length,
			this.metadata(answer, plan.leftOut),
		);
	}

	/** `callOptions`: what the SDK's adapter passes on, by which the Logs panel finds the answer. */
	async *stream(messages: Message[], callOptions?: unknown): AsyncIterable<StreamChunk> {
		const tools = this.boundTools();
		if (tools.length > 0 || this.settings.outputFormat) {
			// A structured answer arrives whole, then goes out as the caller expects it.
			const result = await this.generate(messages);
			this.streamedAnswers.note(callOptions, result.providerMetadata ?? {});
			yield* resultAsChunks(result);
			return;
		}
		const plan = await this.plan(messages);
		const answer = askStreamed(
			this.ctx,
			this.request(plan.input, plan.conversationId),
			this.settings,
		);
		let streamed = false;
		let step = await answer.next();
		while (!step.done) {
			if (step.value) {
				streamed = true;
				yield { type: 'text-delta', delta: step.value };
			}
			step = await answer.next();
		}
		this.noteFallback(step.value);
		// A service that sends the answer only in its End event: it goes out whole.
		if (!streamed) yield { type: 'text-delta', delta: String(step.value.output) };
		const providerMetadata = this.metadata(step.value, plan.leftOut);
		this.streamedAnswers.note(callOptions, providerMetadata);
		yield { type: 'finish', finishReason: 'stop', providerMetadata };
	}

	/**
	 * One turn of tool calling: the assistant calls one tool or answers. A reply that does not fit
	 * (unknown tool, arguments that do not match the tool's schema) is sent back once with what was
	 * wrong; a second miss fails with that reason.
	 */
	private async generateWithTools(
		messages: Message[],
		tools: BoundTool[],
	): Promise<GenerateResult> {
		const plan = await this.plan(messages);
		const catalogue = catalogueFingerprint(tools);
		// The conversation has these tools' catalogue already: the output format names them.
		const input =
			plan.conversationId && plan.catalogue === catalogue
				? plan.input
				: withCatalogue(plan.input, toolInstructions(tools));
		const structured = this.settings.outputFormat !== undefined;
		let answer = await this.ask(this.request(input, plan.conversationId, tools));
		const interpreted = (reply: AskResult) =>
			interpret(
				reply,
				tools,
				messages.length,
				catalogue,
				structured,
				this.metadata(reply, plan.leftOut),
			);
		let outcome = interpreted(answer);
		if ('problem' in outcome) {
			const retry = this.request(
				correctionRequest(outcome.problem),
				answer.conversationId ?? undefined,
				tools,
			);
			// Without a conversation to continue, the correction carries the whole request again,
			// after the transcript's messages like the catalogue.
			if (!answer.conversationId) retry.input = withCatalogue(input, retry.input);
			answer = await this.ask(retry);
			outcome = interpreted(answer);
		}
		if ('problem' in outcome) {
			throw new NodeOperationError(
				this.ctx.getNode(),
				`The assistant's tool call could not be used: ${outcome.problem}`,
				{
					description:
						'It was asked once more with the reason and answered the same way. Check the tools’ descriptions and parameters, or rephrase the request.',
				},
			);
		}
		return outcome.result;
	}

	/**
	 * The AI message's response metadata, also shown in the Logs panel: the conversation the answer
	 * belongs to, the model that answered (the one the service fell back to, else the one its
	 * stream names, else the chosen one), the persona, what the assistant did (docs/api.md#steps)
	 * and, in `leftOut`, the notes of what could not be sent.
	 */
	private metadata(answer: AskResult, leftOut: string[]): LogDetails {
		return {
			conversationId: answer.conversationId,
			...(answer.modelFallback ? { modelFallback: answer.modelFallback } : {}),
			...(answer.steps ? { steps: answer.steps } : {}),
			...(leftOut.length > 0 ? { leftOut } : {}),
			modelName: answeringModel(answer, this.settings.modelName) ?? DEFAULT_MODEL,
			persona: this.settings.personaId ?? ACTIVE_PERSONA,
		};
	}

	/**
	 * What to send, images included where the model sees them (chatImages.ts); anything the API
	 * cannot carry is noted in it, and said in the log.
	 */
	private async plan(messages: Message[]): Promise<PlannedAsk> {
		const images = await imagePolicyFor(this.ctx, this.settings, messages);
		const plan = planAsk(messages, this.settings.conversationId, images);
		if (plan.leftOut.length > 0) {
			this.ctx.logger.warn(
				`Assistant Chat Model: ${plan.leftOut.length === 1 ? 'one part of the messages' : `${plan.leftOut.length} parts of the messages`} could not be sent, so each was replaced by a note: ${plan.leftOut.join('; ')}`,
			);
		}
		return plan;
	}

	private async ask(request: AskRequest): Promise<AskResult> {
		const answer = await askOnce(this.ctx, request, this.settings);
		this.noteFallback(answer);
		return answer;
	}

	/** docs/api.md#model-fallback: the answer stands; the log says which model gave it. */
	private noteFallback(answer: AskResult): void {
		if (!answer.modelFallback) return;
		this.ctx.logger.warn(
			`Assistant Chat Model: the service answered with ${answer.modelFallback} instead of ${this.settings.modelName ?? 'the default model'}`,
		);
	}

	private request(input: string, conversationId?: string, tools?: BoundTool[]): AskRequest {
		const request: AskRequest = { input };
		if (conversationId) request.conversation_id = conversationId;
		if (this.settings.modelName) request.model_name = this.settings.modelName;
		if (this.settings.personaId) request.persona_id = this.settings.personaId;
		if (this.settings.memoryMode) request.memory_mode = this.settings.memoryMode;
		if (tools && tools.length > 0) {
			request.output_format = toolEnvelopeSchema(tools, this.settings.outputFormat);
		} else if (this.settings.outputFormat) {
			request.output_format = this.settings.outputFormat;
		}
		return request;
	}

	private boundTools(): BoundTool[] {
		return this.tools.map((tool) => {
			if (tool.type !== 'function') {
				throw new NodeOperationError(
					this.ctx.getNode(),
					`The Assistant Chat Model cannot use the provider tool "${tool.name}"`,
					{ description: 'Only tools that n8n runs (function tools) can be called.' },
				);
			}
			return {
				name: tool.name,
				description: tool.description,
				schema: tool.inputSchema,
				parameters: this.jsonSchemaOf(tool),
			};
		});
	}

	private jsonSchemaOf(tool: FunctionTool): JsonSchema | undefined {
		if (this.parametersJsonSchema) return this.parametersJsonSchema(tool) as JsonSchema;
		const schema = tool.inputSchema;
		return typeof schema === 'object' && schema !== null && !('safeParse' in schema)
			? (schema as JsonSchema)
			: undefined;
	}
}

type Outcome = { result: GenerateResult } | { problem: string };

function interpret(
	answer: AskResult,
	tools: BoundTool[],
	turn: number,
	catalogue: string,
	structured: boolean,
	metadata: Record<string, unknown>,
): Outcome {
	const reply = readEnvelope(answer.output, tools, structured);
	if (reply.action === 'invalid') return { problem: reply.problem };
	if (reply.action === 'final_answer') {
		return { result: textResult(reply.answer, answer, turn, metadata, catalogue) };
	}
	const tool = tools.find((candidate) => candidate.name === reply.toolName) as BoundTool;
	const checked = checkToolArguments(reply.argumentsJson, tool.schema, tool.parameters);
	if (!checked.ok)
		return { problem: `the arguments for the tool ${tool.name} are wrong: ${checked.problem}` };
	const id = answerId(answer.conversationId, turn, catalogue);
	return {
		result: {
			finishReason: 'tool-calls',
			providerMetadata: metadata,
			message: {
				role: 'assistant',
				id,
				content: [
					{
						type: 'tool-call',
						toolCallId: id,
						toolName: tool.name,
						input: JSON.stringify(checked.args),
					},
				],
			},
		},
	};
}

function textResult(
	text: string,
	answer: AskResult,
	turn: number,
	metadata: Record<string, unknown>,
	catalogue?: string,
): GenerateResult {
	return {
		finishReason: 'stop',
		providerMetadata: metadata,
		message: {
			role: 'assistant',
			id: answerId(answer.conversationId, turn, catalogue),
			content: [{ type: 'text', text }],
		},
	};
}

/** An object answer (an output format) as its JSON, so chains and output parsers read it. */
function answerText(output: AskResult['output']): string {
	return typeof output === 'string' ? output : JSON.stringify(output);
}

/** Carries the conversation, and the tool catalogue it holds, to the next call (conversationMark.ts). */
function answerId(conversationId: string | null, turn: number, catalogue?: string): string {
	return conversationId
		? markOfConversation(conversationId, turn, catalogue)
		: `assistant-answer:${turn}`;
}

/** A whole result as stream chunks: the answer in word-sized pieces, or the one tool call. */
function* resultAsChunks(result: GenerateResult): Generator<StreamChunk> {
	for (const content of result.message.content) {
		if (content.type === 'text') {
			for (const word of content.text.split(/(?<=\s)(?=\S)/))
				yield { type: 'text-delta', delta: word };
		} else if (content.type === 'tool-call') {
			yield {
				type: 'tool-call-delta',
				id: content.toolCallId,
				name: content.toolName,
				argumentsDelta: content.input,
			};
		}
	}
	yield {
		type: 'finish',
		finishReason: result.finishReason ?? 'stop',
		providerMetadata: result.providerMetadata,
	};
}
