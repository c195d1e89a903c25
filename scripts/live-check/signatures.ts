/**
 * What a stream is made of, without its values: each kind of event (its name, and for the kinds
 * that have one, the part, delta or chunk type inside) with the fields it carried. `npm run
 * check:live` compares the live service's with what the node and the emulator know; the
 * emulator's tests compare the 2026 dialect's with the captures (test/fixtures/captures/).
 */
import { parseJson, TooManyJsonValues } from '../../nodes/shared/json';
import { flatEvent } from '../../nodes/shared/stream/flatEvent';
import { freeFormFieldsOf, isOpaque } from './freeForm';

export interface StreamEvent {
	event: string;
	data: unknown;
	/**
	 * Why the node would not read the event's JSON (past its bound on values: parseJson), in its
	 * words; `data` is then empty, the JSON not held.
	 */
	refused?: string;
	/**
	 * With `refused`: the data as it came, for the node's own reader alone (streamFailures: what
	 * the node says of such an event is what its reader makes of it); never parsed here, never saved.
	 */
	dataText?: string;
}

/**
 * The most segments a field path has (`models`, `[]`, `reasoning`, `levels`: four). The deepest
 * shape the field notes, the captures and the emulator show has nine, the catalog's
 * `models[].media_profiles[].request_variants[].inputs[].role`; the stream's have three at most
 * (the echo's `parts[].part_kind`; `data.message`). Sixteen leaves the service room to nest
 * deeper what it has before a level goes unseen, and keeps the walk short however deep a hostile
 * answer nests: what lies deeper is one path, its parent's and `.…` (DEEPER).
 */
export const MAX_SHAPE_DEPTH = 16;

/** Said after a path at MAX_SHAPE_DEPTH whose value goes deeper: it was not followed. */
const DEEPER = '.…';

/**
 * The most field paths one shape holds: one JSON answer's, or one stream's kinds and their fields
 * together. The emulator's catalog has 74, its streams (a plain ask and a tool round) 145 kinds
 * and fields; the service may have more, not ten times as many. Past it a hostile answer (a
 * million different keys, or kinds) adds nothing, and the comparison says so in one line
 * instead of listing them.
 */
export const MAX_SHAPE_PATHS = 2_000;

/**
 * Fields whose keys are the service's data, not its shape: `deprecation_map` maps each
 * deprecated model's id to its successor's (docs/api.md#catalog). Its entries are compared as
 * one, `deprecation_map{}`, whatever their ids.
 */
const ID_KEYED_FIELDS: ReadonlySet<string> = new Set(['deprecation_map']);

/** Where the field paths of one walk go: false once there is no room (MAX_SHAPE_PATHS). */
interface PathSink {
	add(path: string): boolean;
	/** A list or id-keyed map (`…[]`, `…{}`) seen with an item. */
	filled?(list: string): void;
}

/**
 * A key, or an event's inner kind, as a shape names it: one short word as it is, any other by
 * its length (a key made of the user's words is not printed; no key makes a path long).
 */
function shapeName(key: string): string {
	return ENUMERATION_VALUE.test(key) ? key : `[${key.length} characters]`;
}

/**
 * The field paths of `value` under `path` (`depth` segments), every level down to
 * MAX_SHAPE_DEPTH: a list's items as `[]`, all of them together; an id-keyed map's entries as
 * `{}`; a free-form field's value (freeForm.ts) not looked into. `freeForm`: `value` is, or lies
 * under, one of `freeFormFields`.
 */
function walkShape(
	value: unknown,
	path: string,
	depth: number,
	freeFormFields: ReadonlySet<string>,
	freeForm: boolean,
	sink: PathSink,
	key = '',
): void {
	const isList = Array.isArray(value);
	if (!isList && !isObject(value)) return;
	const items = isList ? value : ID_KEYED_FIELDS.has(key) ? Object.values(value) : undefined;
	const size = items ? items.length : Object.keys(value).length;
	if (size > 0 && depth >= MAX_SHAPE_DEPTH) {
		sink.add(`${path}${DEEPER}`);
		return;
	}
	if (items) {
		const itemPath = `${path}${isList ? '[]' : '{}'}`;
		if (!sink.add(itemPath)) return;
		if (size > 0) sink.filled?.(itemPath);
		for (const item of items) {
			walkShape(item, itemPath, depth + 1, freeFormFields, freeForm, sink);
		}
		return;
	}
	for (const [inner, innerValue] of Object.entries(value)) {
		const under = freeForm || freeFormFields.has(inner);
		const innerPath = path ? `${path}.${shapeName(inner)}` : shapeName(inner);
		if (!sink.add(innerPath)) return;
		if (isOpaque(inner, under)) continue;
		walkShape(innerValue, innerPath, depth + 1, freeFormFields, under, sink, inner);
	}
}

