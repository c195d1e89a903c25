import { isObject, type JsonObject as Json } from '../json';
import { HELD_ENTRY_CHARS } from '../limits';
import { mayEndMessage } from './assembly';
import { growArgs, isOutputTool, setArgs, sizeOf } from './outputTool';
import {
	agreesWith,
	argsOf,
	current,
	kindOf,
	nameOf,
	samePart,
	stepOf,
	type AssistantStep,
	type Entry,
	type StepKind,
} from './stepEntry';

export type { AssistantStep } from './stepEntry';

/**
 * What the assistant did on the way to its answer, from its stream (docs/api.md#steps): each
 * tool call, each tool result and (when asked for) each thinking text, in the order they first
 * appeared, each once, whichever events told them and however often.
 */

/**
 * How far back a part without place or id is looked for among the steps: the other telling of
 * the same call is of the same message, a few parts away.
 */
const UNCLAIMED_WINDOW = 32;

export class StepCollector {
	private readonly entries: Entry[] = [];
	/** `<message>:<index>`: a part's position in the turn. */
	private readonly byPosition = new Map<string, Entry>();
	/**
	 * `<kind>:<tool_call_id>`: the latest step told with that id. Only the latest is ever wanted:
	 * providers number calls per response (`bash:0` in each), so an id names one call only within
	 * its model message, and no source tells an earlier message again once a later one began.
	 */
	private readonly byId = new Map<string, Entry>();
	/** The model that wrote the turn's messages, when the stream names it. */
	model: string | undefined;
	/**
	 * The current model message's key, a number of its own: one for each of the assembler's
	 * messages, and one for each a snapshot showed to be new where the assembler saw none (see
	 * `snapshot`).
	 */
	private place = 0;
	private places = 0;
	/** The assembler's message the current place is of. */
	private lastMessage = 0;
	/**
	 * The current place is a message a snapshot alone began (`snapshot`), and neither a Part event
	 * nor a tool round came since: `holdsToolPart`, that snapshot held a part that may end a message.
	 */
	private snapshotOpened: { holdsToolPart: boolean } | undefined;
	/**
	 * The indexes of the current place whose latest start named the output tool: its deltas grow
	 * the answer (outputTool.ts), never a step, also where they grow its name further
	 * (`final_result` then `_Report`: a step of its own would show the answer as `_Report`'s call).
	 */
	private outputStarts = { place: 0, indexes: new Set<number>() };
	/** Characters every step holds (the bound's measure: StreamAnswer). */
	heldLength = 0;

	constructor(private readonly thinking: boolean) {}

	/**
	 * A Part event comes, of the assembler's message `message`; `named`: it names its model
	 * response (2026: `metadata.zmid`). Before the event itself (`part`, the deltas).
	 *
	 * A message a snapshot alone began is, like one a snapshot begins for the text, of no model
	 * response yet: the Part events that follow it go on in it (docs/api.md#steps). Where the
	 * assembler begins its next message at them (it took the snapshot for the message before:
	 * their index was used there, or they name another response), that message is the snapshot's,
	 * unless they name a response and the snapshot held a tool call (the assembler's rule for a
	 * message a snapshot began: the next response comes after it). After a tool round they begin a
	 * message of their own (`responseOver`).
	 */
	partEvent(message: number, named: boolean): void {
		const opened = this.snapshotOpened;
		this.snapshotOpened = undefined;
		if (opened && message !== this.lastMessage && !(named && opened.holdsToolPart)) {
			this.lastMessage = message;
		}
	}

	/** One of the assistant's own tools ran: the model response before it is over. */
	responseOver(): void {
		this.snapshotOpened = undefined;
	}

	/** A part seen in a Part event: its start (`whole` false) or its end (whole). */
	part(message: number, index: number, part: Json, whole: boolean): void {
		const kind = kindOf(part.part_kind);
		if (kind === undefined && whole) {
			// An end may leave out the kind: it is then the start's.
			const known = this.byPosition.get(`${this.placeOf(message)}:${index}`);
			if (known) this.update(known, part, true);
			return;
		}
		const place = this.placeOf(message);
		const position = `${place}:${index}`;
		if (!whole) this.noteOutputStart(place, index, kind, part);
		// A start again for a part the Part events started here: the part told from its beginning.
		const there = whole ? undefined : this.byPosition.get(position);
		const restarted = there?.startedAt === position && there.kind === kind ? there : undefined;
		const entry = restarted ?? this.entryFor(kind, part, position, place);
		if (!entry) return;
		if (restarted) this.restart(restarted, part);
		else if (!whole) entry.startedAt = position;
		this.update(entry, part, whole);
	}

