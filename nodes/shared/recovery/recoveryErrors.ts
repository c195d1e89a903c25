import type { NodeApiError } from 'n8n-workflow';

import {
	INCOMPLETE_MESSAGE,
	NO_ANSWER_MESSAGE,
	UNKNOWN_EVENTS_ADVICE,
	unknownEventsNote,
	UNREADABLE_MESSAGE,
} from '../stream/answerFailure';
import type { LostHow } from '../transport/attemptFailure';
import { apiError } from '../transport/errors';
import { type FailureScope } from '../transport/failures';
import { NOT_SENT_AGAIN, seconds } from '../transport/transportFailures';
import { conversationPath } from '../transport/conversationCall';

/**
 * The errors of an ask whose answer could not be taken from its conversation
 * (docs/api.md#recovery-after-a-failure). Each names the conversation, so that the user can look
 * at it in the assistant app, and says that the ask was not sent again.
 */

/**
 * `failure`: the response's own failure, whose HTTP status the error keeps. `unknownEvents`: the
 * events its stream carried that this node does not know (AttemptFailure's), which an error that
 * replaces the failure names as the failure did (docs/api.md#how-a-stream-ends); `named`: its
 * message already names them (it repeats the failure's), so only the advice is added.
 */
function error(
	scope: FailureScope,
	message: string,
	description: string,
	failure?: NodeApiError,
	unknownEvents: readonly string[] = [],
	named = false,
): NodeApiError {
	const httpCode = failure?.httpCode ?? undefined;
	return apiError(
		scope.node,
		{
			message: named ? message : message + unknownEventsNote(unknownEvents, 'the stream'),
			description: unknownEvents.length
				? `${description} The stream carried events this node does not know: the service may have changed how it streams answers. ${UNKNOWN_EVENTS_ADVICE}`
				: description,
			httpCode,
		},
		scope.request.itemIndex,
	);
}

/**
 * The conversation's turn for this ask ended without an answer. The response's own failure (a
 * provider's rate limit behind a 502, say) stays in the message, with its HTTP status, and with
 * the events its stream carried that this node does not know (`unknownEvents`, which that message
 * names already): the description says what to do about them.
 */
export function noAnswerInConversation(
	scope: FailureScope,
	conversationId: string,
	failure: NodeApiError,
	unknownEvents?: readonly string[],
): NodeApiError {
	// A response that was itself no answer says no more than what follows the headline (what a
	// JSON answer held instead of `output`).
	const said = failure.message.startsWith(NO_ANSWER_MESSAGE)
		? failure.message.slice(NO_ANSWER_MESSAGE.length)
		: `: ${failure.message}`;
	return error(
		scope,
		`${NO_ANSWER_MESSAGE} (conversation ${conversationId})${said}`,
		`The response failed after the assistant had accepted the ask, and the conversation holds no answer to it. ${NOT_SENT_AGAIN}`,
		failure,
		// The failure's message names them already.
		unknownEvents,
		true,
	);
}

/**
 * The ask repeats the message of the conversation's last ask that this run had answered: the
 * conversation cannot show which of the two it took.
 */
export function repeatedTurn(
	scope: FailureScope,
	conversationId: string,
	{ shown, unknownEvents }: { shown: NodeApiError; unknownEvents?: readonly string[] },
): NodeApiError {
	return error(
		scope,
		`${shown.message}; conversation ${conversationId} cannot tell whether it took this ask`,
		`The ask repeats the message of the conversation's previous ask, so its answer there cannot be told from the previous one's. ${NOT_SENT_AGAIN}`,
		shown,
		unknownEvents,
		true,
	);
}

/**
 * Of a failed response the service took (an AttemptFailure): how it was lost, its events this node
 * does not know, and what it showed.
 */
type AcceptedFailure = { lost?: LostHow; unknownEvents?: readonly string[]; shown?: NodeApiError };

/**
 * How a response the service took ended without breaking off, as an error that replaces its
 * failure begins: a whole answer without text, a stream closed without an end, or one with events
 * that could not be read; undefined when it broke off (a connection lost or cut, a stream stopped).
 */
function endedUnbroken({ lost, shown, unknownEvents = [] }: AcceptedFailure): string | undefined {
	if (lost === 'empty') {
		// With what a JSON answer held instead of `output`, when its message says it (a 303's
		// failure says another thing). A stream's events this node does not know are named once,
		// at the error's end (error()).
		return unknownEvents.length === 0 && shown?.message.startsWith(NO_ANSWER_MESSAGE)
			? shown.message
			: NO_ANSWER_MESSAGE;
	}
	if (lost === 'incomplete') return INCOMPLETE_MESSAGE;
	if (lost === 'unreadable') return UNREADABLE_MESSAGE;
	return undefined;
}

/** A response had begun (the service took the ask), yet the conversation does not show it. */
export function acceptedNotShown(
	scope: FailureScope,
	conversationId: string,
	failure: AcceptedFailure,
): NodeApiError {
	const ended = endedUnbroken(failure);
	const message = ended
		? `${ended}, and conversation ${conversationId} does not show the ask`
		: `The response broke off after the assistant had accepted the ask, and conversation ${conversationId} does not show it`;
	return error(scope, message, NOT_SENT_AGAIN, undefined, failure.unknownEvents);
}

