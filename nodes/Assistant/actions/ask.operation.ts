import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { AskRequest } from '../../shared/api';
import { answeringModel, askAssistant, type AskResult } from '../../shared/askAssistant';
import type { AttemptPace } from '../../shared/transport/pace';
import { LiveChunks } from './liveChunks';
import { noteModelFallback } from './modelFallback';
import type { RequestSettings } from '../../shared/parameters/requestOptions';
import type { ExecuteRun } from '../../shared/runContext';
import { askOptions, readConcurrency } from './ask/askOptions';
import { conversationOf, messageProperties, readAskParameters } from './ask/askParameters';
import { activeModel } from './ask/deprecatedModel';
import { addAnswerHints } from './ask/answerHints';
import { checkModelSeesImages, inputWithImages, readItemImages } from './ask/askImages';
import { forAgentIfUnknownConversation } from './ask/unknownConversation';
import { apiError } from '../../shared/transport/errors';
import { answerSchemaMismatch } from '../../shared/outputFormat/answerSchema';
import { responseFormatProperties } from '../../shared/outputFormat/responseFormat';

/** Ask: one message per item, the answer as text or as an object. */

export const description: INodeProperties[] = [
	...messageProperties,
	...responseFormatProperties({ operation: ['ask'] }),
	askOptions,
];

/** The router asks Ask how many items may run at once, and which conversation each continues. */
export { readConcurrency as concurrency, conversationOf };

/** Asks go at the pace the service allows (actions/concurrency.ts). */
export const paced = true;

interface AskOutput extends IDataObject {
	output: string | IDataObject;
	conversation_id: string | null;
	/** Only when the service answered with another model (docs/api.md#model-fallback). */
	model_fallback?: string;
	/**
	 * Only when the response failed after the assistant accepted the ask, and the answer was read
	 * from the conversation instead (docs/api.md#recovery-after-a-failure).
	 */
	recovered?: true;
	/** Only with Options > Include Steps (docs/api.md#steps). */
	steps?: IDataObject[];
	/** Only with Options > Include Steps: the model that answered, null when the service did not say. */
	model?: string | null;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ExecuteRun,
	pace?: AttemptPace,
): Promise<INodeExecutionData[]> {
	// Every parameter is checked before the first request (the catalog's included).
	const { request, options, outputFormat, imageFields } = readAskParameters(run, itemIndex);
	const images = await readItemImages(this, itemIndex, imageFields);
	if (request.model_name) {
		request.model_name = await activeModel(run, options, request.model_name, options.useSuccessor);
	}
	if (images.length > 0) {
		await checkModelSeesImages(run, itemIndex, options, request.model_name);
		request.input = inputWithImages(request.input, images);
		// Held in the input now: the item's images are not kept twice while the ask runs.
		images.length = 0;
	}
	const settings: RequestSettings = {
		timeoutMs: options.timeoutMs,
		idleTimeoutMs: options.idleTimeoutMs,
		retries: options.retries,
	};
	const live = new LiveChunks(this, itemIndex, {
		stream: options.stream,
		structured: request.output_format !== undefined,
	});
	let answer: AskOutput;
	try {
		answer = await askItem(
			this,
			request,
			{
				...settings,
				pace,
				stream: options.stream,
				steps: options.steps,
				answerLimitChars: options.answerLimitChars,
			},
			itemIndex,
			run,
			live,
		);
	} catch (error) {
		live.fail(error);
		throw forAgentIfUnknownConversation(this, error, request.conversation_id, itemIndex);
	}
	addAnswerHints(this, run.notices, outputFormat);
	return [{ json: answer }];
}

/**
 * The item's ask. In a streaming execution the answer goes to its caller: piece by piece as it
 * comes with Stream on, whole in one chunk otherwise (docs/api.md#assembling-the-answer).
 */
async function askItem(
	ctx: IExecuteFunctions,
	request: AskRequest,
	settings: RequestSettings & {
		pace?: AttemptPace;
		stream: boolean;
		steps?: { thinking: boolean };
		answerLimitChars: number;
	},
	itemIndex: number,
	run: ExecuteRun,
	live: LiveChunks,
): Promise<AskOutput> {
	const result = await askAssistant(ctx, {
		request,
		asker: { node: 'assistant' },
		...settings,
		itemIndex,
		onText: settings.stream ? (delta) => live.text(delta) : undefined,
		notices: run.notices,
		credentials: run.credentials,
		watch: run.watch,
		turns: run.turns,
	});
	const mismatch =
		request.output_format && answerSchemaMismatch(result.output, request.output_format);
	if (mismatch) throw apiError(ctx.getNode(), mismatch, itemIndex);
	live.finish(result.output);
	return askOutput(ctx, run, request, result);
}

function askOutput(
	ctx: IExecuteFunctions,
	run: ExecuteRun,
	request: AskRequest,
	result: AskResult,
): AskOutput {
	return {
		output: result.output as string | IDataObject,
		conversation_id: result.conversationId,
		...noteModelFallback(ctx, run.notices, request.model_name, result),
		...(result.recovered ? { recovered: true as const } : {}),
		...(result.steps ? stepsOutput(request, result) : {}),
	};
}

/** The steps, and the model that answered (answeringModel); null for the account's default. */
function stepsOutput(request: AskRequest, result: AskResult): Pick<AskOutput, 'steps' | 'model'> {
	return {
		steps: (result.steps ?? []) as IDataObject[],
		model: answeringModel(result, request.model_name) ?? null,
	};
}
