/**
 * A stream from the live service made fit to keep: the request echo (`FrontendModelRequest`,
 * which holds files of the user's workspace) and every `id:` line removed, ids, conversation ids
 * and the token replaced, thinking, tool arguments and tool results replaced. Only the answer's
 * text and the shape of every event stay.
 */
import { redacted, redactionOf } from '../../nodes/shared/transport/redaction';
import { parseEvents, type StreamEvent } from './signatures';

const REMOVED = '[removed]';
/** Fields whose values identify the account, its messages or its runs. */
const ID_FIELDS = new Set(['runner_id', 'message_id', 'zmid', 'tool_call_id', 'conversation_id']);
/** Fields whose values may hold the user's data (their files, memory, tools' findings). */
const PRIVATE_FIELDS = new Set([
	'args',
	'args_delta',
	'content',
	'content_delta',
	'data',
	'signature',
	'signature_delta',
	'provider_details',
]);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an event is (part of) the answer's text, the one thing whose words are kept. */
function isAnswerText(event: StreamEvent): boolean {
	const data = event.data;
	if (!isObject(data)) return false;
	const part = isObject(data.part) ? data.part.part_kind : undefined;
	const delta = isObject(data.delta) ? data.delta.part_delta_kind : undefined;
	return part === 'text' || delta === 'text';
}

function redactValue(value: unknown, keepText: boolean, key = ''): unknown {
	if (value === null || value === '') return value;
	if (ID_FIELDS.has(key)) return REMOVED;
	const textField = key === 'content' || key === 'content_delta';
	if (textField && keepText && typeof value === 'string') return value;
	if (PRIVATE_FIELDS.has(key)) return REMOVED;
	if (key === 'id' && typeof value === 'string' && value !== 'reasoning_content') return REMOVED;
	if (Array.isArray(value)) return value.map((item) => redactValue(item, keepText));
	if (isObject(value)) {
		const out: Record<string, unknown> = {};
		for (const [inner, innerValue] of Object.entries(value)) {
			out[inner] = redactValue(innerValue, keepText, inner);
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
 * The capture to keep: each event as `event:` and one `data:` line of JSON, the echo and `id:`
 * lines gone, private values replaced; lines end `\n`.
 */
export function redactStream(text: string, scrub: Scrub): string {
	const kept = parseEvents(text).filter((event) => event.event !== 'FrontendModelRequest');
	const lines = kept.map((event) => {
		const data = redactValue(event.data, isAnswerText(event));
		const json = typeof data === 'string' ? data : JSON.stringify(data);
		return `event: ${event.event}\ndata: ${json}\n\n`;
	});
	return scrub(lines.join(''));
}
