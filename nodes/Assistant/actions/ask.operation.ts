import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import type { AskRequest, AskResponse } from '../api';
import { successorOf } from '../catalog';
import { StreamAnswerAssembler } from '../sse';
import { apiRequest, streamRequest } from '../transport';
import { apiError } from '../transport/errors';
import { EXAMPLE_JSON_SCHEMA, modelLocator, personaLocator } from './descriptions';
import { catalogOfExecution } from './executionCatalog';
import {
	optionsOf,
	readConversationId,
	readInput,
	readJsonSchema,
	readLocatorId,
	readRequestSettings,
	type RequestSettings,
} from './parameters';
import type { RunCache } from './runCache';

const showForAsk = { show: { operation: ['ask'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Input',
		name: 'input',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Summarize my unread emails from today',
		description:
			'The message for the assistant: a question or an instruction. Make it self-contained: the assistant sees only this message (and the earlier messages of the conversation, if you continue one).',
		typeOptions: { rows: 4 },
		displayOptions: showForAsk,
	},
	{ ...modelLocator, displayOptions: showForAsk },
	{ ...personaLocator, displayOptions: showForAsk },
	{
		displayName: 'Conversation ID',
		name: 'conversationId',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.conversation_id }}',
		description:
			'The conversation_id of an earlier answer, to continue that conversation: the assistant remembers what was said. Leave empty to start a new conversation.',
		displayOptions: showForAsk,
	},
	{
		displayName: 'Response Format',
		name: 'responseFormat',
		type: 'options',
		default: 'text',
		options: [
			{ name: 'Text', value: 'text', description: 'The reply as text' },
			{
				name: 'JSON Schema',
				value: 'jsonSchema',
				description: 'The reply as an object matching a JSON Schema',
			},
		],
		displayOptions: showForAsk,
	},
	{
		displayName: 'JSON Schema',
		name: 'jsonSchema',
		type: 'json',
		default: EXAMPLE_JSON_SCHEMA,
		description:
			'The shape of the object to return: an object schema whose properties are string (optionally with enum), number, boolean, array (with items) or object',
		typeOptions: { rows: 10 },
		displayOptions: { show: { operation: ['ask'], responseFormat: ['jsonSchema'] } },
	},
];

interface AskOutput extends IDataObject {
	output: string | IDataObject;
	conversation_id: string | null;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
): Promise<INodeExecutionData[]> {
	// Every parameter is checked before the first request (the catalog's included).
	const request = readAskRequest(this, itemIndex);
	const stream = optionsOf(this, itemIndex).stream === true;
	const settings = readRequestSettings(this, itemIndex);
	if (request.model_name)
		request.model_name = await activeModel(this, itemIndex, cache, request.model_name);

	const answer = stream
		? await askStreaming(this, request, settings, itemIndex)
		: await askOnce(this, request, settings, itemIndex);
	return [{ json: answer }];
}

/**
 * A deprecated model id is answered by its successor (by default), with a hint either way, so
 * that workflows keep working when the service retires a model. The catalog is only an aid
 * here: when it cannot be read, the model is sent as chosen.
 */
async function activeModel(
	ctx: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
	modelId: string,
): Promise<string> {
	let successor: string | undefined;
	try {
		successor = successorOf(await catalogOfExecution(ctx, itemIndex, cache), modelId);
	} catch (error) {
		ctx.logger.debug(
			`Assistant: catalog not available for the deprecation check: ${(error as Error).message}`,
		);
		return modelId;
	}
	if (!successor) return modelId;
	const follow = optionsOf(ctx, itemIndex).useSuccessor !== false;
	await cache.once(`deprecation hint ${modelId}`, async () =>
		ctx.addExecutionHints({
			message: follow
				? `Model "${modelId}" is deprecated: asked its successor "${successor}" instead. Choose "${successor}" in Model to make this permanent.`
				: `Model "${modelId}" is deprecated; its successor is "${successor}". Choose it in Model, or turn on Options > Use Successor of Deprecated Model.`,
			type: 'warning',
			location: 'outputPane',
		}),
	);
	return follow ? successor : modelId;
}

