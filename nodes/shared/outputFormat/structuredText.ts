import { parseJson } from '../json';

/**
 * A structured answer that arrived as text (docs/api.md#ask-answer): one proxy meets `output` as
 * a string of JSON, and a model may write text around its object or several objects in a row.
 * The answer is the text parsed whole when it is one object, else the last complete JSON object
 * in it (the model's final word); none at all is an error that quotes the text's start.
 */

type JsonObject = Record<string, unknown>;

/**
 * Where in a text its object may be: `last`, the last complete object anywhere in it (a Response
 * Format answer); `whole`, only the text itself, trimmed (a code fence around it allowed): for the
 * chat model's tool envelope, where an object quoted inside prose (a web page's, a mail's) must
 * never be taken for the assistant's own call of a tool.
 */
export type TextObjectRule = 'last' | 'whole';

/** The object a text carries; undefined when it holds no complete JSON object. */
export function objectFromText(
	text: string,
	rule: TextObjectRule = 'last',
): JsonObject | undefined {
	const trimmed = text.trim();
	const whole = parsedObject(trimmed);
	if (whole || rule === 'whole') return whole ?? parsedObject(unfenced(trimmed));
	return lastTopLevelObject(text);
}

/** The start of a text, for an error that quotes what came instead of an object. */
export function quotedStart(text: string, length = 80): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return JSON.stringify(flat.length > length ? `${flat.slice(0, length)}…` : flat);
}

/**
 * A text that is one Markdown code block (```json … ```, its lines ended LF or CRLF): what is
 * inside it.
 */
function unfenced(text: string): string {
	const fenced = /^```[A-Za-z]*\r?\n([\s\S]*)\r?\n```$/.exec(text);
	return fenced ? fenced[1] : '';
}

