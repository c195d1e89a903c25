/** Why a stream gave no answer: what the caller turns into the error the user reads. */

export type StreamFailure =
	/** An `Error` or `SSEErrorEvent`: `serverMessage` holds the server's words. */
	| 'error-event'
	/**
	 * The 2026 stream's `failed` (or `completed` with another status): the service took the ask
	 * and its run failed; `serverMessage` holds its `error`, `run` the rest.
	 */
	| 'run-failed'
	/** The stream closed without an end this node knows or an error event. */
	| 'incomplete'
	/** The stream closed before any event: not even the run's status came. */
	| 'no-events'
	/**
	 * An event that carries the answer or its end could not be read (docs/api.md#how-a-stream-ends):
	 * the answer may lack what it said.
	 */
	| 'unreadable'
	/** `End` after no answer text and no `output`. */
	| 'no-answer'
	/** A structured ask answered without an object. */
	| 'not-an-object'
	/** The answer (or its steps) grew past the bound. */
	| 'too-large';

/**
 * A stream that did not answer; `message` is the sentence to show the user. The stream's meaning
 * knows nothing of the wire: askAttempt.ts's streamFailure turns it into the attempt's
 * AttemptFailure (accepted, retried or lost).
 */
export class StreamAnswerError extends Error {
	constructor(
		readonly failure: StreamFailure,
		message: string,
		/** The server's own message, for an error event (not redacted: the caller does that). */
		readonly serverMessage?: string,
		/**
		 * Whether the assistant's turn had begun before the failure: answer text, a part (thinking,
		 * a tool call) or a tool event had come.
		 */
		readonly turnBegan = false,
		/** For `run-failed`: the service's class and kind of failure, and the run's status. */
		readonly run?: { status: string; errorType?: string; failureKind?: string },
		/**
		 * For `incomplete` and `unreadable`: the events the stream carried that this node does not
		 * know.
		 */
		readonly unknownEvents: readonly string[] = [],
	) {
		super(message);
		this.name = 'StreamAnswerError';
	}
}

/**
 * An answer past Max Answer Length (docs/api.md#memory-bounds), however it came: streamed, whole
 * in `End`, as a JSON answer or read from the conversation. Never returned, never cut.
 */
export function answerTooLarge(limitChars: number, turnBegan = false): StreamAnswerError {
	return new StreamAnswerError(
		'too-large',
		`The answer grew past ${limitChars.toLocaleString('en-US')} characters; the node stopped reading it so as not to exhaust n8n's memory`,
		undefined,
		turnBegan,
	);
}

export const NO_ANSWER_MESSAGE = 'The assistant finished without an answer';

/** A stream that closed without an end this node knows (`incomplete`). */
export const INCOMPLETE_MESSAGE = 'The stream ended before the answer was complete';

/** A stream that closed before any event (`no-events`). */
export const NO_EVENTS_MESSAGE = `${INCOMPLETE_MESSAGE}; it carried no event`;

/** A stream that carried an event of the answer this node could not read (`unreadable`). */
export const UNREADABLE_MESSAGE = 'The stream carried events this node could not read';

/**
 * What an error says of a stream with events this node could not read, by name: that it closed
 * without an end too, when it did (`ended` false).
 */
export function unreadableEventsMessage(names: readonly string[], ended: boolean): string {
	return ended
		? `${UNREADABLE_MESSAGE}: ${names.join(', ')}`
		: `${INCOMPLETE_MESSAGE}; it carried events this node could not read: ${names.join(', ')}`;
}

/**
 * What an error says of the events a stream carried that this node does not know
 * (docs/api.md#how-a-stream-ends): their names, never their data; nothing when there were none.
 * `carrier` is what carried them, as the sentence names it.
 */
export function unknownEventsNote(names: readonly string[], carrier = 'it'): string {
	return names.length
		? `; ${carrier} carried events this node does not know: ${names.join(', ')}`
		: '';
}

/** What to do about events this node does not know, in the description of the error naming them. */
export const UNKNOWN_EVENTS_ADVICE =
	'Update the package if a newer version is out, and report these event names to its issue tracker.';

/**
 * Text that is no answer: empty, or only whitespace (docs/api.md#ask-answer). Looks no further
 * than the first character that is not a space, however long the text.
 */
export function isBlank(text: string): boolean {
	return !/\S/.test(text);
}
