import type { NodeApiError } from 'n8n-workflow';

import type { ConversationMessage, OutputFormatSchema } from '../api';

import { MESSAGE_SEPARATOR } from '../stream/assembly';
import type { TextObjectRule } from '../outputFormat/structuredText';
import type { Acceptance } from '../transport/attemptFailure';
import { type FailureScope } from '../transport/failures';
import { stoppedFailure } from '../transport/transportFailures';
import type { ResponseHeaders } from '../transport/request';
import { serverRequestedDelayMs } from '../transport/retryPolicy';
import type { Attempt } from '../transport/send';
import { watchConversation } from './conversationWatch';
import {
	busyNote,
	mayBeAnsweringThis,
	noAnswerInConversation,
	notConfirmedInTime,
	objectNotWhole,
	stillAnswering,
	uncheckedNote,
	withNote,
} from './recoveryErrors';
import { nextPollPauseMs } from './pollSchedule';
import { lastPromptIs, readTurn, type TurnReading } from './turnReading';

/** An ask whose response failed after the service may have accepted it. */
export interface AskToRecover {
	input: string;
	structured: boolean;
	/** Where a structured answer's object may be in the text (askAssistant.ts's AskCall). */
	textObject?: TextObjectRule;
	/** The schema the ask sent: which of several output-tool calls is the answer (turnReading.ts). */
	answerSchema?: OutputFormatSchema;
	conversationId: string;
	/**
	 * Whether the service accepted the ask (`yes`: its response had begun). Either way, an ask sent
	 * a moment ago may not show in the conversation yet (the service stores the user's message
	 * after it starts the run): "never taken" is trusted only from a read made a pause later.
	 */
	accepted: Acceptance;
	/** The failure the response came to: a turn without an answer keeps its status and words. */
	failure: NodeApiError;
	/**
	 * The events its stream carried that this node does not know (the AttemptFailure's): an error
	 * that replaces the failure names them too.
	 */
	unknownEvents?: readonly string[];
}

export type Recovery =
	/** The conversation holds the answer. */
	| { kind: 'answered'; output: string | Record<string, unknown> }
	/** The conversation shows the ask was never taken: it may be sent again. */
	| { kind: 'not-taken' }
	/** The conversation could not be read (`note` says why): today's behaviour applies. */
	| { kind: 'unchecked'; note: string };

/**
 * Takes the answer of an ask from its conversation (docs/api.md#recovery-after-a-failure): waits
 * while it is answering (within the call's deadline, cancellable), then reads what became of the
 * ask. Throws an error naming the conversation when the ask was taken but its answer cannot be
 * had: none, an object not whole, or still answering when the deadline came.
 */
export async function recoverAnswer(attempt: Attempt, ask: AskToRecover): Promise<Recovery> {
	const { scope, lifetime } = attempt;
	const id = ask.conversationId;
	for (let reads = 1; ; reads++) {
		const watched = await watchConversation(attempt, id);
		if (watched.kind === 'unavailable') {
			return { kind: 'unchecked', note: uncheckedNote(id, watched.what) };
		}
		if (watched.kind === 'out-of-time') {
			throw stillAnswering(scope, id, lifetime.timeoutMs, watched.lastFailure, ask.unknownEvents);
		}
		const reading = readTurn(
			watched.conversation.messages,
			ask.input,
			ask.structured,
			ask.textObject,
			ask.answerSchema,
		);
		if (reading.kind === 'not-taken' && reads === 1) {
			await pauseBeforeConfirming(attempt, ask, watched.headers);
			continue;
		}
		return answerOf(scope, reading, ask);
	}
}

/**
 * The pause before the read that confirms an ask was never taken: the schedule's first (or the
 * server's). When Timeout leaves no room for it, nothing can be confirmed, and the ask is not
 * sent again: the error names the conversation.
 */
async function pauseBeforeConfirming(
	attempt: Attempt,
	ask: AskToRecover,
	headers: ResponseHeaders,
): Promise<void> {
	const { scope, lifetime } = attempt;
	const requestedMs = serverRequestedDelayMs(headers, Date.now());
	const wanted = nextPollPauseMs(0, Infinity, requestedMs);
	const pause = nextPollPauseMs(0, lifetime.remainingMs(), requestedMs);
	if (pause === undefined || wanted === undefined || pause < wanted) {
		throw notConfirmedInTime(scope, ask.conversationId, lifetime.timeoutMs, ask.unknownEvents);
	}
	try {
		await lifetime.pause(pause);
	} catch {
		// Stopped before "never taken" was confirmed: the ask may have been taken.
		throw stoppedFailure(scope, lifetime, 'maybe');
	}
}

function answerOf(
	scope: FailureScope,
	reading: TurnReading,
	ask: Omit<AskToRecover, 'accepted'>,
): Recovery {
	switch (reading.kind) {
		case 'answered':
		case 'not-taken':
			return reading;
		case 'no-answer':
			throw noAnswerInConversation(scope, ask.conversationId, ask.failure, ask.unknownEvents);
		default:
			throw objectNotWhole(scope, ask.conversationId, ask.unknownEvents);
	}
}

/** The ask a 409's wait is for: whether the conversation's running ask may be it. */
export interface BusyAsk {
	input: string;
	/** An earlier attempt of the ask may have reached the service (EarlierAttempts). */
	earlierMayHaveReached: boolean;
}

