/**
 * Where an event's content begins: the fields whose values are the user's or the model's words, a
 * tool's arguments or data, or an error's. The saved capture keeps no string under them and no
 * key inside their JSON (redact.ts); the compared shape stops at them for the same reason
 * (signatures.ts), so a capture has the shape of the stream it came from.
 */

/**
 * Fields whose value, of any shape, is the user's or the model's content, a tool's arguments or
 * data, or an error's words: a tool's own JSON may name its fields `type` or `status` and fill
 * them with the user's values, so under these no string is kept, whatever its key.
 */
export const FREE_FORM_FIELDS: ReadonlySet<string> = new Set([
	'content',
	'content_delta',
	'args',
	'args_delta',
	'input',
	'output',
	'instructions',
	'metadata',
	'provider_details',
	'error',
	'message',
	'detail',
]);

/**
 * A runtime chunk's `delta` and `result` too: a tool's data, in a shape nothing describes
 * (elsewhere they are the framework's delta and tool-return part, which name their kinds).
 */
const RUNTIME_CHUNK_FREE_FORM_FIELDS: ReadonlySet<string> = new Set([
	...FREE_FORM_FIELDS,
	'delta',
	'result',
]);

/**
 * Of the free-form fields (a runtime chunk's among them), those whose JSON, of any shape, is
 * content, a tool's or an error's: kept as a placeholder whole, keys and all. All but
 * `metadata`, which keeps its keys (the framework's).
 */
const OPAQUE_FIELDS: ReadonlySet<string> = new Set(
	[...RUNTIME_CHUNK_FREE_FORM_FIELDS].filter((field) => field !== 'metadata'),
);

/** The free-form fields of an event named `event` (as the node names it). */
export function freeFormFieldsOf(event: string): ReadonlySet<string> {
	return event === 'AgentRuntimeStreamChunk' ? RUNTIME_CHUNK_FREE_FORM_FIELDS : FREE_FORM_FIELDS;
}

/**
 * Whether the field `key`, in or under free-form content (`freeForm`: it is, or lies under, one
 * of the event's free-form fields), holds content whose keys are no shape's: its object or list
 * is one placeholder in a capture, one field in a shape.
 */
export function isOpaque(key: string, freeForm: boolean): boolean {
	return freeForm && OPAQUE_FIELDS.has(key);
}
