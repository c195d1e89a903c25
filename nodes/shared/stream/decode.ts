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

/**
 * One line or one event went beyond the bound (docs/api.md#memory-bounds). The decoder knows no
 * request: transport/streamCall.ts turns it into the attempt's AttemptFailure where it reads.
 */
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
 * The event whose data is dropped as it streams, never held nor read: the service's echo of the
 * whole request (`FrontendModelRequest`: the user's workspace files, images as data URLs), which
 * carries no answer (docs/api.md#memory-bounds).
 */
const DISCARDED_EVENT = 'FrontendModelRequest';
/** Its `event:` line, as far as the start of a line can show it. */
const DISCARDED_EVENT_LINE = /^event: ?FrontendModelRequest$/;
/** Enough of a line's start to tell an `event:` line of the discarded event, or a `data` line. */
const HEAD_CHARS = 64;

/**
 * Bytes of an event-stream body -> SSE messages, and nothing more (their meaning is in
 * answer.ts). eventsource-parser reads the text (fields, `\r\n`, comments, lines split anywhere);
 * TextDecoder in streaming mode keeps multi-byte characters whole across chunks
 * (docs/api.md#streams). Before the parser sees a chunk, the line it ends in and the event it is
 * in are measured, so that neither grows past `limitBytes` (a SseLimitError), with a few scans
 * from the chunk's end, never line by line; only around the request echo are lines looked at, to
 * drop its data before anything holds it.
 */
export function createSseDecoder(
	onMessage: (message: SseMessage) => void,
	limitBytes = messageLimitBytes(),
): SseDecoder {
	const utf8 = new TextDecoder('utf-8');
	let ended = false;
	let started = false;
	const parser = createParser({
		onEvent: ({ event, data }) => {
			// A last message without its blank line is dropped by the SSE rules, unless its data is
			// whole JSON: then nothing of it was cut (a quoted or abruptly closed terminal event).
			if (ended && !isWholeJson(data)) return;
			onMessage({ event: event ?? 'message', data });
		},
	});
	/** Bytes of the line being read, and of the event being read. */
	let lineBytes = 0;
	let eventBytes = 0;
	/** What the text fed so far ended in: a line's end (`\n` or `\r`), or text. */
	let lastChar = '';
	/** The start of the line being read (up to HEAD_CHARS), to tell the echo's lines. */
	let lineHead = '';
	/** Within the echo: its data lines are dropped. */
	let discarding = false;
	/** Within the echo, the line being read is one of its data lines (dropped to its end). */
	let dropping = false;

	/** Whether the stream has had a CR: until then, lines end in LF alone (one scan less). */
	let seenCr = false;

	function measure(text: string): void {
		seenCr ||= text.includes('\r');
		const lastEnd = lastLineEnd(text, text.length - 1, seenCr);
		lineBytes = lastEnd === -1 ? lineBytes + byteLength(text) : byteLength(text.slice(lastEnd + 1));
		if (lineBytes > limitBytes) throw new SseLimitError('line', limitBytes);
		const blankEnd = lastBlankLineEnd(text, lastEnd, lastChar, seenCr);
		eventBytes = blankEnd === -1 ? eventBytes + byteLength(text) : byteLength(text.slice(blankEnd));
		if (eventBytes > limitBytes) throw new SseLimitError('event', limitBytes);
		lastChar = text[text.length - 1];
		lineHead =
			lastEnd === -1
				? (lineHead + text.slice(0, HEAD_CHARS)).slice(0, HEAD_CHARS)
				: text.slice(lastEnd + 1, lastEnd + 1 + HEAD_CHARS);
	}

	/** Whether this text may open the echo or go on inside it: only then are lines looked at. */
	function nearEcho(text: string): boolean {
		if (discarding || dropping || skipLf || holdsEchoName(text, 0)) return true;
		// Its `event:` line may have begun in the text before.
		return (
			lineHead !== '' &&
			(`event: ${DISCARDED_EVENT}`.startsWith(lineHead) ||
				`event:${DISCARDED_EVENT}`.startsWith(lineHead))
		);
	}

	/** The LF of a dropped line's CRLF comes first in the next text. */
	let skipLf = false;
	/** The start of a line held back until it shows whether it is one of the echo's data lines. */
	let pendingHead = '';

	/** The text without the echo's data lines, line by line; `lineHead` is what of its first line was fed. */
	function withoutEchoData(text: string): string {
		let kept = '';
		let from = 0;
		if (skipLf || lastChar === '\r') {
			// The rest of a CRLF: no line of its own.
			if (text[0] === '\n') {
				if (!skipLf) kept = '\n';
				from = 1;
			}
			skipLf = false;
		}
		let head = lineHead;
		// Without a CR in the text, one search per line end, not two to the text's end.
		let hasCr = text.includes('\r');
		while (from < text.length) {
			const lf = text.indexOf('\n', from);
			const cr = hasCr ? text.indexOf('\r', from) : -1;
			hasCr &&= cr !== -1;
			const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
			const rest = end === -1 ? text.slice(from) : text.slice(from, end);
			const atLineStart = head === '';
			if (atLineStart && discarding && !dropping) {
				if (isDataLine(rest, end !== -1)) dropping = true;
				else if (end === -1 && 'data'.startsWith(rest)) {
					// Too short to tell yet: held until the next text shows it.
					pendingHead = rest;
					return kept;
				}
			}
			if (end === -1) {
				if (!dropping) kept += rest;
				break;
			}
			const next = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
			if (dropping) {
				if (text[end] === '\r' && end === text.length - 1) skipLf = true;
				dropping = false;
			} else {
				kept += text.slice(from, next);
				// An empty line ends the event; the echo's `event:` line begins dropping its data.
				if (atLineStart && rest === '') discarding = false;
				else if (DISCARDED_EVENT_LINE.test((head + rest).slice(0, HEAD_CHARS))) discarding = true;
			}
			head = '';
			from = next;
			if (!discarding && !holdsEchoName(text, from)) {
				// Past the echo, or it was not there: the rest goes as it is.
				return kept + text.slice(from);
			}
		}
		return kept;
	}

	function push(chunk: Uint8Array | string): void {
		let text = typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true });
		if (!started && text !== '') {
			started = true;
			if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
		}
		if (pendingHead) {
			text = pendingHead + text;
			pendingHead = '';
		}
		if (text === '') return;
		if (nearEcho(text)) text = withoutEchoData(text);
		if (text === '') return;
		measure(text);
		parser.feed(text);
	}

	return {
		push,
		finish() {
			const rest = utf8.decode();
			if (rest) push(rest);
			// A last line without its end, and a last message without its blank line, are
			// incomplete by the SSE rules; they are read only when their data is whole JSON.
			ended = true;
			parser.feed('\n\n');
			parser.reset();
		},
	};
}