/**
 * Event kind → the field paths seen on it (`index`, `part.content`, `data.message`, …), every
 * kind and path counted against MAX_SHAPE_PATHS together; `full` once one was left out. The
 * lists and id-keyed maps seen with an item in some event of a kind are kept apart (emptyLists).
 */
export class Signatures extends Map<string, Set<string>> {
	full = false;
	private held = 0;
	private readonly filled = new Map<string, Set<string>>();

	/** `list` of `kind` (a path it holds) was seen with an item. */
	fill(kind: string, list: string): void {
		this.filled.set(kind, (this.filled.get(kind) ?? new Set()).add(list));
	}

	/** The lists of `kind` empty in every event of it (emptyLists). */
	emptyLists(kind: string): string[] {
		return unfilledLists(this.get(kind) ?? [], this.filled.get(kind) ?? new Set());
	}

	/** `path` of `kind` (the kind alone without it), unless MAX_SHAPE_PATHS are held. */
	hold(kind: string, path?: string): boolean {
		let fields = this.get(kind);
		if (!fields) {
			if (!this.room()) return false;
			fields = new Set();
			this.set(kind, fields);
		}
		if (path === undefined || fields.has(path)) return true;
		if (!this.room()) return false;
		fields.add(path);
		return true;
	}

	private room(): boolean {
		if (this.held >= MAX_SHAPE_PATHS) this.full = true;
		else this.held += 1;
		return !this.full;
	}
}

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

/**
 * `PartStartEvent:text`, `PartDeltaEvent:tool_call`, `AgentRuntimeStreamChunk:persisted`, …: a
 * runtime chunk's `type` the emulator never sends is a kind it does not send (shapeName).
 */
export function eventKind(event: StreamEvent): string {
	const { data } = event;
	if (!isObject(data)) return event.event;
	const inner =
		(isObject(data.part) && data.part.part_kind) ||
		(isObject(data.delta) && data.delta.part_delta_kind) ||
		(event.event === 'AgentRuntimeStreamChunk' && data.type);
	return typeof inner === 'string' ? `${event.event}:${shapeName(inner)}` : event.event;
}

/**
 * The signatures of a stream's events; several streams can add to the same map. Each kind's
 * fields are its own: a runtime chunk's by its `type` (`persisted` chunks' `data` is not
 * `status` chunks'), a part's by its kind.
 */
export function signaturesOf(
	events: StreamEvent[],
	into: Signatures = new Signatures(),
): Signatures {
	for (const event of events) {
		// Its JSON was not read: said by refusedEvents, in the node's words.
		if (event.refused !== undefined) continue;
		const kind = eventKind(event);
		if (!into.hold(kind)) break;
		const sink = {
			add: (path: string) => into.hold(kind, path),
			filled: (list: string) => into.fill(kind, list),
		};
		walkShape(event.data, '', 0, freeFormFieldsOf(event.event), false, sink);
	}
	return into;
}

/**
 * Of `paths`, those not under another of them (`a.b` is under `a`, `a[]` and `a{}` too): a
 * field new or left out says what is under it.
 */
function outermost(paths: string[]): string[] {
	const all = new Set(paths);
	return paths.filter((path) => {
		for (let end = path.length - 1; end > 0; end--) {
			const at = path[end];
			if ((at === '.' || at === '[' || at === '{') && all.has(path.slice(0, end))) return false;
		}
		return true;
	});
}

/** What the comparison says when a shape held MAX_SHAPE_PATHS and left more out. */
function tooManyPaths(what: string): string {
	return `${what}: more than ${MAX_SHAPE_PATHS.toLocaleString('en-US')} kinds and fields: the rest were not compared`;
}

/**
 * The most event kinds a reader does not send that the comparison names one by one. The service
 * adding a few kinds at once (a new tool, a new runtime chunk) is a change to read kind by kind;
 * twenty is more than the emulator's 2026 dialect sends in all (twelve). Past it the kinds are
 * made up (a hostile stream can send 2,000: MAX_SHAPE_PATHS), and the rest is one line with its
 * count, so that the report stays readable.
 */
export const MAX_UNSENT_KINDS_NAMED = 20;

/**
 * How a stream seen from the service differs from what a reader knows. `reference` names the
 * reader in the messages. An event kind the reference has that the service did not send is no
 * difference (one small ask does not show every kind); a field missing from a kind both have is,
 * but the fields of the items of a list empty in every event of the kind (emptyLists). Kinds the
 * reader does not send are named up to MAX_UNSENT_KINDS_NAMED.
 */
