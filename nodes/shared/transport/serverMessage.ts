import type { InBandErrorResponse, Unchecked } from '../api';
import { isObject, opensAsJson, parseJson } from '../json';
import { createSseDecoder } from '../stream/decode';
import { holdsRequestEcho, isRequestEcho, REQUEST_ECHO } from '../stream/requestEcho';
import { CHARACTER_REFERENCE, decodedReference } from './escapes';
import { redacted, type Redaction } from './redaction';

/**
 * The server's own words in a failed response, from whichever shape it used
 * (docs/api.md#errors): `detail` (a string, or FastAPI's list of validation errors), `error`,
 * `message` or `msg`, also nested under `data` or inside an object in one of those, else the
 * text of the body. What is or holds the request echo is never shown (stream/requestEcho.ts).
 */

const MAX_MESSAGE_LENGTH = 500;

/**
 * `redaction`: the call's, run again on an HTML page's text once its character references are
 * decoded (stripHtml), before the text is clipped.
 */
export function serverMessage(bodyText: string, redaction?: Redaction): string {
	const trimmed = bodyText.trim();
	if (!trimmed) return '';
	let parsed: unknown;
	try {
		parsed = JSON.parse(trimmed);
	} catch {
		return eventStreamMessage(bodyText) ?? shownText(redacted(stripHtml(trimmed), redaction));
	}
	const words = messageFromJson(parsed);
	if (holdsRequestEcho(parsed)) return echoWithheld(words);
	return clippedMessage(words ?? trimmed);
}

/** A body that is not JSON, as an error shows it: never one with the request echo's markers. */
export function shownText(text: string): string {
	return holdsRequestEcho(text) ? echoWithheld(undefined) : clippedMessage(text);
}

/**
 * What an error says where the service's answer held the request echo, which it never shows:
 * the words the server gave elsewhere, if any, and that the echo was left out.
 */
export function echoWithheld(words: string | undefined): string {
	return words
		? `${clippedMessage(words)} (the service's answer also held its copy of the request, which is not shown)`
		: "the service's answer held its copy of the request, which is not shown";
}

/**
 * A body that is an event stream (a stream under an error status, or under another type), as an
 * error may show it: the words of its error event (`error`, `Error`, `SSEErrorEvent`, `failed`,
 * or the flat form's `{"type": "Error", …}`), which say what failed (a full session pool, no
 * credit), else its events' names. It is read by the stream's own decoder (stream/decode.ts),
 * which never passes on the service's echo of the request (`FrontendModelRequest`, the user's
 * files; docs/api.md#memory-bounds), however it is renamed, nor a last event cut short; the data
 * of any event that is not an error's is never shown, nor a flat echo's under any name. A body is
 * an event stream when its first line is one of the format's fields or a comment, or when it
 * names the echo, and it has an `event` or `data` line.
 */
export function eventStreamMessage(text: string): string | undefined {
	const start = text.slice(0, MAX_SUMMARIZED_LENGTH);
	const firstLine = /^\s*(?::|(?:event|data|id|retry)(?::|\r|\n|$))/;
	if (!firstLine.test(start.replace(/^\uFEFF/, '')) && !start.includes(REQUEST_ECHO))
		return undefined;
	if (!/^(?:event|data)(?::|\r|\n|$)/m.test(start)) return undefined;
	const names = new Set<string>();
	let words: string | undefined;
	const decoder = createSseDecoder(({ event, data }) => {
		if (names.size < MAX_SUMMARIZED_NAMES) names.add(printableEventName(event));
		words ??= errorWords(event, data);
	}, MAX_SUMMARIZED_LENGTH);
	try {
		decoder.push(start);
		decoder.finish();
	} catch {
		// A line past the bound: what was read before it is what there is.
	}
	if (words) return clippedMessage(words);
	return names.size > 0
		? `an event stream (its events: ${[...names].join(', ')}; their data is not shown)`
		: 'an event stream (its data is not shown)';
}

/** The events whose data is the server's words on a failure. */
const ERROR_EVENTS: ReadonlySet<string> = new Set(['error', 'Error', 'SSEErrorEvent', 'failed']);

/**
 * An error event's words; for an unnamed event (`message`), the flat form's, its name in its
 * data. Never data that is or holds the request echo (a flat echo's, under any name), nor data
 * cut short (JSON that does not parse).
 */
function errorWords(event: string, data: string): string | undefined {
	const parsed = parseOrUndefined(data);
	if (parsed === undefined && opensAsJson(data)) return undefined;
	if (holdsRequestEcho(parsed ?? data)) return undefined;
	const type = isObject(parsed) ? parsed.type : undefined;
	const named = event === 'message' ? type : event;
	if (typeof named !== 'string' || !ERROR_EVENTS.has(named)) return undefined;
	return parsed === undefined ? nonBlank(data) : nonBlank(messageFromJson(parsed));
}

function parseOrUndefined(text: string): unknown {
	try {
		return parseJson(text);
	} catch {
		return undefined;
	}
}

function nonBlank(text: string | undefined): string | undefined {
	return text?.trim() || undefined;
}

/** How much of a body, and how many event names, an error looks at. */
const MAX_SUMMARIZED_LENGTH = 64 * 1024;
const MAX_SUMMARIZED_NAMES = 10;

/**
 * An event name as it may be shown: printable characters only, cut when long. The bidi controls
 * go too: shown, they reorder the text around them (`Bidi\u202egnp.exe` reads as `exe.png`).
 */