	/**
	 * A start tells its part from its beginning: whether it is the output tool's call now. Only the
	 * current place's are kept (deltas are of the current message), each counted toward the bound.
	 */
	private noteOutputStart(
		place: number,
		index: number,
		kind: StepKind | undefined,
		part: Json,
	): void {
		const starts = this.outputStarts;
		if (starts.place !== place) starts.indexes.clear();
		starts.place = place;
		const name = typeof part.tool_name === 'string' ? part.tool_name : '';
		if (kind !== 'call' || !isOutputTool(name)) starts.indexes.delete(index);
		else if (!starts.indexes.has(index)) {
			starts.indexes.add(index);
			this.heldLength += HELD_ENTRY_CHARS;
		}
	}

	/**
	 * The Part events start again a part they started (a restart, which the assembler takes for
	 * the same response: docs/api.md#assembling-the-answer, 3): told from its beginning, its name,
	 * arguments or text, outcome and id are the start's, and what a whole view (its end, a
	 * snapshot, a tool event) told of it before is no longer the step. `update` then reads the
	 * start.
	 */
	private restart(entry: Entry, part: Json): void {
		entry.whole = undefined;
		entry.wholeSize = 0;
		entry.hasWhole = false;
		entry.toolName = '';
		entry.outcome = undefined;
		// A start without a value tells none yet (its deltas grow one).
		setArgs(entry, undefined);
		const id = typeof part.tool_call_id === 'string' ? part.tool_call_id : '';
		if (id && id !== entry.callId) {
			const key = `${entry.kind}:${entry.callId}`;
			if (this.byId.get(key) === entry) this.byId.delete(key);
			this.setId(entry, id);
		}
	}

	/** More of a part, from a Part delta: thinking text, or a tool call's name and arguments. */
	thinkingDelta(message: number, index: number, text: string, named: boolean): void {
		const place = this.placeOf(message);
		const position = `${place}:${index}`;
		let entry = this.byPosition.get(position);
		if (!entry) {
			// A delta of a part never started is of the kind it names.
			if (!named) return;
			entry = this.entryFor('thinking', {}, position, place);
			if (!entry) return;
		}
		if (entry.kind !== 'thinking') return;
		growArgs(entry, text);
		this.measure(entry);
	}

	toolDelta(message: number, index: number, delta: Json): void {
		const place = this.placeOf(message);
		if (place === this.outputStarts.place && this.outputStarts.indexes.has(index)) return;
		const position = `${place}:${index}`;
		const entry =
			this.byPosition.get(position) ??
			this.entryFor('call', { tool_call_id: delta.tool_call_id }, position, place);
		if (!entry || entry.kind !== 'call') return;
		const id = delta.tool_call_id;
		if (typeof id === 'string' && id && !entry.callId) this.setId(entry, id);
		// pydantic-ai appends a name delta to the name so far, and args text to the text so far.
		if (typeof delta.tool_name_delta === 'string') entry.grownName += delta.tool_name_delta;
		growArgs(entry, delta.args_delta);
		this.measure(entry);
	}

	/**
	 * The entry's size from the sizes its views keep (measuring them whole at every delta was
	 * quadratic), with all else it holds and shows: its call id (held twice, the entry's and the
	 * `byId` key) and its outcome.
	 */
	private measure(entry: Entry): void {
		const size =
			entry.toolName.length +
			entry.grownName.length +
			2 * entry.callId.length +
			(entry.outcome?.length ?? 0) +
			entry.grownSize +
			entry.wholeSize;
		this.heldLength += size - entry.size;
		entry.size = size;
	}

