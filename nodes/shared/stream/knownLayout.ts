import type { StreamEvent } from './events';

/**
 * The stream's commonest events in the layouts the service writes them
 * (docs/api.md#2026-stream-dialect; the Part deltas of docs/api.md#live-stream-dialect;
 * `FrontendModelResponse`'s `{"content": …}` of docs/api.md#documented-stream-dialect), read by
 * regular expressions instead of JSON.parse: a short answer is a few dozen Part events and a long
 * one thousands, each a few hundred bytes of JSON around a few words, and parsing them whole was
 * most of what reading an answer cost. Each expression admits only JSON of one layout, its
 * grammar written out: the fields read, in the service's order, and between them only fields of
 * other names with a string, number, true, false or null value (no field read can be repeated, so
 * none can be overridden); white space is an optional single space after `:` and `,`, as compact
 * and Python-written JSON have it. A text it admits is what JSON.parse would read, field for
 * field; anything else (another layout, a nested value, a tool call, a broken text) is left to
 * events.ts, which parses it.
 *
 * The deltas of one part differ only in their text: once a delta is admitted, a later one that is
 * the same text around another string token is admitted too, with the same fields, and is read by
 * comparing it with the first (KnownLayout).
 */

const STRING = String.raw`"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`;
const NUMBER = String.raw`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`;
const SCALAR = `(?:${STRING}|${NUMBER}|true|false|null)`;
const COLON = ': ?';
const COMMA = ', ?';
/** A whole number an index can be, at most 9 digits. */
const INDEX = '(0|[1-9][0-9]{0,8})';
/** A model response's id without escapes (`metadata.zmid`). */
const ZMID = String.raw`"([^"\\\u0000-\u001f]{1,200})"`;
/** The kinds of part whose text a Part event tells. */
const TEXT_KIND = '"(text|thinking)"';

/** More fields, none named as any of `read`: names of letters and `_`, scalar values. */
function others(...read: string[]): string {
	return `(?:${COMMA}"(?!(?:${read.join('|')})")[a-z_]+"${COLON}${SCALAR})*`;
}

const DELTA_FIELDS = ['delta', 'index', 'metadata'];
const PART_FIELDS = ['event_kind', 'index', 'part', 'metadata'];
const METADATA = `"metadata"${COLON}\\{"zmid"${COLON}${ZMID}${others('zmid')}\\}`;

/**
 * `{"delta": {"content_delta": …, "part_delta_kind": …}, …, "index": …, …,
 * "metadata": {"zmid": …}}`
 */
const PART_DELTA = new RegExp(
	`^\\{"delta"${COLON}\\{"content_delta"${COLON}(${STRING})${COMMA}"part_delta_kind"${COLON}${TEXT_KIND}` +
		`${others('content_delta', 'part_delta_kind')}\\}${others(...DELTA_FIELDS)}` +
		`${COMMA}"index"${COLON}${INDEX}${others(...DELTA_FIELDS)}${COMMA}${METADATA}` +
		`${others(...DELTA_FIELDS)}\\}$`,
);

/**
 * The live dialect's: `{"index": …, "delta": {"part_delta_kind": …, "content_delta": …}, …}`, no
 * model response.
 */
const LIVE_PART_DELTA = new RegExp(
	`^\\{"index"${COLON}${INDEX}${COMMA}"delta"${COLON}\\{"part_delta_kind"${COLON}${TEXT_KIND}` +
		`${COMMA}"content_delta"${COLON}(${STRING})${others('content_delta', 'part_delta_kind')}\\}` +
		`${others(...DELTA_FIELDS)}\\}$`,
);

/**
 * `{"event_kind": "part_start" | "part_end", "index": …, "part": {"content": …, …,
 * "part_kind": …}, …, "metadata": …}`
 */
const PART = new RegExp(
	`^\\{"event_kind"${COLON}"(part_start|part_end)"${COMMA}"index"${COLON}${INDEX}` +
		`${COMMA}"part"${COLON}\\{"content"${COLON}(${STRING})${others('content', 'part_kind')}` +
		`${COMMA}"part_kind"${COLON}${TEXT_KIND}${others('content', 'part_kind')}\\}` +
		`${others(...PART_FIELDS)}${COMMA}${METADATA}${others(...PART_FIELDS)}\\}$`,
);

