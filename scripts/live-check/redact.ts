/**
 * A stream from the live service made fit to keep: the request echo removed in every form the node
 * recognises, every `id:` line and comment gone, and no value of the user's left. What stays is
 * what the comparison needs: each event's name, its keys, the type of each value, numbers,
 * booleans, nulls and empty strings, and the value of an enumeration field (ENUM_FIELDS) that is
 * one short word outside free-form content: not in or under a field that holds the user's or the
 * model's words, a tool's arguments or data, or an error's (freeForm.ts; a runtime chunk's
 * `delta` and `result` too). Every other string becomes a placeholder that says its length; data
 * that is not JSON is replaced whole. A list of private keys would miss the next private field
 * the service adds; this keeps no string but those it names, where it names them. A free-form
 * field's object or list is replaced whole (freeForm.ts): its keys may be the user's too.
 */
import { DISCARDED_EVENT } from '../../nodes/shared/stream/decode';
import { redacted, redactionOf } from '../../nodes/shared/transport/redaction';
import { freeFormFieldsOf, isOpaque } from './freeForm';
import { asTheNodeNamesIt, ENUMERATION_VALUE, parseEvents } from './signatures';

/** Fields whose values name a kind, a status or an outcome, not the user's words. */
const ENUM_FIELDS = new Set([
	'event_kind',
	'part_kind',
	'previous_part_kind',
	'part_delta_kind',
	'status',
	'error_type',
	'failure_kind',
	'failure_owner',
	'type',
	'kind',
	'outcome',
]);

/** The bare `data:` line that ends some streams; the node knows it carries nothing. */
const DONE = '[DONE]';

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const placeholder = (text: string) => `[${text.length} characters]`;

/**
 * The value with every string replaced by its length, but an enumeration's outside free-form
 * content (`freeForm`: the value is, or lies under, one of the event's free-form fields).
 */
function redactValue(
	value: unknown,
	freeFormFields: ReadonlySet<string>,
	key = '',
	freeForm = false,
): unknown {
	if (typeof value === 'string') {
		if (value === '') return value;
		const kept = !freeForm && ENUM_FIELDS.has(key) && ENUMERATION_VALUE.test(value);
		return kept ? value : placeholder(value);
	}
	// Free-form JSON (a tool's data, an error object) goes whole: its keys may be the user's words.
	if (isOpaque(key, freeForm) && (Array.isArray(value) || isObject(value))) {
		return `[JSON: ${JSON.stringify(value).length} characters]`;
	}
	if (Array.isArray(value)) {
		return value.map((item) => redactValue(item, freeFormFields, '', freeForm));
	}
	if (isObject(value)) {
		const out: Record<string, unknown> = {};
		for (const [inner, innerValue] of Object.entries(value)) {
			const under = freeForm || freeFormFields.has(inner);
			out[inner] = redactValue(innerValue, freeFormFields, inner, under);
		}
		return out;
	}
	return value;
}

/** What every text the check prints or saves goes through (scrubberOf makes it). */
export type Scrub = (text: string) => string;

/**
 * The token out of a text by the node's own redaction (whole or cut, in any letter case,
 * escaped: a server may echo it in any of these), and conversation ids. Built once, from the
 * trimmed token the requests send; a missing or too short token leaves the ids alone to do.
 */
export function scrubberOf(token: string): Scrub {
	const redaction = redactionOf(token);
	return (text) => redacted(text, redaction).replace(/\bconv?_[A-Za-z0-9]+/g, 'con_[removed]');
}

/**
 * The capture to keep: each event as `event:` (none for the flat form, as it came) and one
 * `data:` line, the echo and `id:` lines gone, values replaced (redactValue), and the whole
 * scrubbed; lines end `\n`.
 */
export function redactStream(text: string, scrub: Scrub): string {
	const lines: string[] = [];
	for (const event of parseEvents(text)) {
		// The echo as the node recognises it: named, or in the flat form (flatEvent.ts).
		const named = asTheNodeNamesIt(event).event;
		if (named === DISCARDED_EVENT) continue;
		const data =
			event.refused !== undefined
				? `[${event.refused}]`
				: typeof event.data !== 'string'
					? JSON.stringify(redactValue(event.data, freeFormFieldsOf(named)))
					: event.data === DONE
						? DONE
						: `[not JSON: ${event.data.length} characters]`;
		const name = event.event === 'message' ? '' : `event: ${event.event}\n`;
		lines.push(`${name}data: ${data}\n\n`);
	}
	return scrub(lines.join(''));
}