	/**
	 * A snapshot of the current message: every part whole so far, at its index (`kinds`, their
	 * kinds as the assembler reads them). A snapshot whose steps contradict those already at their
	 * places (another call, a thinking text that does not continue) is of a new message, even where
	 * its text could not tell; that message goes on (docs/api.md#steps) through the Part events
	 * that follow it (`partEvent`) and through a snapshot at which the assembler begins its next
	 * message when that snapshot grows the one before it (`grows`: its kinds and text go on from
	 * that one's, AnswerAssembler.snapshotGrewLast) and contradicts none of its steps.
	 */
	snapshot(message: number, parts: unknown[], kinds: string[], grows: boolean): void {
		let place: number;
		if (
			this.snapshotOpened &&
			message !== this.lastMessage &&
			grows &&
			!this.contradicts(this.place, parts)
		) {
			// The assembler took the snapshot before for the message before it: this is that one's.
			this.lastMessage = message;
			place = this.place;
		} else {
			place = this.placeOf(message);
			if (this.contradicts(place, parts)) {
				place = this.newPlace();
				this.snapshotOpened = { holdsToolPart: false };
			}
		}
		// Still of no response: its latest snapshot says whether it holds a tool call.
		if (this.snapshotOpened) this.snapshotOpened.holdsToolPart = kinds.some(mayEndMessage);
		for (let index = 0; index < parts.length; index++) {
			const part = parts[index];
			if (!isObject(part)) continue;
			const kind = kindOf(part.part_kind);
			if (kind === undefined) continue;
			const entry = this.entryFor(kind, part, `${place}:${index}`, place);
			if (entry) this.update(entry, part, true);
		}
	}

	/**
	 * The key of the message the assembler's message `message` is: a new one when the assembler
	 * began it (unless `partEvent` took it for the one a snapshot began).
	 */
	private placeOf(message: number): number {
		if (message !== this.lastMessage) {
			this.lastMessage = message;
			this.snapshotOpened = undefined;
			return this.newPlace();
		}
		return this.place;
	}

	private newPlace(): number {
		this.place = ++this.places;
		return this.place;
	}

	private contradicts(place: number, parts: unknown[]): boolean {
		for (let index = 0; index < parts.length; index++) {
			const part = parts[index];
			const there = this.byPosition.get(`${place}:${index}`);
			if (!there || !isObject(part)) continue;
			const kind = kindOf(part.part_kind);
			if (kind === undefined) continue;
			const id = typeof part.tool_call_id === 'string' ? part.tool_call_id : '';
			const name = typeof part.tool_name === 'string' ? part.tool_name : '';
			if (!samePart(there, kind, id, name)) return true;
			const text = part.content;
			if (kind === 'thinking' && typeof text === 'string' && !agreesWith(there, text)) return true;
		}
		return false;
	}

	/**
	 * A tool call or result told on its own (`FunctionToolCallEvent`, …), whole, after the model
	 * message `message` that called it.
	 */
	toolEvent(message: number, part: Json): void {
		const kind = kindOf(part.part_kind);
		if (kind !== 'call' && kind !== 'result') return;
		const entry = this.entryFor(kind, part, undefined, this.placeOf(message));
		if (!entry) return;
		entry.byEvent = true;
		// The call has run: an event telling its id again is of another call (told only by events).
		if (kind === 'result' && entry.call) entry.call.ran = true;
		this.update(entry, part, true);
	}

	/** The steps, in order; a step that cannot be read is left out. */
	steps(): AssistantStep[] {
		const steps: AssistantStep[] = [];
		for (const entry of this.entries) {
			const step = stepOf(entry);
			if (step) steps.push(step);
		}
		return steps;
	}