export function printableEventName(name: string): string {
	const clean = name.replace(
		// eslint-disable-next-line no-control-regex
		/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
		'?',
	);
	return clean.length > MAX_EVENT_NAME ? `${clean.slice(0, MAX_EVENT_NAME)}…` : clean;
}

/** An event name longer than this is cut where it is shown. */
const MAX_EVENT_NAME = 80;

/**
 * The words of a JSON error body, or undefined when it has none (exported for in-band errors).
 * A value that is or holds the request echo gives none: its texts are the user's files.
 */
export function messageFromJson(body: unknown, depth = 0): string | undefined {
	if (typeof body === 'string') return holdsRequestEcho(body) ? undefined : body;
	if (typeof body !== 'object' || body === null || depth > 4 || isRequestEcho(body)) {
		return undefined;
	}
	const record = body as Record<string, unknown>;
	// A field that is or holds the echo is passed over: its siblings' words are the server's.
	const field = (key: string) => (holdsRequestEcho(record[key]) ? undefined : record[key]);
	const detail = field('detail');
	if (typeof detail === 'string') return detail;
	// An empty list says nothing: the words may be under another key.
	if (Array.isArray(detail) && detail.length > 0) return validationMessages(detail).join('; ');
	for (const key of ['detail', 'error', 'message', 'msg', 'data']) {
		const value = field(key);
		if (typeof value === 'string') return withCode(value, field('code'));
		if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
			const nested = messageFromJson(value, depth + 1);
			if (nested) return nested;
		}
	}
	return undefined;
}

/**
 * The words and, beside them, a code that says more than they do (`{"message": "The model … does
 * not exist", "code": "model_not_found"}`, as OpenAI-style bodies have it); a number adds nothing.
 */
function withCode(text: string, code: unknown): string {
	return typeof code === 'string' && code.trim() && !text.includes(code)
		? `${text} (${code})`
		: text;
}

/** FastAPI's 422 detail: `[{loc: ['body', 'model_name'], msg: '...'}]` → `body.model_name: ...`. */
function validationMessages(detail: unknown[]): string[] {
	return detail.map((entry) => {
		if (typeof entry !== 'object' || entry === null) return String(entry);
		const { loc, msg } = entry as { loc?: unknown; msg?: unknown };
		const where = Array.isArray(loc) ? loc.map(String).join('.') : '';
		const what = typeof msg === 'string' ? msg : JSON.stringify(entry);
		return where ? `${where}: ${what}` : what;
	});
}

/**
 * An HTML page's text: its tags, scripts and styles left out, its character references decoded
 * once (`&#90;`, `&#x5a;`, `&amp;`, …), so that the redaction reads the text as the page writes
 * it: a token spelled in references is the token.
 */
export function stripHtml(text: string): string {
	if (!/^\s*</.test(text)) return text;
	return text
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(CHARACTER_REFERENCE, decodedReference)
		.replace(/\s+/g, ' ')
		.trim();
}

/** A server's words as a message shows them: cut at MAX_MESSAGE_LENGTH characters. */
export function clippedMessage(text: string): string {
	return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

/**
 * The account, or the provider of the chosen model, is out of credit (docs/api.md#credit-failures):
 * the provider's words pass through the service. Waiting does not help.
 */
export function isCreditMessage(text: string): boolean {
	return /can only afford|requires more credits|insufficient[ _](credits?|balance|funds|quota)|credit balance is too low|out of credits?|exceeded your current quota|payment required/i.test(
		text,
	);
}

/** The account's pool of sessions is full (docs/api.md#full-session-pool). */
export function isSessionPoolMessage(text: string): boolean {
	return /sessions are busy|cannot evict/i.test(text);
}

/**
 * An `error` field that says something went wrong: anything but nothing, false, blank text, {}
 * or [] (a response model that writes every field writes those when nothing did). One rule for
 * an answer's in-band error and a stream's error fields (stream/events.ts).
 */
export function saysError(value: unknown): boolean {
	if (value === undefined || value === null || value === false) return false;
	if (typeof value === 'string') return value.trim() !== '';
	if (Array.isArray(value)) return value.length > 0;
	return typeof value !== 'object' || Object.keys(value).length > 0;
}

/** An `output` that is an answer: anything but none, null or empty text. */
function holdsOutput(body: object): boolean {
	const output = (body as { output?: unknown }).output;
	return output !== undefined && output !== null && output !== '';
}

/**
 * `{"error": "..."}` without an answer (docs/api.md#ask-answer): no `output`, or one that is null
 * or empty text (a response model that writes every field); the error may be an object with its
 * words inside, or sit under `data`. For an answer and a list alike (the credential test's too).
 */
export function inBandErrorOf(body: unknown): string | undefined {
	if (typeof body !== 'object' || body === null || holdsOutput(body)) return undefined;
	const { error, data } = body as Unchecked<InBandErrorResponse> & { data?: unknown };
	const nested =
		typeof data === 'object' && data !== null && !holdsOutput(data)
			? (data as { error?: unknown }).error
			: undefined;
	const found = saysError(error) ? error : nested;
	if (!saysError(found)) return undefined;
	if (holdsRequestEcho(found)) return echoWithheld(messageFromJson(body));
	return clippedMessage(messageFromJson(found) ?? JSON.stringify(found));
}
