import type { GenerateResult, Message, Tool } from '@n8n/ai-node-sdk';
import { NodeOperationError, type INode } from 'n8n-workflow';

import type { AskRequest, OutputFormatSchema } from '../shared/api';
import { parseJson } from '../shared/json';
import { answerSchemaMismatch } from '../shared/outputFormat/answerSchema';
import type { AskResult, AskTurn } from './ask';
import { answerId, answerMetadata, textResult } from './answerMessage';
import { askRequest } from './askRequest';
import type { PlannedAsk } from './askPlan';
import type { LogDetails } from './logsPanel';
import type { AssistantModelSettings } from './modelSettings';
import { checkToolArguments, type JsonSchema } from './toolArguments';
import {
	catalogueFingerprint,
	correctionRequest,
	readEnvelope,
	shownToolName,
	toolInstructions,
	type ToolForEnvelope,
} from './toolEnvelope';
import { withCatalogue } from './transcript';

/**
 * A call with tools bound: one turn of tool calling over the ask's output format (the tool
 * envelope, toolEnvelope.ts), in which the assistant calls one tool or answers.
 */

/** The SDK's `getParametersJsonSchema` (Zod or JSON Schema to JSON Schema), passed in by the node. */
export type ParametersJsonSchema = (tool: FunctionTool) => object;

type FunctionTool = Extract<Tool, { type: 'function' }>;

export interface BoundTool extends ToolForEnvelope {
	/** The tool's own schema: Zod (checked with its safeParse) or JSON Schema. */
	schema: unknown;
}

/** What the tool-calling path uses of the chat model: its node, settings, plan and asks. */
export interface ToolCallingModel {
	node: INode;
	settings: AssistantModelSettings;
	plan(messages: Message[]): Promise<PlannedAsk>;
	/** `turn`: what the plan says of the ask (ask.ts's AskTurn), or of a correction. */
	ask(request: AskRequest, turn: AskTurn): Promise<AskResult>;
}

/** The tools the agent bound, with their JSON Schema for the envelope; only function tools. */
export function boundToolsOf(
	tools: Tool[],
	node: INode,
	parametersJsonSchema?: ParametersJsonSchema,
): BoundTool[] {
	return tools.map((tool) => {
		if (tool.type !== 'function') {
			throw new NodeOperationError(
				node,
				`The Assistant Chat Model cannot use the provider tool "${tool.name}"`,
				{ description: 'Only tools that n8n runs (function tools) can be called.' },
			);
		}
		return {
			name: tool.name,
			description: tool.description,
			schema: tool.inputSchema,
			parameters: jsonSchemaOf(tool, parametersJsonSchema),
		};
	});
}

function jsonSchemaOf(
	tool: FunctionTool,
	parametersJsonSchema?: ParametersJsonSchema,
): JsonSchema | undefined {
	if (parametersJsonSchema) return parametersJsonSchema(tool) as JsonSchema;
	const schema = tool.inputSchema;
	return typeof schema === 'object' && schema !== null && !('safeParse' in schema)
		? (schema as JsonSchema)
		: undefined;
}

/**
 * A correction is no turn of the history: it holds no earlier answer, and its conversation is the
 * one the service answered the call in a moment before (what a 404 there means: errors.ts).
 */
const CORRECTION: AskTurn = { conversationFrom: 'just-answered' };

/**
 * A reply that does not fit (unknown tool, arguments that do not match the tool's schema) is sent
 * back once with what was wrong; a second miss fails with that reason.
 */
export async function generateWithTools(
	model: ToolCallingModel,
	messages: Message[],
	tools: BoundTool[],
): Promise<GenerateResult> {
	const { settings } = model;
	const plan = await model.plan(messages);
	if (plan.turnBegunUnnamed) {
		// The tool's result has no conversation to go back to, as a correction has none below.
		throw new NodeOperationError(
			model.node,
			'The tool’s result cannot be sent back to the assistant: the reply that called the tool named no conversation',
			{
				description:
					'The request was not sent again to a new conversation, so that the assistant does not do its work (a mail, a file) twice. Run the execution again; if this happens every time, the service no longer names the conversation it answers in.',
			},
		);
	}
	const catalogue = catalogueFingerprint(tools);
	// The conversation has these tools' catalogue already: the output format names them.
	const input =
		plan.conversationId && plan.catalogue === catalogue
			? plan.input
			: withCatalogue(plan.input, toolInstructions(tools));
	const answerSchema = settings.outputFormat;
	let answer = await model.ask(askRequest(settings, input, plan.conversationId, tools), plan);
	const interpreted = (reply: AskResult) =>
		interpret(
			reply,
			tools,
			messages.length,
			catalogue,
			answerSchema,
			answerMetadata(reply, settings, plan.leftOut),
		);
	let outcome = interpreted(answer);
	// The reason goes back in the answer's conversation. Without one, it is not sent at all: a
	// new conversation would need the whole request again, and the assistant would do its work
	// (a mail sent, a file written) a second time.
	let corrected = false;
	if ('problem' in outcome && answer.conversationId) {
		const retry = askRequest(
			settings,
			correctionRequest(outcome.problem),
			answer.conversationId,
			tools,
		);
		answer = await model.ask(retry, CORRECTION);
		outcome = interpreted(answer);
		corrected = true;
	}
	// The call's arguments are read from the answer's text after the ask, which redacted the
	// answer as it came (escaped in JSON, the token would not show there yet): again, as read.
	const { redaction } = await settings.run.credentials();
	if ('problem' in outcome) {
		const failure = new NodeOperationError(
			model.node,
			`The assistant's tool call could not be used: ${outcome.problem}`,
			{
				description: corrected
					? 'It was asked once more with the reason and answered the same way. Check the tools’ descriptions and parameters, or rephrase the request.'
					: 'The service named no conversation to send the reason back to, and the request was not sent again, so that the assistant does not do its work twice. Check the tools’ descriptions and parameters, or rephrase the request.',
			},
		);
		throw redaction ? redaction.error(failure) : failure;
	}
	return redaction ? redaction.json(outcome.result) : outcome.result;
}

type Outcome = { result: GenerateResult } | { problem: string };

/**
 * The reply as the final answer or one checked tool call, or what is wrong with it. With a
 * Response Format (`answerSchema`), the final answer is its object, checked against it as the
 * tool calls' arguments are against theirs.
 */
function interpret(
	answer: AskResult,
	tools: BoundTool[],
	messageCount: number,
	catalogue: string,
	answerSchema: OutputFormatSchema | undefined,
	metadata: LogDetails,
): Outcome {
	const reply = readEnvelope(answer.output, tools, answerSchema !== undefined);
	if (reply.action === 'invalid') return { problem: reply.problem };
	if (reply.action === 'final_answer') {
		const mismatch = answerSchema && answerSchemaMismatch(parseJson(reply.answer), answerSchema);
		if (mismatch) {
			return {
				problem: `"final_answer" does not match the schema: ${mismatch.problems.join('; ')}`,
			};
		}
		return { result: textResult(reply.answer, answer, messageCount, metadata, catalogue) };
	}
	const tool = tools.find((candidate) => candidate.name === reply.toolName) as BoundTool;
	const checked = checkToolArguments(reply.argumentsJson, tool.schema, tool.parameters);
	if (!checked.ok)
		return {
			problem: `the arguments for the tool ${shownToolName(tool.name)} are wrong: ${checked.problem}`,
		};
	const id = answerId(answer.conversationId, messageCount, catalogue);
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
