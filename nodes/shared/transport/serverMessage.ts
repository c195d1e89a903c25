/**
 * The server's own words in a failed response, from whichever shape it used
 * (docs/api.md#errors): `detail` (a string, or FastAPI's list of validation errors), `error`,
 * `message` or `msg`, also nested under `data` or inside an object in one of those, else the
 * text of the body.
 */

const MAX_MESSAGE_LENGTH = 500;

export function serverMessage(bodyText: string): string {
	const trimmed = bodyText.trim();
	if (!trimmed) return '';
	let parsed: unknown;
	try {
		parsed = JSON.parse(trimmed);
	} catch {
		return eventStreamMessage(trimmed) ?? clippedMessage(stripHtml(trimmed));
	}
	return clippedMessage(messageFromJson(parsed) ?? trimmed);
}

/**
 * A body that is an event stream (a stream under an error status, or under another type), as an
 * error may show it: the words of its error event (`error`, `Error`, `SSEErrorEvent`, `failed`,
 * or the flat form's `{"type": "Error", …}`), which say what failed (a full session pool, no
 * credit), else its events' names. The data of any other event is never shown: it may be the
 * service's echo of the request, with the user's files (docs/api.md#memory-bounds). Its lines
 * are read by the format's rules, as stream/decode.ts reads them; words are taken only from an
 * event that its `event:` lines name an error event alone, before its data (an echo renamed, or
 * run into the next event without its blank line, is none), or from an unnamed one whose data
 * is a flat error, and never from data cut short (JSON that does not parse). A body is an event
 * stream when its first line is one of the format's fields or a comment and it has an `event:`
 * or `data:` line; or, whatever its first line, when it names the echo.
 */
export function eventStreamMessage(text: string): string | undefined {
	const lines = text
		.slice(0, MAX_SUMMARIZED_LENGTH)
		.replace(/^\uFEFF/, '')
		.split(/\r\n|\r|\n/);
	const fields = lines.map(fieldOf);
	const first = fields.find((field) => field.name !== '' || field.value !== '');
	const streamed =
		first !== undefined &&
		(first.comment || SSE_FIELDS.has(first.name) || text.includes(ECHO_EVENT)) &&
		fields.some((field) => field.name === 'event' || field.name === 'data');
	if (!streamed) return undefined;
	const names = new Set<string>();
	let words: string | undefined;
	let event: EventLines = { names: [], data: [], dataFirst: false };
	const dispatch = () => {
		const name = event.names[event.names.length - 1] || 'message';
		if (event.data.length > 0 || event.names.length > 0) names.add(printableEventName(name));
		words ??= errorWords(event);
		event = { names: [], data: [], dataFirst: false };
	};
	for (const field of fields) {
		if (field.blank) dispatch();
		else if (field.name === 'event') event.names.push(field.value);
		else if (field.name === 'data') {
			if (event.names.length === 0) event.dataFirst = true;
			event.data.push(field.value);
		}
	}
	dispatch();
	if (words) return clippedMessage(words);
	const shown = [...names].slice(0, MAX_SUMMARIZED_NAMES);
	return shown.length > 0
		? `an event stream (its events: ${shown.join(', ')}; their data is not shown)`
		: 'an event stream (its data is not shown)';
}

/** The fields of the event-stream format; a line of another name is ignored by it. */
const SSE_FIELDS: ReadonlySet<string> = new Set(['event', 'data', 'id', 'retry']);
const ECHO_EVENT = 'FrontendModelRequest';

interface EventLines {
	names: string[];
	data: string[];
	/** A data line came before the event's first name. */
	dataFirst: boolean;
}

/** A line by the format's rules: `name: value` (one space after the colon dropped), `name`, `:…`. */
function fieldOf(line: string) {
	const colon = line.indexOf(':');
	const name = colon < 0 ? line : line.slice(0, colon);
	const raw = colon < 0 ? '' : line.slice(colon + 1);
	return {
		blank: line === '',
		comment: colon === 0,
		name,
		value: raw.startsWith(' ') ? raw.slice(1) : raw,
	};
}

/** The events whose data is the server's words on a failure. */
const ERROR_EVENTS: ReadonlySet<string> = new Set(['error', 'Error', 'SSEErrorEvent', 'failed']);

/** An error event's words: named so alone, before its data; or unnamed, its data a flat error. */
function errorWords(event: EventLines): string | undefined {
	if (event.data.length === 0) return undefined;
	const data = event.data.join('\n');
	const parsed = parseOrUndefined(data);
	// Cut short (the body is read within a bound): what is left of it may be anything's.
	if (parsed === undefined && /^\s*[[{]/.test(data)) return undefined;
	// `message` and no name are the same to the format: the flat form names it in its data.
	if (event.names.every((name) => name === '' || name === 'message')) {
		const type = isObjectValue(parsed) ? parsed.type : undefined;
		return typeof type === 'string' && ERROR_EVENTS.has(type)
			? nonBlank(messageFromJson(parsed))
			: undefined;
	}
	if (event.dataFirst || !event.names.every((name) => ERROR_EVENTS.has(name))) return undefined;
	return parsed === undefined ? nonBlank(data) : nonBlank(messageFromJson(parsed));
}

function parseOrUndefined(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

function isObjectValue(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonBlank(text: string | undefined): string | undefined {
	return text?.trim() || undefined;
}

/** How much of a body, and how many event names, an error looks at. */
const MAX_SUMMARIZED_LENGTH = 64 * 1024;
const MAX_SUMMARIZED_NAMES = 10;

/** An event name as it may be shown: printable characters only, cut when long. */
export function printableEventName(name: string): string {
	// eslint-disable-next-line no-control-regex
	const clean = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
	return clean.length > MAX_EVENT_NAME ? `${clean.slice(0, MAX_EVENT_NAME)}…` : clean;
}

/** An event name longer than this is cut where it is shown. */
const MAX_EVENT_NAME = 80;

/** The words of a JSON error body, or undefined when it has none (exported for in-band errors). */
export function messageFromJson(body: unknown, depth = 0): string | undefined {
	if (typeof body === 'string') return body;
	if (typeof body !== 'object' || body === null || depth > 4) return undefined;
	const record = body as Record<string, unknown>;
	const detail = record.detail;
	if (typeof detail === 'string') return detail;
	if (Array.isArray(detail)) return validationMessages(detail).join('; ');
	for (const key of ['detail', 'error', 'message', 'msg', 'data']) {
		const value = record[key];
		if (typeof value === 'string') return withCode(value, record.code);
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

function stripHtml(text: string): string {
	if (!/^\s*</.test(text)) return text;
	return text
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
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