function parsedObject(text: string): JsonObject | undefined {
	try {
		const value: unknown = parseJson(text);
		return typeof value === 'object' && value !== null && !Array.isArray(value)
			? (value as JsonObject)
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * The last complete JSON object in the text outside the others. From each candidate `{`, a JSON
 * syntax check runs to one of three ends:
 * - complete: the object closed; it is parsed, taken, and the search goes on after it;
 * - invalid at a character: the text stops being JSON there, so this `{` opens no object (a brace
 *   in the prose, or an object that closes on no JSON); the next candidates are the `{`s from that
 *   character on, and those the check read inside a string (a quote in the prose can make the real
 *   object look like string content), never those it read as structure (an object nested in the
 *   failed span is none at the top level);
 * - a valid start of JSON to the text's end: the text ends inside an object (a cut answer), so
 *   nothing after it is at the top level and the search stops: a cut answer never gives its
 *   nested object as the answer; the objects found before it stand.
 * A candidate is one for every failed check before it (a `{` any of them read as structure is
 * none), until an object completes.
 *
 * Bounded: each check reads at most the text, and all of them together at most
 * WORK_PER_CHARACTER times its length; past that the text gives no object at all (never an
 * earlier one in silence: the item fails saying so). Memory: the list of pending candidates (at
 * most one entry per `{`) and one bit per open object or array.
 */
function lastTopLevelObject(text: string): JsonObject | undefined {
	return new ObjectSearch(text).last();
}

/** How many characters, per character of the text, all the syntax checks may read together. */
const WORK_PER_CHARACTER = 16;

/** How a syntax check from a `{` ended (its position is ObjectSearch.at). */
const COMPLETE = 0;
const INVALID = 1;
const PREFIX = 2;
const OVER_BUDGET = 3;

class ObjectSearch {
	private budget: number;
	/** Where the last check ended: the closing `}` (COMPLETE) or the first non-JSON character. */
	private at = 0;
	/** The candidates before `threshold`, in order, from `read` on; every `{` from it is one. */
	private pending = new Positions();
	private read = 0;
	private threshold = 0;
	/** The candidates the running check read in a string, and how far it matched `pending`. */
	private next = new Positions();
	private matched = 0;
	private readonly nesting = new Nesting();

	constructor(private readonly text: string) {
		this.budget = WORK_PER_CHARACTER * text.length;
	}

	last(): JsonObject | undefined {
		let last: JsonObject | undefined;
		for (;;) {
			const start =
				this.read < this.pending.length
					? this.pending.at(this.read++)
					: this.text.indexOf('{', this.threshold);
			if (start < 0) return last;
			this.next.clear();
			this.matched = this.read;
			const outcome = this.opensNothing(start) ? INVALID : this.check(start);
			if (outcome === PREFIX) return last;
			if (outcome === OVER_BUDGET) return undefined;
			if (outcome === COMPLETE) {
				const object = parsedObject(this.text.slice(start, this.at + 1));
				if (object) last = object;
				this.next.clear(); // nothing inside a whole object is at the top level
			}
			this.narrow(outcome === COMPLETE ? this.at + 1 : this.at);
		}
	}

	/**
	 * The candidates left after a check that ended at `end` (after the object it completed, or at
	 * its first non-JSON character): the pending ones from `end` on, and those the check read in
	 * a string (already matched against the pending ones: `next`, all before `end`). Each entry is
	 * moved at most once per character the check read, so the list costs no more than the checks.
	 */
	private narrow(end: number): void {
		const pending = this.pending;
		let from = this.read;
		while (from < pending.length && pending.at(from) < end) from += 1;
		const kept = this.next.length;
		if (end > this.threshold) {
			// Every pending entry is before `end`: the list is the check's own.
			this.pending = this.next;
			this.next = pending;
			this.read = 0;
			this.threshold = end;
		} else {
			// The check's entries are pending ones before `from`: they go just before it.
			this.read = from - kept;
			for (let index = 0; index < kept; index += 1)
				pending.set(this.read + index, this.next.at(index));
		}
	}

	/**
	 * Whether the character after the `{` at `start` already ends the check (most braces in prose:
	 * neither a key, nor `}`, nor whitespace follows them): the check's answer, found cheaply.
	 */
	private opensNothing(start: number): boolean {
		if (start + 1 === this.text.length) return false;
		const code = this.text.charCodeAt(start + 1);
		if (code === QUOTE || code === CLOSE_BRACE || isWhitespace(code)) return false;
		this.budget -= 1;
		this.at = start + 1;
		return true;
	}

	/** A `{` the running check read inside a string: a candidate if the earlier checks allow it. */
	private inString(position: number): void {
		if (position >= this.threshold) {
			this.next.push(position);
			return;
		}
		while (this.matched < this.pending.length && this.pending.at(this.matched) < position) {
			this.matched += 1;
		}
		if (this.matched < this.pending.length && this.pending.at(this.matched) === position) {
			this.next.push(position);
		}
	}

	/** The JSON syntax check from the `{` at `start`: how it ends, and where (`at`). */
	private check(start: number): number {
		const text = this.text;
		const nesting = this.nesting;
		nesting.clear();
		nesting.push(true);
		let state = OBJECT_FIRST;
		let key = false; // the string being read is a key
		let literal = ''; // the true, false or null being read
		let literalAt = 0;
		let hex = 0; // the \u escape's hex digits still to come
		for (let index = start + 1; index < text.length; index += 1) {
			if (--this.budget < 0) return OVER_BUDGET;
			const code = text.charCodeAt(index);
			switch (state) {
				case STRING:
					if (code === QUOTE) state = key ? COLON : AFTER_VALUE;
					else if (code === BACKSLASH) state = ESCAPE;
					else if (code < 0x20) return this.end(INVALID, index);
					else if (code === OPEN_BRACE) this.inString(index);
					continue;
				case ESCAPE:
					if (code === LOWER_U) {
						hex = 4;
						state = UNICODE;
					} else if (ESCAPED.includes(String.fromCharCode(code))) state = STRING;
					else return this.end(INVALID, index);
					continue;
				case UNICODE:
					if (!isHexDigit(code)) return this.end(INVALID, index);
					if (--hex === 0) state = STRING;
					continue;
				case LITERAL:
					if (code !== literal.charCodeAt(literalAt)) return this.end(INVALID, index);
					if (++literalAt === literal.length) state = AFTER_VALUE;
					continue;
				case MINUS:
					if (code === ZERO) state = ZERO_INT;
					else if (isDigit(code)) state = INT;
					else return this.end(INVALID, index);
					continue;
				case DOT:
					if (!isDigit(code)) return this.end(INVALID, index);
					state = FRACTION;
					continue;
				case EXPONENT:
					if (code === PLUS || code === MINUS_SIGN) state = EXPONENT_SIGN;
					else if (isDigit(code)) state = EXPONENT_DIGITS;
					else return this.end(INVALID, index);
					continue;
				case EXPONENT_SIGN:
					if (!isDigit(code)) return this.end(INVALID, index);
					state = EXPONENT_DIGITS;
					continue;
				case INT:
				case ZERO_INT:
				case FRACTION:
				case EXPONENT_DIGITS:
					if (isDigit(code) && state !== ZERO_INT) continue;
					if (code === DOT_SIGN && (state === INT || state === ZERO_INT)) {
						state = DOT;
						continue;
					}
					if ((code === LOWER_E || code === UPPER_E) && state !== EXPONENT_DIGITS) {
						state = EXPONENT;
						continue;
					}
					state = AFTER_VALUE; // the number ended: this character follows it
					break;
			}
			if (isWhitespace(code)) continue;
			switch (state) {
				case OBJECT_FIRST:
				case KEY:
					if (code === QUOTE) {
						key = true;
						state = STRING;
					} else if (code === CLOSE_BRACE && state === OBJECT_FIRST) {
						if (this.closed()) return this.end(COMPLETE, index);
						state = AFTER_VALUE;
					} else return this.end(INVALID, index);
					continue;
				case COLON:
					if (code !== COLON_SIGN) return this.end(INVALID, index);
					state = VALUE;
					continue;
				case AFTER_VALUE:
					if (code === COMMA) state = nesting.inObject() ? KEY : VALUE;
					else if (code === (nesting.inObject() ? CLOSE_BRACE : CLOSE_BRACKET)) {
						if (this.closed()) return this.end(COMPLETE, index);
					} else return this.end(INVALID, index);
					continue;
				case ARRAY_FIRST:
					if (code === CLOSE_BRACKET) {
						this.closed();
						state = AFTER_VALUE;
						continue;
					}
					break;
			}
			// A value is expected (VALUE, or ARRAY_FIRST with no `]`).
			key = false;
			if (code === QUOTE) state = STRING;
			else if (code === OPEN_BRACE) {
				nesting.push(true);
				state = OBJECT_FIRST;
			} else if (code === OPEN_BRACKET) {
				nesting.push(false);
				state = ARRAY_FIRST;
			} else if (code === MINUS_SIGN) state = MINUS;
			else if (code === ZERO) state = ZERO_INT;
			else if (isDigit(code)) state = INT;
			else if (code === LOWER_T || code === LOWER_F || code === LOWER_N) {
				literal = code === LOWER_T ? 'true' : code === LOWER_F ? 'false' : 'null';
				literalAt = 1;
				state = LITERAL;
			} else return this.end(INVALID, index);
		}
		return PREFIX;
	}

	/** A `}` or `]` closes its object or array: whether that was the outermost one. */
	private closed(): boolean {
		this.nesting.pop();
		return this.nesting.depth === 0;
	}

	private end(outcome: number, index: number): number {
		this.at = index;
		return outcome;
	}
}

/** A growing list of text positions (a typed array: a text may hold millions of `{`s). */
class Positions {
	private items = new Int32Array(16);
	length = 0;

	at(index: number): number {
		return this.items[index];
	}

	push(position: number): void {
		if (this.length === this.items.length) {
			const grown = new Int32Array(this.items.length * 2);
			grown.set(this.items);
			this.items = grown;
		}
		this.items[this.length++] = position;
	}

	set(index: number, position: number): void {
		this.items[index] = position;
	}

	clear(): void {
		this.length = 0;
	}
}

/** The open objects and arrays of a check, one bit each (set: an object). */
class Nesting {
	private bits = new Uint32Array(4);
	depth = 0;

	push(object: boolean): void {
		const word = this.depth >>> 5;
		if (word === this.bits.length) {
			const grown = new Uint32Array(this.bits.length * 2);
			grown.set(this.bits);
			this.bits = grown;
		}
		const bit = 1 << (this.depth & 31);
		this.bits[word] = object ? this.bits[word] | bit : this.bits[word] & ~bit;
		this.depth += 1;
	}

	pop(): void {
		this.depth -= 1;
	}

	inObject(): boolean {
		const top = this.depth - 1;
		return (this.bits[top >>> 5] & (1 << (top & 31))) !== 0;
	}

	clear(): void {
		this.depth = 0;
	}
}

function isWhitespace(code: number): boolean {
	return code === SPACE || code === TAB || code === NEWLINE || code === RETURN;
}

function isDigit(code: number): boolean {
	return code >= ZERO && code <= NINE;
}

function isHexDigit(code: number): boolean {
	return isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** What may follow a backslash in a JSON string (besides `u`). */
const ESCAPED = '"\\/bfnrt';

/** The check's states: what the next character may be. */
const OBJECT_FIRST = 0; // after `{`: a key or `}`
const KEY = 1; // after a `,` in an object
const COLON = 2;
const VALUE = 3;
const ARRAY_FIRST = 4; // after `[`: a value or `]`
const AFTER_VALUE = 5; // `,` or the close of the object or array
const STRING = 6;
const ESCAPE = 7;
const UNICODE = 8;
const LITERAL = 9;
const MINUS = 10;
const ZERO_INT = 11;
const INT = 12;
const DOT = 13;
const FRACTION = 14;
const EXPONENT = 15;
const EXPONENT_SIGN = 16;
const EXPONENT_DIGITS = 17;

const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS_SIGN = 0x2d;
const DOT_SIGN = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON_SIGN = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
