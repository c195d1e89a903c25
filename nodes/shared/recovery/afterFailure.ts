import { NodeApiError } from 'n8n-workflow';

import { conversationOfFailure, LostResponse, mayHaveBeenAccepted } from '../transport/acceptance';
import { RetryableFailure } from '../transport/failures';
import type { ResponseHeaders } from '../transport/request';
import type { WaitBeforeRetry } from '../transport/retryLoop';
import type { Attempt } from '../transport/send';
import { recoverAnswer, waitUntilIdle } from './recoverAnswer';
import { deadlineNote, notTakenAfterText, withNote } from './recoveryErrors';

/**
 * After a failed attempt of an ask: never send again what the service accepted, never lose an
 * answer it gave (docs/api.md#recovery-after-a-failure).
 */

/** What one attempt of an ask learned before it failed. */
export interface AttemptHeard {
	/** The ask's conversation: the one it continues, else the one the response named. */
	conversationId?: string;
	/** A 2xx response had begun: the service accepted the ask. */
	accepted: boolean;
	headers: ResponseHeaders;
}

export interface FailedAsk {
	input: string;
	structured: boolean;
	/** Answer text already passed on to a streaming workflow (it must not be sent again). */
	sentText: string;
}

/**
 * The answer of an ask whose attempt failed with `error`, read from its conversation when the
 * failure may have come after the service accepted the ask and the conversation is known.
 * Otherwise, and when the conversation shows the ask was never taken or cannot be read, throws
 * what today's policy does with the failure (a RetryableFailure is sent again by the retry
 * loop), with a note saying what could not be checked; or an error naming the conversation.
 */
export async function recoverAfterFailure(
	attempt: Attempt,
	error: unknown,
	ask: FailedAsk,
	heard: AttemptHeard,
): Promise<{ output: string | Record<string, unknown>; conversationId: string }> {
	const { ctx, scope, lifetime } = attempt;
	let conversationId = heard.conversationId;
	let shown: NodeApiError;
	let retryable: RetryableFailure | undefined;
	if (error instanceof LostResponse) {
		shown = error.error;
	} else if (error instanceof RetryableFailure && mayHaveBeenAccepted(error)) {
		retryable = error;
		shown = error.error;
		conversationId = conversationOfFailure(error) ?? conversationId;
	} else {
		if (lifetime.reason === 'timeout' && conversationId && error instanceof NodeApiError) {
			throw withNote(scope, error, deadlineNote(conversationId, heard.accepted));
		}
		throw error;
	}
	// Where no conversation is known, nothing can be checked: today's policy (docs/api.md).
	if (!conversationId) throw retryable ?? shown;
	ctx.logger.debug(
		`Assistant: the response of an ask in conversation ${conversationId} failed (${error instanceof LostResponse ? error.how : retryable?.retryCause}); reading the conversation instead of asking again`,
		{ itemIndex: scope.request.itemIndex },
	);
	const recovery = await recoverAnswer(attempt, {
		...ask,
		conversationId,
		accepted: heard.accepted,
	});
	switch (recovery.kind) {
		case 'answered':
			return { output: recovery.output, conversationId };
		case 'not-taken':
			if (ask.sentText) throw notTakenAfterText(scope, conversationId);
			// Never taken: it may go again, as the retry policy allows.
			throw retryable ?? new RetryableFailure('network', shown);
		default: {
			const noted = withNote(scope, shown, recovery.note);
			if (!retryable) throw noted;
			throw new RetryableFailure(retryable.retryCause, noted, retryable.headers, retryable.code);
		}
	}
}

/**
 * Before the retry of a 409 on the ask's own conversation: wait until the conversation is idle
 * (docs/api.md#busy-conversation-409) instead of the policy's pause.
 */
export function busyConversationWait(conversationId: string | undefined): WaitBeforeRetry {
	return async (failure, attempt) => {
		if (failure.retryCause !== 'busy-conversation' || !conversationId) return false;
		return await waitUntilIdle(attempt, conversationId, failure.error);
	};
}
