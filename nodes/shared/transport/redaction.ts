import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	decodedOnceWithChanges,
	decodedPosition,
	escapeAround,
	mayHoldEscape,
	openEscapeStart,
	sourceRanges,
} from './escapes';

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

/**
 * How many times over a text's escapes (%XX, \uXXXX, HTML's character references; escapes.ts)
 * are decoded, each time from what the last decoding gave, before the token is looked for in
 * each of those readings: a token percent-encoded twice (`%255A`), spelled in references that a
 * page escaped again (`&amp;#90;`), or in one kind inside the other (`%26%2390%3B`), is read.
 * Ordinary escaping leaves a token's characters (letters, digits, `_`, `-`) alone, so a token is
 * in escapes only where something wrote it so; each layer of escaping applied after that (a URL
 * encoded again, a page escaped again) takes one round more. Four read that spelling under three
 * such layers, more than an echo passes through; a server that means to hide the token can write
 * it in a code no redaction reads, so more rounds would cost without protecting. The bound keeps
 * what any text costs fixed: a round is one pass over a text no longer than the one before (it
 * stops at the first that finds no escape), and the readings held are at most five such texts.
 */
const MAX_DECODING_ROUNDS = 4;

/** What takes one secret out of texts, JSON values and errors (redactionOf makes it). */
export class Redaction {
	/** The secret, lower-cased. */
	private readonly secret: string;
	/** Its characters but the last: what a text's end may be, with more of the secret to follow. */
	private readonly continuable: string;
	/** Its first and its last MIN_CUT_LENGTH characters, in any letter case. */
	private readonly head: RegExp;
	private readonly tail: RegExp;
	/** Either of them (a URL parser lower-cases a host). */
	private readonly anchors: RegExp;

	constructor(secret: string) {
		this.secret = secret.toLowerCase();
		this.continuable = this.secret.slice(0, -1);
		const head = escaped(this.secret.slice(0, MIN_CUT_LENGTH));
		const tail = escaped(this.secret.slice(-MIN_CUT_LENGTH));
		this.head = new RegExp(head, 'gi');
		this.tail = new RegExp(tail, 'gi');
		this.anchors = new RegExp(`${head}|${tail}`, 'i');
	}

	/**
	 * The text without the secret, whole or cut, in any letter case, however often escaped: each
	 * run that writes it, in escapes or not, is `[redacted]`; the rest of the text is as it was.
	 * The same string when it holds none.
	 */
	text(text: string): string {
		const spans = this.spans(text);
		return spans.length === 0 ? text : withoutSpans(text, spans);
	}

	/**
	 * The runs the text's readings (itself, then each decoding of its escapes) take for the
	 * secret, mapped back to the text: [begin, end) in it, in no order.
	 */
	private spans(text: string): Array<[number, number]> {
		// Most texts hold no escape and no run of the secret: two fast searches say so.
		if (!mayHoldEscape(text)) return this.anchors.test(text) ? this.runs(text) : [];
		const { readings, changed } = readingsOf(text);
		if (!readings.some((reading) => this.anchors.test(reading))) return [];
		return inText(
			readings,
			readings.map((reading, round) => this.newRuns(reading, changed[round])),
		).flat();
	}

	/**
	 * The runs of a reading that the reading before it does not hold: those that hold a
	 * character its decoding wrote (`changed`, as decodedOnceWithChanges gives it). A run of
	 * characters the decoding left as they were is a run of the reading before, found there, and
	 * mapping it back again would cost for nothing: a long text full of the secret's head with one
	 * escape in it would have each run found and mapped once per reading. So runs are looked for
	 * only around what the decoding wrote, as far as a run through it can reach (the secret's
	 * length either side). Every run of the first reading (`changed` undefined).
	 */
	private newRuns(
		reading: string,
		changed: readonly number[] | undefined,
	): Array<[number, number]> {
		if (changed === undefined) return this.runs(reading);
		const reach = this.secret.length;
		const found: Array<[number, number]> = [];
		for (let first = 0; first < changed.length;) {
			// The changed ranges a window takes: those whose reaches overlap.
			let last = first;
			while (last + 2 < changed.length && changed[last + 2] - reach < changed[last + 1] + reach) {
				last += 2;
			}
			const from = Math.max(0, changed[first] - reach);
			const to = Math.min(reading.length, changed[last + 1] + reach);
			for (const [begin, end] of this.runs(reading.slice(from, to))) {
				if (holdsChange(changed, first, last, from + begin, from + end)) {
					found.push([from + begin, from + end]);
				}
			}
			first = last + 2;
		}
		return found;
	}

