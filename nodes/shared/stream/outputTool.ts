import type { OutputFormatSchema } from '../api';
import { isObject, objectOfJson, type JsonObject as Json } from '../json';
import { HELD_ENTRY_CHARS } from '../limits';
import { fitsAnswerSchema } from '../outputFormat/answerSchema';

/**
 * pydantic-ai's output tool (docs/api.md#structured-output-in-a-stream): with a structured output,
 * the framework may have the model call a tool named `final_result` (or `final_result_<Name>`)
 * whose arguments are the object, as JSON text or an object, whole in the part or grown through
 * `args_delta`. It carries the answer, not something the assistant did: it is never a step.
 */

/** A tool call's arguments as they grow, with the characters they hold (for the answer's bound). */
export interface GrowingArgs {
	/** The arguments so far: an object, or the JSON text of one so far (a thinking step: its text). */
	grown: unknown;
	grownSize: number;
	/** `grown` is an object made here, merged into in place from then on. */
	grownOwned: boolean;
}

/**
 * Grows the arguments by an `args_delta` as pydantic-ai grows them: text is appended to the text
 * so far, an object merged into the object so far; anything else changes nothing. The object is
 * copied once and then merged into in place, and the size kept as it grows: copying and measuring
 * it whole at every delta made a stream of many deltas take quadratic time.
 */
export function growArgs(args: GrowingArgs, delta: unknown): void {
	if (typeof delta === 'string') {
		const text = (typeof args.grown === 'string' ? args.grown : '') + delta;
		args.grown = text;
		args.grownSize = text.length;
		args.grownOwned = false;
	} else if (isObject(delta)) {
		if (!args.grownOwned || !isObject(args.grown)) {
			args.grown = { ...(isObject(args.grown) ? args.grown : {}) };
			args.grownSize = sizeOf(args.grown);
			args.grownOwned = true;
		}
		const grown = args.grown as Json;
		// Defined, not assigned: a "__proto__" key is a field like any other.
		for (const key of Object.keys(delta)) {
			Object.defineProperty(grown, key, {
				value: delta[key],
				enumerable: true,
				writable: true,
				configurable: true,
			});
		}
		args.grownSize += sizeOf(delta);
	}
}

/** The arguments told whole (a part's start or end): what grew before is replaced. */
export function setArgs(args: GrowingArgs, value: unknown): void {
	args.grown = value;
	args.grownSize = sizeOf(value);
	args.grownOwned = false;
}

/** Characters a view holds: a text's length, an object's as JSON. */
export function sizeOf(value: unknown): number {
	if (value === undefined || value === null) return 0;
	if (typeof value === 'string') return value.length;
	return JSON.stringify(value)?.length ?? 0;
}

export function isOutputTool(name: string): boolean {
	return name === 'final_result' || name.startsWith('final_result_');
}

/**
 * The answer among the output tool's calls of one model message, given in their order as their
 * arguments' objects (undefined: no object): the first that matches the ask's schema, as
 * pydantic-ai's default end strategy ('early') takes the first call that validates and answers
 * the later ones "Output tool not used - a final result was already processed."; when none
 * matches (or no schema is known), the first object, so that the mismatch error names it. The
 * stream and a conversation read after a failure both choose by it.
 */
export function chosenOutputObject(
	objects: Iterable<Json | undefined>,
	schema: OutputFormatSchema | undefined,
): Json | undefined {
	let first: Json | undefined;
	for (const object of objects) {
		if (!object) continue;
		if (!schema || fitsAnswerSchema(object, schema)) return object;
		first ??= object;
	}
	return first;
}

/**
 * One output-tool call as two tellings: the Part events' (`name` and the GrowingArgs: a start,
 * its deltas, an end) and the latest snapshot's (`toldName`, `toldArgs`), each kept whole, so
 * that deltas go on from where the Part events stood whichever way a snapshot lagged or led.
 */
interface Call extends GrowingArgs {
	name: string;
	toldName: string;
	/** undefined: no snapshot told arguments. */
	toldArgs: unknown;
	toldSize: number;
	/** A snapshot told the call after its last Part event (the later telling, if they differ). */
	toldLast: boolean;
	/** Characters counted for it in `held`. */
	size: number;
}

/**
 * Of a call's two tellings of a text (its name, its arguments' JSON), the one that goes further
 * when one continues the other; else the later. Compared once, when the answer is read.
 */
function fuller(parts: string, told: string, toldLast: boolean): string {
	if (parts.length >= told.length ? parts.startsWith(told) : told.startsWith(parts)) {
		return parts.length >= told.length ? parts : told;
	}
	return toldLast ? told : parts;
}

function callName(call: Call): string {
	if (!call.toldName) return call.name;
	if (!call.name) return call.toldName;
	return fuller(call.name, call.toldName, call.toldLast);
}

function callArgs(call: Call): unknown {
	const { grown, toldArgs } = call;
	if (toldArgs === undefined) return grown;
	if (grown === undefined) return toldArgs;
	if (typeof grown === 'string' && typeof toldArgs === 'string') {
		return fuller(grown, toldArgs, call.toldLast);
	}
	return call.toldLast ? toldArgs : grown;
}

/**
 * The output tool's calls of the current model message, by the position of their parts. Only
 * they can be the answer (object()): a call whose part was started again as another kind, or
 * whose message is over, is dropped, so that everything held is counted toward the bound.
 */
