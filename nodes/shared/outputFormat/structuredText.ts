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
 * Work allowed per character of the text, in characters scanned or parsed (topLevelObjects): an
 * answer with a few stray braces costs a few times its length; past the bound, the objects found
 * so far are all there are.
 */
const WORK_PER_CHARACTER = 16;

/**
 * Every complete JSON object in the text outside the others, in order: from a `{`, its balanced
 * `{…}` (braces inside JSON strings skipped) when that parses as an object, and the search goes
 * on after it. A `{` whose braces never close, or close on no JSON (a brace in the prose: "use {
 * to open one"), is passed over and the search goes on right after it, so it hides no object that
 * follows.
 *
 * In linear time for text full of braces: one scan from a `{` learns where each `{` it meets
 * outside a string closes (or that it never does), and a `{` learnt so is never scanned again;
 * only one the scans met inside a string (a quote in the prose, read from another start) is.
 * What is left (candidates that close but fail to parse, nested) is held by the work bound.
 */
function* topLevelObjects(text: string): Generator<JsonObject> {
	/** Where each `{` a scan met outside a string closes; -1: it never does. */
	const closes = new Map<number, number>();
	let work = WORK_PER_CHARACTER * text.length;
	for (let start = text.indexOf('{'); start >= 0 && work > 0;) {
		if (!closes.has(start)) work -= scanFrom(text, start, closes);
		const end = closes.get(start) as number;
		if (end >= 0 && opensObject(text, start)) {
			work -= end + 1 - start;
			const object = parsedObject(text.slice(start, end + 1));
			if (object) {
				yield object;
				start = text.indexOf('{', end + 1);
				continue;
			}
		}
		start = text.indexOf('{', start + 1);
	}
}

/**
 * Whether what follows the `{` at `start` can begin a JSON object (a key, or its end): most
 * braces in prose cannot, and are passed over without the cost of a failed parse.
 */
function opensObject(text: string, start: number): boolean {
	const next = /\S/.exec(text.slice(start + 1, start + 64));
	return next === null || next[0] === '"' || next[0] === '}';
}

/**
 * Scans from the `{` at `start` until it closes or the text ends, noting in `closes` where each
 * `{` met outside a JSON string closes: from that `{` the scan would be the same. Returns the
 * characters scanned.
 */
function scanFrom(text: string, start: number, closes: Map<number, number>): number {
	const open: number[] = [];
	let inString = false;
	let index = start;
	for (; index < text.length; index += 1) {
		const char = text[index];
		if (inString) {
			if (char === '\\') index += 1;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === '{') open.push(index);
		else if (char === '}') {
			closes.set(open.pop() as number, index);
			if (open.length === 0) break;
		}
	}
	for (const never of open) closes.set(never, -1);
	return index - start + 1;
}