	/**
	 * Every run of the reading that matches the secret from its start or to its end, for at least
	 * its first or last MIN_CUT_LENGTH characters, as far as it goes on matching: [begin, end).
	 */
	private runs(reading: string): Array<[number, number]> {
		const { secret } = this;
		const anchor = Math.min(MIN_CUT_LENGTH, secret.length);
		const runs: Array<[number, number]> = [];
		for (const begin of indexesOf(reading, this.head)) {
			let end = begin + anchor;
			while (end - begin < secret.length && reading[end]?.toLowerCase() === secret[end - begin]) {
				end++;
			}
			runs.push([begin, end]);
		}
		for (const at of indexesOf(reading, this.tail)) {
			const end = at + anchor;
			let begin = at;
			// The run is the secret's last end - begin characters: the one before them comes next.
			const next = () => secret[secret.length - (end - begin) - 1];
			while (
				begin > 0 &&
				end - begin < secret.length &&
				reading[begin - 1].toLowerCase() === next()
			) {
				begin--;
			}
			runs.push([begin, end]);
		}
		return runs;
	}

	/**
	 * What of the text can go out now when more text may follow (the pieces of a stream,
	 * liveText.ts): its first `ready` characters, and `out`, them redacted by themselves, which is
	 * what redacting the whole text makes of them, whatever follows. The rest waits for what
	 * follows: the end of any reading of the text (the text, each decoding of its escapes) that
	 * may be part of the secret (a run of its characters that is not yet its end, an escape not
	 * yet complete, or both), and whatever the text already holds that is redacted or decoded as
	 * one (a run taken for the secret, an escape, in any reading) and reaches into that end. Text
	 * that cannot be part of the secret does not wait. A text without an escape or a run of the
	 * secret's first or last characters (most pieces of a stream) is only looked at by the escape
	 * check and one search for those runs: only its end that may begin the secret waits, and what
	 * goes out is as it came.
	 */
	readyPart(text: string): { ready: number; out: string } {
		if (!mayHoldEscape(text) && !this.anchors.test(text)) {
			const ready = this.continuableFrom(text, text.length);
			return { ready, out: ready === text.length ? text : text.slice(0, ready) };
		}
		const ready = this.settledLength(text);
		return { ready, out: this.text(text.slice(0, ready)) };
	}

	/** readyPart's `ready` for a text that may hold an escape or a run of the secret: each reading. */
	private settledLength(text: string): number {
		const escapes = mayHoldEscape(text);
		const { readings, changed } = escapes ? readingsOf(text) : { readings: [text], changed: [] };
		// How much of the reading reads as it will once more text follows: up to the first escape
		// that the text's end may complete, in this reading or one before it.
		let settled = text.length;
		const found = readings.map((reading, round) => {
			if (round > 0) settled = decodedPosition(readings[round - 1], settled);
			if (escapes) settled = openEscapeStart(reading, settled, MAX_DECODING_ROUNDS - round + 1);
			const from = this.continuableFrom(reading, settled);
			// Where what may be the secret's begins (the reading's length: nowhere), then the runs
			// taken for it.
			return [[from, from] as [number, number], ...this.newRuns(reading, changed[round])];
		});
		const mapped = inText(readings, found);
		let cut = text.length;
		mapped.forEach(([[from]], round) => {
			if (found[round][0][0] < readings[round].length) cut = Math.min(cut, from);
		});
		const spans = mapped.flatMap((ranges) => ranges.slice(1));
		for (let moved = cut > 0; moved && cut > 0;) {
			moved = false;
			for (const [begin, end] of spans) {
				if (begin < cut && cut < end) {
					cut = begin;
					moved = true;
				}
			}
			// An escape a round decodes is read whole: a cut inside it would read it otherwise.
			let position = cut;
			for (let round = 0; round + 1 < readings.length && !moved; round++) {
				const escape = escapeAround(readings[round], position);
				if (escape === undefined) position = decodedPosition(readings[round], position);
				else {
					cut = positionInText(readings, round, escape);
					moved = true;
				}
			}
		}
		return cut;
	}