	/**
	 * The entry a part belongs to (docs/api.md#steps): the one its call id names, else the one at
	 * its position, else a new one. A part with a position (`place`, the model message, and the
	 * index) and an id is the step of that id in the same message only: one id in two messages is
	 * two calls. A tool event has no position and comes after the message that called the tool: a
	 * call's is the latest call with its id, unless an event already told that call's result (the
	 * call ran: this is the next round's); a result's is the result of the latest call with its
	 * id. Without an id, a tool event tells the earlier step of its name and content that no tool
	 * event told yet (the same call, told by the parts too).
	 */
	private entryFor(
		kind: StepKind | undefined,
		part: Json,
		position: string | undefined,
		place: number,
	) {
		if (kind === undefined) return undefined;
		if (kind === 'thinking' && !this.thinking) return undefined;
		const name = typeof part.tool_name === 'string' ? part.tool_name : '';
		if (kind !== 'thinking' && isOutputTool(name)) return undefined;
		const id = typeof part.tool_call_id === 'string' ? part.tool_call_id : '';
		const call = id && kind === 'result' ? this.byId.get(`call:${id}`) : undefined;
		let entry = id ? this.toldById(kind, id, position, place, call) : undefined;
		if (!entry && position) {
			const there = this.byPosition.get(position);
			if (there && samePart(there, kind, id, name)) entry = there;
		}
		if (!entry && !position && !id) entry = this.unclaimed(kind, name, part);
		if (!entry) {
			entry = {
				kind,
				toolName: '',
				grownName: '',
				callId: '',
				place,
				startedAt: undefined,
				grown: undefined,
				grownSize: 0,
				grownOwned: false,
				whole: undefined,
				wholeSize: 0,
				hasWhole: false,
				byEvent: false,
				ran: false,
				size: 0,
			};
			this.entries.push(entry);
			this.heldLength += HELD_ENTRY_CHARS;
		}
		// A result is its call's: the latest call with its id when it was first told.
		if (call && !entry.call && !call.result) {
			entry.call = call;
			call.result = entry;
		}
		if (position && !this.byPosition.has(position)) {
			// Every place held counts toward the bound, also one of a step found by its id.
			this.heldLength += HELD_ENTRY_CHARS;
		}
		if (position) this.byPosition.set(position, entry);
		if (id && !entry.callId) this.setId(entry, id);
		return entry;
	}

	/**
	 * The step `id` names for a part of `kind` told in model message `place`, at `position` or (a
	 * tool event) at none; `call`, for a result, is the latest call with that id.
	 */
	private toldById(
		kind: StepKind,
		id: string,
		position: string | undefined,
		place: number,
		call: Entry | undefined,
	): Entry | undefined {
		const latest = call?.result ?? this.byId.get(`${kind}:${id}`);
		if (!latest) return undefined;
		// A part tells the step of its id in its own model message only.
		if (position) return latest.place === place ? latest : undefined;
		// An event tells the latest call with its id, unless an event told that call's result.
		if (kind === 'call') return latest.ran ? undefined : latest;
		// An event tells the result of the latest call with its id; of no call, the latest result
		// with its id in this message.
		return latest.call === call && (call !== undefined || latest.place === place)
			? latest
			: undefined;
	}

	/**
	 * The step a part without place or id tells again, among the latest UNCLAIMED_WINDOW: looking
	 * among all of them made a stream of many such parts take quadratic time.
	 */
	private unclaimed(kind: StepKind, name: string, part: Json): Entry | undefined {
		const told = JSON.stringify(kind === 'call' ? argsOf(part.args) : part.content);
		for (
			let i = Math.max(0, this.entries.length - UNCLAIMED_WINDOW);
			i < this.entries.length;
			i++
		) {
			const entry = this.entries[i];
			if (
				entry.kind === kind &&
				!entry.byEvent &&
				nameOf(entry) === name &&
				JSON.stringify(kind === 'call' ? argsOf(current(entry)) : current(entry)) === told
			) {
				return entry;
			}
		}
		return undefined;
	}

	private setId(entry: Entry, id: string): void {
		entry.callId = id;
		this.byId.set(`${entry.kind}:${id}`, entry);
	}

	/** The part's fields, as its source tells them: a whole view replaces the last whole view. */
	private update(entry: Entry, part: Json, whole: boolean): void {
		const name = typeof part.tool_name === 'string' ? part.tool_name : '';
		// A start tells the part from its beginning, its name too: a start again that names no
		// tool leaves the name to its `tool_name_delta`s, not appended to the old one.
		if (!whole) entry.grownName = name;
		else if (name) entry.toolName = name;
		if (typeof part.outcome === 'string' && part.outcome) entry.outcome = part.outcome;
		// The call did not succeed: the model is asked to try again.
		else if (part.part_kind === 'retry-prompt') entry.outcome ??= 'error';
		const value = entry.kind === 'call' ? part.args : part.content;
		if (value !== undefined && whole) {
			entry.whole = value;
			entry.wholeSize = sizeOf(value);
			entry.hasWhole = true;
		} else if (value !== undefined) {
			setArgs(entry, value);
		}
		// Without a value too: its name, id or outcome may have grown.
		this.measure(entry);
	}
}
