import type { NodeApiError } from 'n8n-workflow';

import type { AskResponse } from './api';
import type { AskCall, AskResult } from './askAssistant';
import type { LiveText } from './liveText';
import { objectFromText, quotedStart } from './outputFormat/structuredText';
import type { AttemptHeard } from './recovery/afterFailure';
import { MAX_UNKNOWN_EVENT_WARNINGS, type RunNotices } from './runNotices';
import { StreamAnswer, wholeAnswerTooLarge } from './stream/answer';
import { STREAM_EVENT_NAMES } from './stream/events';
import {
	isBlank,
	NO_ANSWER_MESSAGE,
	UNKNOWN_EVENTS_ADVICE,
	type StreamAnswerError,
} from './stream/answerFailure';
import type { AssistantStep } from './stream/steps';
import { AttemptFailure, type LostHow } from './transport/attemptFailure';
import { apiError } from './transport/errors';
import { RUN_AGAIN, serviceFailure, type FailureScope } from './transport/failures';
import { conversationIdOf, headerValue, type ResponseHeaders } from './transport/request';
import { takenFailure, type Attempt } from './transport/send';
import { isEventStreamType, openStream } from './transport/streamCall';
import { redacted } from './transport/redaction';
import { printableEventName } from './transport/serverMessage';
import { isObject } from './json';

/** What one attempt of an ask came to: its answer, or its failure and what it heard before. */
export type AttemptOutcome =
	| { answered: true; result: AskResult }
	| {
			answered: false;
			/** What went wrong: whether the service accepted the ask, a retry, what to show. */
			failure: AttemptFailure;
			/** The conversation the ask is in, and the response's headers. */
			heard: AttemptHeard;
			/** With steps asked for: those the stream told before it failed. */
			steps?: AssistantStep[];
			/** With steps asked for: the model the stream named before it failed. */
			model?: string;
			/**
			 * Of the text passed on, how much (its end) an answer read from the conversation may go
			 * on from; false: none, the stream's last message had ended (stream/assembly.ts);
			 * undefined: no stream was read.
			 */
			continues?: number | false;
	  };

/**
 * One attempt of an ask on the wire, in streamed form (docs/api.md#every-ask-in-streamed-form):
 * its answer read from the stream (or from a whole JSON answer), or its AttemptFailure and what
 * the attempt knew by then, for the caller to decide on recovery. Anything else thrown (a missing
 * credential, a workflow's failing stream callback) is no failure of the wire: it goes on as is.
 */
export async function attemptAsk(
	attempt: Attempt,
	call: AskCall,
	live: LiveText,
): Promise<AttemptOutcome> {
	let answer: StreamAnswer | undefined;
	let seeOther: ResponseHeaders | undefined;
	/** The response's headers: the service accepted the ask, its conversation is known from here. */
	let headers: ResponseHeaders = {};
	/** The conversation the response itself named, as its answer is read: before a 303's. */
	let named: string | undefined;
	try {
		const opened = await openStream(attempt);
		// Reached through a 303: the conversation it named counts where the answer names none.
		seeOther = opened.seeOther;
		const seeOtherId = seeOther && conversationIdOf(seeOther);
		headers = opened.headers;
		named = conversationIdOf(headers);
		const jsonAnswer = (body: unknown): AttemptOutcome => {
			// A JSON answer's own id first, as resultOfJson reads it.
			if (isObject(body)) named = nonEmpty(body.conversation_id) ?? named;
			const result = resultOfJson(attempt.scope, call, body, opened.headers, seeOtherId);
			return { answered: true, result };
		};
		if (opened.kind === 'json') return jsonAnswer(opened.body);
		answer = new StreamAnswer({
			structured: call.request.output_format !== undefined,
			textObject: call.textObject,
			answerSchema: call.request.output_format,
			onText: live.forward,
			steps: call.steps,
			onUnknownEvent: (name) => warnUnknownEvent(attempt, call.notices, name),
			onUnreadableEvent: (name) => warnUnreadableEvent(attempt, call.notices, name),
			answerLimitChars: call.answerLimitChars,
		});
		live.reads(answer);
		const reading = answer;
		const instead = await opened.read((message) => reading.accept(message), STREAM_EVENT_NAMES);
		// Declared an event stream, it held a whole JSON answer: read as one.
		if (instead) return jsonAnswer(instead.body);
		const result = streamResult(attempt.scope, answer, opened.headers, seeOtherId);
		return { answered: true, result };
	} catch (error) {
		// A stream that named its conversation in its End alone: that one, as its answer would.
		named ??= answer?.endConversationId;
		// Reached through a 303: whatever the answer came to, the service took the ask.
		const failure = takenFailure(attempt, seeOther, error, named);
		// The conversation to read: the response's own, else the 303's, else the one it continues.
		const heard: AttemptHeard = {
			headers,
			conversationId:
				named ?? (seeOther && conversationIdOf(seeOther)) ?? call.request.conversation_id,
		};
		// With steps asked for: what the stream told before it failed, its model too.
		const told = call.steps ? { steps: answer?.steps() ?? [], model: answer?.streamModel() } : {};
		const outcome = failedOutcome(failure, heard, told);
		if (answer && !outcome.answered) outcome.continues = answer.openMessageLength ?? false;
		return outcome;
	}
}

