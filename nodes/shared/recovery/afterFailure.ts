import type { NodeApiError } from 'n8n-workflow';

import type { ConversationMessage, OutputFormatSchema } from '../api';
import { AttemptFailure } from '../transport/attemptFailure';
import type { TextObjectRule } from '../outputFormat/structuredText';
import type { ResponseHeaders } from '../transport/request';
import type { WaitBeforeRetry } from '../transport/retryLoop';
import type { Attempt } from '../transport/send';
import { recoverAnswer, waitUntilIdle } from './recoverAnswer';
import { redacted } from '../transport/redaction';
import {
	acceptedNotShown,
	deadlineNote,
	notTakenAfterText,
	repeatedTurn,
	withNote,
} from './recoveryErrors';

/**
 * After a failed attempt of an ask: never send again what the service accepted, never lose an
 * answer it gave (docs/api.md#recovery-after-a-failure).
 */

/** What one attempt of an ask heard before it failed. */
export interface AttemptHeard {
	/** The ask's conversation: the one it continues, else the one the response named. */
	conversationId?: string;
	/** The response's headers, once a 2xx response had begun. */
	headers: ResponseHeaders;
}

export interface FailedAsk {
	input: string;
	structured: boolean;
	/** Where a structured answer's object may be in the text (askAssistant.ts's AskCall). */
	textObject?: TextObjectRule;
	/** The schema the ask sent: which of several output-tool calls is the answer (turnReading.ts). */
	answerSchema?: OutputFormatSchema;
	/**
	 * Whether the ask has the very message of the last ask this run had answered in the
	 * conversation about to be read (the one it continues, or the one a response named): that
	 * conversation cannot tell whether it took this one.
	 */
	repeatsLastTurn?: (conversationId: string) => boolean;
	/**
	 * Whether an answer the conversation shows is the one the caller holds from its last turn (a
	 * chat history's, askAssistant.ts's AskCall): that turn may be an earlier execution's ask with
	 * the same message, so the answer is not taken for this ask's.
	 */
	isHeldAnswer?: (output: string | Record<string, unknown>) => boolean;
	/** Answer text already passed on to a streaming workflow (it must not be sent again). */
	sentText: string;
}

/**
 * Whether the answer of a failed ask is to be looked for in its conversation: the service
 * accepted it and its response was lost, or it may have accepted it and the failure would send
 * it again. A failure that says the ask was refused, or that is not retried (a stop, a run that
 * failed), is never read elsewhere.
 */
export function answerMayBeInConversation(failure: AttemptFailure): boolean {
	if (failure.lost) return true;
	return failure.accepted === 'maybe' && failure.retry !== undefined;
}

/**
 * The answer of an ask whose attempt failed with `failure`, read from its conversation when
 * answerMayBeInConversation and the conversation is known. Otherwise, and when the conversation
 * shows the ask was never taken or cannot be read, throws what today's policy does with the
 * failure (one with `retry` is sent again by the retry loop), with a note saying what could not
 * be checked; or an error naming the conversation.
 */
