import { parseJson } from '../json';

/**
 * A structured answer that arrived as text (docs/api.md#ask-answer): one proxy meets `output` as
 * a string of JSON, and a model may write text around its object or several objects in a row.
 * The answer is the text parsed whole when it is one object, else the last complete JSON object
 * in it (the model's final word); none at all is an error that quotes the text's start.
 */

type JsonObject = Record<string, unknown>;

/**
 * Where in a text its object may be: `last`, the last complete object anywhere in it (a Response
 * Format answer); `whole`, only the text itself, trimmed (a code fence around it allowed): for the
 * chat model's tool envelope, where an object quoted inside prose (a web page's, a mail's) must
 * never be taken for the assistant's own call of a tool.
 */
export type TextObjectRule = 'last' | 'whole';

/** The object a text carries; undefined when it holds no complete JSON object. */
export function objectFromText(
	text: string,
	rule: TextObjectRule = 'last',
): JsonObject | undefined {
	const trimmed = text.trim();
	const whole = parsedObject(trimmed);
	if (whole || rule === 'whole') return whole ?? parsedObject(unfenced(trimmed));
	let last: JsonObject | undefined;
	for (const object of topLevelObjects(text)) last = object;
	return last;
}

/** The start of a text, for an error that quotes what came instead of an object. */
export function quotedStart(text: string, length = 80): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return JSON.stringify(flat.length > length ? `${flat.slice(0, length)}…` : flat);
}

/** A text that is one Markdown code block (```json … ```): what is inside it. */
function unfenced(text: string): string {
	const fenced = /^```[A-Za-z]*\n([\s\S]*)\n```$/.exec(text);
	return fenced ? fenced[1] : '';
}

function parsedObject(text: string): JsonObject | undefined {
	try {
		const value: unknown = parseJson(text);
		return typeof value === 'object' && value !== null && !Array.isArray(value)
			? (value as JsonObject)
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * Every complete JSON object in the text outside the others, in order. From each `{`: one that
 * cannot begin an object (what follows it is not a key or its end) is prose and passed over, so
 * it hides no object after it. Else its balanced `{…}` (braces inside JSON strings skipped) is
 * parsed, an object taken, and the search goes on after it: a span that closes on no JSON holds
 * no top-level object either. A `{` that never closes means the text ends inside it (a cut
 * answer): nothing after it is at the top level, so the search stops; a cut answer never gives
 * its nested object as the answer.
 *
 * Linear in time with constant extra memory: each character is scanned by at most one object
 * scan and parsed at most once.
 */
function* topLevelObjects(text: string): Generator<JsonObject> {
	for (let start = text.indexOf('{'); start >= 0;) {
		if (!opensObject(text, start)) {
			start = text.indexOf('{', start + 1);
			continue;
		}
		const end = closingBrace(text, start);
		if (end < 0) return;
		const object = parsedObject(text.slice(start, end + 1));
		if (object) yield object;
		start = text.indexOf('{', end + 1);
	}
}

/** How far past a `{` its first key is looked for: prose is told from an object cheaply. */
const OPENING_WINDOW = 64;

/**
 * Whether what follows the `{` at `start` can begin a JSON object (a key, or its end): most
 * braces in prose cannot. Whitespace alone up to the window's end or the text's may still.
 */
function opensObject(text: string, start: number): boolean {
	const last = Math.min(text.length, start + OPENING_WINDOW);
	for (let index = start + 1; index < last; index += 1) {
		const code = text.charCodeAt(index);
		if (code === SPACE || code === TAB || code === NEWLINE || code === RETURN) continue;
		return code === QUOTE || code === CLOSE_BRACE;
	}
	return true;
}

/** Where the `{` at `start` closes (braces inside JSON strings skipped); -1 when it never does. */
function closingBrace(text: string, start: number): number {
	let depth = 0;
	let inString = false;
	for (let index = start; index < text.length; index += 1) {
		const code = text.charCodeAt(index);
		if (inString) {
			if (code === BACKSLASH) index += 1;
			else if (code === QUOTE) inString = false;
		} else if (code === QUOTE) inString = true;
		else if (code === OPEN_BRACE) depth += 1;
		else if (code === CLOSE_BRACE) {
			depth -= 1;
			if (depth === 0) return index;
		}
	}
	return -1;
}

const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