	/**
	 * Where the longest run of the secret's characters (in any letter case, not yet its end) that
	 * ends at `end` of the reading begins: with more text to come, it may be part of the secret.
	 */
	private continuableFrom(reading: string, end: number): number {
		let from = end;
		let run = '';
		while (from > 0) {
			const longer = reading[from - 1].toLowerCase() + run;
			if (!this.continuable.includes(longer)) break;
			run = longer;
			from--;
		}
		return from;
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

/**
 * The readings of a text: itself, then its escapes decoded, again and again, each time from the
 * last reading, while a round finds an escape, at most MAX_DECODING_ROUNDS times.
 */
function readingsOf(text: string): {
	readings: string[];
	/** Where each reading after the first holds what its decoding wrote (decodedOnceWithChanges). */
	changed: Array<number[] | undefined>;
} {
	const readings = [text];
	const changed: Array<number[] | undefined> = [undefined];
	for (let round = 0; round < MAX_DECODING_ROUNDS; round++) {
		const decoding = decodedOnceWithChanges(readings[round]);
		if (decoding === undefined) break;
		readings.push(decoding.decoded);
		changed.push(decoding.changed);
	}
	return { readings, changed };
}

/**
 * Whether [begin, end) holds a character of one of the changed ranges `first` to `last` (their
 * indexes in `changed`, pairs in order): the first that ends after `begin` begins before `end`.
 */
function holdsChange(
	changed: readonly number[],
	first: number,
	last: number,
	begin: number,
	end: number,
): boolean {
	let low = first / 2;
	let high = last / 2 + 1;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (changed[2 * middle + 1] <= begin) low = middle + 1;
		else high = middle;
	}
	return 2 * low <= last && changed[2 * low] < end;
}

/**
 * Ranges of each reading (`ranges[round]`, in the `round`-th reading; as many lists as readings
 * or fewer), mapped back to the text the first reading is: one pass over each reading they come
 * through.
 */
function inText(
	readings: readonly string[],
	ranges: ReadonlyArray<Array<[number, number]>>,
): Array<Array<[number, number]>> {
	const mapped = ranges.slice();
	for (let round = ranges.length - 1; round > 0; round--) {
		// The ranges of this reading and of every later one, now in this reading.
		const passing = mapped.slice(round);
		const sizes = passing.map((list) => list.length);
		const back = sourceRanges(readings[round - 1], passing.flat());
		let at = 0;
		sizes.forEach((size, i) => {
			mapped[round + i] = back.slice(at, at + size);
			at += size;
		});
	}
	return mapped;
}

/** Where a position of the `round`-th reading stands in the text. */
function positionInText(readings: readonly string[], round: number, position: number): number {
	const ranges = readings.slice(0, round + 1).map((): Array<[number, number]> => []);
	ranges[round].push([position, position]);
	return inText(readings, ranges)[round][0][0];
}

/** The text with each span `[redacted]`; spans that overlap are one. */
function withoutSpans(text: string, spans: Array<[number, number]>): string {
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

/** Where the (global, any letter case) pattern matches in the text, overlapping matches too. */
function indexesOf(text: string, pattern: RegExp): number[] {
	const found: number[] = [];
	pattern.lastIndex = 0;
	for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
		found.push(match.index);
		pattern.lastIndex = match.index + 1;
	}
	return found;
}

function escaped(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
