import type { NodeApiError } from 'n8n-workflow';

import type { AskRequest, AskResponse } from './api';
import {
	busyConversationWait,
	recoverAfterFailure,
	type AttemptHeard,
} from './recovery/afterFailure';
import { quotedStart } from './outputFormat/structuredText';
import { unsentRest } from './recovery/recoverAnswer';
import { jsonObject, NO_ANSWER_MESSAGE, StreamAnswer, StreamAnswerError } from './stream/answer';
import { LostResponse } from './transport/acceptance';
import { apiError, headline } from './transport/errors';
import {
	creditError,
	RetryableFailure,
	sessionPoolError,
	type FailureScope,
} from './transport/failures';
import type { AttemptPace } from './transport/pace';
import {
	headerValue,
	type ApiRequest,
	type AssistantContext,
	type ResponseHeaders,
} from './transport/request';
import { runCall } from './transport/retryLoop';
import type { Attempt } from './transport/send';
import { isCreditMessage, isSessionPoolMessage, redact } from './transport/serverMessage';
import { openStream } from './transport/streamCall';
import type { AssistantStep } from './stream/steps';

export type { AssistantContext } from './transport/request';

/** One ask, as the Ask operation, the agent tool and a chat model make it. */
export interface AskCall {
	request: AskRequest;
	/**
	 * The caller takes the answer piece by piece as it is written (Stream on): the idle limit
	 * applies. Every ask goes on the wire in streamed form either way (docs/api.md#exactly-once).
	 */
	stream: boolean;
	timeoutMs: number;
	idleTimeoutMs: number;
	retries: number;
	itemIndex?: number;
	/** Each new piece of a streamed text answer, once, as it arrives. */
	onText?: (delta: string) => void;
	pace?: AttemptPace;
	/** Collect what the assistant did (docs/api.md#steps); `thinking` adds its thinking texts. */
	steps?: { thinking: boolean };
	/** The most answer text to hold, in characters (docs/api.md#memory-bounds); the default when not given. */
	answerLimitChars?: number;
}

export interface AskResult {
	output: string | Record<string, unknown>;
	conversationId: string | null;
	/** The model that answered, when the service fell back from the one asked for. */
	modelFallback?: string;
	/**
	 * The response failed after the service had accepted the ask, and the answer was read from
	 * its conversation instead of asking again (docs/api.md#recovery-after-a-failure).
	 */
	recovered?: true;
	/** With `steps` asked for: what the assistant did, in order (docs/api.md#steps). */
	steps?: AssistantStep[];
	/** With `steps` asked for: the model the stream named as the writer of its messages. */
	streamModel?: string;
}

/**
 * The model that answered: the one the service fell back to, else the one its stream names, else
 * the one asked for; undefined when none of them says (the account's default model answered).
 */
export function answeringModel(result: AskResult, asked: string | undefined): string | undefined {
	return result.modelFallback ?? result.streamModel ?? asked;
}

/**
 * Asks the assistant, with retries: the answer, or a NodeApiError for every failure. The ask
 * always goes on the wire in streamed form, so that its conversation id (`x-conversation-id`)
 * is known before anything can go wrong (docs/api.md#exactly-once); a streamed ask returns what
 * the same ask without streaming returns (docs/api.md#how-a-stream-ends), and a service that
 * answers it with plain JSON is understood as well.
 */
export async function askAssistant(ctx: AssistantContext, call: AskCall): Promise<AskResult> {
	const request: ApiRequest = {
		method: 'POST',
		path: '/assistant/ask',
		body: { ...call.request, stream: true },
		authenticated: true,
		timeoutMs: call.timeoutMs,
		// Only a caller that takes the answer as it comes has asked for an idle limit.
		idleTimeoutMs: call.stream ? call.idleTimeoutMs : undefined,
		retries: call.retries,
		itemIndex: call.itemIndex,
		pace: call.pace,
		answerLimitChars: call.answerLimitChars,
	};
	const live = new LiveText(call.onText);
	return await runCall(
		ctx,
		request,
		async (attempt) => await askOnce(attempt, call, live),
		busyConversationWait(call.request.conversation_id),
	);
}