/** The outcome of an attempt that threw `error`; what is not an AttemptFailure goes on as is. */
function failedOutcome(
	error: unknown,
	heard: AttemptHeard,
	told: { steps?: AssistantStep[]; model?: string },
): AttemptOutcome {
	if (!(error instanceof AttemptFailure)) throw error;
	const outcome: AttemptOutcome = { answered: false, failure: error, heard, steps: told.steps };
	if (told.model) outcome.model = told.model;
	return outcome;
}

/**
 * The answer of a finished stream, or the failure it came to. Its conversation: the one its
 * headers name, else its events, else `seeOtherId` (the 303 it came through, if any).
 */
function streamResult(
	scope: FailureScope,
	answer: StreamAnswer,
	headers: ResponseHeaders,
	seeOtherId: string | undefined,
) {
	let result;
	try {
		result = answer.result();
	} catch (error) {
		// result() throws nothing but StreamAnswerErrors.
		throw streamFailure(scope, error as StreamAnswerError, headers);
	}
	const conversationId = conversationIdOf(headers) ?? result.conversationId ?? seeOtherId ?? null;
	const asked: AskResult = { output: result.output, conversationId };
	if (result.steps) asked.steps = result.steps;
	if (result.model) asked.streamModel = result.model;
	return withFallback(asked, headers);
}

/** A whole JSON answer; its conversation as a stream's, its body's id first. */
function resultOfJson(
	scope: FailureScope,
	call: AskCall,
	answer: unknown,
	headers: ResponseHeaders,
	seeOtherId: string | undefined,
): AskResult {
	const body = (isObject(answer) ? answer : {}) as Partial<AskResponse>;
	if (
		body.output === undefined ||
		body.output === null ||
		(typeof body.output === 'string' && isBlank(body.output))
	) {
		// A 200 with an empty answer: the conversation may hold it a moment later.
		const shown = noAnswerError(scope, withoutOutput(answer));
		throw new AttemptFailure({ shown, accepted: 'yes', lost: 'empty' });
	}
	checkWholeAnswer(scope, body.output, headers);
	const result: AskResult = {
		output: checkedOutput(scope, call, body.output),
		conversationId:
			nonEmpty(body.conversation_id) ?? conversationIdOf(headers) ?? seeOtherId ?? null,
	};
	// A whole JSON answer tells no steps.
	if (call.steps) result.steps = [];
	return withFallback(result, headers);
}

/**
 * An answer that came whole (a JSON answer, one read from the conversation) is held to Max Answer
 * Length as a streamed one is, and fails as it does past it.
 */
export function checkWholeAnswer(
	scope: FailureScope,
	output: unknown,
	headers: ResponseHeaders = {},
): void {
	const tooLarge = wholeAnswerTooLarge(output, scope.request.answerLimitChars);
	if (tooLarge) throw streamFailure(scope, tooLarge, headers);
}

