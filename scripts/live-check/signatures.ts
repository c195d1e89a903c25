/**
 * What a stream is made of, without its values: each kind of event (its name, and for the kinds
 * that have one, the part, delta or chunk type inside) with the fields it carried. `npm run
 * check:live` compares the live service's with what the node and the emulator know; the
 * emulator's tests compare the 2026 dialect's with the captures (test/fixtures/captures/).
 */
import { flatEvent } from '../../nodes/shared/stream/flatEvent';

export interface StreamEvent {
	event: string;
	data: unknown;
}

/** Event kind → the field paths seen on it (`index`, `part.content`, `metadata.zmid`, …). */
export type Signatures = Map<string, Set<string>>;

/** The fields whose own fields belong to the shape (the rest, like a tool's result, vary). */
const NESTED = ['part', 'delta', 'metadata', 'result'];

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The event under the name the node reads it by: a bare `data:` line (named `message`) in the
 * flat form under the name inside its JSON, its fields as the node reads them (flatEvent.ts,
 * the node's own reading); any other event as it is.
 */
export function asTheNodeNamesIt(event: StreamEvent): StreamEvent {
	if (event.event !== 'message') return event;
	const text = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
	const named = flatEvent(text);
	if (named.event === 'message') return event;
	return { event: named.event, data: JSON.parse(named.data) as unknown };
}

/**
 * A stream's events as the node reads them by name (asTheNodeNamesIt), without a bare `[DONE]`:
 * the node knows it carries nothing (events.ts), so it is neither a kind nor unknown.
 */
export function asTheNodeReadsThem(events: StreamEvent[]): StreamEvent[] {
	return events
		.filter((event) => !(event.event === 'message' && event.data === '[DONE]'))
		.map(asTheNodeNamesIt);
}

/** `PartStartEvent:text`, `PartDeltaEvent:tool_call`, `AgentRuntimeStreamChunk:persisted`, … */
export function eventKind(event: StreamEvent): string {
	const { data } = event;
	if (!isObject(data)) return event.event;
	const inner =
		(isObject(data.part) && data.part.part_kind) ||
		(isObject(data.delta) && data.delta.part_delta_kind) ||
		(event.event === 'AgentRuntimeStreamChunk' && data.type);
	return typeof inner === 'string' ? `${event.event}:${inner}` : event.event;
}

/** A runtime chunk's `delta` and `result` hold a tool's data: their keys are not the shape's. */
const RUNTIME_CHUNK_NESTED = NESTED.filter((key) => key !== 'delta' && key !== 'result');

function fieldPaths(event: StreamEvent): string[] {
	const { data } = event;
	if (!isObject(data)) return [];
	const nested = event.event === 'AgentRuntimeStreamChunk' ? RUNTIME_CHUNK_NESTED : NESTED;
	const paths: string[] = [];
	for (const [key, value] of Object.entries(data)) {
		paths.push(key);
		if (nested.includes(key) && isObject(value)) {
			for (const inner of Object.keys(value)) paths.push(`${key}.${inner}`);
		}
	}
	return paths;
}

/** The signatures of a stream's events; several streams can add to the same map. */
export function signaturesOf(events: StreamEvent[], into: Signatures = new Map()): Signatures {
	for (const event of events) {
		const kind = eventKind(event);
		const fields = into.get(kind) ?? new Set<string>();
		for (const path of fieldPaths(event)) fields.add(path);
		into.set(kind, fields);
	}
	return into;
}

/**
 * How a stream seen from the service differs from what a reader knows. `reference` names the
 * reader in the messages. An event kind the reference has that the service did not send is no
 * difference (one small ask does not show every kind); a field missing from a kind both have is.
 */
export function compareSignatures(
	seen: Signatures,
	reference: Signatures,
	referenceName: string,
): string[] {
	const differences: string[] = [];
	for (const [kind, fields] of seen) {
		const known = reference.get(kind);
		if (!known) {
			differences.push(`${kind}: an event ${referenceName} does not send`);
			continue;
		}
		const added = [...fields].filter((field) => !known.has(field));
		const missing = [...known].filter((field) => !fields.has(field));
		if (added.length > 0) {
			differences.push(`${kind}: fields ${referenceName} does not send: ${added.join(', ')}`);
		}
		if (missing.length > 0) {
			differences.push(`${kind}: fields the service left out: ${missing.join(', ')}`);
		}
	}
	return differences;
}

/**
 * What an enumeration's value looks like: one short word. A saved capture keeps such values of
 * its enumeration fields (redact.ts), the comparison prints them; any other is text, its length.
 */
export const ENUMERATION_VALUE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Event kind → the values its `status` field took (`AgentRuntimeStreamChunk:status`: `progress`, …). */
export type StatusValues = Map<string, Set<string>>;

/**
 * The `status` values of a stream's events, by kind, each one short word or its length (text may
 * be the user's); several streams can add to the same map.
 */
export function statusValuesOf(
	events: StreamEvent[],
	into: StatusValues = new Map(),
): StatusValues {
	for (const event of events) {
		const { data } = event;
		if (!isObject(data) || typeof data.status !== 'string') continue;
		const kind = eventKind(event);
		const value = ENUMERATION_VALUE.test(data.status)
			? data.status
			: `[${data.status.length} characters]`;
		into.set(kind, (into.get(kind) ?? new Set()).add(value));
	}
	return into;
}

/**
 * The `status` values the service sent that a reader never sends, for each kind the reader
 * sends: a run's state the node has never been shown. `skip`: the kinds whose status is read
 * elsewhere (a run's end: its failure is said in the service's words).
 */
export function compareStatusValues(
	seen: StatusValues,
	reference: StatusValues,
	referenceName: string,
	skip: readonly string[] = [],
): string[] {
	const differences: string[] = [];
	for (const [kind, values] of seen) {
		if (skip.includes(kind)) continue;
		const known = reference.get(kind) ?? new Set<string>();
		const added = [...values].filter((value) => !known.has(value));
		if (added.length > 0) {
			const named = added.map((value) => JSON.stringify(value)).join(', ');
			differences.push(`${kind}: a status ${referenceName} does not send: ${named}`);
		}
	}
	return differences;
}

/** The event names the service sent that a reader does not know (the node's list). */
export function unknownEventNames(seen: Signatures, known: readonly string[]): string[] {
	const names = new Set([...seen.keys()].map((kind) => kind.split(':')[0]));
	return [...names].filter((name) => !known.includes(name)).sort();
}

/**
 * Reads a Server-Sent Events body into its events (the `event:` name, `message` without one; the
 * `data:` lines joined and parsed as JSON where they are JSON). Comments and `id:` lines carry
 * nothing here.
 */
export function parseEvents(text: string): StreamEvent[] {
	const events: StreamEvent[] = [];
	for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
		let name = 'message';
		const data: string[] = [];
		for (const line of block.split('\n')) {
			const colon = line.indexOf(':');
			if (colon === 0 || line === '') continue;
			const field = colon < 0 ? line : line.slice(0, colon);
			const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
			if (field === 'event') name = value;
			else if (field === 'data') data.push(value);
		}
		if (data.length === 0) continue;
		const joined = data.join('\n');
		let parsed: unknown = joined;
		try {
			parsed = JSON.parse(joined);
		} catch {
			// Not JSON (`[DONE]`): kept as text.
		}
		events.push({ event: name, data: parsed });
	}
	return events;
}