/**
 * The answer text passed on so far, so that none of it is passed on twice. The stream being read
 * knows what it passed on: no second copy of a long answer is kept while it streams.
 */
class LiveText {
	/** What was passed on before the stream being read. */
	private earlier = '';
	private reading: StreamAnswer | undefined;

	constructor(readonly forward: ((delta: string) => void) | undefined) {}

	/** From now on text is passed on from `answer` (what came before stays passed on). */
	reads(answer: StreamAnswer): void {
		this.settle();
		this.reading = answer;
	}

	/** Passes on the rest of an answer that was recovered instead of streamed. */
	passOn(rest: string): void {
		if (!this.forward || !rest) return;
		this.settle();
		this.earlier += rest;
		this.forward(rest);
	}

	get sent(): string {
		return this.earlier + (this.reading?.passedOn() ?? '');
	}

	private settle(): void {
		if (this.reading) this.earlier += this.reading.passedOn();
		this.reading = undefined;
	}
}

/**
 * One attempt; when it fails after the service may have accepted the ask, the answer comes from
 * the ask's conversation instead, and a streaming workflow gets the rest of it
 * (docs/api.md#recovery-after-a-failure).
 */
async function askOnce(attempt: Attempt, call: AskCall, live: LiveText): Promise<AskResult> {
	const heard: StreamHeard = {
		conversationId: call.request.conversation_id,
		accepted: false,
		headers: {},
	};
	try {
		return await streamedAnswer(attempt, call, live, heard);
	} catch (error) {
		// The steps the stream told before it failed: the conversation's answer has none.
		const steps = call.steps ? (heard.answer?.steps() ?? []) : undefined;
		const { output, conversationId } = await recoverAfterFailure(
			attempt,
			error,
			{
				input: call.request.input,
				structured: call.request.output_format !== undefined,
				sentText: live.sent,
			},
			heard,
		);
		if (typeof output === 'string' && live.forward) live.passOn(unsentRest(live.sent, output));
		const result: AskResult = { output, conversationId, recovered: true };
		if (steps) result.steps = steps;
		return withFallback(result, heard.headers);
	}
}

/** What an attempt heard, and the stream it was reading when it failed. */
interface StreamHeard extends AttemptHeard {
	answer?: StreamAnswer;
}

function resultOfJson(
	scope: FailureScope,
	call: AskCall,
	body: unknown,
	headers: ResponseHeaders,
	heard: AttemptHeard,
): AskResult {
	const answer = (typeof body === 'object' && body !== null ? body : {}) as Partial<AskResponse>;
	const conversationId =
		typeof answer.conversation_id === 'string' && answer.conversation_id
			? answer.conversation_id
			: null;
	heard.conversationId ||= conversationId ?? undefined;
	if (answer.output === undefined || answer.output === null || answer.output === '') {
		// A 200 with an empty answer: the conversation may hold it a moment later.
		throw new LostResponse('empty', noAnswerError(scope));
	}
	const result: AskResult = { output: checkedOutput(scope, call, answer.output), conversationId };
	// A whole JSON answer tells no steps.
	if (call.steps) result.steps = [];
	return withFallback(result, headers);
}

/** Text or an object; for a structured ask, an object (sent as JSON text, tolerated). */
function checkedOutput(scope: FailureScope, call: AskCall, output: unknown): AskResult['output'] {
	const structured = call.request.output_format !== undefined;
	const object = typeof output === 'string' && structured ? jsonObject(output) : output;
	if (typeof object === 'object' && object !== null && !Array.isArray(object)) {
		return object as Record<string, unknown>;
	}
	if (!structured && typeof output === 'string' && output) return output;
	const received = output === null ? 'null' : Array.isArray(output) ? 'array' : typeof output;
	const what =
		typeof output === 'string'
			? `its answer begins ${quotedStart(output)}`
			: `received ${received}`;
	throw apiError(
		scope.node,
		{
			message: structured
				? `The assistant did not return an object for the JSON Schema: ${what}`
				: `The assistant sent an answer without text output: received ${received}`,
			description: RUN_AGAIN,
		},
		scope.request.itemIndex,
	);
}