/** Text or an object; for a structured ask, an object (sent as JSON text, tolerated). */
function checkedOutput(scope: FailureScope, call: AskCall, output: unknown): AskResult['output'] {
	const structured = call.request.output_format !== undefined;
	const object =
		typeof output === 'string' && structured ? objectFromText(output, call.textObject) : output;
	if (isObject(object)) return object;
	if (!structured && typeof output === 'string' && output) return output;
	const received = output === null ? 'null' : Array.isArray(output) ? 'array' : typeof output;
	const what =
		typeof output === 'string'
			? `its answer begins ${quotedStart(output)}`
			: `received ${received}`;
	const shown = apiError(
		scope.node,
		{
			message: structured
				? `The assistant did not return an object for the JSON Schema: ${what}`
				: `The assistant sent an answer without text output: received ${received}`,
			description: RUN_AGAIN,
		},
		scope.request.itemIndex,
	);
	throw new AttemptFailure({ shown, accepted: 'yes' });
}

/** `note`: what the answer held instead (withoutOutput), after the headline. */
function noAnswerError(scope: FailureScope, note = ''): NodeApiError {
	return apiError(
		scope.node,
		{ message: NO_ANSWER_MESSAGE + note, description: RUN_AGAIN },
		scope.request.itemIndex,
	);
}

/** At most this many of a JSON answer's field names are shown. */
const MAX_FIELD_NAMES = 10;

/**
 * What a JSON answer without `output` held instead, by its fields' names, never their values
 * (docs/api.md#ask-answer): a service that changed its answer's shape is reported in one line.
 * Nothing when it has `output`, empty or null: the service's own answer of nothing (2026).
 */
function withoutOutput(answer: unknown): string {
	if (!isObject(answer)) {
		const what = Array.isArray(answer)
			? 'a list'
			: typeof answer === 'string'
				? 'text'
				: answer === null
					? 'null'
					: `a ${typeof answer}`;
		return `: its JSON answer is ${what}, not an object`;
	}
	if (Object.prototype.hasOwnProperty.call(answer, 'output')) return '';
	const names = Object.keys(answer);
	if (names.length === 0) return ': its JSON answer is an empty object';
	// Shown as an event's name is: printable, cut when long.
	const shown = names.slice(0, MAX_FIELD_NAMES).map(printableEventName).join(', ');
	return `: its JSON answer has no "output" (its fields: ${shown}${names.length > MAX_FIELD_NAMES ? ', …' : ''})`;
}

/**
 * A 2xx stream that did not answer (stream/answer.ts's StreamAnswerError), as its AttemptFailure:
 * what the service said is serviceFailure's to read (a full session pool is waited for); one that
 * ended without an end or without an answer, or carried events that could not be read, is lost,
 * as its conversation may hold the answer; the rest are shown as they are.
 */
export function streamFailure(
	scope: FailureScope,
	failure: StreamAnswerError,
	headers: ResponseHeaders,
): AttemptFailure {
	const { node, request } = scope;
	const said = failure.serverMessage ?? '';
	// The service took the ask. The names of the events the stream carried that this node does not
	// know travel with the failure: whatever error it becomes names them.
	const afterAccepted = (shown: NodeApiError, lost?: LostHow) =>
		new AttemptFailure({ shown, accepted: 'yes', lost, unknownEvents: failure.unknownEvents });
	/** The stream's own sentence, with what to do about it. */
	const told = (description: string) =>
		apiError(node, { message: failure.message, description }, request.itemIndex);
	switch (failure.failure) {
		case 'error-event':
			return serviceFailure(scope, said, {
				via: 'error-event',
				headers,
				turnBegan: failure.turnBegan,
			});
		case 'run-failed':
			return serviceFailure(scope, said, {
				via: 'failed-run',
				headers,
				turnBegan: failure.turnBegan,
				run: failure.run,
			});
		case 'incomplete':
			return afterAccepted(
				told(
					failure.unknownEvents.length
						? `The service closed the stream without an end this node knows, and sent events it does not know: the service may have changed how it streams answers. No partial answer was returned. ${UNKNOWN_EVENTS_ADVICE}`
						: 'The service closed the stream without its end event, so the answer may be cut short. No partial answer was returned; run the item again.',
				),
				'incomplete',
			);
		case 'no-events':
			return afterAccepted(
				apiError(node, noEventsError(failure.message, headers), request.itemIndex),
				'incomplete',
			);
		case 'unreadable':
			return afterAccepted(
				told(
					`The service sent events whose data this node could not read, so the answer may lack what they said: the service may have changed how it streams answers. No partial answer was returned. ${UNKNOWN_EVENTS_ADVICE}`,
				),
				'unreadable',
			);
		case 'no-answer':
			return afterAccepted(
				failure.unknownEvents.length
					? told(
							`The service ended the stream without answer text this node knows, and sent events it does not know: the service may have changed how it streams answers. ${UNKNOWN_EVENTS_ADVICE}`,
						)
					: noAnswerError(scope),
				'empty',
			);
		case 'too-large':
			return afterAccepted(
				told(
					"No partial answer was returned. If the assistant really writes answers this long, raise Ask's Options > Max Answer Length; otherwise check the credential's Base URL.",
				),
			);
		default:
			return afterAccepted(told(RUN_AGAIN));
	}
}

