import { createParser, type EventSourceMessage } from 'eventsource-parser';

import type { EndEventData, ErrorEventData, FrontendModelResponseData } from './api';

/** What the node cares about in an ask stream; everything else on the wire is dropped. */
export type AssistantStreamEvent =
	| { type: 'text'; content: string }
	| { type: 'end'; output?: string | Record<string, unknown>; conversationId?: string }
	| { type: 'error'; message: string };

export interface AssistantStreamDecoder {
	/** Feed bytes as they arrive; a chunk may end anywhere, even inside a UTF-8 character. */
	push(chunk: Uint8Array | string): void;
	/** Flush what is buffered once the body has ended. */
	finish(): void;
}

/**
 * Turns the bytes of a Server-Sent Events body into typed assistant events.
 * eventsource-parser deals with line endings, comments and split lines; TextDecoder in
 * streaming mode keeps multi-byte characters whole across chunk boundaries.
 */
export function createAssistantStreamDecoder(
	onEvent: (event: AssistantStreamEvent) => void,
): AssistantStreamDecoder {
	const decoder = new TextDecoder('utf-8');
	const parser = createParser({
		onEvent: (message) => {
			const event = toAssistantEvent(message);
			if (event) onEvent(event);
		},
	});
	return {
		push(chunk) {
			parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
		},
		finish() {
			const rest = decoder.decode();
			if (rest) parser.feed(rest);
			// A final event without its blank line is incomplete by the SSE rules: dropped here.
			parser.reset();
		},
	};
}

/**
 * Async form of the decoder over a body stream (a Node Readable is an AsyncIterable): the events
 * of each network chunk come as one batch, so a stream of many small events does not pay an
 * async-generator round trip per event.
 */
export async function* parseAssistantStreamBatches(
	body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<AssistantStreamEvent[]> {
	let pending: AssistantStreamEvent[] = [];
	const decoder = createAssistantStreamDecoder((event) => pending.push(event));
	for await (const chunk of body) {
		decoder.push(chunk);
		if (pending.length > 0) {
			const batch = pending;
			pending = [];
			yield batch;
		}
	}
	decoder.finish();
	if (pending.length > 0) yield pending;
}

/** One event at a time. */
export async function* parseAssistantStream(
	body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<AssistantStreamEvent> {
	for await (const batch of parseAssistantStreamBatches(body)) yield* batch;
}

function toAssistantEvent(message: EventSourceMessage): AssistantStreamEvent | undefined {
	switch (message.event) {
		case 'FrontendModelResponse': {
			const data = parseJson<FrontendModelResponseData>(message.data);
			if (!isObject(data)) {
				return {
					type: 'error',
					message: `Malformed FrontendModelResponse event: ${preview(message.data)}`,
				};
			}
			const content = answerText(data);
			return content ? { type: 'text', content } : undefined;
		}
		case 'End': {
			const data = parseJson<EndEventData>(message.data);
			const end: AssistantStreamEvent = { type: 'end' };
			if (isObject(data)) {
				if (data.output !== undefined && data.output !== null) end.output = data.output;
				if (typeof data.conversation_id === 'string' && data.conversation_id) {
					end.conversationId = data.conversation_id;
				}
			}
			return end;
		}
		case 'Error': {
			const data = parseJson<ErrorEventData>(message.data);
			const text =
				isObject(data) && typeof data.message === 'string' && data.message
					? data.message
					: message.data.trim() || 'The assistant reported an error without a message';
			return { type: 'error', message: text };
		}
		default:
			// PartStartEvent, PartDeltaEvent, PartEndEvent and anything new carry no answer text.
			return undefined;
	}
}

/** `content`, or else the `text` parts; `thinking` parts are the model's reasoning, not the answer. */
function answerText(data: FrontendModelResponseData): string {
	if (typeof data.content === 'string') return data.content;
	if (!Array.isArray(data.parts)) return '';
	let text = '';
	for (const part of data.parts) {
		if (part && part.part_kind === 'text' && typeof part.content === 'string') text += part.content;
	}
	return text;
}

function parseJson<T>(text: string): T | undefined {
	try {
		return JSON.parse(text) as T;
	} catch {
		return undefined;
	}
}

function isObject<T>(value: T | undefined): value is T & object {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(text: string): string {
	return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** The answer assembled from a whole stream. */
export interface AssembledAnswer {
	output: string | Record<string, unknown>;
	conversationId?: string;
}

/** Text chunks are folded into flat segments of about this many characters. */
const SEGMENT_CHARS = 1 << 20;

/**
 * Collects events into the answer. Text chunks are folded into ~1 MB flat segments as they
 * come (one join per segment), and the segments are concatenated at the end without another
 * copy, so a long answer costs linear time and about its own size in memory.
 */
export class StreamAnswerAssembler {
	private readonly segments: string[] = [];
	private chunks: string[] = [];
	private chunkChars = 0;
	private end: Extract<AssistantStreamEvent, { type: 'end' }> | undefined;
	private error: string | undefined;

	constructor(private readonly structured: boolean) {}

	/** Returns false once the stream is over (End or Error): later events are ignored. */
	accept(event: AssistantStreamEvent): boolean {
		if (this.end || this.error !== undefined) return false;
		if (event.type === 'text') {
			this.chunks.push(event.content);
			this.chunkChars += event.content.length;
			if (this.chunkChars >= SEGMENT_CHARS) {
				this.segments.push(this.chunks.join(''));
				this.chunks = [];
				this.chunkChars = 0;
			}
		} else if (event.type === 'end') this.end = event;
		else this.error = event.message;
		return !this.end && this.error === undefined;
	}

	/** The server's Error event message, if it sent one. */
	get errorMessage(): string | undefined {
		return this.error;
	}

	get complete(): boolean {
		return this.end !== undefined;
	}

	/** Call only when `complete`; throws a plain Error when the structured answer is missing. */
	result(): AssembledAnswer {
		// Concatenation of the flat segments: V8 links them instead of copying the answer again.
		let text = '';
		for (const segment of this.segments) text += segment;
		text += this.chunks.join('');
		const endOutput = this.end?.output;
		let output: string | Record<string, unknown>;
		if (this.structured) {
			output = structuredOutput(endOutput, text);
		} else {
			// The text chunks are the answer; End.output (seen in the wild) only fills in when none came.
			output = text || (typeof endOutput === 'string' ? endOutput : text);
		}
		return { output, conversationId: this.end?.conversationId };
	}
}

function structuredOutput(endOutput: unknown, text: string): Record<string, unknown> {
	if (typeof endOutput === 'object' && endOutput !== null && !Array.isArray(endOutput)) {
		return endOutput as Record<string, unknown>;
	}
	// Tolerate a service that streams the JSON object as text (or as a string in End).
	const candidate = typeof endOutput === 'string' ? endOutput : text;
	const parsed = parseJson<unknown>(candidate.trim());
	if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
		return parsed as Record<string, unknown>;
	}
	throw new Error('The stream ended without the structured output (End carried no output object)');
}