export function compareSignatures(
	seen: Signatures,
	reference: Signatures,
	referenceName: string,
): string[] {
	// Past the bound, some kinds were left with only part of their fields: none is said missing.
	const differences = seen.full ? [tooManyPaths('stream')] : [];
	const unsent: string[] = [];
	for (const [kind, fields] of seen) {
		const known = reference.get(kind);
		if (!known) {
			unsent.push(`${kind}: an event ${referenceName} does not send`);
			continue;
		}
		differences.push(
			...fieldDifferences(kind, fields, known, referenceName, seen.emptyLists(kind), !seen.full),
		);
	}
	differences.push(
		...namedUpTo(
			unsent,
			(more) => `stream: ${more} more kinds of event ${referenceName} does not send`,
		),
	);
	return differences;
}

/** Of one line for each kind, the first MAX_UNSENT_KINDS_NAMED; the rest one line (`rest`). */
function namedUpTo(lines: string[], rest: (more: string) => string): string[] {
	if (lines.length <= MAX_UNSENT_KINDS_NAMED) return lines;
	const more = (lines.length - MAX_UNSENT_KINDS_NAMED).toLocaleString('en-US');
	return [...lines.slice(0, MAX_UNSENT_KINDS_NAMED), rest(more)];
}

/**
 * What an enumeration's value looks like: one short word. A saved capture keeps such values of
 * its enumeration fields (redact.ts), the comparison prints them; any other is text, its length.
 */
export const ENUMERATION_VALUE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Event kind → the values its `status` field took (`AgentRuntimeStreamChunk:status`: `progress`,
 * …): at most MAX_SHAPE_PATHS values in all, as a stream's fields (a hostile stream can make up
 * a kind or a status in every event); `full` once one was left out.
 */
export class StatusValues extends Map<string, Set<string>> {
	full = false;
	private held = 0;

	/** `value` of `kind`, unless MAX_SHAPE_PATHS values are held. */
	hold(kind: string, value: string): void {
		const values = this.get(kind);
		if (values?.has(value)) return;
		if (this.held >= MAX_SHAPE_PATHS) {
			this.full = true;
			return;
		}
		this.held += 1;
		if (values) values.add(value);
		else this.set(kind, new Set([value]));
	}
}

/**
 * The `status` values of a stream's events, by kind, each one short word or its length (text may
 * be the user's); several streams can add to the same map.
 */
export function statusValuesOf(
	events: StreamEvent[],
	into: StatusValues = new StatusValues(),
): StatusValues {
	for (const event of events) {
		const { data } = event;
		if (!isObject(data) || typeof data.status !== 'string') continue;
		const value = ENUMERATION_VALUE.test(data.status)
			? data.status
			: `[${data.status.length} characters]`;
		into.hold(eventKind(event), value);
	}
	return into;
}

/**
 * The `status` values the service sent that a reader never sends, for each kind: a run's state
 * the node has never been shown. Kinds the reader sends no status of are named up to
 * MAX_UNSENT_KINDS_NAMED, as in compareSignatures; past MAX_SHAPE_PATHS values, one line says
 * so. `skip`: the kinds whose status is read elsewhere (a run's end: its failure is said in the
 * service's words).
 */
export function compareStatusValues(
	seen: StatusValues,
	reference: StatusValues,
	referenceName: string,
	skip: readonly string[] = [],
): string[] {
	const differences = seen.full
		? [
				`stream: more than ${MAX_SHAPE_PATHS.toLocaleString('en-US')} status values: the rest were not compared`,
			]
		: [];
	const unsent: string[] = [];
	for (const [kind, values] of seen) {
		if (skip.includes(kind)) continue;
		const known = reference.get(kind);
		const added = [...values].filter((value) => !known?.has(value));
		if (added.length > 0) {
			const named = added.map((value) => JSON.stringify(value)).join(', ');
			(known ? differences : unsent).push(
				`${kind}: a status ${referenceName} does not send: ${named}`,
			);
		}
	}
	differences.push(
		...namedUpTo(
			unsent,
			(more) => `stream: ${more} more kinds of event with a status ${referenceName} never sends`,
		),
	);
	return differences;
}

/**
 * The event names the service sent that a reader does not know (the node's list): those of the
 * signatures, and of `events` whose JSON was refused (parseEvents), which have none.
 */
export function unknownEventNames(
	seen: Signatures,
	known: readonly string[],
	events: readonly StreamEvent[] = [],
): string[] {
	const names = new Set([...seen.keys()].map((kind) => kind.split(':')[0]));
	for (const { event, refused } of events) if (refused !== undefined) names.add(event);
	return [...names].filter((name) => !known.includes(name)).sort();
}

/**
 * Reads a Server-Sent Events body into its events (the `event:` name, `message` without one; the
 * `data:` lines joined and parsed as JSON where they are JSON, within the node's bound on values:
 * past it, `refused`). Comments and `id:` lines carry nothing here.
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
			parsed = parseJson(joined);
		} catch (error) {
			// Past the node's bound on values, not read (it would be gigabytes of tiny values).
			if (error instanceof TooManyJsonValues) {
				events.push({ event: name, data: '', refused: error.message, dataText: joined });
				continue;
			}
			// Not JSON (`[DONE]`): kept as text.
		}
		events.push({ event: name, data: parsed });
	}
	return events;
}

/**
 * The events whose JSON the node would not read (parseEvents), in its words, one line for each
 * name (with their count when there are several): each is a million characters at least, so
 * the most of a stream the check reads (64 MiB) holds a few dozen.
 */
