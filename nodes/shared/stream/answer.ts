import type { OutputFormatSchema } from '../api';
import { DEFAULT_ANSWER_LIMIT_CHARS, messageLimitBytes } from '../limits';
import { objectFromText, quotedStart, type TextObjectRule } from '../outputFormat/structuredText';
import { AnswerAssembler } from './assembly';
import {
	answerTooLarge,
	INCOMPLETE_MESSAGE,
	NO_ANSWER_MESSAGE,
	NO_EVENTS_MESSAGE,
	StreamAnswerError,
	unknownEventsNote,
	unreadableEventsMessage,
} from './answerFailure';
import { createSseDecoder, type SseMessage } from './decode';
import { flatEvent } from './flatEvent';
import { BEFORE_TURN_EVENTS, STREAM_EVENT_NAMES, toStreamEvents, type StreamEvent } from './events';
import { KnownLayout } from './knownLayout';
import { OutputToolCalls, sizeOf } from './outputTool';
import { StepCollector, type AssistantStep } from './steps';

/**
 * The meaning of an ask stream, in one place (docs/api.md#streams): which events carry answer
 * text, what the final answer is, and when a stream has not answered. The transport only moves
 * the bytes; this module is pure, for the node, the tests and the fuzz alike.
 */

export interface StreamAnswerOptions {
	/** The ask gave `output_format`: the answer must be an object. */
	structured: boolean;
	/** Where such an object may be in the answer's text; `last` when not given. */
	textObject?: TextObjectRule;
	/**
	 * The schema the ask sent: of several output-tool calls, the first that matches it is the
	 * answer (outputTool.ts's chosenOutputObject); without it, the first that holds an object.
	 */
	answerSchema?: OutputFormatSchema;
	/**
	 * Each newly taken piece of answer text, once, as it is taken (separators between model
	 * messages included). Not called for a structured ask: that answer is only useful whole.
	 */
	onText?: (delta: string) => void;
	/** Also collect the steps (docs/api.md#steps); `thinking` includes the thinking texts. */
	steps?: { thinking: boolean };
	/** Each event name this node does not know, the first time this stream carries it. */
	onUnknownEvent?: (name: string) => void;
	/**
	 * Each name of an event of the answer whose data this node could not read, the first time
	 * this stream carries one.
	 */
	onUnreadableEvent?: (name: string) => void;
	/** The most text the answer and its steps may hold, in characters (docs/api.md#memory-bounds). */
	answerLimitChars?: number;
}

export interface StreamAnswerResult {
	output: string | Record<string, unknown>;
	conversationId?: string;
	/** With `steps`: what the assistant did, in order, and the model the stream named. */
	steps?: AssistantStep[];
	model?: string;
}

/**
 * At most this many unknown (or unreadable) event names are kept: a hostile stream could send
 * endless ones.
 */
const MAX_NOTED_EVENTS = 10;

/** `name` added to `names` once, while they are fewer than MAX_NOTED_EVENTS; told when added. */
function noteName(names: string[], name: string, onAdded?: (name: string) => void): void {
	if (names.length >= MAX_NOTED_EVENTS || names.includes(name)) return;
	names.push(name);
	onAdded?.(name);
}

/** The events read into the answer, its steps and the output tool's calls. */
type PartOrToolEvent = Exclude<
	StreamEvent,
	{
		type:
			'end' | 'error' | 'runFailed' | 'unknown' | 'unknownTextDelta' | 'unreadable' | 'toolRound';
	}
>;

/** Folds the SSE messages of one stream into its answer. */
export class StreamAnswer {
	private readonly assembler: AnswerAssembler;
	private readonly collector: StepCollector | undefined;
	/** Only for a structured ask: the object may come as an output tool's arguments. */
	private readonly outputTool: OutputToolCalls | undefined;
	private end: Extract<StreamEvent, { type: 'end' }> | undefined;
	private errorMessage: string | undefined;
	private runFailure: Extract<StreamEvent, { type: 'runFailed' }> | undefined;
	private readonly unknown: string[] = [];
	/** Events that carry the answer or its end, whose data this node could not read, by name. */
	private readonly unreadable: string[] = [];
	/**
	 * What had been passed on when the first of them came, and how much of it the open message
	 * wrote: nothing more is, as what follows may go on from text that is missing. An answer read
	 * from the conversation then goes on from there (docs/api.md#recovery-after-a-failure).
	 */
	private passedOnBefore: { text: string; openMessageLength: number | undefined } | undefined;
	/** The stream's events in the service's layout, read without parsing (knownLayout.ts). */
	private readonly layout = new KnownLayout();
	/** The bound the answer grew past (docs/api.md#memory-bounds). */
	private exceeded: number | undefined;
	/** One of the four above has come. */
	private done = false;
	/**
	 * An event other than the run's status and the stream's ends has come (a part, a snapshot, a
	 * tool event, the request's echo, an unknown one): the turn had begun (text is hasText's).
	 */
	private began = false;
	/** Any event has come, of any kind. */
	private heard = false;