/** Where `q` stands in the echo's name: the rarest of its letters in text, found by one-character search. */
const Q_AT = DISCARDED_EVENT.indexOf('q');

/**
 * Whether the echo's name is in `text` from `from` on. Searching one character is several times
 * faster than searching the name (V8's substring search is slow on text full of its letters):
 * each `q` is a place to check, and text has few.
 */
function holdsEchoName(text: string, from: number): boolean {
	for (let at = text.indexOf('q', from + Q_AT); at !== -1; at = text.indexOf('q', at + 1)) {
		if (text.startsWith(DISCARDED_EVENT, at - Q_AT)) return true;
	}
	return false;
}

/** A `data` field's line (`data:…`, or `data` alone when the line has ended). */
function isDataLine(line: string, whole: boolean): boolean {
	return line.startsWith('data:') || (whole && line === 'data');
}

/** The last line end (`\n`, or `\r` once the stream has had one) at or before `at`, or -1. */
function lastLineEnd(text: string, at: number, cr: boolean): number {
	if (at < 0) return -1;
	const lf = text.lastIndexOf('\n', at);
	return cr ? Math.max(lf, text.lastIndexOf('\r', at)) : lf;
}

/**
 * Where the last blank line in `text` ends (an event's end), or -1: a line end right after
 * another (`\r\n` is one line end), also across the text before (`before`, its last character).
 * Walks back from the last line end, line by line: the last event's end is near the text's end.
 */
function lastBlankLineEnd(text: string, lastEnd: number, before: string, cr: boolean): number {
	let end = lastEnd;
	while (end !== -1) {
		// The line that ends at `end` began after the line end before it: empty, if right there.
		let prev = end - 1;
		if (text[end] === '\n' && (prev >= 0 ? text[prev] : before) === '\r') prev--;
		// Before the text: its last character, unless that was the CR of this CRLF (unknown then).
		const previous = prev >= 0 ? text[prev] : prev === -1 ? before : '';
		if (previous === '\n' || previous === '\r') {
			return end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
		}
		end = lastLineEnd(text, prev, cr);
	}
	return -1;
}

function byteLength(text: string): number {
	return Buffer.byteLength(text, 'utf8');
}

function isWholeJson(data: string): boolean {
	try {
		JSON.parse(data);
		return true;
	} catch {
		return false;
	}
}