export function refusedEvents(events: StreamEvent[]): string[] {
	const refused = new Map<string, { reason: string; count: number }>();
	for (const { event, refused: reason } of events) {
		if (reason === undefined) continue;
		const seen = refused.get(event);
		if (seen) seen.count += 1;
		else refused.set(event, { reason, count: 1 });
	}
	return [...refused].map(([event, { reason, count }]) => {
		const which = count > 1 ? `${count.toLocaleString('en-US')} ${event} events` : event;
		return `stream: ${which}: ${reason}`;
	});
}

/**
 * Field paths, at most MAX_SHAPE_PATHS of them: past it none is added and `full` says so. The
 * lists and id-keyed maps seen with an item are kept apart (emptyLists).
 */
export class FieldPaths extends Set<string> {
	full = false;
	readonly filled = new Set<string>();

	override add(path: string): this {
		if (this.size >= MAX_SHAPE_PATHS && !this.has(path)) {
			this.full = true;
			return this;
		}
		return super.add(path);
	}
}

/**
 * The field paths of a JSON answer, every level down to MAX_SHAPE_DEPTH, a list's items as `[]`
 * (all of them together), an id-keyed map's entries as `{}`: `{"models": [{"id"}]}` is
 * `models`, `models[]`, `models[].id`. `freeFormFields`: fields whose value is content, not
 * looked into (an ask's `output`: freeForm.ts); the lists and the catalog have none.
 */
export function jsonShape(
	value: unknown,
	freeFormFields: ReadonlySet<string> = new Set(),
): FieldPaths {
	const into = new FieldPaths();
	const sink = {
		add: (path: string) => !into.add(path).full,
		filled: (list: string) => into.filled.add(list),
	};
	walkShape(value, '', 0, freeFormFields, false, sink);
	return into;
}

/**
 * The lists (and id-keyed maps) of a JSON answer, or of its jsonShape, whose items were never
 * seen, as jsonShape names them (`personas[]`): empty wherever they are
 * (`models[].media_profiles[]` is empty in a chat model, not in an image model). Their items'
 * fields cannot be seen, so cannot be missing.
 */
export function emptyLists(value: unknown): string[] {
	const shape = value instanceof FieldPaths ? value : jsonShape(value);
	return unfilledLists(shape, shape.filled);
}

/** Of `paths`, the lists and id-keyed maps not `filled`: an answer's, or an event kind's. */
function unfilledLists(paths: Iterable<string>, filled: ReadonlySet<string>): string[] {
	return [...paths].filter(
		(path) => (path.endsWith('[]') || path.endsWith('{}')) && !filled.has(path),
	);
}

/**
 * The fields one answer has that the other lacks, both ways, each the outermost that differs;
 * the fields of the items of `empty` lists in the seen answer (emptyLists) are not taken for
 * left out, nor is any field once the seen answer held MAX_SHAPE_PATHS.
 */
export function compareShapes(
	what: string,
	seen: Set<string>,
	reference: Set<string>,
	referenceName: string,
	empty: readonly string[] = [],
): string[] {
	const full = seen instanceof FieldPaths && seen.full;
	return [
		...(full ? [tooManyPaths(what)] : []),
		...fieldDifferences(what, seen, reference, referenceName, empty, !full),
	];
}

/**
 * The fields `seen` has that `reference` lacks, and (`leftOutToo`) those it lacks, each the
 * outermost that differs; the fields of the items of `empty` lists (emptyLists) are not taken
 * for left out. An answer's (compareShapes) and an event kind's (compareSignatures).
 */
function fieldDifferences(
	what: string,
	seen: Set<string>,
	reference: Set<string>,
	referenceName: string,
	empty: readonly string[],
	leftOutToo: boolean,
): string[] {
	const inEmpty = (path: string) =>
		empty.some(
			(list) =>
				path.startsWith(`${list}.`) || path.startsWith(`${list}[`) || path.startsWith(`${list}{`),
		);
	const added = outermost([...seen].filter((path) => !reference.has(path)));
	const missing = outermost([...reference].filter((path) => !seen.has(path) && !inEmpty(path)));
	const differences: string[] = [];
	if (added.length > 0) {
		differences.push(`${what}: fields ${referenceName} does not send: ${added.join(', ')}`);
	}
	if (missing.length > 0 && leftOutToo) {
		differences.push(`${what}: fields the service left out: ${missing.join(', ')}`);
	}
	return differences;
}