	/** The most text the answer and its steps may hold (docs/api.md#memory-bounds). */
	private readonly limit: number;

	constructor(private readonly options: StreamAnswerOptions) {
		this.limit = options.answerLimitChars ?? DEFAULT_ANSWER_LIMIT_CHARS;
		this.assembler = new AnswerAssembler(options.structured ? undefined : options.onText);
		this.collector = options.steps && new StepCollector(options.steps.thinking);
		this.outputTool = options.structured ? new OutputToolCalls() : undefined;
	}

	/** The events this stream carried that this node does not know, by name, each once. */
	get unknownEvents(): readonly string[] {
		return this.unknown;
	}

	/** Of the text passed on, how much an answer read elsewhere may go on from (assembly.ts). */
	get openMessageLength(): number | undefined {
		return this.passedOnBefore
			? this.passedOnBefore.openMessageLength
			: this.assembler.openMessageLength;
	}

	/** The steps so far (docs/api.md#steps); undefined when they are not collected. */
	steps(): AssistantStep[] | undefined {
		return this.collector?.steps();
	}

	/** The model the stream named so far, when steps are collected (docs/api.md#steps). */
	streamModel(): string | undefined {
		return this.collector?.model;
	}

	/** The text given to `onText` so far (none for a structured ask). */
	passedOn(): string {
		if (this.passedOnBefore) return this.passedOnBefore.text;
		return this.options.onText && !this.options.structured ? this.assembler.text() : '';
	}

	/** The conversation the stream's `End` named, if it came (read also when it has no answer). */
	get endConversationId(): string | undefined {
		return this.end?.conversationId;
	}

	/** Whether any answer text has been taken. */
	get hasText(): boolean {
		return this.assembler.hasText;
	}

	/**
	 * Whether the assistant's turn had visibly begun: text, or any event but the run's status and
	 * the stream's ends came (`began`).
	 */
	private get turnBegan(): boolean {
		return this.began || this.hasText;
	}

	/** An end, an error event or the run's failure has come: later messages mean nothing. */
	get finished(): boolean {
		return this.done;
	}

	/** Returns false once the stream is finished. */
	accept(message: SseMessage): boolean {
		if (this.done) return false;
		this.heard = true;
		// The flat form names its event inside its data: it is read as that event
		// (docs/api.md#flat-stream-form), for the turn's beginning too.
		const named = message.event === 'message' ? flatEvent(message.data) : message;
		if (!BEFORE_TURN_EVENTS.has(named.event)) this.began = true;
		// An event whose data is not read is told by name alone (decode.ts): toStreamEvents reads
		// no more of it than its name.
		const collector = this.collector;
		for (const event of toStreamEvents(named, collector !== undefined, this.layout)) {
			switch (event.type) {
				case 'end':
					this.assembler.finish();
					this.end = event;
					this.done = true;
					// End's output is the answer: held to the bound as the streamed text is.
					this.withinBound(sizeOf(event.output));
					return false;
				case 'error':
					this.errorMessage = event.message;
					this.done = true;
					return false;
				case 'runFailed':
					this.runFailure = event;
					this.done = true;
					return false;
				case 'unknown':
					// Whatever the node does not know may be the assistant at work: the turn has begun.
					this.began = true;
					noteName(this.unknown, event.name, this.options.onUnknownEvent);
					break;
				case 'unreadable':
					// Read on to the end: a run that failed says so, and only then is the answer
					// read from the conversation (result()).
					this.cannotRead(event.name);
					if (!event.ends) break;
					this.done = true;
					return false;
				case 'unknownTextDelta':
					this.began = true;
					// Text of a kind this node does not know, in a part of the answer's text (or one
					// never seen): the answer may lack it, so it is not read whole from the stream.
					if (this.assembler.mayBeAnswerText(event.index, event.response)) {
						this.cannotRead(event.name);
					} else noteName(this.unknown, event.name, this.options.onUnknownEvent);
					break;
				case 'toolRound':
					this.began = true;
					this.assembler.responseOver(event.ran);
					collector?.responseOver();
					break;
				case 'partStart':
				case 'partDelta':
				case 'partEnd':
				case 'toolDelta':
					this.assembler.enterPartEvent(event);
				// falls through: a Part event is read as every other
				case 'snapshot':
				case 'toolEvent':
					// The turn has begun (a content delta is text: hasText says so).
					this.began = true;
				// falls through
				default:
					if (collector) this.collect(collector, event);
					else if (event.type !== 'toolDelta' && event.type !== 'toolEvent') {
						this.assembler.accept(event);
					}
					// Text the Part events told that the answer cannot place: the answer would lack
					// it, so it is not taken from the stream, as for an event that cannot be read.
					if (this.assembler.partTextOutOfPlace)
						this.cannotRead(`${named.event} (text out of place)`);
					if (this.outputTool) this.readOutputTool(this.outputTool, event);
			}
		}
		return this.withinBound();
	}

