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

/** Shorter secrets are not looked for: they would match ordinary words. */
const MIN_SECRET_LENGTH = 4;

/**
 * A token cut where a message was clipped still shows its beginning: a run of this many of its
 * first characters (or of all of them) is taken for it.
 */
const MIN_CUT_LENGTH = 8;

/** What takes one secret out of texts, JSON values and errors (redactionOf makes it). */
export class Redaction {
	/** The token's beginning, in any case (a URL parser lower-cases a host). */
	private readonly start: RegExp;

	constructor(private readonly secret: string) {
		this.start = new RegExp(escaped(secret.slice(0, MIN_CUT_LENGTH)), 'gi');
	}

	/** The text without the secret, whole or cut, in any letter case. */
	text(text: string): string {
		this.start.lastIndex = 0;
		if (!this.start.test(text)) return text;
		const secret = this.secret.toLowerCase();
		let shown = '';
		let from = 0;
		this.start.lastIndex = 0;
		for (let match = this.start.exec(text); match; match = this.start.exec(text)) {
			const at = match.index;
			let end = at + Math.min(MIN_CUT_LENGTH, secret.length);
			while (
				end < text.length &&
				end - at < secret.length &&
				text[end].toLowerCase() === secret[end - at]
			) {
				end++;
			}
			shown += text.slice(from, at) + REDACTED;
			from = end;
			this.start.lastIndex = end;
		}
		return shown + text.slice(from);
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
		// Deeper than any answer the node makes; a value that deep is not walked further.
		if (depth > 64 || typeof value !== 'object' || value === null) return value;
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

/** Removes the secret from any text that could have echoed it. */
export function redact(text: string, secret: string | undefined): string {
	return redactionOf(secret)?.text(text) ?? text;
}

function isPlain(value: unknown): value is object {
	if (typeof value !== 'object' || value === null) return false;
	const prototype = Object.getPrototypeOf(value) as unknown;
	return prototype === Object.prototype || prototype === null;
}

function escaped(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
