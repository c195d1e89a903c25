import { isOutputTool } from './outputTool';
import { isObject } from '../json';

/**
 * What the assistant did on the way to its answer, from its stream (docs/api.md#steps): each
 * tool call, each tool result and (when asked for) each thinking text, in the order they first
 * appeared, each once, whichever events told them and however often.
 */

/** One thing the assistant did, as an output item shows it. */
export type AssistantStep =
	| {
			type: 'tool_call';
			tool_name: string;
			args: Record<string, unknown>;
			tool_call_id: string | null;
	  }
	| {
			type: 'tool_result';
			tool_name: string;
			tool_call_id: string | null;
			content: unknown;
			/** Whether the tool succeeded, where the stream says (2026: `success` or `error`). */
			outcome?: string;
	  }
	| { type: 'thinking'; content: string };

type Json = Record<string, unknown>;

type StepKind = 'call' | 'result' | 'thinking';

/** pydantic-ai's part kinds, by what they are for the steps. */
const KINDS: Record<string, StepKind> = {
	'tool-call': 'call',
	'builtin-tool-call': 'call',
	'tool-return': 'result',
	'builtin-tool-return': 'result',
	thinking: 'thinking',
};

/**
 * One step as its sources told it. Each source has its own view (the Part events build a part
 * from its start and deltas, a snapshot or an end repeats it whole), so that a piece told by two
 * sources is never taken twice: the step is the most complete view.
 */
interface Entry {
	kind: StepKind;
	toolName: string;
	callId: string;
	/** Start and deltas: the arguments (object, or JSON text so far), or the thinking text. */
	grown: unknown;
	/** The latest whole view: a part's end, a snapshot, a tool event. */
	whole: unknown;
	hasWhole: boolean;
	/** A tool event has told this step (tool events carry no position: see `fromToolEvent`). */
	byEvent: boolean;
	/** A result's `outcome`, when told. */
	outcome?: string;
	/** Characters it holds (name, grown and whole views), for the bound. */
	size: number;
}

/** Characters a view holds: a text's length, an object's as JSON. */
function sizeOf(value: unknown): number {
	if (value === undefined || value === null) return 0;
	if (typeof value === 'string') return value.length;
	return JSON.stringify(value)?.length ?? 0;
}

export class StepCollector {
	private readonly entries: Entry[] = [];
	/** `<message>:<index>`: a part's position in the turn. */
	private readonly byPosition = new Map<string, Entry>();
	/** `<kind>:<tool_call_id>`. */
	private readonly byId = new Map<string, Entry>();
	/** The model that wrote the turn's messages, when the stream names it. */
	model: string | undefined;
	/** Messages a snapshot showed to be new where the assembler saw none (see `snapshot`). */
	private split = 0;
	private lastMessage = 0;
	/** Characters every step holds (the bound's measure: StreamAnswer). */
	heldLength = 0;

	constructor(private readonly thinking: boolean) {}

	/** A part seen in a Part event: its start (`whole` false) or its end (whole). */
	part(message: number, index: number, part: Json, whole: boolean): void {
		const kind = kindOf(part.part_kind);
		if (kind === undefined && whole) {
			// An end may leave out the kind: it is then the start's.
			const known = this.byPosition.get(`${this.placeOf(message)}:${index}`);
			if (known) this.update(known, part, true);
			return;
		}
		const entry = this.entryFor(kind, part, `${this.placeOf(message)}:${index}`);
		if (entry) this.update(entry, part, whole);
	}

	/** More of a part, from a Part delta: thinking text, or a tool call's name and arguments. */
	thinkingDelta(message: number, index: number, text: string, named: boolean): void {
		const position = `${this.placeOf(message)}:${index}`;
		let entry = this.byPosition.get(position);
		if (!entry) {
			// A delta of a part never started is of the kind it names.
			if (!named) return;
			entry = this.entryFor('thinking', {}, position);
			if (!entry) return;
		}
		if (entry.kind !== 'thinking') return;
		entry.grown = (typeof entry.grown === 'string' ? entry.grown : '') + text;
		this.measure(entry);
	}