/**
 * A 409 on one's own conversation (docs/api.md#busy-conversation-409): waits until it is no
 * longer answering, through the same endpoint, within the deadline. Its messages when it is idle
 * (ask again at once, unless they show the ask taken: afterBusyWait), undefined when the endpoint
 * is not there (the usual pause then). When the deadline comes first, throws an error naming the
 * conversation: that the running ask may be this very one, when an earlier attempt may have
 * reached the service or the running turn has this ask's message (it was not sent again); else
 * `busy`, with a note that this ask was not taken.
 */
export async function waitUntilIdle(
	attempt: Attempt,
	conversationId: string,
	busy: NodeApiError,
	ask: BusyAsk,
): Promise<ConversationMessage[] | undefined> {
	const watched = await watchConversation(attempt, conversationId);
	if (watched.kind === 'settled') return watched.conversation.messages;
	if (watched.kind === 'unavailable') return undefined;
	const { scope, lifetime } = attempt;
	if (ask.earlierMayHaveReached) {
		throw mayBeAnsweringThis(scope, conversationId, lifetime.timeoutMs, 'earlier-attempt', busy);
	}
	const running = watched.conversation?.messages;
	if (running && lastPromptIs(running, ask.input)) {
		throw mayBeAnsweringThis(scope, conversationId, lifetime.timeoutMs, 'same-message', busy);
	}
	throw withNote(scope, busy, busyNote(conversationId));
}

/**
 * After a 409's wait, when an earlier attempt of the same ask may have reached the service: the
 * conversation, idle now, may show that attempt taken (the 409 was its run). Its answer then,
 * or its error; `not-taken` when it does not show the ask, which is then sent.
 */
export function afterBusyWait(
	scope: FailureScope,
	ask: Omit<AskToRecover, 'accepted'>,
	messages: ConversationMessage[],
): Recovery {
	const reading = readTurn(messages, ask.input, ask.structured, ask.textObject, ask.answerSchema);
	return answerOf(scope, reading, ask);
}

/**
 * What of a recovered answer a streaming workflow has yet to receive, after the pieces `sent`
 * (docs/api.md#recovery-after-a-failure). The answer is the turn's text, as the stream would have
 * given it: normally it goes on from all that was sent, wherever the stream broke (mid-message,
 * after a tool call, in a tool round), and the rest is what follows. Where it does not (the stream
 * told text the conversation does not hold, or holds otherwise), it goes on from the longest end
 * of `sent` that it starts with, of those that begin a message there (after a blank line: the
 * messages told after the text the conversation lacks are not told again) or lie in the message
 * the stream left open (`continues`: the length of its text at `sent`'s end; false when it had
 * ended in a tool call or a tool round, undefined when no stream was read: all of `sent`). An end
 * of an earlier message that the answer happens to start with (`**`) is no part of it. Otherwise
 * the whole answer comes after a blank line.
 */
export function unsentRest(sent: string, answer: string, continues?: number | false): string {
	if (!sent) return answer;
	// The common case: the conversation holds all that was streamed.
	if (answer.startsWith(sent)) return answer.slice(sent.length);
	const open =
		continues === false
			? ''
			: continues === undefined || continues >= sent.length
				? sent
				: sent.slice(sent.length - continues);
	const from = Math.max(
		longestOverlap(sent, answer, (start) => startsMessage(sent, start)),
		longestOverlap(open, answer),
	);
	return from > 0 ? answer.slice(from) : `${MESSAGE_SEPARATOR}${answer}`;
}

/** Whether `text` has a message (or a paragraph: the two read alike) beginning at `start`. */
function startsMessage(text: string, start: number): boolean {
	const before = start - MESSAGE_SEPARATOR.length;
	return start === 0 || (before >= 0 && text.startsWith(MESSAGE_SEPARATOR, before));
}

/**
 * The length of the longest end of `sent` that the answer starts with (of those that begin where
 * `accepts` says, when it is given), in linear time: the Knuth-Morris-Pratt automaton of the
 * answer's beginning, run over the end of `sent`, then its fallbacks (each a shorter such end)
 * until one is accepted. Trying every place in `sent` took quadratic time on repetitive text.
 */
function longestOverlap(
	sent: string,
	answer: string,
	accepts?: (start: number) => boolean,
): number {
	const most = Math.min(sent.length, answer.length);
	if (most === 0) return 0;
	// fallback[i]: the longest proper prefix of answer[0..i] that is also its suffix.
	const fallback = new Int32Array(most);
	for (let i = 1, k = 0; i < most; i++) {
		while (k > 0 && answer.charCodeAt(i) !== answer.charCodeAt(k)) k = fallback[k - 1];
		if (answer.charCodeAt(i) === answer.charCodeAt(k)) k++;
		fallback[i] = k;
	}
	let matched = 0;
	for (let i = sent.length - most; i < sent.length; i++) {
		const code = sent.charCodeAt(i);
		while (matched > 0 && (matched === most || code !== answer.charCodeAt(matched))) {
			matched = fallback[matched - 1];
		}
		if (matched < most && code === answer.charCodeAt(matched)) matched++;
	}
	if (accepts) {
		while (matched > 0 && !accepts(sent.length - matched)) matched = fallback[matched - 1];
	}
	return matched;
}