function noAnswerError(scope: FailureScope): NodeApiError {
	return apiError(
		scope.node,
		{ message: NO_ANSWER_MESSAGE, description: RUN_AGAIN },
		scope.request.itemIndex,
	);
}

const RUN_AGAIN = 'Run the item again; if it keeps happening, try another model.';

async function streamedAnswer(
	attempt: Attempt,
	call: AskCall,
	live: LiveText,
	heard: StreamHeard,
): Promise<AskResult> {
	const opened = await openStream(attempt);
	// The service accepted the ask; its conversation is known from here on.
	heard.accepted = true;
	heard.headers = opened.headers;
	heard.conversationId =
		headerValue(opened.headers, 'x-conversation-id')?.trim() || heard.conversationId;
	if (opened.kind === 'json') {
		return resultOfJson(attempt.scope, call, opened.body, opened.headers, heard);
	}
	const structured = call.request.output_format !== undefined;
	const answer = new StreamAnswer({
		structured,
		onText: live.forward,
		steps: call.steps,
		answerLimitChars: call.answerLimitChars,
	});
	live.reads(answer);
	heard.answer = answer;
	read: for await (const batch of opened.messages) {
		for (const message of batch) if (!answer.accept(message)) break read;
	}
	let result;
	try {
		result = answer.result();
	} catch (error) {
		// result() throws nothing but StreamAnswerErrors.
		throw streamFailure(attempt.scope, error as StreamAnswerError, opened.headers);
	}
	const conversationId =
		headerValue(opened.headers, 'x-conversation-id') || result.conversationId || null;
	const asked: AskResult = { output: result.output, conversationId };
	if (result.steps) asked.steps = result.steps;
	if (result.model) asked.streamModel = result.model;
	return withFallback(asked, opened.headers);
}

/**
 * A stream that did not answer, as the error to show (or a full session pool to wait for); one
 * that ended without End or without an answer is a LostResponse: its conversation may hold the
 * answer.
 */
function streamFailure(
	scope: FailureScope,
	failure: StreamAnswerError,
	headers: ResponseHeaders,
): RetryableFailure | NodeApiError | LostResponse {
	const { node, request, secret } = scope;
	const said = redact(failure.serverMessage ?? '', secret);
	switch (failure.failure) {
		case 'error-event':
			if (isCreditMessage(said)) return creditError(scope, undefined, said);
			// Before any answer text, a full session pool is waited out like its HTTP form.
			if (isSessionPoolMessage(said) && !failure.afterText) {
				// The stream's headers may carry the server's Retry-After.
				return new RetryableFailure(
					'session-pool',
					sessionPoolError(scope, undefined, said),
					headers,
				);
			}
			return apiError(
				node,
				{
					message: headline('The assistant reported an error', undefined, said),
					description: `The stream ended with this error and no answer was returned. ${RUN_AGAIN}`,
				},
				request.itemIndex,
			);
		case 'incomplete':
			return new LostResponse(
				'incomplete',
				apiError(
					node,
					{
						message: failure.message,
						description:
							'The service closed the stream without its End event, so the answer may be cut short. No partial answer was returned; run the item again.',
					},
					request.itemIndex,
				),
			);
		case 'no-answer':
			return new LostResponse('empty', noAnswerError(scope));
		case 'too-large':
			return apiError(
				node,
				{
					message: failure.message,
					description:
						"No partial answer was returned. If the assistant really writes answers this long, raise Ask's Options > Max Answer Length; otherwise check the credential's Base URL.",
				},
				request.itemIndex,
			);
		default:
			return apiError(
				node,
				{ message: failure.message, description: RUN_AGAIN },
				request.itemIndex,
			);
	}
}

function withFallback(result: AskResult, headers: ResponseHeaders): AskResult {
	const fallback = headerValue(headers, 'x-model-fallback')?.trim();
	return fallback ? { ...result, modelFallback: fallback } : result;
}