	/**
	 * An event of the answer whose data this node cannot read, by name: what it said is not known,
	 * so nothing more is passed on, and the answer is not taken from the stream (result()).
	 */
	private cannotRead(name: string): void {
		noteName(this.unreadable, name, this.options.onUnreadableEvent);
		this.stopPassingOn();
	}

	private stopPassingOn(): void {
		if (this.passedOnBefore) return;
		const openMessageLength = this.assembler.openMessageLength;
		this.passedOnBefore = { text: this.passedOn(), openMessageLength };
		this.assembler.stopPassingOn();
	}

	/**
	 * Past the bound the stream is finished, as a failure (result()): the answer is never held in
	 * full, and never cut silently.
	 */
	private withinBound(endOutputLength = 0): boolean {
		const limit = this.limit;
		const held = Math.max(
			this.assembler.heldLength,
			this.collector ? this.collector.heldLength : 0,
			this.outputTool ? this.outputTool.heldLength : 0,
			endOutputLength,
		);
		if (held <= limit) return true;
		this.exceeded = limit;
		this.done = true;
		return false;
	}

	/**
	 * A tool call's part, delta or snapshot (the output tool's may carry the object); after the
	 * assembler, which decides the message a snapshot is of.
	 */
	private readOutputTool(calls: OutputToolCalls, event: PartOrToolEvent): void {
		const message = this.assembler.messageNumber;
		if (event.type === 'toolDelta') calls.delta(message, event.index, event.delta);
		else if (
			(event.type === 'partStart' || event.type === 'partEnd') &&
			event.kind !== 'tool-call'
		) {
			// With steps or without (only a tool call's part comes without them), the same.
			calls.otherPart(message, event.index);
		} else if ((event.type === 'partStart' || event.type === 'partEnd') && event.part) {
			calls.part(message, event.index, event.part, event.type === 'partEnd');
		} else if (event.type === 'snapshot' && event.parts) calls.snapshot(message, event.parts);
	}

	/** The assembler decides where a model message begins; the steps go by its messages. */
	private collect(collector: StepCollector, event: PartOrToolEvent): void {
		const message = this.assembler.messageNumber;
		if (event.type === 'toolEvent') {
			collector.toolEvent(message, event.part);
			return;
		}
		if (event.type === 'toolDelta') {
			collector.partEvent(message, event.response !== undefined);
			collector.toolDelta(message, event.index, event.delta);
			return;
		}
		this.assembler.accept(event);
		const now = this.assembler.messageNumber;
		switch (event.type) {
			case 'snapshot':
				if (event.model) collector.model = event.model;
				if (event.parts) {
					collector.snapshot(now, event.parts, event.kinds, this.assembler.snapshotGrewLast);
				}
				break;
			case 'partStart':
			case 'partEnd':
				collector.partEvent(now, event.response !== undefined);
				if (event.part) collector.part(now, event.index, event.part, event.type === 'partEnd');
				break;
			case 'partDelta':
				collector.partEvent(now, event.response !== undefined);
				if (event.kind !== 'text') {
					collector.thinkingDelta(now, event.index, event.text, event.kind === 'thinking');
				}
				break;
		}
	}

	/** The answer of a finished stream; a StreamAnswerError when it has none. */
	result(): StreamAnswerResult {
		if (this.exceeded !== undefined) throw answerTooLarge(this.exceeded, this.turnBegan);
		if (this.runFailure) {
			const { message, status, errorType, failureKind } = this.runFailure;
			throw new StreamAnswerError(
				'run-failed',
				`The assistant's run failed: ${message}`,
				message,
				this.turnBegan,
				{ status, errorType, failureKind },
			);
		}
		if (this.errorMessage !== undefined) {
			throw new StreamAnswerError(
				'error-event',
				`The assistant reported an error: ${this.errorMessage}`,
				this.errorMessage,
				this.turnBegan,
			);
		}
		if (this.unreadable.length > 0) {
			// What the answer lacks is not known: its conversation is read for it, as after a
			// stream without an end (docs/api.md#how-a-stream-ends).
			throw this.namingUnknownEvents(
				'unreadable',
				// Done here, with no failure before: an end came, read or not.
				unreadableEventsMessage(this.unreadable, this.done),
			);
		}
		if (!this.end) {
			if (!this.heard) throw new StreamAnswerError('no-events', NO_EVENTS_MESSAGE);
			throw this.namingUnknownEvents('incomplete', INCOMPLETE_MESSAGE);
		}
		const output = this.output(this.end.output);
		const result: StreamAnswerResult = { output };
		if (this.end.conversationId !== undefined) result.conversationId = this.end.conversationId;
		if (this.collector) {
			result.steps = this.collector.steps();
			if (this.collector.model) result.model = this.collector.model;
		}
		return result;
	}

