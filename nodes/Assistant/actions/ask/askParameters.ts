import type { INodeProperties } from 'n8n-workflow';

import type { AskRequest } from '../../../shared/api';
import { modelLocator, personaLocator, readLocatorId } from '../../../shared/parameters/locators';
import {
	describeValue,
	invalidParameter,
	type ParameterContext,
} from '../../../shared/parameters/parameterErrors';
import { readAskOptions, type AskOptions } from './askOptions';
import { imageFieldsProperty, readImageFields, type ImageField } from './askImages';
import { toolMessageDefaults } from '../toolParameters';
import { readOutputFormat, type OutputFormat } from '../../../shared/outputFormat/responseFormat';

/** Ask's message parameters: declared, read and checked here, before any request is sent. */

const showForAsk = { show: { operation: ['ask'] } };
// The node and its AI Agent tool variant (`@tool`) start Input and Conversation ID differently.
const showInNode = { show: { operation: ['ask'], '@tool': [false] } };
const showInTool = { show: { operation: ['ask'], '@tool': [true] } };

const input: INodeProperties = {
	displayName: 'Input',
	name: 'input',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. Summarize my unread emails from today',
	description:
		'The message for the assistant: a question or an instruction. Each input item sends one message, usually mapped from a field of the item with an expression. Make it self-contained: the assistant sees only this message (and the earlier messages of the conversation, if you continue one).',
	typeOptions: { rows: 4 },
};

const conversationId: INodeProperties = {
	displayName: 'Conversation ID',
	name: 'conversationId',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.conversation_id }}',
	description:
		'The conversation_id of an earlier answer, to continue that conversation: the assistant remembers what was said. Leave empty to start a new conversation.',
};

export const messageProperties: INodeProperties[] = [
	{ ...input, displayOptions: showInNode },
	{
		...input,
		default: toolMessageDefaults.input,
		description:
			'The message for the assistant. By default the agent writes it ($fromAI "question").',
		displayOptions: showInTool,
	},
	imageFieldsProperty,
	{ ...modelLocator, displayOptions: showForAsk },
	{ ...personaLocator, displayOptions: showForAsk },
	{ ...conversationId, displayOptions: showInNode },
	{
		...conversationId,
		default: toolMessageDefaults.conversationId,
		description:
			'By default the agent fills it ($fromAI "conversationId", empty unless it passes back the conversation_id of an earlier answer of this tool, to ask a follow-up). Empty starts a new conversation.',
		displayOptions: showInTool,
	},
];

export interface AskParameters {
	request: AskRequest;
	options: AskOptions;
	outputFormat?: OutputFormat;
	/** The binary fields (or files) whose images go with the Input (askImages.ts); [] for none. */
	imageFields: ImageField[];
}

/** Every parameter of the item, checked; optional fields are left out of the request when empty. */
export function readAskParameters(ctx: ParameterContext, itemIndex: number): AskParameters {
	const request: AskRequest = { input: readInput(ctx, itemIndex) };
	const model = readLocatorId(ctx, itemIndex, 'model');
	if (model) request.model_name = model;
	const persona = readLocatorId(ctx, itemIndex, 'persona');
	if (persona) request.persona_id = persona;
	const conversationId = readConversationId(ctx, itemIndex);
	if (conversationId) request.conversation_id = conversationId;
	const outputFormat = readOutputFormat(ctx, itemIndex);
	if (outputFormat) request.output_format = outputFormat.schema;
	const options = readAskOptions(ctx, itemIndex);
	// docs/api.md#memory-mode: the service's default is "enabled"; only "off" is sent.
	if (!options.memory) request.memory_mode = 'off';
	return { request, options, outputFormat, imageFields: readImageFields(ctx, itemIndex) };
}

export function readInput(ctx: ParameterContext, itemIndex: number): string {
	const value = ctx.getNodeParameter('input', itemIndex, '');
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidParameter(
			ctx,
			itemIndex,
			'Input must be text',
			`Got ${describeValue(value)}. Put the message for the assistant in "Input", e.g. {{ $json.question }}.`,
		);
	}
	const text = String(value);
	if (text.trim() === '') {
		throw invalidParameter(
			ctx,
			itemIndex,
			'Input is empty',
			'Put the message for the assistant in "Input". If it comes from an expression, check that the field exists on this item.',
		);
	}
	return text;
}

export function readConversationId(ctx: ParameterContext, itemIndex: number): string | undefined {
	const value = ctx.getNodeParameter('conversationId', itemIndex, '');
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidParameter(
			ctx,
			itemIndex,
			'Conversation ID must be text',
			`Got ${describeValue(value)}. Use the conversation_id of an earlier answer, e.g. {{ $json.conversation_id }}, or leave it empty to start a new conversation.`,
		);
	}
	const id = String(value).trim();
	if (/\s/.test(id)) {
		// No conversation id holds white space: this is text, or several ids run together. The
		// message says what to do: an AI Agent calling the tool reads only the message.
		throw invalidParameter(
			ctx,
			itemIndex,
			`Conversation ID ${describeValue(id.length > 80 ? `${id.slice(0, 80)}…` : id)} is not valid: IDs have no spaces or line breaks. Leave it empty to start a new conversation, or pass the conversation_id of an earlier answer`,
			'Use one conversation_id of an earlier answer, e.g. {{ $json.conversation_id }}.',
		);
	}
	return id === '' ? undefined : id;
}

/** The conversation an item continues, for the concurrency runner; a bad value is its own error. */
export function conversationOf(ctx: ParameterContext, itemIndex: number): string | undefined {
	try {
		return readConversationId(ctx, itemIndex);
	} catch {
		return undefined;
	}
}
