import type { NodeApiError } from 'n8n-workflow';

import type { ConversationResponse } from '../api';
import { AttemptFailure } from '../transport/attemptFailure';
import { readConversation, type ConversationRead } from '../transport/conversationCall';
import { stoppedFailure } from '../transport/transportFailures';
import { serverRequestedDelayMs } from '../transport/retryPolicy';
import type { ResponseHeaders } from '../transport/request';
import type { Attempt } from '../transport/send';
import { nextPollPauseMs } from './pollSchedule';
import { isAnswering } from './turnReading';
import { redacted } from '../transport/redaction';
import { unreadInTime } from './recoveryErrors';

/** What watching a conversation came to. */
export type Watched =
	/** It is no longer answering: this is how it reads. */
	| { kind: 'settled'; conversation: ConversationResponse; headers: ResponseHeaders }
	/** The endpoint is not there for this token, or answered something else. */
	| { kind: 'unavailable'; what: string }
	/**
	 * The call's time ran out while the conversation was still answering, or, when `lastFailure`
	 * is set, while it could not be read. `conversation`: how it read last, when a read answered.
	 */
	| { kind: 'out-of-time'; lastFailure?: NodeApiError; conversation?: ConversationResponse };

/**
 * Reads a conversation until it is no longer answering (docs/api.md#recovery-after-a-failure):
 * at once, then on the public client's schedule (pollSchedule.ts), within the call's deadline
 * and cancellation. A read that fails in passing (network, 408, 429, 5xx) is tried again on the
 * same schedule. Throws the call's error when it is cancelled.
 */
export async function watchConversation(
	attempt: Attempt,
	conversationId: string,
): Promise<Watched> {
	const { ctx, scope, lifetime } = attempt;
	let lastFailure: NodeApiError | undefined;
	let lastRead: ConversationResponse | undefined;
	for (let pauses = 0; ; pauses++) {
		const read = await readOnce(attempt, conversationId);
		if (read.kind === 'unavailable') return read;
		if (read.kind === 'timed-out') {
			// Cut by the deadline before any read answered: nothing says it is still answering.
			const unread = lastRead ? undefined : unreadInTime(scope, conversationId);
			return { kind: 'out-of-time', lastFailure: lastFailure ?? unread, conversation: lastRead };
		}
		if (read.kind === 'read') lastRead = read.conversation;
		if (read.kind === 'read' && !isAnswering(read.conversation.state)) {
			return { kind: 'settled', conversation: read.conversation, headers: read.headers };
		}
		lastFailure = read.kind === 'failed' ? read.failure.shown : undefined;
		const headers = read.kind === 'read' ? read.headers : read.failure.headers;
		const requestedMs = serverRequestedDelayMs(headers, Date.now());
		const pause = nextPollPauseMs(pauses, lifetime.remainingMs(), requestedMs);
		if (pause === undefined) return { kind: 'out-of-time', lastFailure, conversation: lastRead };
		ctx.logger.debug(
			redacted(
				`Assistant: conversation ${conversationId} ${lastFailure ? 'could not be read' : 'is still answering'}; reading it again in ${pause} ms`,
				scope.redaction,
			),
			{ itemIndex: scope.request.itemIndex },
		);
		try {
			await lifetime.pause(pause);
		} catch {
			if (lifetime.reason === 'timeout') {
				return { kind: 'out-of-time', lastFailure, conversation: lastRead };
			}
			// During recovery: the ask's acceptance was what sent it here, and is not known better.
			throw stoppedFailure(scope, lifetime, 'maybe');
		}
	}
}

type ReadOutcome =
	| ConversationRead
	/** A failure in passing: read again later. */
	| { kind: 'failed'; failure: AttemptFailure }
	/** The call's deadline came during the read. */
	| { kind: 'timed-out' };

/**
 * One read; a failure that may pass is read again later, a cancellation or a credential problem
 * is thrown (nothing to wait for then).
 */
async function readOnce(attempt: Attempt, conversationId: string): Promise<ReadOutcome> {
	return await readConversation(attempt, conversationId).catch((error: unknown) => {
		if (error instanceof AttemptFailure && error.retry) {
			return { kind: 'failed' as const, failure: error };
		}
		if (attempt.lifetime.reason === 'timeout') return { kind: 'timed-out' as const };
		return Promise.reject(error);
	});
}
