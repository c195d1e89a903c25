import { isObject } from '../json';

/**
 * The service's echo of the whole request (docs/api.md#memory-bounds): the system prompt, the
 * user's private workspace files, the message. It must reach no output item, step, log line,
 * streamed piece or error, however a server sends it back.
 */
export const REQUEST_ECHO = 'FrontendModelRequest';

/** How deep, and over how many values, holdsRequestEcho looks; past either, it says yes. */
const MAX_ECHO_DEPTH = 32;
const MAX_ECHO_VALUES = 10_000;

/**
 * The echo's markers in a text: its name, pydantic-ai's `"kind": "request"` with `parts`, or a
 * request's own part (a prompt): pydantic-ai writes `kind` after the parts, so a body cut at its
 * bound may have lost it.
 */
const ECHO_NAME = new RegExp(REQUEST_ECHO);
const REQUEST_KIND = /\bkind["']?\s*[:=]\s*["']request["']/;
const PARTS = /\bparts\b/;
const PROMPT_PART = /\bpart_kind["']?\s*[:=]\s*["'](?:system|user)-prompt["']/;

/**
 * Whether the value is, or holds, the request echo: the flat form (`{"type":
 * "FrontendModelRequest", …}`), the named form's data (pydantic-ai's ModelRequest: `"kind":
 * "request"` and a `parts` list), or a text with the echo's markers (the echo written as JSON, a
 * body that is not JSON or was cut short), at any depth.
 * The one test of everything an error would show of what a server sent. A value too deep or too
 * large to look through is taken for one: it cannot be checked, so it is not shown.
 */
export function holdsRequestEcho(value: unknown): boolean {
	let budget = MAX_ECHO_VALUES;
	const holds = (item: unknown, depth: number): boolean => {
		if (--budget < 0 || depth > MAX_ECHO_DEPTH) return true;
		if (typeof item === 'string') {
			return (
				ECHO_NAME.test(item) ||
				(REQUEST_KIND.test(item) && PARTS.test(item)) ||
				PROMPT_PART.test(item)
			);
		}
		if (Array.isArray(item)) return item.some((entry) => holds(entry, depth + 1));
		if (!isObject(item)) return false;
		if (isRequestEcho(item)) return true;
		return Object.values(item).some((entry) => holds(entry, depth + 1));
	};
	return holds(value, 0);
}

/**
 * Whether the value itself is the echo (not merely holds it): the flat form, or the named form's
 * data. No words are read from inside it, whatever its keys (a `message` of its own too).
 */
export function isRequestEcho(value: unknown): boolean {
	return (
		isObject(value) &&
		(value.type === REQUEST_ECHO || (value.kind === 'request' && Array.isArray(value.parts)))
	);
}
