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
		spans.sort((a, b) => a[0] - b[0]);
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

	/**
	 * How long the text's end is that may be the beginning of the token (in any of its forms and
	 * letter cases), shorter than the token; 0 when none can be.
	 */
	possibleStartLength(text: string): number {
		let longest = 0;
		for (const form of this.forms) {
			const lower = form[0];
			const upper = lower.toUpperCase();
			let from = Math.max(0, text.length - form.length + 1);
			while (text.length - from > longest) {
				const at = firstOf(text.indexOf(lower, from), text.indexOf(upper, from));
				if (at < 0 || text.length - at <= longest) break;
				if (text.slice(at).toLowerCase() === form.slice(0, text.length - at)) {
					longest = text.length - at;
					break;
				}
				from = at + 1;
			}
		}
		return longest;
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

/** The smaller of two indexes, -1 meaning none. */
function firstOf(a: number, b: number): number {
	return a < 0 ? b : b < 0 ? a : Math.min(a, b);
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