/**
 * The field paths of a JSON answer, two levels deep, an array's items as `[]`:
 * `{"models": [{"id"}]}` is `models`, `models[]`, `models[].id`.
 */
export function jsonShape(value: unknown, prefix = '', depth = 0, into = new Set<string>()) {
	if (depth > 2) return into;
	if (Array.isArray(value)) {
		if (prefix) into.add(`${prefix}[]`);
		for (const item of value) jsonShape(item, `${prefix}[]`, depth + 1, into);
	} else if (isObject(value)) {
		for (const [key, inner] of Object.entries(value)) {
			const path = prefix ? `${prefix}.${key}` : key;
			into.add(path);
			jsonShape(inner, path, depth + 1, into);
		}
	}
	return into;
}

/**
 * The lists of a JSON answer that are empty, as jsonShape names their items (`personas[]`), as
 * deep as it looks: their items' fields cannot be seen, so cannot be missing.
 */
export function emptyLists(value: unknown, prefix = '', depth = 0, into: string[] = []): string[] {
	if (depth > 2) return into;
	if (Array.isArray(value)) {
		if (value.length === 0) into.push(`${prefix}[]`);
		for (const item of value) emptyLists(item, `${prefix}[]`, depth + 1, into);
	} else if (isObject(value)) {
		for (const [key, inner] of Object.entries(value)) {
			emptyLists(inner, prefix ? `${prefix}.${key}` : key, depth + 1, into);
		}
	}
	return into;
}

/**
 * The fields one answer has that the other lacks, both ways; the fields of the items of `empty`
 * lists in the seen answer (emptyLists) are not taken for left out.
 */
export function compareShapes(
	what: string,
	seen: Set<string>,
	reference: Set<string>,
	referenceName: string,
	empty: readonly string[] = [],
): string[] {
	const inEmpty = (path: string) =>
		empty.some((list) => path.startsWith(`${list}.`) || path.startsWith(`${list}[`));
	const added = [...seen].filter((path) => !reference.has(path));
	const missing = [...reference].filter((path) => !seen.has(path) && !inEmpty(path));
	const differences: string[] = [];
	if (added.length > 0) {
		differences.push(`${what}: fields ${referenceName} does not send: ${added.join(', ')}`);
	}
	if (missing.length > 0) {
		differences.push(`${what}: fields the service left out: ${missing.join(', ')}`);
	}
	return differences;
}
