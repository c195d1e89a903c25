import type { AskRequest } from './api';
import { attemptAsk, checkWholeAnswer, withFallback } from './askAttempt';
import { LiveText } from './liveText';
import type { TextObjectRule } from './outputFormat/structuredText';
import {
	busyConversationWait,
	EarlierAttempts,
	recoverAfterFailure,
} from './recovery/afterFailure';
import { afterBusyWait, unsentRest } from './recovery/recoverAnswer';
import type { AskedTurns } from './runContext';
import type { RunNotices } from './runNotices';
import type { AssistantStep } from './stream/steps';
import type { AssistantCredentials } from './transport/credentials';
import type { CallWatch } from './transport/lifetime';
import type { AttemptPace } from './transport/pace';
import type { Asker } from './transport/errors';
import type { ApiRequest, AssistantContext } from './transport/request';
import { runCall } from './transport/retryLoop';
import type { Attempt } from './transport/send';

export type { AssistantContext } from './transport/request';

/** One ask, as the Ask operation, the agent tool and a chat model make it. */
export interface AskCall {
	request: AskRequest;
	/** The node that asks: its errors advise on that node's options alone. */
	asker: Asker;
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
	/** The run's notices, so that an unknown stream event is logged once per run. */
	notices?: RunNotices;
	/** The most answer text to hold, in characters (docs/api.md#memory-bounds); the default when not given. */
	answerLimitChars?: number;
	/** The run's credential, read once per run (runContext.ts). */
	credentials?: () => Promise<AssistantCredentials>;
	/** The run's watch over its calls' time (runContext.ts). */
	watch?: CallWatch;
	/** Where a structured answer that came as text may have its object; `last` when not given. */
	textObject?: TextObjectRule;
	/** The run's record of each conversation's last answered message (runContext.ts). */
	turns?: AskedTurns;
	/**
	 * Whether an answer read from the conversation is the one the caller already holds from its
	 * last turn (a chat history's): then that turn may be an earlier ask's with the same message.
	 */
	isHeldAnswer?: (output: string | Record<string, unknown>) => boolean;
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
		asker: call.asker,
		pace: call.pace,
		answerLimitChars: call.answerLimitChars,
		credentials: call.credentials,
		watch: call.watch,
	};
	const live = new LiveText(call.onText);
	const earlier = new EarlierAttempts();
	const result = await runCall(
		ctx,
		request,
		async (attempt) => {
			live.redactWith(attempt.credentials.redaction);
			return await attemptOrRecover(attempt, call, live, earlier);
		},
		busyConversationWait(call.request.conversation_id, call.request.input, earlier),
	).catch((error: unknown) => {
		// Failed for good: the conversations it may have reached may hold it as their last turn.
		recordFailedTurn(call, earlier);
		return Promise.reject(error);
	});
	live.finish();
	return result;
}

/**
 * One attempt; when it fails after the service may have accepted the ask, the answer comes from
 * the ask's conversation instead, and a streaming workflow gets the rest of it
 * (docs/api.md#recovery-after-a-failure). After a 409's wait, when an earlier attempt may have
 * reached the service and the conversation shows the ask taken, its answer there, unsent.
 */
async function attemptOrRecover(
	attempt: Attempt,
	call: AskCall,
	live: LiveText,
	earlier: EarlierAttempts,
): Promise<AskResult> {
	const continued = call.request.conversation_id;
	const idle = earlier.takeIdle();
	if (idle && continued) {
		const found = afterBusyWait(
			attempt.scope,
			{ ...turnOf(call), conversationId: continued, failure: idle.busy },
			idle.messages,
		);
		if (found.kind === 'answered') {
			const result = recovered(attempt, call, live, found.output, continued);
			// Nothing of this ask was streamed: no steps, as for a whole JSON answer.
			if (call.steps) result.steps = [];
			return result;
		}
	}
	const outcome = await attemptAsk(attempt, call, live);
	if (outcome.answered) {
		const { output } = outcome.result;
		// An answer that came whole (a JSON answer, or End's output with no text streamed before
		// it): a streaming workflow gets it now, so that its response is never empty.
		if (live.forward && typeof output === 'string' && !live.sent) live.passOnEnd(output);
		recordTurn(call, outcome.result.conversationId);
		return outcome.result;
	}
	earlier.failed(outcome.failure, outcome.heard.conversationId);
	const { output, conversationId } = await recoverAfterFailure(
		attempt,
		outcome.failure,
		{
			...turnOf(call),
			repeatsLastTurn: (conversationId) =>
				call.turns?.repeats(conversationId, call.request.input) === true,
			isHeldAnswer: call.isHeldAnswer,
			sentText: live.sent,
		},
		outcome.heard,
	);
	const result = recovered(attempt, call, live, output, conversationId, outcome.continues);
	// The steps the stream told before it failed (the conversation's answer has none), and the
	// model it named.
	if (outcome.steps) result.steps = outcome.steps;
	if (outcome.model) result.streamModel = outcome.model;
	return withFallback(result, outcome.heard.headers);
}

/**
 * An answer read from the conversation, held to Max Answer Length as the stream's would have
 * been: a streaming workflow gets what it has not received (`continues`: how much of what it
 * got the answer may go on from, attemptAsk's).
 */
function recovered(
	attempt: Attempt,
	call: AskCall,
	live: LiveText,
	output: string | Record<string, unknown>,
	conversationId: string,
	continues?: number | false,
): AskResult {
	checkWholeAnswer(attempt.scope, output);
	if (typeof output === 'string' && live.forward) {
		live.passOnEnd(unsentRest(live.sent, output, continues));
	}
	recordTurn(call, conversationId);
	return { output, conversationId, recovered: true };
}

/** What the ask's conversation is read by for its answer (recovery/turnReading.ts). */
function turnOf(call: AskCall) {
	return {
		input: call.request.input,
		structured: call.request.output_format !== undefined,
		textObject: call.textObject,
		answerSchema: call.request.output_format,
	};
}

/**
 * The ask was answered in this conversation, read from its response or from the conversation
 * itself: a later ask of the run with the same input, failing there, cannot take this answer for
 * its own (docs/api.md#recovery-after-a-failure).
 */
function recordTurn(call: AskCall, conversationId: string | null | undefined): void {
	if (conversationId) call.turns?.answered(conversationId, call.request.input);
	// The conversation the ask continues, also when the response named another.
	const continued = call.request.conversation_id;
	if (continued && continued !== conversationId)
		call.turns?.answered(continued, call.request.input);
}

/**
 * The ask failed for good after an attempt of it may have reached the service: the conversations
 * that attempt was in may hold it as their last turn, answered or not, so that a later ask of the
 * run with the same input, failing there, cannot take that turn's answer for its own
 * (docs/api.md#recovery-after-a-failure).
 */
function recordFailedTurn(call: AskCall, earlier: EarlierAttempts): void {
	if (!earlier.mayHaveReached) return;
	const conversations = new Set(earlier.reachedConversations());
	// The conversation the ask continues, also when a response named another.
	const continued = call.request.conversation_id;
	if (continued) conversations.add(continued);
	for (const conversationId of conversations)
		call.turns?.mayHaveTaken(conversationId, call.request.input);
}
