import { isObject, objectOfJson, type JsonObject as Json } from '../json';

/**
 * pydantic-ai's output tool (docs/api.md#structured-output-in-a-stream): with a structured output,
 * the framework may have the model call a tool named `final_result` (or `final_result_<Name>`)
 * whose arguments are the object, as JSON text or an object, whole in the part or grown through
 * `args_delta`. It carries the answer, not something the assistant did: it is never a step.
 */

/**
 * A tool call's arguments after an `args_delta`, as pydantic-ai grows them: text is appended to
 * the text so far, an object merged into the object so far; anything else changes nothing.
 */
export function grownArgs(args: unknown, delta: unknown): unknown {
	if (typeof delta === 'string') return (typeof args === 'string' ? args : '') + delta;
	if (isObject(delta)) return { ...(isObject(args) ? args : {}), ...delta };
	return args;
}

export function isOutputTool(name: string): boolean {
	return name === 'final_result' || name.startsWith('final_result_');
}

interface Call {
	name: string;
	/** An object, or the JSON text of one so far. */
	args: unknown;
}

/** The output tool's calls of one stream, by the position of their parts. */
export class OutputToolCalls {
	private readonly calls: Call[] = [];
	/** Part index -> call, in the current model message (indexes start again in each). */
	private byIndex = new Map<number, Call>();
	private message = 0;

	/** A tool-call part's start (`whole` false) or end (whole: its arguments replace the grown ones). */
	part(message: number, index: number, part: Json, whole: boolean): void {
		const call = this.at(message, index);
		if (typeof part.tool_name === 'string' && part.tool_name) call.name = part.tool_name;
		const args = part.args;
		if (args === undefined || args === null || args === '') return;
		if (whole || call.args === undefined || call.args === '') call.args = args;
	}

	/** A `tool_call` delta: the name grows by `tool_name_delta`, the arguments by `args_delta`. */
	delta(message: number, index: number, delta: Json): void {
		const call = this.at(message, index);
		if (typeof delta.tool_name_delta === 'string') call.name += delta.tool_name_delta;
		call.args = grownArgs(call.args, delta.args_delta);
	}

	/** Characters the calls' arguments hold as text, for the answer's bound. */
	get heldLength(): number {
		let held = 0;
		for (const call of this.calls) if (typeof call.args === 'string') held += call.args.length;
		return held;
	}

	/** The object of the last output-tool call whose arguments are one, if any. */
	object(): Json | undefined {
		for (let i = this.calls.length - 1; i >= 0; i--) {
			const { name, args } = this.calls[i];
			if (!isOutputTool(name)) continue;
			const object = objectOfJson(args);
			if (object) return object;
		}
		return undefined;
	}

	private at(message: number, index: number): Call {
		if (message !== this.message) {
			this.message = message;
			this.byIndex = new Map();
		}
		let call = this.byIndex.get(index);
		if (!call) {
			call = { name: '', args: undefined };
			this.byIndex.set(index, call);
			this.calls.push(call);
		}
		return call;
	}
}