/** `{"content": …}`: the next piece of text, and nothing else. */
const CONTENT = new RegExp(`^\\{"content"${COLON}(${STRING})\\}$`);

/** `{"status": "succeeded", …}` */
const SUCCEEDED = new RegExp(`^\\{"status"${COLON}"succeeded"${others('status')}\\}$`);

/** What a delta in the layout tells besides its text. */
interface DeltaFields {
	index: number;
	kind: string;
	response: string | undefined;
}

/** The events of one stream in the service's layout: its deltas read by the last one admitted. */
export class KnownLayout {
	/** The last delta admitted, around its text token. */
	private before = '';
	private after = '';
	private fields: DeltaFields | undefined;

	/** A text or thinking delta in the layout, as events.ts reads it; undefined: parse it. */
	deltaEvents(data: string): StreamEvent[] | undefined {
		const text = this.fields && this.textAsLast(data);
		if (text !== undefined) return deltaEvents(this.fields!, text);
		if (data.length > MAX_MATCHED_LENGTH) return undefined;
		const match = PART_DELTA.exec(data);
		const live = match ? undefined : LIVE_PART_DELTA.exec(data);
		if (!match && !live) return undefined;
		const [token, kind, index, response] = match
			? [match[1], match[2], match[3], match[4]]
			: [live![3], live![2], live![1], undefined];
		// In both layouts the first `"content_delta":` is the text's field: the token follows it.
		const from = data.indexOf('"', data.indexOf(CONTENT_KEY) + CONTENT_KEY.length);
		this.before = data.slice(0, from);
		this.after = data.slice(from + token.length);
		this.fields = { index: Number(index), kind, response };
		return deltaEvents(this.fields, stringOf(token));
	}

	/** The text of a delta that is the last one's text around another string token. */
	private textAsLast(data: string): string | undefined {
		const { before, after } = this;
		const end = data.length - after.length;
		// The end compared as a slice: V8's endsWith goes character by character.
		if (end < before.length + 2 || !data.startsWith(before) || data.slice(end) !== after) {
			return undefined;
		}
		if (data.charCodeAt(before.length) !== QUOTE || data.charCodeAt(end - 1) !== QUOTE) {
			return undefined;
		}
		const text = data.slice(before.length + 1, end - 1);
		return PLAIN.test(text) ? text : unescaped(text);
	}
}

/**
 * Longer events are parsed, not matched: the expressions recurse per character of a string, and
 * one event can carry a whole answer (millions of characters overflowed V8's regex stack). Parsing
 * costs little beside reading that much text.
 */
const MAX_MATCHED_LENGTH = 64 * 1024;

const QUOTE = 0x22;
const CONTENT_KEY = '"content_delta"';
/**
 * A string token's text that needs no unescaping and holds nothing JSON forbids there: no quote,
 * backslash or control character. Anchored, it is one loop over the text: the unanchored search
 * for the first such character it replaces made `npm run bench`'s row 3a (the stream module over a
 * 20 MB answer) some 8 % slower.
 */
// eslint-disable-next-line no-control-regex
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

function deltaEvents({ index, kind, response }: DeltaFields, text: string): StreamEvent[] {
	return text ? [{ type: 'partDelta', index, kind, text, response }] : [];
}

/**
 * A text or thinking part's start or end in the service's layout, as events.ts reads it without
 * the steps; undefined: parse it.
 */
export function knownPartEvents(
	event: 'PartStartEvent' | 'PartEndEvent',
	data: string,
): StreamEvent[] | undefined {
	if (data.length > MAX_MATCHED_LENGTH) return undefined;
	const match = PART.exec(data);
	if (!match) return undefined;
	const [, eventKind, index, token, kind, response] = match;
	// The event's own name wins, as when it is parsed: its `event_kind` only has to be one of them.
	if (eventKind !== (event === 'PartStartEvent' ? 'part_start' : 'part_end')) return undefined;
	const type = event === 'PartStartEvent' ? 'partStart' : 'partEnd';
	return [{ type, index: Number(index), kind, text: stringOf(token), response }];
}

