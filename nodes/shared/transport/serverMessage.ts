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
		return clippedMessage(stripHtml(trimmed));
	}
	return clippedMessage(messageFromJson(parsed) ?? trimmed);
}

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