/** Every parameter checked before anything is sent; optional fields are left out when empty. */
function readAskRequest(ctx: IExecuteFunctions, itemIndex: number): AskRequest {
	const request: AskRequest = { input: readInput(ctx, itemIndex) };
	const model = readLocatorId(ctx, itemIndex, 'model');
	if (model) request.model_name = model;
	const persona = readLocatorId(ctx, itemIndex, 'persona');
	if (persona) request.persona_id = persona;
	const conversationId = readConversationId(ctx, itemIndex);
	if (conversationId) request.conversation_id = conversationId;

	const responseFormat = ctx.getNodeParameter('responseFormat', itemIndex, 'text') as unknown;
	if (responseFormat === 'jsonSchema') {
		request.output_format = readJsonSchema(ctx, itemIndex);
	} else if (responseFormat !== 'text') {
		throw new NodeOperationError(
			ctx.getNode(),
			`Response Format ${JSON.stringify(responseFormat)} is not supported`,
			{ itemIndex, description: 'Choose "Text" or "JSON Schema".' },
		);
	}
	return request;
}

async function askOnce(
	ctx: IExecuteFunctions,
	request: AskRequest,
	settings: RequestSettings,
	itemIndex: number,
): Promise<AskOutput> {
	const response = await apiRequest<AskResponse>(ctx, {
		method: 'POST',
		path: '/assistant/ask',
		body: request,
		authenticated: true,
		...settings,
		itemIndex,
	});
	const structured = request.output_format !== undefined;
	const output = structured ? objectFromJsonText(response?.output) : response?.output;
	const validOutput = structured
		? typeof output === 'object' && output !== null && !Array.isArray(output)
		: typeof output === 'string';
	if (!validOutput) {
		throw apiError(
			ctx.getNode(),
			{
				message: structured
					? 'The assistant did not return an object for the JSON Schema'
					: 'The assistant sent an answer without text output',
				description: `Received output of type ${output === null ? 'null' : Array.isArray(output) ? 'array' : typeof output}.`,
			},
			itemIndex,
		);
	}
	return {
		output: output as string | IDataObject,
		conversation_id: typeof response.conversation_id === 'string' ? response.conversation_id : null,
	};
}

/** A structured answer sent as JSON text (tolerated, as in streams) becomes the object. */
function objectFromJsonText(output: unknown): unknown {
	if (typeof output !== 'string') return output;
	try {
		return JSON.parse(output) as unknown;
	} catch {
		return output;
	}
}

async function askStreaming(
	ctx: IExecuteFunctions,
	request: AskRequest,
	settings: RequestSettings,
	itemIndex: number,
): Promise<AskOutput> {
	const opened = await streamRequest(ctx, {
		method: 'POST',
		path: '/assistant/ask',
		body: { ...request, stream: true },
		authenticated: true,
		...settings,
		itemIndex,
	});
	const structured = request.output_format !== undefined;
	const live = new LiveChunks(ctx, itemIndex, structured);
	const assembler = new StreamAnswerAssembler(structured);
	stream: for await (const batch of opened.events) {
		for (const event of batch) {
			if (event.type === 'text') live.text(event.content);
			if (!assembler.accept(event)) break stream;
		}
	}
	if (assembler.errorMessage !== undefined) {
		throw apiError(
			ctx.getNode(),
			{
				message: `The assistant reported an error: ${assembler.errorMessage}`,
				description: 'The service sent an Error event in the stream; no answer was returned.',
			},
			itemIndex,
		);
	}
	if (!assembler.complete) {
		throw apiError(
			ctx.getNode(),
			{
				message: 'The stream ended before the answer was complete',
				description:
					'The service closed the stream without its End event, so the answer may be cut short. No partial answer was returned; run the item again.',
			},
			itemIndex,
		);
	}
	let result;
	try {
		result = assembler.result();
	} catch (error) {
		throw apiError(ctx.getNode(), { message: (error as Error).message }, itemIndex);
	}
	live.finish(result.output);
	return {
		output: result.output as string | IDataObject,
		conversation_id: opened.conversationId ?? result.conversationId ?? null,
	};
}

/**
 * Forwards the answer to n8n's streaming response (a Webhook or Chat Trigger that streams), as
 * it arrives. A structured answer is only useful whole, so it goes out once at the end.
 * Outside a streaming execution this does nothing.
 */
class LiveChunks {
	private readonly enabled: boolean;
	private begun = false;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
		private readonly structured: boolean,
	) {
		this.enabled = typeof ctx.isStreaming === 'function' && ctx.isStreaming();
	}

	text(content: string): void {
		if (!this.enabled || this.structured) return;
		this.begin();
		this.ctx.sendChunk('item', this.itemIndex, content);
	}

	finish(output: string | Record<string, unknown>): void {
		if (!this.enabled) return;
		this.begin();
		if (this.structured) this.ctx.sendChunk('item', this.itemIndex, JSON.stringify(output));
		this.ctx.sendChunk('end', this.itemIndex);
	}

	private begin(): void {
		if (this.begun) return;
		this.begun = true;
		this.ctx.sendChunk('begin', this.itemIndex);
	}
}