/** A `FrontendModelResponse` that is text alone, as events.ts reads it; undefined: parse it. */
export function knownContentEvents(data: string): StreamEvent[] | undefined {
	if (data.length > MAX_MATCHED_LENGTH) return undefined;
	const text = plainContent(data) ?? contentOf(CONTENT.exec(data));
	if (text === undefined) return undefined;
	return text ? [{ type: 'content', text }] : [];
}

/** The text the expression CONTENT matched, if it did. */
function contentOf(match: RegExpExecArray | null): string | undefined {
	return match ? stringOf(match[1]) : undefined;
}

/**
 * The text of `{"content": "…"}` whose string holds no escape, quote or control character (most
 * of them), read by a search for those instead of the expression's character by character
 * grammar; undefined: any other text, left to the expression.
 */
function plainContent(data: string): string | undefined {
	const open = data.startsWith(CONTENT_OPEN)
		? CONTENT_OPEN.length
		: data.startsWith(CONTENT_OPEN_SPACED)
			? CONTENT_OPEN_SPACED.length
			: -1;
	const end = data.length - 2;
	if (
		open < 0 ||
		end < open ||
		data.charCodeAt(end) !== QUOTE ||
		data.charCodeAt(end + 1) !== CLOSE
	) {
		return undefined;
	}
	const text = data.slice(open, end);
	return PLAIN.test(text) ? text : undefined;
}

const CONTENT_OPEN = '{"content":"';
const CONTENT_OPEN_SPACED = '{"content": "';
const CLOSE = 0x7d;

/** `completed` in the service's layout with `status` `succeeded`: the answer's end. */
export function isKnownSucceeded(data: string): boolean {
	return data.length <= MAX_MATCHED_LENGTH && SUCCEEDED.test(data);
}

/** A JSON string token's text (checked by the expression): read in place when it has no escape. */
function stringOf(token: string): string {
	const text = token.slice(1, -1);
	return text.includes('\\') ? unescaped(text)! : text;
}

/**
 * The text of a JSON string token written between its quotes, exactly as JSON.parse reads it;
 * undefined when it is not one (a quote or control character unescaped, an unknown or cut
 * escape). A delta's few words with an escape or two (a quote, a line break) are most answers'
 * commonest event: JSON.parse's set-up for each cost more than the text, the more so in a run
 * whose engine has left the caches cold (BENCHMARKS.md, row 1).
 */
export function unescaped(body: string): string | undefined {
	let text = '';
	let from = 0;
	for (let i = 0; i < body.length; i++) {
		const code = body.charCodeAt(i);
		if (code === QUOTE || code < 0x20) return undefined;
		if (code !== BACKSLASH) continue;
		let char: string | undefined;
		let length = 2;
		if (body.charCodeAt(i + 1) === U) {
			const hex = body.slice(i + 2, i + 6);
			if (!HEX4.test(hex)) return undefined;
			char = String.fromCharCode(parseInt(hex, 16));
			length = 6;
		} else {
			char = escapedChar(body.charCodeAt(i + 1));
			if (char === undefined) return undefined;
		}
		text += body.slice(from, i) + char;
		i += length - 1;
		from = i + 1;
	}
	return from === 0 ? body : text + body.slice(from);
}

const BACKSLASH = 0x5c;
const U = 0x75;
const HEX4 = /^[0-9a-fA-F]{4}$/;
/** The character a one-character escape stands for, by the code of the one after the backslash. */
function escapedChar(code: number): string | undefined {
	switch (code) {
		case QUOTE:
			return '"';
		case BACKSLASH:
			return '\\';
		case 0x2f:
			return '/';
		case 0x62:
			return '\b';
		case 0x66:
			return '\f';
		case 0x6e:
			return '\n';
		case 0x72:
			return '\r';
		case 0x74:
			return '\t';
		default:
			return undefined;
	}
}