	/**
	 * A stream that gave no answer, its `headline` followed by the events it carried that this node
	 * does not know (docs/api.md#how-a-stream-ends), which the failure carries on.
	 */
	private namingUnknownEvents(
		failure: 'unreadable' | 'incomplete' | 'no-answer',
		headline: string,
	): StreamAnswerError {
		return new StreamAnswerError(
			failure,
			`${headline}${unknownEventsNote(this.unknown)}`,
			undefined,
			this.turnBegan,
			undefined,
			this.unknown,
		);
	}

	/**
	 * End's output wins when present; else the assembled text (docs/api.md#how-a-stream-ends). A
	 * structured answer is End's object, else the output tool's, else the last model message's
	 * text's, else the whole text's (docs/api.md#structured-output-in-a-stream).
	 */
	private output(endOutput: string | Record<string, unknown> | undefined) {
		const other = this.end?.otherOutput;
		if (this.options.structured && endOutput === undefined && other !== undefined) {
			// End gave the answer, and it is no object: as the same answer sent as JSON fails.
			throw new StreamAnswerError(
				'not-an-object',
				`The assistant did not return an object for the JSON Schema: received ${other}`,
				undefined,
				this.turnBegan,
			);
		}
		const text = this.assembler.text();
		const toolObject = this.outputTool?.object(
			this.assembler.messageNumber,
			this.options.answerSchema,
		);
		// The answer's text is not joined into one string to be looked at (it may be long).
		if (endOutput === undefined && !this.assembler.hasVisibleText && !toolObject) {
			// The output tool was given something else than an object: an answer, quoted as text is.
			const told = this.options.structured
				? this.outputTool?.arguments(this.assembler.messageNumber)
				: undefined;
			if (told?.trim()) throw notAnObject(told, this.turnBegan);
			// A service that renamed the events of its text still ends its stream: what it sent
			// instead is named, as for a stream without an end.
			throw this.namingUnknownEvents('no-answer', NO_ANSWER_MESSAGE);
		}
		if (!this.options.structured) return endOutput ?? text;
		if (typeof endOutput === 'object') return endOutput;
		const rule = this.options.textObject;
		// The last message's text alone, and only when no tool round came after it: what was
		// written before a tool round is no answer (the output tool's call, before the "not
		// executed" returns of the tools called beside it, is).
		const lastText = this.assembler.toolRoundLast ? '' : this.assembler.lastMessageText();
		const object =
			(endOutput === undefined ? undefined : objectFromText(endOutput, rule)) ??
			toolObject ??
			objectFromText(lastText, rule);
		if (object) return object;
		throw notAnObject(endOutput ?? text, this.turnBegan);
	}
}

/** A structured ask's answer that holds no object: its start quoted. */
function notAnObject(answer: string, turnBegan: boolean): StreamAnswerError {
	return new StreamAnswerError(
		'not-an-object',
		`The assistant did not return an object for the JSON Schema: its answer begins ${quotedStart(answer)}`,
		undefined,
		turnBegan,
	);
}

/**
 * An answer that came whole, not streamed (a JSON answer, one read from the conversation): the
 * error a streamed answer as long fails with, when it is past the bound (docs/api.md#memory-bounds).
 */
export function wholeAnswerTooLarge(
	output: unknown,
	answerLimitChars = DEFAULT_ANSWER_LIMIT_CHARS,
): StreamAnswerError | undefined {
	return sizeOf(output) > answerLimitChars ? answerTooLarge(answerLimitChars) : undefined;
}

/** The whole stream at once: the bytes as they came, however they were split. */
export function readAnswerFromChunks(
	chunks: Iterable<Uint8Array | string>,
	options: StreamAnswerOptions,
): StreamAnswerResult {
	const answer = new StreamAnswer(options);
	const decoder = createSseDecoder(
		(message) => answer.accept(message),
		messageLimitBytes(options.answerLimitChars),
		STREAM_EVENT_NAMES,
	);
	for (const chunk of chunks) {
		decoder.push(chunk);
		if (answer.finished) break;
	}
	if (!answer.finished) decoder.finish();
	return answer.result();
}
