import { isObject, parseJsonObject, type JsonObject as Json } from '../json';
import type { SseMessage } from './decode';

/** pydantic-ai's `event_kind` values, for flat events that name their kind so instead of `type`. */
const EVENT_KINDS: Record<string, string> = {
	part_start: 'PartStartEvent',
	part_delta: 'PartDeltaEvent',
	part_end: 'PartEndEvent',
	function_tool_call: 'FunctionToolCallEvent',
	function_tool_result: 'FunctionToolResultEvent',
	builtin_tool_call: 'BuiltinToolCallEvent',
	builtin_tool_result: 'BuiltinToolResultEvent',
	output_tool_call: 'OutputToolCallEvent',
	output_tool_result: 'OutputToolResultEvent',
	final_result: 'FinalResultEvent',
};

/**
 * The flat form some clients parse (docs/api.md#flat-stream-form): no `event:` line, the event's
 * name inside the JSON of a bare `data:` line (`{"type": "FrontendModelResponse", ...}`), its
 * fields beside the name or under `data`. Anything else on such a line (`[DONE]`, other JSON)
 * keeps the name `message`, which carries nothing.
 */
export function flatEvent(dataText: string): SseMessage {
	const data = parseJsonObject(dataText);
	if (!data) return { event: 'message', data: dataText };
	const name =
		typeof data.type === 'string'
			? data.type
			: typeof data.event_kind === 'string'
				? EVENT_KINDS[data.event_kind]
				: undefined;
	if (!name) return { event: 'message', data: dataText };
	// Fields beside the name win; those under `data` fill in (End and the errors read both).
	const payload: Json = isObject(data.data) ? { ...data.data, ...data } : { ...data };
	delete payload.type;
	delete payload.event_kind;
	return { event: name, data: JSON.stringify(payload) };
}
