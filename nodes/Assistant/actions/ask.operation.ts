import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { AskRequest, AskResponse } from '../api';
import { StreamAnswerAssembler } from '../sse';
import { apiRequest, streamRequest } from '../transport';
import { apiError } from '../transport/errors';
import type { RequestSettings } from './requestOptions';
import type { RunCache } from './runCache';
import { askOptions, readConcurrency } from './ask/askOptions';
import { conversationOf, messageProperties, readAskParameters } from './ask/askParameters';
import { activeModel } from './ask/deprecatedModel';
import { addAnswerHints } from './ask/answerHints';
import { responseFormatProperties } from './ask/responseFormat';

/** Ask: one message per item, the answer as text or as an object. */

export const description: INodeProperties[] = [
	...messageProperties,
	...responseFormatProperties,
	askOptions,
];

/** The router asks Ask how many items may run at once, and which conversation each continues. */
export { readConcurrency as concurrency, conversationOf };

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
	const { request, options, outputFormat } = readAskParameters(this, itemIndex);
	if (request.model_name) {
		request.model_name = await activeModel(
			this,
			itemIndex,
			cache,
			request.model_name,
			options.useSuccessor,
		);
	}
	const settings: RequestSettings = {
		timeoutMs: options.timeoutMs,
		idleTimeoutMs: options.idleTimeoutMs,
		retries: options.retries,
	};
	const answer = options.stream
		? await askStreaming(this, request, settings, itemIndex)
		: await askOnce(this, request, settings, itemIndex);
	await addAnswerHints(this, cache, outputFormat);
	return [{ json: answer }];
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
