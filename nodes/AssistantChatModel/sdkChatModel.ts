import type { ChatModel, GenerateResult, Message, StreamChunk, Tool } from '@n8n/ai-node-sdk';
import { NodeOperationError, type ISupplyDataFunctions } from 'n8n-workflow';

import type { AskRequest, OutputFormatSchema } from '../shared/api';
import { answerSchemaMismatch } from '../shared/outputFormat/answerSchema';
import { outputFormatProblems } from '../shared/outputFormat/outputFormatGrammar';
import type { TextObjectRule } from '../shared/outputFormat/structuredText';
import { askStreamed, askWhole, type AskResult, type AskTurn } from './ask';
import { answerMetadata, answerText, resultAsChunks, textResult } from './answerMessage';
import { askRequest } from './askRequest';
import { planAsk, type PlannedAsk } from './askPlan';
import { imagePolicyFor } from './chatImages';
import { StreamedAnswers, type LogDetails, type ModelShownInLogs } from './logsPanel';
import { ACTIVE_PERSONA, DEFAULT_MODEL, type AssistantModelSettings } from './modelSettings';
import {
	boundToolsOf,
	generateWithTools,
	type ParametersJsonSchema,
	type ToolCallingModel,
} from './toolCalling';

/**
 * The assistant as a chat model of n8n's AI node SDK (`ChatModel`): n8n wraps it for LangChain
 * (sdkAdapter.ts), so chains and the AI Agent can use it. It implements the interface rather
 * than extending the SDK's base class, so that this file loads without the SDK (n8n versions
 * before 2.16). Not the node (AssistantChatModel.node.ts), which supplies it.
 */
export class AssistantSdkChatModel implements ChatModel, ModelShownInLogs {
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
		const bound = new AssistantSdkChatModel(this.ctx, this.settings, this.parametersJsonSchema);
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
		const structured = new AssistantSdkChatModel(this.ctx, settings, this.parametersJsonSchema);
		structured.tools = [...this.tools];
		return structured;
	}

	async generate(messages: Message[]): Promise<GenerateResult> {
		const tools = boundToolsOf(this.tools, this.ctx.getNode(), this.parametersJsonSchema);
		if (tools.length > 0) return await generateWithTools(this.toolCalling(), messages, tools);
		const plan = await this.plan(messages);
		const answer = await this.ask(
			askRequest(this.settings, plan.input, plan.conversationId),
			undefined,
			plan,
		);
		await this.checkStructured(answer);
		return textResult(
			answerText(answer.output),
			answer,
			messages.length,
			answerMetadata(answer, this.settings, plan.leftOut),
		);
	}

	/** `callOptions`: what the SDK's adapter passes on, by which the Logs panel finds the answer. */
	async *stream(messages: Message[], callOptions?: unknown): AsyncIterable<StreamChunk> {
		if (this.tools.length > 0 || this.settings.outputFormat) {
			// A structured answer arrives whole, then goes out as the caller expects it.
			const result = await this.generate(messages);
			this.streamedAnswers.note(callOptions, result.providerMetadata ?? {});
			yield* resultAsChunks(result);
			return;
		}
		const plan = await this.plan(messages);
		const answer = askStreamed(
			this.ctx,
			askRequest(this.settings, plan.input, plan.conversationId),
			this.settings,
			plan,
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
		// A service that sends the answer only in its End event: it goes out whole, an object as its
		// JSON (as generate() gives it).
		if (!streamed) yield { type: 'text-delta', delta: answerText(step.value.output) };
		const providerMetadata = answerMetadata(step.value, this.settings, plan.leftOut);
		this.streamedAnswers.note(callOptions, providerMetadata);
		yield { type: 'finish', finishReason: 'stop', providerMetadata };
	}

	/** What the tool-calling path (toolCalling.ts) uses of this model. */
	private toolCalling(): ToolCallingModel {
		return {
			node: this.ctx.getNode(),
			settings: this.settings,
			plan: async (messages) => await this.plan(messages),
			// The tool envelope is the answer's text whole, never an object quoted inside prose: a
			// web page's or a mail's JSON must not become a call of the agent's tools.
			ask: async (request, turn) => await this.ask(request, 'whole', turn),
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

	private async ask(
		request: AskRequest,
		textObject?: TextObjectRule,
		turn?: AskTurn,
	): Promise<AskResult> {
		const answer = await askWhole(this.ctx, request, this.settings, textObject, turn);
		this.noteFallback(answer);
		return answer;
	}

	/**
	 * A Response Format's or structured output's answer is an object of the schema: one that is
	 * not fails the call, as Ask's item does (answerSchema.ts), quoting its start, redacted.
	 */
	private async checkStructured(answer: AskResult): Promise<void> {
		const schema = this.settings.outputFormat;
		const mismatch = schema && answerSchemaMismatch(answer.output, schema);
		if (!mismatch) return;
		const failure = new NodeOperationError(this.ctx.getNode(), mismatch.message, {
			description: mismatch.description,
		});
		const { redaction } = await this.settings.run.credentials();
		throw redaction ? redaction.error(failure) : failure;
	}

	/** docs/api.md#model-fallback: the answer stands; the log says which model gave it. */
	private noteFallback(answer: AskResult): void {
		if (!answer.modelFallback) return;
		this.ctx.logger.warn(
			`Assistant Chat Model: the service answered with ${answer.modelFallback} instead of ${this.settings.modelName ?? 'the default model'}`,
		);
	}
}
