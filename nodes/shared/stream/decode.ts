import { createParser } from 'eventsource-parser';

/** One Server-Sent Events message: its `event:` name and its `data:` text. */
export interface SseMessage {
	event: string;
	data: string;
}

export interface SseDecoder {
	/** Feed bytes as they arrive; a chunk may end anywhere, even inside a UTF-8 character. */
	push(chunk: Uint8Array | string): void;
	/** Flush what is buffered once the body has ended. */
	finish(): void;
}

/**
 * Bytes of an event-stream body -> SSE messages, and nothing more (their meaning is in
 * answer.ts). eventsource-parser deals with `\r\n`, comments and split lines; TextDecoder in
 * streaming mode keeps multi-byte characters whole across chunk boundaries
 * (docs/api.md#streams).
 */
export function createSseDecoder(onMessage: (message: SseMessage) => void): SseDecoder {
	const decoder = new TextDecoder('utf-8');
	let ended = false;
	const parser = createParser({
		onEvent: ({ event, data }) => {
			// A last message without its blank line is dropped by the SSE rules, unless its data is
			// whole JSON: then nothing of it was cut (a quoted or abruptly closed terminal event).
			if (ended && !isWholeJson(data)) return;
			onMessage({ event: event ?? 'message', data });
		},
	});
	return {
		push(chunk) {
			parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
		},
		finish() {
			const rest = decoder.decode();
			if (rest) parser.feed(rest);
			ended = true;
			parser.feed('\n\n');
			parser.reset();
		},
	};
}

function isWholeJson(data: string): boolean {
	try {
		JSON.parse(data);
		return true;
	} catch {
		return false;
	}
}

/**
 * The messages of a body as it arrives, in batches (those of one network chunk together), so a
 * stream of many small events does not pay an async-generator round trip per event.
 */
export async function* decodeSseBatches(
	body: AsyncIterable<Uint8Array | string>,
): AsyncGenerator<SseMessage[]> {
	let pending: SseMessage[] = [];
	const decoder = createSseDecoder((message) => pending.push(message));
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
