import { asBuffer, HeldBytes } from '../heldBytes';
import { messageLimitBytes } from '../limits';
import { parseJson } from '../json';

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
 * One line or one event went beyond the bound (docs/api.md#memory-bounds), or a JSON answer in
 * their place (sseBody.ts). The decoder knows no request: transport/streamCall.ts turns it into
 * the attempt's AttemptFailure where it reads.
 */
export class SseLimitError extends Error {
	constructor(
		readonly what: 'line' | 'event' | 'JSON answer',
		readonly limitBytes: number,
	) {
		super(`${sseLimitNoun(what)} is larger than ${limitBytes} bytes`);
		this.name = 'SseLimitError';
	}

	/** What went beyond the bound, as a message names it: `an event-stream line`. */
	get noun(): string {
		return sseLimitNoun(this.what).replace(/^A/, 'a');
	}
}

function sseLimitNoun(what: SseLimitError['what']): string {
	return what === 'JSON answer' ? 'A JSON answer' : `An event-stream ${what}`;
}

/**
 * The event whose data is always dropped as it streams, never held, decoded nor passed on,
 * whatever the reader asks: the service's echo of the whole request (`FrontendModelRequest`: the
 * user's workspace files, images as data URLs), which carries no answer
 * (docs/api.md#memory-bounds).
 */
export const DISCARDED_EVENT = 'FrontendModelRequest';

/**
 * The event names a reader knows, and those whose data it does not read; made once (their bytes
 * with them), for every stream the reader reads.
 */
export class EventNames {
	/** The known names as bytes, by length. */
	private readonly byLength = new Map<number, KnownName[]>();
	/**
	 * The names of the unread events and of the echo, as the flat form's leading `type` gives
	 * them (docs/api.md#flat-stream-form).
	 */
	readonly flatUnread: ReadonlySet<string>;
	/** The longest name in `flatUnread`, in bytes: a longer one names no unread event. */
	readonly flatNameBytes: number;

	/**
	 * `known`: passed on as these very strings, a name compared as bytes, not decoded anew.
	 * `unread`: their data is skipped as it arrives, never held; with `tellUnread`, each such event
	 * (the request echo's too) is passed on by the name it was first given and no data, so that the
	 * reader knows it came; otherwise it is not passed on. `peeked`: of those told, the ones passed
	 * on with the opening of their first `data:` line (OPENING_BYTES at most, as it came in the
	 * line's first piece) instead of no data: enough for a leading key's value, never more. Never
	 * the echo's, nor that of an event also named the echo.
	 */
	constructor(
		known: readonly string[],
		readonly unread: ReadonlySet<string>,
		readonly tellUnread = false,
		readonly peeked: ReadonlySet<string> = new Set(),
	) {
		for (const name of known) {
			const bytes = Buffer.from(name, 'utf8');
			const sameLength = this.byLength.get(bytes.length) ?? [];
			sameLength.push({ bytes, name });
			this.byLength.set(bytes.length, sameLength);
		}
		this.flatUnread = new Set([DISCARDED_EVENT, ...unread]);
		this.flatNameBytes = Math.max(...[...this.flatUnread].map((name) => Buffer.byteLength(name)));
	}

	/** The known name `line` holds from `from` to `to`, if it is one. */
	find(line: Buffer, from: number, to: number): KnownName | undefined {
		for (const known of this.byLength.get(to - from) ?? []) {
			if (holds(line, from, known.bytes)) return known;
		}
		return undefined;
	}
}

interface KnownName {
	bytes: Buffer;
	name: string;
}

const NO_NAMES = new EventNames([], new Set());

/** How much of a peeked event's first data line is passed on (EventNames' `peeked`). */
export const OPENING_BYTES = 64;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA_FIELD = Buffer.from('data:');
const LINE_FEED = Buffer.from('\n');
const EVENT_FIRST = 0x65; // e
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const BOM = [0xef, 0xbb, 0xbf];
/** The key FlatSniffer reads: `type`, the one that names a flat event whatever follows (flatEvent.ts). */
const FLAT_KEY = Buffer.from('type');

/**
 * Bytes of an event-stream body -> SSE messages, and nothing more (their meaning is in
 * answer.ts), by the rules of the event-stream format (docs/api.md#streams): lines end in `\n`,
 * `\r\n` or `\r`, and may be split anywhere, even inside a UTF-8 character; `data:` lines join
 * with `\n`; an event without data is not dispatched; comments, `id:`, `retry:` and unknown
 * fields carry nothing here; a byte order mark at the start is dropped. It reads the bytes in one
 * pass, line ends found by byte search (a UTF-8 character never holds a line end's byte), and
 * decodes only what it passes on: no line or event grows past `limitBytes` (a SseLimitError, as
 * the bytes arrive), and the data lines of the events `names` calls unread (the reader reads
 * nothing of them) and of the request echo are skipped as they arrive, never held: those events
 * are passed on by name alone, with no data, when `names` asks for it (tellUnread), and not at
 * all otherwise. The same holds for such an event in the flat form (its name inside the JSON of
 * an unnamed event's first `data:` line), recognised by that line's opening bytes (FlatSniffer).
 * The test suite holds it to eventsource-parser's reading of the same streams.
 */
export function createSseDecoder(
	onMessage: (message: SseMessage) => void,
	limitBytes = messageLimitBytes(),
	names: EventNames = NO_NAMES,
): SseDecoder {
	return new EventStreamDecoder(onMessage, limitBytes, names);
}

class EventStreamDecoder implements SseDecoder {
	/** The line not ended yet, copied out of the chunks it came in. */
	private readonly held: HeldBytes;
	/** The line not ended yet is a data line of an event not passed on: its bytes are skipped. */
	private skipping = false;
	/** The last chunk ended in a CR: an LF first in the next one ends no line of its own. */
	private afterCr = false;
	/** No line has ended yet: a byte order mark may open the first. */
	private atStart = true;
	/** The body has ended: a last event without its blank line is read only if whole JSON. */
	private ended = false;

	/** The event being read: its name, its data lines, the bytes its lines took. */
	private name = '';
	/** Its first data line's text; from its second data line on, its data is held as bytes. */
	private data = '';
	private readonly moreData: HeldBytes;
	private dataLines = 0;
	private eventBytes = 0;
	/** The event is the request echo, or one the reader does not read: none of its data goes on. */
	private unread = false;
	/** The name that made the event unread: the one it is told by (EventNames' tellUnread). */
	private unreadName = '';
	/**
	 * Of an unread event that is peeked (EventNames' `peeked`), the opening of its first data line;
	 * null once the event was named the echo too: nothing of it goes on then.
	 */
	private opening: string | null = '';
	/** The known name found last: a stream's events mostly repeat it. */
	private lastName: KnownName | undefined;
	/**
	 * The line not ended yet, looked at for the flat form of an unread event: undefined before
	 * it is, null once it cannot be one.
	 */
	private sniff: FlatSniffer | null | undefined;

	constructor(
		private readonly onMessage: (message: SseMessage) => void,
		private readonly limitBytes: number,
		private readonly names: EventNames,
	) {
		this.held = new HeldBytes(limitBytes);
		this.moreData = new HeldBytes(limitBytes);
	}

	push(chunk: Uint8Array | string): void {
		const bytes = asBuffer(chunk);
		const length = bytes.length;
		let from = 0;
		if (length === 0) return;
		if (this.afterCr) {
			this.afterCr = false;
			if (bytes[0] === LF) from = 1;
		}
		// Each line end found by one search ahead, linear in the chunk however its lines end.
		let lf = bytes.indexOf(LF, from);
		let cr = bytes.indexOf(CR, from);
		while (lf !== -1 || cr !== -1) {
			const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
			this.lineEnds(bytes, from, end);
			from = end + 1;
			if (bytes[end] === CR) {
				if (from === length) this.afterCr = true;
				else if (bytes[from] === LF) from += 1;
			}
			if (lf !== -1 && lf < from) lf = bytes.indexOf(LF, from);
			if (cr !== -1 && cr < from) cr = bytes.indexOf(CR, from);
		}
		if (from < length) this.hold(bytes, from, length);
	}

	finish(): void {
		this.ended = true;
		// A last line without its end, and a last event without its blank line, are incomplete
		// by the format's rules; they are read only when their data is whole JSON.
		if (this.skipping || this.held.length > 0) this.lineEnds(Buffer.alloc(0), 0, 0);
		this.dispatch();
	}

	/** The part of a line that is not ended yet: held, or skipped when it is unread data. */
	private hold(bytes: Buffer, from: number, to: number): void {
		if (this.skipping) return;
		if (this.unread && this.opensDataField(bytes, from, to)) {
			// Unread data (the echo's above all): skipped to its end, never held.
			if (this.peeks()) {
				const line = Buffer.concat([this.held.bytes(), bytes.subarray(from, to)]);
				this.peek(line, 0, line.length);
			}
			this.skipping = true;
			this.held.clear();
			return;
		}
		const flatName = this.sniffFlat(bytes, from, to);
		if (flatName !== undefined) {
			// An unread event told flat: from here on, as if an `event:` line had named it.
			this.unread = true;
			this.unreadName = flatName;
			this.skipping = true;
			this.held.clear();
			return;
		}
		// A line too short to tell yet is held (a few bytes) until the next chunk shows it.
		this.checkBounds(this.held.length + to - from);
		this.held.append(bytes, from, to);
	}

	/** The line held so far, then `bytes` from `from` to `to`, shows a whole `data:` opening it. */
	private opensDataField(bytes: Buffer, from: number, to: number): boolean {
		const held = this.held.bytes();
		if (held.length >= DATA_FIELD.length || held.length + to - from < DATA_FIELD.length) {
			return false;
		}
		for (let i = 0; i < DATA_FIELD.length; i++) {
			const byte = i < held.length ? held[i] : bytes[from + i - held.length];
			if (byte !== DATA_FIELD[i]) return false;
		}
		return true;
	}

	/**
	 * The name of the unread event whose flat form the line being read opens with, once its bytes
	 * so far (those held, then `bytes` from `from` to `to`, not seen before) show it; undefined
	 * until then, and when the line is no such thing. Only the first data line of an event not
	 * named otherwise can be: the flat form's JSON opens there.
	 */
	private sniffFlat(bytes: Buffer, from: number, to: number): string | undefined {
		if (this.sniff === null) return undefined;
		if (this.sniff === undefined) {
			// Most lines tell by their event (named, or past its first data line) that they are
			// none: no sniffer, and nothing more looked at (a stream's every line passes here).
			if (this.unread || this.dataLines > 0 || (this.name !== '' && this.name !== 'message')) {
				this.sniff = null;
				return undefined;
			}
			const heldLength = this.held.length;
			const first = heldLength > 0 ? this.held.bytes()[0] : from < to ? bytes[from] : undefined;
			// A blank line, and the line's first byte not seen yet: nothing to tell.
			if (first === undefined) return undefined;
			// Or by their first byte.
			if (first !== DATA_FIELD[0] && !(this.atStart && first === BOM[0])) {
				this.sniff = null;
				return undefined;
			}
			this.sniff = new FlatSniffer(this.names, this.atStart);
			// The line's bytes held before it was looked at, if any (hold() looks at them as they come).
			if (heldLength > 0) {
				const found = this.sniff.feed(this.held.bytes(), 0, heldLength);
				if (found !== undefined) return this.sniffed(found);
			}
		}
		return this.sniffed(this.sniff.feed(bytes, from, to));
	}

	private sniffed(found: string | null | undefined): string | undefined {
		if (found === null) this.sniff = null;
		return found ?? undefined;
	}

	/** A line has ended at `to`: what was held of it, then `bytes` from `from`. */
	private lineEnds(bytes: Buffer, from: number, to: number): void {
		// Whether it opens an unread event's flat form: the bytes not looked at yet, then no more.
		const flatName = this.skipping ? undefined : this.sniffFlat(bytes, from, to);
		this.sniff = undefined;
		if (flatName !== undefined) {
			// Skipped unmeasured, as the named form's data is.
			this.held.clear();
			this.atStart = false;
			this.unread = true;
			this.unreadName = flatName;
			this.dataLines += 1;
			return;
		}
		if (this.skipping) {
			this.skipping = false;
			this.atStart = false;
			this.dataLines += 1;
			return;
		}
		let line = bytes;
		let start = from;
		let end = to;
		if (this.held.length > 0) {
			this.held.append(bytes, from, to);
			line = this.held.bytes();
			start = 0;
			end = line.length;
			// The view stays valid until the next append: this line is read before any.
			this.held.clear();
		}
		if (this.atStart) {
			this.atStart = false;
			if (line[start] === 0xef && line[start + 1] === 0xbb && line[start + 2] === 0xbf) start += 3;
		}
		if (start === end) {
			this.dispatch();
			return;
		}
		const first = line[start];
		const isData = first === DATA_FIELD[0] && isField(line, start, end, 'data');
		// Unread data is skipped unmeasured: nothing of it is held, only counted.
		if (isData && this.unread) {
			if (this.peeks()) this.peek(line, start, end);
			this.dataLines += 1;
			return;
		}
		this.checkBounds(end - start);
		this.eventBytes += end - start + 1;
		if (isData) {
			const from = valueStart(line, start + 4, end);
			// UTF-8 by default: Buffer's toString decodes at once, without looking the encoding up.
			if (this.dataLines === 0) this.data = line.toString(undefined, from, end);
			else this.appendData(line, from, end);
			this.dataLines += 1;
		} else if (first === EVENT_FIRST && isField(line, start, end, 'event')) {
			this.name = this.nameAt(line, valueStart(line, start + 5, end), end);
			// Once named so, an event stays unread to its end, whatever it is renamed: the echo's
			// data never goes on.
			if (!this.unread && (this.name === DISCARDED_EVENT || this.names.unread.has(this.name))) {
				this.unread = true;
				this.unreadName = this.name;
			}
			// Named the echo as well: what was peeked of its data may be the echo's.
			if (this.name === DISCARDED_EVENT) this.opening = null;
		}
		// A comment (`:`), `id:`, `retry:` or another field: nothing the node reads.
	}

	/**
	 * Another data line of the event: its data so far and this line, joined with `\n`, in one
	 * buffer of bytes, decoded once when the event ends. Joined as text, an event of many short
	 * lines (`data:x`, a million times) cost many times its bytes, a string for each line.
	 */
	private appendData(line: Buffer, from: number, to: number): void {
		const held = this.moreData;
		if (this.dataLines === 1) {
			held.clear();
			held.append(Buffer.from(this.data, 'utf8'));
			this.data = '';
		}
		held.append(LINE_FEED);
		held.append(line, from, to);
	}

	/**
	 * Whether the data line being read opens an unread event that is peeked: its first, of an
	 * event named with an `event:` line (the flat form's data is the event's own name and fields).
	 */
	private peeks(): boolean {
		return (
			this.dataLines === 0 &&
			this.opening === '' &&
			this.names.peeked.has(this.unreadName) &&
			this.name === this.unreadName
		);
	}

	/** The opening of the data line `line` holds from `from` (its `data` field) to `to`. */
	private peek(line: Buffer, from: number, to: number): void {
		const value = valueStart(line, from + 4, to);
		// Cut at a byte count: a character cut in two decodes as U+FFFD, which names no key's value.
		this.opening = line.toString('utf8', value, Math.min(to, value + OPENING_BYTES));
	}

	/** An `event:` line's name: a known one (the last found first), or decoded. */
	private nameAt(line: Buffer, from: number, to: number): string {
		const last = this.lastName;
		if (last && last.bytes.length === to - from && holds(line, from, last.bytes)) return last.name;
		const known = this.names.find(line, from, to);
		if (!known) return line.toString('utf8', from, to);
		this.lastName = known;
		return known.name;
	}

	/** The line being read is `lineBytes` long; the event's other lines took `eventBytes`. */
	private checkBounds(lineBytes: number): void {
		if (lineBytes > this.limitBytes) throw new SseLimitError('line', this.limitBytes);
		if (this.eventBytes + lineBytes > this.limitBytes) {
			throw new SseLimitError('event', this.limitBytes);
		}
	}

	/** A blank line (or the body's end): the event is passed on if it has data. */
	private dispatch(): void {
		const { name, dataLines, unread, unreadName, opening } = this;
		const data = dataLines > 1 ? this.moreData.bytes().toString('utf8') : this.data;
		if (dataLines > 1) this.moreData.clear();
		this.name = '';
		this.data = '';
		this.dataLines = 0;
		this.eventBytes = 0;
		this.unread = false;
		this.opening = '';
		if (dataLines === 0) return;
		if (unread) {
			if (this.names.tellUnread) this.onMessage({ event: unreadName, data: opening ?? '' });
			return;
		}
		if (this.ended && !isWholeJson(data)) return;
		this.onMessage({ event: name || 'message', data });
	}
}

/**
 * Reads the opening bytes of a line, as they arrive, for the flat form of an event whose data is
 * not read (docs/api.md#flat-stream-form): `data:`, then JSON whose leading key is `type` and
 * whose value names such an event: `data: {"type": "FrontendModelRequest", …`.
 * JSON's white space may stand between the tokens (the line's end may not: it ends the line).
 * Only the leading key can be read so, without holding the line: a name given by a later key, or
 * with escapes in it, is not seen, and such a line is held and bounded as any other. It looks at
 * each byte once, and at no more than the opening; at most the name's bytes are kept.
 */
class FlatSniffer {
	private step:
		| 'bom'
		| 'field'
		| 'beforeObject'
		| 'beforeKey'
		| 'key'
		| 'beforeColon'
		| 'beforeValue'
		| 'value' = 'field';
	/** How far into the byte order mark, or into `data:`. */
	private at = 0;
	private text: number[] = [];

	/** `first`: the body's first line, which a byte order mark may open. */
	constructor(
		private readonly names: EventNames,
		first: boolean,
	) {
		if (first) this.step = 'bom';
	}

	/** The event's name once the bytes show it; null once they show it is none; else undefined. */
	feed(bytes: Buffer, from: number, to: number): string | null | undefined {
		for (let i = from; i < to; i++) {
			const found = this.next(bytes[i]);
			if (found !== undefined) return found;
		}
		return undefined;
	}

	private next(byte: number): string | null | undefined {
		const space = byte === SPACE || byte === TAB;
		switch (this.step) {
			case 'bom':
				if (byte === BOM[this.at]) {
					this.at += 1;
					if (this.at === BOM.length) {
						this.step = 'field';
						this.at = 0;
					}
					return undefined;
				}
				if (this.at > 0) return null;
				this.step = 'field';
			// falls through: no byte order mark, the line itself
			case 'field':
				if (byte !== DATA_FIELD[this.at]) return null;
				this.at += 1;
				if (this.at === DATA_FIELD.length) this.step = 'beforeObject';
				return undefined;
			case 'beforeObject':
				if (space) return undefined;
				if (byte !== OPEN_BRACE) return null;
				this.step = 'beforeKey';
				return undefined;
			case 'beforeKey':
				if (space) return undefined;
				if (byte !== QUOTE) return null;
				this.step = 'key';
				return undefined;
			case 'key': {
				// Only `type` leads to a name: flatEvent.ts takes it before `event_kind`, which a
				// `type` after it would override, so a line led by `event_kind` is read whole.
				if (byte !== QUOTE) {
					if (byte !== FLAT_KEY[this.text.length]) return null;
					this.text.push(byte);
					return undefined;
				}
				if (this.text.length !== FLAT_KEY.length) return null;
				this.text = [];
				this.step = 'beforeColon';
				return undefined;
			}
			case 'beforeColon':
				if (space) return undefined;
				if (byte !== COLON) return null;
				this.step = 'beforeValue';
				return undefined;
			case 'beforeValue':
				if (space) return undefined;
				if (byte !== QUOTE) return null;
				this.step = 'value';
				return undefined;
			case 'value': {
				if (byte !== QUOTE) return this.collect(byte, this.names.flatNameBytes);
				const value = Buffer.from(this.text).toString('utf8');
				return this.names.flatUnread.has(value) ? value : null;
			}
		}
	}

	/** One more byte of a key or a name, up to `most` of them; an escape is not read. */
	private collect(byte: number, most: number): null | undefined {
		if (byte === BACKSLASH || this.text.length >= most) return null;
		this.text.push(byte);
		return undefined;
	}
}

/** The field `name` (`data`, `event`) on the line from `start` to `end`: `name:…`, or alone. */
function isField(line: Buffer, start: number, end: number, name: 'data' | 'event'): boolean {
	const after = start + name.length;
	if (after > end) return false;
	for (let i = 0; i < name.length; i++) {
		if (line[start + i] !== name.charCodeAt(i)) return false;
	}
	return after === end || line[after] === COLON;
}

/** Whether `line` holds `bytes` from `at` on. */
function holds(line: Buffer, at: number, bytes: Buffer): boolean {
	for (let i = 0; i < bytes.length; i++) {
		if (line[at + i] !== bytes[i]) return false;
	}
	return true;
}

/** Where a field's value begins: after its colon and one space. */
function valueStart(line: Buffer, colon: number, end: number): number {
	if (colon >= end) return end;
	return line[colon + 1] === SPACE ? colon + 2 : colon + 1;
}

function isWholeJson(data: string): boolean {
	try {
		parseJson(data);
		return true;
	} catch {
		return false;
	}
}
