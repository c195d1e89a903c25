/**
 * A stream from the live service made fit to keep: the request echo removed in every form the node
 * recognises, every `id:` line and comment gone, and no value of the user's left. What stays is
 * what the comparison needs: each event's name, its keys, the type of each value, numbers,
 * booleans and nulls, and the values of a few enumeration fields (ENUM_FIELDS). Every other string
 * becomes a placeholder that says its length; data that is not JSON is replaced whole. A list of
 * private keys would miss the next private field the service adds; this keeps nothing it does not
 * name.
 */
import { DISCARDED_EVENT } from '../../nodes/shared/stream/decode';
import { redacted, redactionOf } from '../../nodes/shared/transport/redaction';
import { asTheNodeNamesIt, parseEvents } from './signatures';

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

/**
 * What an enumeration's value looks like: one short word. A field of those names deeper in a
 * tool's result may hold anything; a value with spaces or longer is replaced as any text is.
 */
const ENUM_VALUE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The bare `data:` line that ends some streams; the node knows it carries nothing. */
const DONE = '[DONE]';

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const placeholder = (text: string) => `[${text.length} characters]`;

/** The value with every string but an enumeration's replaced by its length. */
function redactValue(value: unknown, key = ''): unknown {
	if (typeof value === 'string') {
		if (value === '') return value;
		return ENUM_FIELDS.has(key) && ENUM_VALUE.test(value) ? value : placeholder(value);
	}
	if (Array.isArray(value)) return value.map((item) => redactValue(item));
	if (isObject(value)) {
		const out: Record<string, unknown> = {};
		for (const [inner, innerValue] of Object.entries(value)) {
			out[inner] = redactValue(innerValue, inner);
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
		if (asTheNodeNamesIt(event).event === DISCARDED_EVENT) continue;
		const data =
			typeof event.data !== 'string'
				? JSON.stringify(redactValue(event.data))
				: event.data === DONE
					? DONE
					: `[not JSON: ${event.data.length} characters]`;
		const name = event.event === 'message' ? '' : `event: ${event.event}\n`;
		lines.push(`${name}data: ${data}\n\n`);
	}
	return scrub(lines.join(''));
}