export async function recoverAfterFailure(
	attempt: Attempt,
	failure: AttemptFailure,
	ask: FailedAsk,
	heard: AttemptHeard,
): Promise<{ output: string | Record<string, unknown>; conversationId: string }> {
	const { ctx, scope, lifetime } = attempt;
	const conversationId = failure.conversationId ?? heard.conversationId;
	const noted = (note: string) => failure.with({ shown: withNote(scope, failure.shown, note) });
	if (!answerMayBeInConversation(failure)) {
		// A deadline that stopped the ask: its error says where the answer may appear.
		if (lifetime.reason === 'timeout' && conversationId && !failure.retry) {
			throw noted(deadlineNote(conversationId, failure.accepted === 'yes'));
		}
		throw failure;
	}
	// Where no conversation is known, nothing can be checked: today's policy (docs/api.md).
	if (!conversationId) throw failure;
	// Its last turn may be this ask's or the earlier one's: neither taken nor sent again.
	if (ask.repeatsLastTurn?.(conversationId)) throw repeatedTurn(scope, conversationId, failure);
	ctx.logger.debug(
		redacted(
			`Assistant: the response of an ask in conversation ${conversationId} failed (${failure.lost ?? failure.retry}); reading the conversation instead of asking again`,
			scope.redaction,
		),
		{ itemIndex: scope.request.itemIndex },
	);
	const recovery = await recoverAnswer(attempt, {
		...ask,
		conversationId,
		accepted: failure.accepted,
		failure: failure.shown,
		unknownEvents: failure.unknownEvents,
	});
	switch (recovery.kind) {
		case 'answered':
			// The conversation's last turn, asked with this message, holds the answer the caller
			// already had: an earlier ask's, as far as anyone can tell. Neither taken nor sent again.
			if (ask.isHeldAnswer?.(recovery.output)) {
				throw repeatedTurn(scope, conversationId, failure);
			}
			return { output: recovery.output, conversationId };
		case 'not-taken':
			// The errors that replace the failure name what it carried (its unknown events).
			if (ask.sentText) throw notTakenAfterText(scope, conversationId, failure);
			// A response had begun: the service took the ask, and it is never sent again.
			if (failure.accepted === 'yes') {
				throw acceptedNotShown(scope, conversationId, failure);
			}
			// Never taken: it may go again, as the retry policy allows.
			throw failure.with({ accepted: 'no', lost: undefined, retry: failure.retry ?? 'network' });
		default:
			throw noted(recovery.note);
	}
}

/**
 * What the attempts of one ask tell the next (docs/api.md#busy-conversation-409): whether one may
 * have reached the service, and then the conversation a 409's wait found idle, to be looked at
 * before the ask is sent again (the 409 may have been that attempt's own run); and, when the ask
 * fails for good, the conversations that may hold it (AskedTurns.mayHaveTaken).
 */
export class EarlierAttempts {
	private reached = false;
	private readonly conversations = new Set<string>();
	private idle: { messages: ConversationMessage[]; busy: NodeApiError } | undefined;

	/**
	 * An attempt failed with `failure`, as it came, before any recovery judged it; `conversationId`
	 * is the ask's conversation as the attempt knew it (AttemptHeard's).
	 */
	failed(failure: AttemptFailure, conversationId?: string): void {
		if (failure.accepted === 'no') return;
		this.reached = true;
		const named = failure.conversationId ?? conversationId;
		if (named) this.conversations.add(named);
	}

	/** Whether an earlier attempt may have reached the service (the running ask may be it). */
	get mayHaveReached(): boolean {
		return this.reached;
	}

	/** The conversations an attempt that may have reached the service was in. */
	reachedConversations(): Iterable<string> {
		return this.conversations;
	}

	/** The conversation a 409's wait found idle, when an earlier attempt may have reached it. */
	foundIdle(messages: ConversationMessage[], busy: NodeApiError): void {
		if (this.reached) this.idle = { messages, busy };
	}

	/** What the last wait found, once. */
	takeIdle(): { messages: ConversationMessage[]; busy: NodeApiError } | undefined {
		const idle = this.idle;
		this.idle = undefined;
		return idle;
	}
}

/**
 * Before the retry of a 409 on the ask's own conversation: wait until the conversation is idle
 * (docs/api.md#busy-conversation-409) instead of the policy's pause. When Timeout runs out first,
 * the error says whether the running ask may be this one (`input`, `earlier`): waitUntilIdle.
 */
export function busyConversationWait(
	conversationId: string | undefined,
	input: string,
	earlier: EarlierAttempts,
): WaitBeforeRetry {
	return async (failure, attempt) => {
		if (failure.retry !== 'busy-conversation' || !conversationId) return false;
		const messages = await waitUntilIdle(attempt, conversationId, failure.shown, {
			input,
			earlierMayHaveReached: earlier.mayHaveReached,
		});
		if (!messages) return false;
		earlier.foundIdle(messages, failure.shown);
		return true;
	};
}
