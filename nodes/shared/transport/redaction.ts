import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * The access token never shows (docs/security.md): not in an error, an output item or a log
 * line, whatever the server sent back. Errors are built without the request, whose headers hold
 * it; but a server may echo it anywhere it writes (a header, an event's name, a conversation ID,
 * a redirect's address), so what a call brings back is redacted where it leaves the call: its
 * value and its error (retryLoop.ts's runCall, which every request of both nodes goes through),
 * and the few log lines written during it; the credential test's words where it returns them.
 */

const REDACTED = '[redacted]';

/** How deep a JSON value is walked; deeper, it is checked whole. */
const MAX_WALK_DEPTH = 64;

/** Shorter secrets are not looked for: they would match ordinary words. */
const MIN_SECRET_LENGTH = 4;

/**
 * A token cut where a message was clipped, or written partly escaped, still shows its beginning
 * or its end: a run of at least this many of its first or last characters (or all of them) is
 * taken for it, as far as it goes on matching.
 */
const MIN_CUT_LENGTH = 8;

/** What a text whose escapes (%XX, \uXXXX) hide the token becomes whole. */
const REDACTED_TEXT = '[redacted: the text held the access token]';

/** What takes one secret out of texts, JSON values and errors (redactionOf makes it). */
export class Redaction {
	/** The forms the token is written in (as it is, percent-encoded), lower-cased. */
	private readonly forms: string[];
	/**
	 * Each form's first and last MIN_CUT_LENGTH characters, in any letter case (a URL parser
	 * lower-cases a host).
	 */
	private readonly anchors: RegExp;

	constructor(secret: string) {
		const lower = secret.toLowerCase();
		this.forms = [...new Set([lower, encodeURIComponent(secret).toLowerCase()])];
		const ends = this.forms.flatMap((form) => [
			form.slice(0, MIN_CUT_LENGTH),
			form.slice(-MIN_CUT_LENGTH),
		]);
		this.anchors = new RegExp([...new Set(ends)].map(escaped).join('|'), 'gi');
	}

	/** The text without the secret, whole or cut, in any letter case, percent-encoded or not. */
	text(text: string): string {
		this.anchors.lastIndex = 0;
		const shown = this.anchors.test(text) ? this.withoutSpans(text) : text;
		return this.hiddenInEscapes(shown) ? REDACTED_TEXT : shown;
	}

	/**
	 * Every run of the text that matches a form from its start or to its end, redacted; a
	 * character of the form may be written as an escape there (%XX, \uXXXX).
	 */
	private withoutSpans(text: string): string {
		const spans = this.spans(text).sort((a, b) => a[0] - b[0]);
		let shown = '';
		let from = 0;
		for (const [begin, end] of spans) {
			if (end <= from) continue;
			// A span that overlaps the one before lengthens it.
			shown += begin >= from ? text.slice(from, begin) + REDACTED : '';
			from = end;
		}
		return shown + text.slice(from);
	}

	/** The runs withoutSpans takes out: [begin, end) in the text, in no order. */
	private spans(text: string): Array<[number, number]> {
		const spans: Array<[number, number]> = [];
		for (const form of this.forms) {
			const head = form.slice(0, MIN_CUT_LENGTH);
			for (const i of indexesAnyCase(text, head)) {
				let end = i + head.length;
				for (let matched = head.length; matched < form.length; matched++) {
					const length = writtenAt(text, end, form[matched]);
					if (!length) break;
					end += length;
				}
				spans.push([i, end]);
			}
			const tail = form.slice(-MIN_CUT_LENGTH);
			for (const i of indexesAnyCase(text, tail)) {
				let begin = i;
				for (let matched = tail.length; matched < form.length; matched++) {
					const length = writtenBefore(text, begin, form[form.length - matched - 1]);
					if (!length) break;
					begin -= length;
				}
				spans.push([begin, i + tail.length]);
			}
		}
		return spans;
	}

	/**
	 * How much of the text's beginning can go out now, redacted by itself, when more text may
	 * follow (the pieces of a stream, liveText.ts): redacted alone, it becomes what redacting the
	 * whole text makes of it, whatever follows. The rest waits for what follows: any end of the
	 * text that may be part of the token, in any form and letter case this redaction reads (a
	 * run of its characters, some or all written as escapes, or an escape not yet complete), and
	 * whatever it already holds that is redacted as one (a run taken for the token, an escape,
	 * escapes that spell the token's first or last characters) and reaches into that end. Text
	 * that cannot be part of the token does not wait.
	 */
	safeLength(text: string): number {
		let cut = text.length;
		for (const form of this.forms) cut = Math.min(cut, continuableFrom(text, form));
		if (cut === 0) return 0;
		const whole = this.spans(text);
		if (text.includes('%') || text.includes('\\')) whole.push(...escapeRuns(text, this.forms[0]));
		for (let moved = true; moved;) {
			moved = false;
			for (const [begin, end] of whole) {
				if (begin < cut && cut < end) {
					cut = begin;
					moved = true;
				}
			}
		}
		return cut;
	}

	/** Whether the value, written as JSON, holds the token, whole or cut. */
	private holdsSecret(value: unknown): boolean {
		let written: string;
		try {
			written = JSON.stringify(value) ?? '';
		} catch {
			return true; // cannot be written, so cannot be checked: not shown
		}
		return this.text(written) !== written;
	}

	/** Whether escapes (%XX, \uXXXX) in the text spell the token's beginning or end. */
	private hiddenInEscapes(text: string): boolean {
		// Most texts have neither escape: two fast searches say so before the expression runs.
		if (!text.includes('%') && !text.includes('\\u')) return false;
		if (!ESCAPE.test(text)) return false;
		const decoded = text
			.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
			.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
			.toLowerCase();
		const secret = this.forms[0];
		return (
			decoded.includes(secret.slice(0, MIN_CUT_LENGTH)) ||
			decoded.includes(secret.slice(-MIN_CUT_LENGTH))
		);
	}

	/**
	 * A JSON value without the secret in any of its strings (keys too); the value itself when
	 * none holds it, so that the common case copies nothing. Other objects pass as they are.
	 */
	json<T>(value: T): T {
		return this.walk(value, 0) as T;
	}

	/** The error with the secret taken out of everything n8n shows of it. */
	error<E>(error: E): E {
		if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
		error.message = this.text(error.message);
		if (error.description) error.description = this.text(error.description);
		if (Array.isArray(error.messages)) error.messages = error.messages.map((m) => this.text(m));
		error.context = this.json(error.context);
		// n8n shows the stack in the error's details, and it was written with the first message.
		if (error.stack) error.stack = this.text(error.stack);
		if (error instanceof NodeApiError && error.httpCode) error.httpCode = this.text(error.httpCode);
		if (error.errorResponse) error.errorResponse = this.json(error.errorResponse);
		const cause: unknown = error.cause;
		if (cause instanceof Error) {
			cause.message = this.text(cause.message);
			if (cause.stack) cause.stack = this.text(cause.stack);
		} else if (isPlain(cause)) {
			(error as { cause?: unknown }).cause = this.json(cause);
		}
		return error;
	}

	private walk(value: unknown, depth: number): unknown {
		if (typeof value === 'string') return this.text(value);
		if (typeof value !== 'object' || value === null) return value;
		// Deeper than any answer holds: not walked further, but not let through with the token.
		if (depth > MAX_WALK_DEPTH) return this.holdsSecret(value) ? REDACTED : value;
		if (Array.isArray(value)) {
			let copy: unknown[] | undefined;
			for (let i = 0; i < value.length; i++) {
				const shown = this.walk(value[i], depth + 1);
				if (shown !== value[i]) (copy ??= value.slice())[i] = shown;
			}
			return copy ?? value;
		}
		if (!isPlain(value)) return value;
		let copy: Record<string, unknown> | undefined;
		for (const key of Object.keys(value)) {
			const item = (value as Record<string, unknown>)[key];
			const shownKey = this.text(key);
			const shown = this.walk(item, depth + 1);
			if (shownKey === key && shown === item) continue;
			copy ??= { ...(value as Record<string, unknown>) };
			if (shownKey !== key) delete copy[key];
			copy[shownKey] = shown;
		}
		return copy ?? value;
	}
}

/** The redaction of a secret, or none for a missing or too short one. */
export function redactionOf(secret: string | undefined): Redaction | undefined {
	return secret && secret.length >= MIN_SECRET_LENGTH ? new Redaction(secret) : undefined;
}

/** The text without the secret, when there is one to take out. */
export function redacted(text: string, redaction: Redaction | undefined): string {
	return redaction ? redaction.text(text) : text;
}

function isPlain(value: unknown): value is object {
	if (typeof value !== 'object' || value === null) return false;
	const prototype = Object.getPrototypeOf(value) as unknown;
	return prototype === Object.prototype || prototype === null;
}

const ESCAPE = /%[0-9a-f]{2}|\\u[0-9a-f]{4}/i;

/**
 * How many characters of the text, from `at`, write the (lower-case) character `wanted`: itself
 * in any letter case, or an escape of it (%XX, \uXXXX); 0 when they do not.
 */
function writtenAt(text: string, at: number, wanted: string): number {
	if (text[at]?.toLowerCase() === wanted) return 1;
	for (const length of [3, 6]) {
		if (escapeSpells(text.slice(at, at + length), wanted)) return length;
	}
	return 0;
}

/**
 * The same, for the characters that end just before `end`. An escape first: the last digit of
 * `%31` is the `1` it writes too, and taking it alone would end the run inside the escape,
 * leaving the token's characters before it in the text.
 */
function writtenBefore(text: string, end: number, wanted: string): number {
	for (const length of [6, 3]) {
		if (end >= length && escapeSpells(text.slice(end - length, end), wanted)) return length;
	}
	if (end > 0 && text[end - 1].toLowerCase() === wanted) return 1;
	return 0;
}

/** Whether `written` is one escape (%XX, \uXXXX) of `wanted`, in any letter case. */
function escapeSpells(written: string, wanted: string): boolean {
	const match = /^(?:%([0-9a-f]{2})|\\u([0-9a-f]{4}))$/i.exec(written);
	if (!match) return false;
	const code = parseInt(match[1] ?? match[2], 16);
	return String.fromCharCode(code).toLowerCase() === wanted;
}

/**
 * The longest one written character can be: `\uXXXX` with each of its six characters written
 * %XX (hiddenInEscapes decodes %XX first, then \uXXXX in what that gave).
 */
const MAX_WRITTEN_LENGTH = 18;

/**
 * Where the text's longest end begins that may be part of the (lower-case) form: read as
 * characters each written plainly, in any letter case, or as an escape (%XX, \uXXXX, \uXXXX
 * with some of its characters written %XX), it writes a run of the form's characters that is
 * not yet the form's end, optionally followed by an escape not yet complete; or it is such an
 * escape. Every reading counts, so the end is never shorter than the one the redaction
 * makes; the text's length when no end can be.
 */
function continuableFrom(text: string, form: string): number {
	const n = text.length;
	const last = form.length - 1;
	const at = new Map<string, number[]>();
	for (let a = 0; a < last; a++) {
		const list = at.get(form[a]);
		if (list) list.push(a);
		else at.set(form[a], [a]);
	}
	// rows.get(k)[a]: text.slice(k) may write the form's characters from its a-th on, and more
	// of them may follow. Past the text's end, any of them may follow.
	const rows = new Map<number, Uint8Array>();
	const follows = (k: number, a: number) => k === n || rows.get(k)?.[a] === 1;
	let from = n;
	for (let k = n - 1; k >= 0; k--) {
		// No row in reach of k is open: none before it can be.
		if (n - k > MAX_WRITTEN_LENGTH && from - k > MAX_WRITTEN_LENGTH) break;
		const { written, open } = writtenFrom(text, k);
		let row: Uint8Array | undefined;
		if (open) row = new Uint8Array(form.length).fill(1);
		else {
			for (const [length, char] of written) {
				for (const a of at.get(char.toLowerCase()) ?? []) {
					if (follows(k + length, a + 1)) (row ??= new Uint8Array(form.length))[a] = 1;
				}
			}
		}
		if (row) {
			rows.set(k, row);
			from = k;
		}
	}
	return from;
}

/**
 * The characters the text may write from `at` ([length, character] for each reading: itself,
 * %XX, \uXXXX with any of its characters written %XX), and whether it may be an escape that
 * the text ends before it is complete.
 */
function writtenFrom(
	text: string,
	at: number,
): { written: Array<[number, string]>; open: boolean } {
	const written: Array<[number, string]> = [[1, text[at]]];
	let open = false;
	if (text[at] === '%') {
		const hex = text.slice(at + 1, at + 3);
		if (/^[0-9a-f]{2}$/i.test(hex)) written.push([3, String.fromCharCode(parseInt(hex, 16))]);
		else if (at + 3 > text.length && /^[0-9a-f]?$/i.test(hex)) open = true;
	}
	if (text[at] === '\\' || text.startsWith('%5', at)) {
		open = unicodeEscapeStep(text, at, at, 0, '', written) || open;
	}
	return { written, open };
}

/** The first characters of a \uXXXX, one by one. */
const UNICODE_ESCAPE = [/^\\$/, /^u$/i, /^[0-9a-f]$/i, /^[0-9a-f]$/i, /^[0-9a-f]$/i, /^[0-9a-f]$/i];

/**
 * Adds to `written` each \uXXXX the text writes from `from`: `step` of its characters read up to
 * `at` (each written plainly or %XX), `hex` its digits so far. Whether the text ends where one
 * may go on.
 */
function unicodeEscapeStep(
	text: string,
	from: number,
	at: number,
	step: number,
	hex: string,
	written: Array<[number, string]>,
): boolean {
	if (step === UNICODE_ESCAPE.length) {
		written.push([at - from, String.fromCharCode(parseInt(hex, 16))]);
		return false;
	}
	if (at >= text.length) return true;
	const fits = (char: string) => UNICODE_ESCAPE[step].test(char);
	const digits = (char: string) => (step >= 2 ? hex + char : hex);
	let open = false;
	if (fits(text[at])) {
		open = unicodeEscapeStep(text, from, at + 1, step + 1, digits(text[at]), written) || open;
	}
	if (text[at] === '%') {
		const code = text.slice(at + 1, at + 3);
		if (/^[0-9a-f]{2}$/i.test(code)) {
			const char = String.fromCharCode(parseInt(code, 16));
			if (fits(char)) {
				open = unicodeEscapeStep(text, from, at + 3, step + 1, digits(char), written) || open;
			}
		} else if (at + 3 > text.length && /^[0-9a-f]?$/i.test(code)) {
			open = true;
		}
	}
	return open;
}

/**
 * What hiddenInEscapes reads as one: each escape the text holds (%XX, then \uXXXX in what %XX
 * decoded to), and each run of them and other characters that, decoded, spells the secret's
 * first or last MIN_CUT_LENGTH characters, as far as it goes on spelling the secret (all of
 * such a run goes with the text it is in); [begin, end) in the text.
 */
function escapeRuns(text: string, secret: string): Array<[number, number]> {
	const runs: Array<[number, number]> = [];
	const once: Array<{ char: string; begin: number; end: number }> = [];
	for (let i = 0; i < text.length;) {
		const hex = text[i] === '%' ? text.slice(i + 1, i + 3) : '';
		if (/^[0-9a-f]{2}$/i.test(hex)) {
			once.push({ char: String.fromCharCode(parseInt(hex, 16)), begin: i, end: i + 3 });
			runs.push([i, i + 3]);
			i += 3;
		} else {
			once.push({ char: text[i], begin: i, end: i + 1 });
			i += 1;
		}
	}
	const decoded: typeof once = [];
	for (let j = 0; j < once.length;) {
		const six = once.slice(j, j + 6);
		if (six.length === 6 && six.every((c, step) => UNICODE_ESCAPE[step].test(c.char))) {
			const digits = six.slice(2).map((c) => c.char);
			const char = String.fromCharCode(parseInt(digits.join(''), 16));
			decoded.push({ char, begin: six[0].begin, end: six[5].end });
			runs.push([six[0].begin, six[5].end]);
			j += 6;
		} else {
			decoded.push(once[j]);
			j += 1;
		}
	}
	// Each run of the secret, decoded, from its beginning or to its end, as far as it goes on.
	const spells = (i: number, k: number) => decoded[i].char.toLowerCase() === secret[k];
	const head = Math.min(MIN_CUT_LENGTH, secret.length);
	const tail = secret.length - head;
	for (let i = 0; i + head <= decoded.length; i++) {
		let k = 0;
		while (k < secret.length && i + k < decoded.length && spells(i + k, k)) k++;
		if (k >= head) runs.push([decoded[i].begin, decoded[i + k - 1].end]);
		k = 0;
		while (k < head && spells(i + k, tail + k)) k++;
		if (k < head) continue;
		let begin = i;
		for (let m = tail; m > 0 && begin > 0 && spells(begin - 1, m - 1); m--) begin--;
		runs.push([decoded[begin].begin, decoded[i + head - 1].end]);
	}
	return runs;
}

/** Where `needle` is in `text`, in any letter case. */
function indexesAnyCase(text: string, needle: string): number[] {
	const pattern = new RegExp(escaped(needle), 'gi');
	const found: number[] = [];
	for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
		found.push(match.index);
		pattern.lastIndex = match.index + 1;
	}
	return found;
}

function escaped(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