/** A structured ask whose object the conversation does not hold whole. */
export function objectNotWhole(
	scope: FailureScope,
	conversationId: string,
	unknownEvents?: readonly string[],
): NodeApiError {
	return error(
		scope,
		`The answer for the JSON Schema is not whole in conversation ${conversationId}`,
		`The response failed after the assistant had accepted the ask, and the conversation does not hold the object whole. ${NOT_SENT_AGAIN}`,
		undefined,
		unknownEvents,
	);
}

/** Timeout ran out while the conversation was still answering, or could not be read. */
export function stillAnswering(
	scope: FailureScope,
	conversationId: string,
	timeoutMs: number,
	lastFailure?: NodeApiError,
	unknownEvents?: readonly string[],
): NodeApiError {
	const within = seconds(timeoutMs);
	return error(
		scope,
		lastFailure
			? `The answer could not be read from conversation ${conversationId} within ${within}: ${lastFailure.message}`
			: `The assistant did not answer within ${within}; it is still answering in conversation ${conversationId}`,
		`The response failed after the assistant had accepted the ask, and the node waited for the answer in the conversation until Options > Timeout (Minutes) ran out. The ask was not sent again, so that the assistant does not do the work twice: its answer will be in that conversation. Raise the Timeout if answers take longer.`,
		undefined,
		unknownEvents,
	);
}

/**
 * The conversation did not show the ask, and Timeout left no time for the later look that alone
 * can say it was never taken (the service stores the message after it starts the run).
 */
export function notConfirmedInTime(
	scope: FailureScope,
	conversationId: string,
	timeoutMs: number,
	unknownEvents?: readonly string[],
): NodeApiError {
	return error(
		scope,
		`The response failed, and conversation ${conversationId} did not show the ask yet when the ${seconds(timeoutMs)} Timeout ran short`,
		`The service stores an ask in its conversation only after it starts working on it, so only a later look could tell that it was never taken. ${NOT_SENT_AGAIN} Raise Options > Timeout (Minutes) to give it that time.`,
		undefined,
		unknownEvents,
	);
}

/** The deadline came before any read of the conversation had answered. */
export function unreadInTime(scope: FailureScope, conversationId: string): NodeApiError {
	return error(
		scope,
		`GET ${conversationPath(conversationId)} had not answered when the time ran out`,
		'The service did not send the conversation in time.',
	);
}

/** The conversation shows no such ask, but part of the answer was already passed on. */
export function notTakenAfterText(
	scope: FailureScope,
	conversationId: string,
	failure: AcceptedFailure,
): NodeApiError {
	return error(
		scope,
		`${endedUnbroken(failure) ?? 'The stream broke off'}, and conversation ${conversationId} does not show this ask`,
		'Part of the answer had already been passed on to the workflow, so the ask was not sent again (the workflow would receive it twice, and the assistant would do the work twice): look at the conversation in the assistant app before you run the item again.',
		undefined,
		failure.unknownEvents,
	);
}

/** `failure` with a sentence more at the end of its description. */
export function withNote(scope: FailureScope, failure: NodeApiError, note: string): NodeApiError {
	const description = [failure.description, note].filter(Boolean).join(' ');
	return apiError(
		scope.node,
		{ message: failure.message, description, httpCode: failure.httpCode ?? undefined },
		scope.request.itemIndex,
	);
}

/** What the node could not check, when the conversation endpoint is not there. */
export function uncheckedNote(conversationId: string, what: string): string {
	return `The node could not look for the answer in conversation ${conversationId}: ${what}.`;
}

/** The deadline stopped an ask the service may have accepted. */
export function deadlineNote(conversationId: string, accepted: boolean): string {
	return accepted
		? `The assistant had accepted the ask and may still be answering it in conversation ${conversationId}; it was not sent again.`
		: `It was not sent again: if the assistant accepted it, its answer will appear in conversation ${conversationId}.`;
}

/**
 * A 409's wait ran out of time while the conversation was still answering, and the ask it was
 * answering may be this very one: an earlier attempt of it may have reached the service
 * (`earlier-attempt`), or the running turn has its message (`same-message`: an earlier try of the
 * same item, say). It was not sent again (docs/api.md#recovery-after-a-failure).
 */
export function mayBeAnsweringThis(
	scope: FailureScope,
	conversationId: string,
	timeoutMs: number,
	why: 'earlier-attempt' | 'same-message',
	busy: NodeApiError,
): NodeApiError {
	const reason =
		why === 'earlier-attempt'
			? 'An earlier attempt of this ask failed after it may have reached the assistant, and its retry found the conversation busy (HTTP 409)'
			: "The conversation was busy (HTTP 409) answering an ask with this ask's message (an earlier try of the same item, say)";
	return error(
		scope,
		`The assistant did not answer within ${seconds(timeoutMs)}; conversation ${conversationId} is still answering, and may be answering this very ask`,
		`${reason} until Options > Timeout (Minutes) ran out. The ask was not sent again, so that the assistant does not do the work twice: if the conversation is answering it, its answer will be in that conversation. Look at it before running the item again; raise the Timeout if answers take longer.`,
		busy,
	);
}

/** A busy conversation still answering an earlier ask when the deadline came. */
export function busyNote(conversationId: string): string {
	return `Conversation ${conversationId} was still answering an earlier ask when Options > Timeout (Minutes) ran out; this ask was not taken.`;
}
