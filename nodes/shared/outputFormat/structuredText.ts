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
	for (const candidate of topLevelObjects(text)) last = parsedObject(candidate) ?? last;
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

/** Every balanced `{…}` at depth 0, in order, skipping braces inside JSON strings. */
function* topLevelObjects(text: string): Generator<string> {
	let depth = 0;
	let start = -1;
	let inString = false;
	for (let index = 0; index < text.length; index += 1) {
		const char = text[index];
		if (inString) {
			if (char === '\\') index += 1;
			else if (char === '"') inString = false;
			continue;
		}
		if (char === '"' && depth > 0) inString = true;
		else if (char === '{') {
			if (depth === 0) start = index;
			depth += 1;
		} else if (char === '}' && depth > 0) {
			depth -= 1;
			if (depth === 0) yield text.slice(start, index + 1);
		}
	}
}
