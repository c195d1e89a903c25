import { HELD_ENTRY_CHARS } from '../limits';
import { isObject, parseJson, type JsonObject as Json } from '../json';

/**
 * The calls a tool round ran (`FunctionToolCallEvent`), by `tool_call_id`, while the message that
 * made them is the current one: a call that ran is whole, its name and arguments can no longer
 * change. So a snapshot after the round that tells a call with the same id but another name or
 * other arguments is not that message told again: it is the next one, whose provider numbers its
 * calls from 0 again (`bash:0` in every response; docs/api.md#assembling-the-answer, 3).
 */
export class RanCalls {
	/** `tool_call_id` -> the call's name and arguments as one text (callKey). */
	private readonly calls = new Map<string, string>();
	/** Characters held (ids and keys, and HELD_ENTRY_CHARS a call), for the answer's bound. */
	heldLength = 0;

	ran(part: Json): void {
		const id = part.tool_call_id;
		const key = callKey(part);
		if (typeof id !== 'string' || !id || key === undefined) return;
		const before = this.calls.get(id);
		if (before !== undefined) this.heldLength -= id.length + before.length + HELD_ENTRY_CHARS;
		this.calls.set(id, key);
		this.heldLength += id.length + key.length + HELD_ENTRY_CHARS;
	}

	/** A snapshot's part tells a call that ran with another name or other arguments. */
	contradictedBy(parts: unknown[] | undefined): boolean {
		if (!parts || this.calls.size === 0) return false;
		return parts.some((part) => {
			if (!isObject(part) || typeof part.tool_call_id !== 'string') return false;
			const ran = this.calls.get(part.tool_call_id);
			if (ran === undefined) return false;
			const key = callKey(part);
			return key !== undefined && key !== ran;
		});
	}

	/** A new message began: the round's calls were the message before's. */
	clear(): void {
		this.calls.clear();
		this.heldLength = 0;
	}
}

/**
 * A call's name and arguments as one text, the arguments as JSON whether they came as an object
 * or as its JSON text; undefined when the part names no tool or has no arguments (nothing to
 * compare).
 */
function callKey(part: Json): string | undefined {
	const { tool_name: name, args } = part;
	if (typeof name !== 'string' || !name) return undefined;
	if (args === undefined || args === null || args === '') return undefined;
	let value: unknown = args;
	if (typeof args === 'string') {
		try {
			value = parseJson(args);
		} catch {
			value = args;
		}
	}
	return `${name}\u0000${JSON.stringify(value)}`;
}
