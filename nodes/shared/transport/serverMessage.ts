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
		return eventStreamSummary(trimmed) ?? clippedMessage(stripHtml(trimmed));
	}
	return clippedMessage(messageFromJson(parsed) ?? trimmed);
}

/**
 * A body that is an event stream (a stream under an error status, or under another type), as an
 * error may show it: its events' names, never its data, which may be the service's echo of the
 * request with the user's files (docs/api.md#memory-bounds). Undefined for any other text.
 */
export function eventStreamSummary(text: string): string | undefined {
	const start = text.replace(/^\uFEFF/, '').trimStart();
	// Its first line one of the format's, and an event or data line in it: not just "id: …".
	const firstLine = /^(?::|(?:event|data|id|retry)[ \t]*(?::|\r|\n|$))/;
	if (!firstLine.test(start) || !/^(?:event|data)[ \t]*:/m.test(start)) return undefined;
	const names = new Set<string>();
	for (const [, name] of start
		.slice(0, MAX_SUMMARIZED_LENGTH)
		.matchAll(/^event:[ ]?([^\r\n]*)/gm)) {
		names.add(printableEventName(name));
		if (names.size === MAX_SUMMARIZED_NAMES) break;
	}
	return names.size > 0
		? `an event stream (its events: ${[...names].join(', ')}; their data is not shown)`
		: 'an event stream (its data is not shown)';
}

/** How much of a body, and how many event names, a summary looks at. */
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
