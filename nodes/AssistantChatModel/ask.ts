import type { IExecuteFunctions, ISupplyDataFunctions } from 'n8n-workflow';

import type { AskRequest, AskResponse } from '../Assistant/api';
import { StreamAnswerAssembler } from '../Assistant/sse';
import { apiRequest, streamRequest } from '../Assistant/transport';
import { apiError } from '../Assistant/transport/errors';

/** One ask of the chat model, through the Assistant node's transport (auth, deadlines, retries). */

export interface AskSettings {
	timeoutMs: number;
	idleTimeoutMs: number;
	retries: number;
}

export interface AskResult {
	output: string | Record<string, unknown>;
	conversationId: string | null;
}

// The transport takes the contexts of the Assistant node; a supply-data context has every member
// it uses (credentials, authenticated requests, the cancel signal, the logger, getNode).
function transportContext(ctx: ISupplyDataFunctions): IExecuteFunctions {
	return ctx as unknown as IExecuteFunctions;
}

export async function askOnce(
	ctx: ISupplyDataFunctions,
	request: AskRequest,
	settings: AskSettings,
): Promise<AskResult> {
	const response = await apiRequest<AskResponse>(transportContext(ctx), {
		method: 'POST',
		path: '/assistant/ask',
		body: request,
		authenticated: true,
		...settings,
	});
	const output = response?.output;
	const structured = request.output_format !== undefined;
	if (!structured && (typeof output !== 'string' || output === '')) {
		throw apiError(
			ctx.getNode(),
			{
				message: 'The assistant sent an answer without text output',
				description: `Received output of type ${output === null ? 'null' : typeof output}.`,
			},
			undefined,
		);
	}
	if (structured && (output === undefined || output === null)) {
		throw apiError(
			ctx.getNode(),
			{
				message: 'The assistant did not return an object for the output format',
				description: 'The answer carried no output.',
			},
			undefined,
		);
	}
	return {
		output,
		conversationId: typeof response.conversation_id === 'string' ? response.conversation_id : null,
	};
}

/**
 * The streamed form: yields each piece of answer text as it arrives (none for a structured
 * answer, which is only useful whole), and returns the whole answer.
 */
export async function* askStreamed(
	ctx: ISupplyDataFunctions,
	request: AskRequest,
	settings: AskSettings,
): AsyncGenerator<string, AskResult> {
	const opened = await streamRequest(transportContext(ctx), {
		method: 'POST',
		path: '/assistant/ask',
		body: { ...request, stream: true },
		authenticated: true,
		...settings,
	});
	const structured = request.output_format !== undefined;
	const assembler = new StreamAnswerAssembler(structured);
	stream: for await (const batch of opened.events) {
		for (const event of batch) {
			if (!assembler.accept(event)) break stream;
			if (event.type === 'text' && !structured) yield event.content;
		}
	}
	if (assembler.errorMessage !== undefined) {
		throw apiError(
			ctx.getNode(),
			{
				message: `The assistant reported an error: ${assembler.errorMessage}`,
				description: 'The service sent an error event in the stream; no answer was returned.',
			},
			undefined,
		);
	}
	if (!assembler.complete) {
		throw apiError(
			ctx.getNode(),
			{
				message: 'The stream ended before the answer was complete',
				description:
					'The service closed the stream without its End event, so the answer may be cut short.',
			},
			undefined,
		);
	}
	let result;
	try {
		result = assembler.result();
	} catch (error) {
		throw apiError(ctx.getNode(), { message: (error as Error).message }, undefined);
	}
	if (!structured && result.output === '') {
		throw apiError(
			ctx.getNode(),
			{
				message: 'The stream ended without an answer',
				description: 'The service ended the stream without any answer text.',
			},
			undefined,
		);
	}
	return {
		output: result.output,
		conversationId: opened.conversationId ?? result.conversationId ?? null,
	};
}