	toolDelta(message: number, index: number, delta: Json): void {
		const position = `${this.placeOf(message)}:${index}`;
		const entry =
			this.byPosition.get(position) ??
			this.entryFor('call', { tool_call_id: delta.tool_call_id }, position);
		if (!entry || entry.kind !== 'call') return;
		const id = delta.tool_call_id;
		if (typeof id === 'string' && id && !entry.callId) this.setId(entry, id);
		// pydantic-ai appends a name delta to the name so far, and args text to the text so far.
		if (typeof delta.tool_name_delta === 'string') entry.toolName += delta.tool_name_delta;
		const args = delta.args_delta;
		if (typeof args === 'string') {
			entry.grown = (typeof entry.grown === 'string' ? entry.grown : '') + args;
		} else if (isObject(args)) {
			entry.grown = { ...(isObject(entry.grown) ? entry.grown : {}), ...args };
		}
		this.measure(entry);
	}

	private measure(entry: Entry): void {
		const size = entry.toolName.length + sizeOf(entry.grown) + sizeOf(entry.whole);
		this.heldLength += size - entry.size;
		entry.size = size;
	}

	/**
	 * A snapshot of the current message: every part whole so far, at its index. A snapshot whose
	 * steps contradict those already at their places (another call, a thinking text that does not
	 * continue) is of a new message, even where its text could not tell.
	 */
	snapshot(message: number, parts: unknown[]): void {
		if (this.contradicts(this.placeOf(message), parts)) this.split++;
		const place = this.placeOf(message);
		for (let index = 0; index < parts.length; index++) {
			const part = parts[index];
			if (!isObject(part)) continue;
			const kind = kindOf(part.part_kind);
			if (kind === undefined) continue;
			const entry = this.entryFor(kind, part, `${place}:${index}`);
			if (entry) this.update(entry, part, true);
		}
	}

	/** A message's key: the assembler's count, and the new messages its snapshots showed. */
	private placeOf(message: number): string {
		if (message !== this.lastMessage) {
			this.lastMessage = message;
			this.split = 0;
		}
		return `${message}.${this.split}`;
	}

	private contradicts(place: string, parts: unknown[]): boolean {
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
			const known = current(there);
			if (kind === 'thinking' && typeof text === 'string' && typeof known === 'string') {
				if (!text.startsWith(known) && !known.startsWith(text)) return true;
			}
		}
		return false;
	}

	/** A tool call or result told on its own (`FunctionToolCallEvent`, …), whole. */
	toolEvent(part: Json): void {
		const kind = kindOf(part.part_kind);
		if (kind !== 'call' && kind !== 'result') return;
		const entry = this.entryFor(kind, part, undefined);
		if (!entry) return;
		entry.byEvent = true;
		this.update(entry, part, true);
	}

	/** The steps, in order; a step that cannot be read is left out. */
	steps(): AssistantStep[] {
		const steps: AssistantStep[] = [];
		const callNames = new Map<string, string>();
		for (const entry of this.entries) {
			if (entry.kind === 'call' && entry.toolName && entry.callId) {
				callNames.set(entry.callId, entry.toolName);
			}
		}
		for (const entry of this.entries) {
			const step = stepOf(entry, callNames);
			if (step) steps.push(step);
		}
		return steps;
	}

	/**
	 * The entry a part belongs to: the one with its call id, else the one at its position, else a
	 * new one. A tool event has no position: without an id, it is the earlier step of its name and
	 * content that no tool event told yet (the same call, told by the parts too).
	 */
	private entryFor(kind: StepKind | undefined, part: Json, position: string | undefined) {
		if (kind === undefined) return undefined;
		if (kind === 'thinking' && !this.thinking) return undefined;
		const name = typeof part.tool_name === 'string' ? part.tool_name : '';
		if (kind !== 'thinking' && isOutputTool(name)) return undefined;
		const id = typeof part.tool_call_id === 'string' ? part.tool_call_id : '';
		let entry = id ? this.byId.get(`${kind}:${id}`) : undefined;
		if (!entry && position) {
			const there = this.byPosition.get(position);
			if (there && samePart(there, kind, id, name)) entry = there;
		}
		if (!entry && !position && !id) entry = this.unclaimed(kind, name, part);
		if (!entry) {
			entry = {
				kind,
				toolName: '',
				callId: '',
				grown: undefined,
				whole: undefined,
				hasWhole: false,
				byEvent: false,
				size: 0,
			};
			this.entries.push(entry);
		}
		if (position) this.byPosition.set(position, entry);
		if (id && !entry.callId) this.setId(entry, id);
		return entry;
	}

	private unclaimed(kind: StepKind, name: string, part: Json): Entry | undefined {
		const told = JSON.stringify(kind === 'call' ? argsOf(part.args) : part.content);
		return this.entries.find(
			(entry) =>
				entry.kind === kind &&
				!entry.byEvent &&
				entry.toolName === name &&
				JSON.stringify(kind === 'call' ? argsOf(current(entry)) : current(entry)) === told,
		);
	}

	private setId(entry: Entry, id: string): void {
		entry.callId = id;
		this.byId.set(`${entry.kind}:${id}`, entry);
	}

	/** The part's fields, as its source tells them: a whole view replaces the last whole view. */
	private update(entry: Entry, part: Json, whole: boolean): void {
		if (typeof part.tool_name === 'string' && part.tool_name) entry.toolName = part.tool_name;
		if (typeof part.outcome === 'string' && part.outcome) entry.outcome = part.outcome;
		const value = entry.kind === 'call' ? part.args : part.content;
		if (value === undefined) return;
		if (whole) {
			entry.whole = value;
			entry.hasWhole = true;
		} else {
			entry.grown = value;
		}
		this.measure(entry);
	}
}