export class OutputToolCalls {
	/** Part index -> call, in the current model message (indexes start again in each). */
	private byIndex = new Map<number, Call>();
	private message = 0;
	/**
	 * Characters the calls in `byIndex` hold, their names and arguments (each call's longer
	 * telling of each), for the answer's bound: kept as they change, never summed.
	 */
	private held = 0;

	/**
	 * A tool-call part's start (`whole` false) or end (whole), told by the Part events. A start
	 * tells the part from its beginning: one again for an index of the same message (the
	 * assembler's count: a restart it takes for the same response, assembly.ts) replaces what the
	 * part held, its name too (a start that names no tool leaves the name to grow again through
	 * `tool_name_delta`), as a text part's does, so that what is told again is not appended
	 * twice. An end repeats the part whole: its name and arguments replace the grown ones, and an
	 * end without any leaves them.
	 */
	part(message: number, index: number, part: Json, whole: boolean): void {
		const call = this.at(message, index);
		const name = typeof part.tool_name === 'string' ? part.tool_name : '';
		if (name || !whole) call.name = name;
		const args = part.args;
		const none = args === undefined || args === null || args === '';
		if (!none || !whole) setArgs(call, none ? undefined : args);
		call.toldLast = false;
		this.measure(call);
	}

	/**
	 * Part `index` of the message started again as another kind of part (text, thinking): the
	 * call it was is no longer in the message (docs/api.md#assembling-the-answer, rule 3).
	 */
	otherPart(message: number, index: number): void {
		if (message !== this.message) return;
		const call = this.byIndex.get(index);
		if (!call) return;
		this.byIndex.delete(index);
		this.held -= call.size;
	}

	/**
	 * A snapshot of the current message: each tool-call part told whole so far, as the snapshot's
	 * telling of the call beside the Part events' (docs/api.md#structured-output-in-a-stream): a
	 * snapshot that lags behind the Part events, repeats them or leads them adds nothing twice,
	 * and the deltas after it go on from where the Part events stood, not from its end.
	 */
	snapshot(message: number, parts: unknown[]): void {
		for (let index = 0; index < parts.length; index++) {
			const part = parts[index];
			if (!isObject(part) || part.part_kind !== 'tool-call') continue;
			const call = this.at(message, index);
			if (typeof part.tool_name === 'string' && part.tool_name) call.toldName = part.tool_name;
			const { args } = part;
			if (args !== undefined && args !== null && args !== '') {
				call.toldArgs = args;
				call.toldSize = sizeOf(args);
			}
			call.toldLast = true;
			this.measure(call);
		}
	}

	/** A `tool_call` delta: the name grows by `tool_name_delta`, the arguments by `args_delta`. */
	delta(message: number, index: number, delta: Json): void {
		const call = this.at(message, index);
		// The name is held as it grows, counted as the arguments are: a stream may grow it forever.
		if (typeof delta.tool_name_delta === 'string') call.name += delta.tool_name_delta;
		growArgs(call, delta.args_delta);
		call.toldLast = false;
		this.measure(call);
	}

	/** Characters the calls hold (each counting HELD_ENTRY_CHARS besides), for the bound. */
	get heldLength(): number {
		return this.held + this.byIndex.size * HELD_ENTRY_CHARS;
	}

	/**
	 * The answer among the output-tool calls of model message `message`, in their parts' order
	 * (chosenOutputObject), if any: a call in an earlier message, before a tool round, was not the
	 * run's answer.
	 */
	object(message: number, schema: OutputFormatSchema | undefined): Json | undefined {
		return chosenOutputObject(
			this.outputArguments(message).map((args) => objectOfJson(args)),
			schema,
		);
	}

	/**
	 * The arguments of the first output-tool call of model message `message` that has any, as text
	 * (JSON for a value that is not): what the assistant gave as its answer when object() found
	 * no object in them, so that the error can quote it.
	 */
	arguments(message: number): string | undefined {
		const args = this.outputArguments(message).find((told) => told !== undefined);
		return args === undefined || typeof args === 'string' ? args : JSON.stringify(args);
	}

	/** The arguments of the output tool's calls of model message `message`, in part order. */
	private outputArguments(message: number): unknown[] {
		if (message !== this.message) return [];
		return [...this.byIndex.keys()]
			.sort((a, b) => a - b)
			.map((index) => this.byIndex.get(index) as Call)
			.filter((call) => isOutputTool(callName(call)))
			.map(callArgs);
	}

	private at(message: number, index: number): Call {
		if (message !== this.message) {
			// The calls of the message before are no answer (object()): none is held.
			this.message = message;
			this.byIndex = new Map();
			this.held = 0;
		}
		let call = this.byIndex.get(index);
		if (!call) {
			call = {
				name: '',
				grown: undefined,
				grownSize: 0,
				grownOwned: false,
				toldName: '',
				toldArgs: undefined,
				toldSize: 0,
				toldLast: false,
				size: 0,
			};
			this.byIndex.set(index, call);
		}
		return call;
	}

	/**
	 * The call's size, from the sizes its tellings keep (measuring them whole at every delta would
	 * be quadratic).
	 */
	private measure(call: Call): void {
		const size =
			Math.max(call.name.length, call.toldName.length) + Math.max(call.grownSize, call.toldSize);
		this.held += size - call.size;
		call.size = size;
	}
}
