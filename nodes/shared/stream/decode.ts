import { createParser } from 'eventsource-parser';

import { messageLimitBytes } from '../limits';

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

/** One line or one event went beyond the bound (docs/api.md#memory-bounds). */
export class SseLimitError extends Error {
	constructor(
		readonly what: 'line' | 'event',
		readonly limitBytes: number,
	) {
		super(`An event-stream ${what} is larger than ${limitBytes} bytes`);
		this.name = 'SseLimitError';
	}
}

/**
 * Events whose data is dropped as it streams, never held: the service's echo of the whole
 * request (`FrontendModelRequest`: the user's workspace files, images as data URLs), which
 * carries no answer (docs/api.md#streams).
 */
const DISCARDED_EVENTS: ReadonlySet<string> = new Set(['FrontendModelRequest']);

const LF = 0x0a;
const CR = 0x0d;
const DATA_FIELD = Buffer.from('data');
const COLON = 0x3a;

/**
 * Bytes of an event-stream body -> SSE messages, and nothing more (their meaning is in
 * answer.ts). Lines are cut here, on the bytes as they arrive, so that no line and no event
 * grows past `limitBytes` (a SseLimitError) and the data of a discarded event or a comment is
 * never held; eventsource-parser then reads each whole line (fields, `\r\n`, comments). Lines end
 * at ASCII bytes, so each line decodes whole, multi-byte characters included (docs/api.md#streams).
 */
export function createSseDecoder(
	onMessage: (message: SseMessage) => void,
	limitBytes = messageLimitBytes(),
): SseDecoder {
	const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
	let ended = false;
	const parser = createParser({
		onEvent: ({ event, data }) => {
			// A last message without its blank line is dropped by the SSE rules, unless its data is
			// whole JSON: then nothing of it was cut (a quoted or abruptly closed terminal event).
			if (ended && !isWholeJson(data)) return;
			onMessage({ event: event ?? 'message', data });
		},
	});
	/** The line so far, in pieces, unless it is skipped (a comment, a discarded event's data). */
	let pieces: Uint8Array[] = [];
	let lineBytes = 0;
	let skipping = false;
	/** Whether the line's start has been looked at (once, when long enough). */
	let decided = false;
	let afterCr = false;
	let atStart = true;
	let eventBytes = 0;
	let discarding = false;

	function addToLine(bytes: Uint8Array): void {
		if (bytes.length === 0 || skipping) return;
		lineBytes += bytes.length;
		pieces.push(bytes);
		if (!decided && (lineBytes > DATA_FIELD.length || pieces[0][0] === COLON)) {
			decided = true;
			const head = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
			if (isSkipped(head)) {
				skipping = true;
				pieces = [];
				return;
			}
		}
		if (lineBytes > limitBytes) throw new SseLimitError('line', limitBytes);
	}

	/** A comment, or a data line of a discarded event: nothing in it is ever needed. */
	function isSkipped(head: Uint8Array): boolean {
		if (head[0] === COLON) return true;
		if (!discarding) return false;
		for (let i = 0; i < DATA_FIELD.length; i++) if (head[i] !== DATA_FIELD[i]) return false;
		return head[DATA_FIELD.length] === COLON;
	}

	function endLine(): void {
		const skipped = skipping;
		const bytes = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
		pieces = [];
		lineBytes = 0;
		skipping = false;
		decided = false;
		if (skipped) return;
		let line = utf8.decode(bytes);
		if (atStart) {
			atStart = false;
			if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
		}
		if (line === '') {
			eventBytes = 0;
			discarding = false;
			parser.feed('\n');
			return;
		}
		eventBytes += bytes.length;
		if (eventBytes > limitBytes) throw new SseLimitError('event', limitBytes);
		if (line.startsWith('event:')) {
			const name = line.slice(line.startsWith('event: ') ? 7 : 6);
			discarding = DISCARDED_EVENTS.has(name);
		}
		parser.feed(`${line}\n`);
	}

	function push(chunk: Uint8Array): void {
		let from = 0;
		if (afterCr && chunk[0] === LF) from = 1;
		afterCr = false;
		let nextLf = chunk.indexOf(LF, from);
		let nextCr = chunk.indexOf(CR, from);
		while (from < chunk.length) {
			if (nextLf !== -1 && nextLf < from) nextLf = chunk.indexOf(LF, from);
			if (nextCr !== -1 && nextCr < from) nextCr = chunk.indexOf(CR, from);
			const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
			if (end === -1) {
				addToLine(chunk.subarray(from));
				return;
			}
			addToLine(chunk.subarray(from, end));
			endLine();
			from = end + 1;
			if (chunk[end] === CR) {
				if (from === chunk.length) afterCr = true;
				else if (chunk[from] === LF) from++;
			}
		}
	}

	return {
		push(chunk) {
			push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
		},
		finish() {
			// A last line without its end, and a last message without its blank line, are
			// incomplete by the SSE rules; they are read only when their data is whole JSON.
			ended = true;
			if (pieces.length > 0 && !skipping) endLine();
			pieces = [];
			parser.feed('\n');
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
	limitBytes?: number,
): AsyncGenerator<SseMessage[]> {
	let pending: SseMessage[] = [];
	const decoder = createSseDecoder((message) => pending.push(message), limitBytes);
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
