import { isOutputTool, type GrowingArgs } from './outputTool';
import { objectOfJson } from '../json';

/**
 * One step of the assistant's turn as the stream's sources told it, and how it reads as the step
 * an output item shows (docs/api.md#steps): the pure part of steps.ts.
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

export type StepKind = 'call' | 'result' | 'thinking';

/** pydantic-ai's part kinds, by what they are for the steps. */
export const KINDS: Record<string, StepKind> = {
	'tool-call': 'call',
	'builtin-tool-call': 'call',
	'tool-return': 'result',
	'builtin-tool-return': 'result',
	// pydantic-ai's answer to a call whose arguments did not fit, or whose tool asked to try again.
	'retry-prompt': 'result',
	thinking: 'thinking',
};

/**
 * One step as its sources told it. Each source has its own view (the Part events build a part
 * from its start and deltas, a snapshot or an end repeats it whole), so that a piece told by two
 * sources is never taken twice: the step is the most complete view.
 */
export interface Entry extends GrowingArgs {
	kind: StepKind;
	/** The name as the whole views tell it (an end, a snapshot, a tool event). */
	toolName: string;
	/** The name as the Part events grow it: a start's, and its `tool_name_delta`s. */
	grownName: string;
	callId: string;
	/** The model message it was first told in (StepCollector's key): where its call id names it. */
	place: number;
	/**
	 * Where (StepCollector's `<message>:<index>`) the Part events started its part: a start there
	 * again starts it again, from its beginning.
	 */
	startedAt: string | undefined;
	// `grown` (GrowingArgs): start and deltas, the arguments so far or the thinking text.
	/** The latest whole view: a part's end, a snapshot, a tool event. */
	whole: unknown;
	wholeSize: number;
	hasWhole: boolean;
	/** A tool event has told this step (tool events carry no position: StepCollector.toolEvent). */
	byEvent: boolean;
	/** A call whose result a tool event told: it ran, and its round is over. */
	ran: boolean;
	/** A call's result, and a result's call: the latest call with its id when it was told. */
	result?: Entry;
	call?: Entry;
	/** A result's `outcome`, when told. */
	outcome?: string;
	/** Characters it holds (name, grown and whole views), for the bound. */
	size: number;
}

/**
 * Whether a part at a step's place is that step: the same kind, and neither another call id nor
 * another tool (a name may still be growing). Where the stream shows no message boundary, two
 * calls at the same index are told apart so.
 */
export function samePart(entry: Entry, kind: StepKind, id: string, name: string): boolean {
	if (entry.kind !== kind) return false;
	if (id && entry.callId && id !== entry.callId) return false;
	const known = nameOf(entry);
	if (!name || !known) return true;
	return name.startsWith(known) || known.startsWith(name);
}

/**
 * The most complete name, as `current` is the most complete value: the whole views' name, unless
 * the one the Part events grew goes beyond it.
 */
export function nameOf(entry: Entry): string {
	const { toolName, grownName } = entry;
	if (!toolName) return grownName;
	return grownName.length > toolName.length && grownName.startsWith(toolName)
		? grownName
		: toolName;
}

/** The most complete view: the whole one, unless what grew goes beyond it. */
export function current(entry: Entry): unknown {
	if (!entry.hasWhole) return entry.grown;
	if (typeof entry.whole === 'string' && typeof entry.grown === 'string') {
		return entry.grown.length > entry.whole.length && entry.grown.startsWith(entry.whole)
			? entry.grown
			: entry.whole;
	}
	if (entry.kind === 'call' && argsOf(entry.whole) === undefined) return entry.grown;
	return entry.whole;
}

/**
 * Whether a thinking text told whole (a snapshot's) and the step's text are one the beginning of
 * the other, comparing no more characters than `text` has: a snapshot of a few characters beside
 * a step of millions costs a few characters (docs/api.md#steps). Up to the whole view's length,
 * the step's text is the whole view's, whichever view is current.
 */
export function agreesWith(entry: Entry, text: string): boolean {
	const { whole } = entry;
	if (entry.hasWhole && typeof whole === 'string' && text.length <= whole.length) {
		return whole.startsWith(text);
	}
	// Beyond that, working out the current view compares fewer characters than `text` has.
	const known = current(entry);
	if (typeof known !== 'string') return true;
	return text.length <= known.length ? known.startsWith(text) : text.startsWith(known);
}

export function stepOf(entry: Entry): AssistantStep | undefined {
	const value = current(entry);
	const callId = entry.callId || null;
	switch (entry.kind) {
		case 'thinking':
			return typeof value === 'string' && value ? { type: 'thinking', content: value } : undefined;
		case 'call': {
			const name = nameOf(entry);
			if (!name || isOutputTool(name)) return undefined;
			const args = argsOf(value) ?? invalidArgs(value);
			if (!args) return undefined;
			return { type: 'tool_call', tool_name: name, args, tool_call_id: callId };
		}
		case 'result': {
			// A result that does not name its tool is its call's.
			const name = nameOf(entry) || (entry.call ? nameOf(entry.call) : undefined);
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
export function argsOf(value: unknown): Record<string, unknown> | undefined {
	if (value === undefined || value === null || value === '') return {};
	return objectOfJson(value);
}

/** Arguments text that is not a JSON object: kept as text, as pydantic-ai itself does. */
function invalidArgs(value: unknown): Record<string, unknown> | undefined {
	return typeof value === 'string' ? { INVALID_JSON: value } : undefined;
}

export function kindOf(kind: unknown): StepKind | undefined {
	return typeof kind === 'string' ? KINDS[kind] : undefined;
}