/**
 * Whether a part at a step's place is that step: the same kind, and neither another call id nor
 * another tool (a name may still be growing). Where the stream shows no message boundary, two
 * calls at the same index are told apart so.
 */
function samePart(entry: Entry, kind: StepKind, id: string, name: string): boolean {
	if (entry.kind !== kind) return false;
	if (id && entry.callId && id !== entry.callId) return false;
	if (!name || !entry.toolName) return true;
	return name.startsWith(entry.toolName) || entry.toolName.startsWith(name);
}

/** The most complete view: the whole one, unless what grew goes beyond it. */
function current(entry: Entry): unknown {
	if (!entry.hasWhole) return entry.grown;
	if (typeof entry.whole === 'string' && typeof entry.grown === 'string') {
		return entry.grown.length > entry.whole.length && entry.grown.startsWith(entry.whole)
			? entry.grown
			: entry.whole;
	}
	if (entry.kind === 'call' && argsOf(entry.whole) === undefined) return entry.grown;
	return entry.whole;
}

function stepOf(entry: Entry, callNames: Map<string, string>): AssistantStep | undefined {
	const value = current(entry);
	const callId = entry.callId || null;
	switch (entry.kind) {
		case 'thinking':
			return typeof value === 'string' && value ? { type: 'thinking', content: value } : undefined;
		case 'call': {
			if (!entry.toolName || isOutputTool(entry.toolName)) return undefined;
			const args = argsOf(value) ?? invalidArgs(value);
			if (!args) return undefined;
			return { type: 'tool_call', tool_name: entry.toolName, args, tool_call_id: callId };
		}
		case 'result': {
			// A result that does not name its tool is its call's.
			const name = entry.toolName || (entry.callId ? callNames.get(entry.callId) : undefined);
			if (!name || isOutputTool(name)) return undefined;
			const step: AssistantStep = {
				type: 'tool_result',
				tool_name: name,
				tool_call_id: callId,
				content: value === undefined ? null : value,
			};
			if (entry.outcome) step.outcome = entry.outcome;
			return step;
		}
	}
}

/** Arguments as an object: an object, JSON text of one, or none at all (`{}`). */
function argsOf(value: unknown): Record<string, unknown> | undefined {
	if (value === undefined || value === null || value === '') return {};
	if (isObject(value)) return value;
	if (typeof value !== 'string') return undefined;
	try {
		const parsed: unknown = JSON.parse(value);
		return isObject(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/** Arguments text that is not a JSON object: kept as text, as pydantic-ai itself does. */
function invalidArgs(value: unknown): Record<string, unknown> | undefined {
	return typeof value === 'string' ? { INVALID_JSON: value } : undefined;
}

function kindOf(kind: unknown): StepKind | undefined {
	return typeof kind === 'string' ? KINDS[kind] : undefined;
}