/**
 * A 2xx response read as an event stream that closed before any event. Declared as one, the
 * service closed it early; declared as something else (or not at all), it may be no response of
 * the assistant's API at all: a Base URL that points at a website (a `200` web page), or a proxy
 * that answered in its place. The type is named so that the user can tell.
 */
function noEventsError(
	message: string,
	headers: ResponseHeaders,
): { message: string; description: string } {
	const type = headerValue(headers, 'content-type')?.trim();
	if (isEventStreamType(type)) {
		return {
			message,
			description:
				'The service closed the stream before sending anything of the answer; run the item again.',
		};
	}
	return {
		message: `${message} (${type ? `Content-Type ${printableEventName(type)}` : 'no Content-Type'})`,
		description:
			"The response was neither the assistant's event stream nor a JSON answer: check that the credential's Base URL points at the Assistant API (a website answers with a web page, text/html), or whether a proxy between n8n and the service answered in its place. No answer was returned.",
	};
}

/**
 * An event the stream carried that this node does not know: its name, never its data; as many
 * as the run's notices allow (RunNotices.unknownEvent), then once that more came.
 */
function warnUnknownEvent(attempt: Attempt, notices: RunNotices | undefined, name: string): void {
	const tell = notices ? notices.unknownEvent(name) : 'name';
	if (!tell) return;
	const message =
		tell === 'name'
			? `Assistant: the service's stream carried an event this node does not know: "${name}". The answer is read without it; if answers fail or look wrong, update the package or report the event name.`
			: `Assistant: the service's streams in this run carried more events this node does not know; they are not listed (${MAX_UNKNOWN_EVENT_WARNINGS} were). If answers fail or look wrong, update the package or report the event names.`;
	attempt.ctx.logger.warn(redacted(message, attempt.scope.redaction), {
		itemIndex: attempt.scope.request.itemIndex,
	});
}

/**
 * An event of the answer the stream carried whose data this node could not read: its name, never
 * its data, once a run (the names are those of the events that carry the answer, a few).
 */
function warnUnreadableEvent(
	attempt: Attempt,
	notices: RunNotices | undefined,
	name: string,
): void {
	if (notices && !notices.first(`unreadable event ${name}`)) return;
	const message = `Assistant: the service's stream carried a "${name}" event whose data this node could not read, so the answer is not taken from the stream: it is read from the conversation instead. If this happens again, update the package or report the event name.`;
	attempt.ctx.logger.warn(redacted(message, attempt.scope.redaction), {
		itemIndex: attempt.scope.request.itemIndex,
	});
}

export function withFallback(result: AskResult, headers: ResponseHeaders): AskResult {
	const fallback = headerValue(headers, 'x-model-fallback')?.trim();
	return fallback ? { ...result, modelFallback: fallback } : result;
}

function nonEmpty(value: unknown): string | undefined {
	return typeof value === 'string' && value ? value : undefined;
}
