import type {
	EndEventData,
	ErrorEventData,
	FrontendModelResponseData,
	MessagePart,
	PartDeltaEventData,
	PartEventData,
	RunEndEventData,
	Unchecked,
} from '../api';
import { messageTextParts } from './assembly';
import { EventNames, type SseMessage } from './decode';
import { isBlank } from './answerFailure';
import { flatEvent } from './flatEvent';
import { isKnownSucceeded, knownContentEvents, KnownLayout, knownPartEvents } from './knownLayout';
import { holdsRequestEcho } from './requestEcho';
import { isObject, opensAsJson, parseJsonObject, type JsonObject as Json } from '../json';
import {
	clippedMessage,
	echoWithheld,
	messageFromJson,
	printableEventName,
	saysError,
} from '../transport/serverMessage';

/**
 * What the node reads from each SSE message of an ask stream, in every dialect
 * (docs/api.md#2026-stream-dialect, docs/api.md#documented-stream-dialect,
 * docs/api.md#live-stream-dialect). Comments and `[DONE]` carry nothing; an event the node does
 * not know is named (`unknown`), never read, and so is one of the answer or its end whose data it
 * cannot read (`unreadable`). What the steps need (the parts themselves, tool events:
 * docs/api.md#steps) is read only when asked for; a tool call's parts and deltas are always read,
 * since pydantic-ai's output tool may carry a structured answer.
 */
export type StreamEvent =
	/** `FrontendModelResponse.content`: the next piece of the current message's text. */
	| { type: 'content'; text: string }
	/**
	 * `FrontendModelResponse.parts`: the current message so far, its text parts joined; with
	 * steps, or when it holds a tool call, the parts themselves; with steps, the `model_name`
	 * beside them.
	 */
	| {
			type: 'snapshot';
			text: string;
			kinds: string[];
			parts?: unknown[];
			model?: string;
			/** Where a blank line goes in `text` (assembly.ts messageTextParts); absent for none. */
			breaks?: number[];
	  }
	/**
	 * With steps, and for every tool call, `part` is the part itself. `response` is the model
	 * response the Part event names (2026: `metadata.zmid`), when it names one.
	 */
	| { type: 'partStart'; index: number; kind: string; text: string; part?: Json; response?: string }
	/** `kind` is absent when the delta does not name it: it is then its part's kind. */
	| { type: 'partDelta'; index: number; kind?: string; text: string; response?: string }
	| { type: 'partEnd'; index: number; kind: string; text: string; part?: Json; response?: string }
	/** A `tool_call` delta: more of a tool call's name or arguments. */
	| { type: 'toolDelta'; index: number; delta: Json; response?: string }
	/** With steps: a tool call or result told beside the parts (`FunctionToolCallEvent`, …). */
	| { type: 'toolEvent'; part: Json }
	/**
	 * One of the assistant's own tools runs (`FunctionToolCallEvent`, `FunctionToolResultEvent`):
	 * the model response that called it is over, and the next Part event is of another one. `ran`:
	 * the call a `FunctionToolCallEvent` runs, whole (its arguments can no longer change).
	 */
	| { type: 'toolRound'; ran?: Json }
	/** `End`, or the 2026 stream's `completed` with `status` `succeeded`. */
	| {
			type: 'end';
			output?: string | Record<string, unknown>;
			/** An `output` that is neither text nor an object (a list, a number): what it was. */
			otherOutput?: string;
			conversationId?: string;
	  }
	| { type: 'error'; message: string }
	/**
	 * The 2026 stream's `failed`, or `completed` with another status: the service accepted the
	 * ask and its run failed there.
	 */
	| { type: 'runFailed'; message: string; status: string; errorType?: string; failureKind?: string }
	/**
	 * An event this node does not know: its name only, never its data. A part or a delta of a kind
	 * it does not know is named so too (`PartStartEvent (part_kind citation)`): the event is read
	 * as before, the kind named.
	 */
	| { type: 'unknown'; name: string }
	/**
	 * A delta of a kind this node does not know that carries text (`content_delta`): where its part
	 * is a text part, or was never seen, that text may be the answer's (answer.ts decides).
	 */
	| { type: 'unknownTextDelta'; index: number; name: string; response?: string }
	/**
	 * An event that carries the answer or ends the stream, whose data this node cannot read (not
	 * JSON, past the bound on values, without the index or part it must name): what it said of the
	 * answer is not known (docs/api.md#how-a-stream-ends). Its name only; `ends`: it was the
	 * stream's end (`End`, `completed`).
	 */
	| { type: 'unreadable'; name: string; ends: boolean };

/**
 * Every event name this node knows, in any dialect: those that carry the answer, the steps or the
 * stream's end, and those known to carry nothing for it (the 2026 stream's runtime chunks and its
 * echo of the request, which holds the user's private files and is never read).
 */
export const KNOWN_STREAM_EVENTS: readonly string[] = [
	'FrontendModelResponse',
	'End',
	'Error',
	'SSEErrorEvent',
	'PartStartEvent',
	'PartDeltaEvent',
	'PartEndEvent',
	'FunctionToolCallEvent',
	'FunctionToolResultEvent',
	'BuiltinToolCallEvent',
	'BuiltinToolResultEvent',
	'OutputToolCallEvent',
	'OutputToolResultEvent',
	'FinalResultEvent',
	'AgentRuntimeStreamChunk',
	'FrontendModelRequest',
	'completed',
	'failed',
];

/**
 * The kinds of part of a model response, pydantic-ai's (docs/api.md#live-stream-dialect): a part
 * of another kind is never answer text, and its kind is named as an unknown event's name is.
 */
const KNOWN_PART_KINDS: ReadonlySet<string> = new Set([
	'text',
	'thinking',
	'tool-call',
	'builtin-tool-call',
	'builtin-tool-return',
	'file',
]);

/** The kinds of a part's delta, pydantic-ai's. */
const KNOWN_DELTA_KINDS: ReadonlySet<string> = new Set(['text', 'thinking', 'tool_call']);

/**
 * Events whose data nothing here reads, whatever the dialect: the decoder skips it as it arrives
 * (the request echo's it always does) and passes none of them on.
 */
export const UNREAD_EVENTS: ReadonlySet<string> = new Set([
	'FinalResultEvent',
	'AgentRuntimeStreamChunk',
	'FrontendModelRequest',
	// pydantic-ai's output tool (1.93 on): its call repeats the arguments the response's parts
	// told, as large as the answer, and neither it nor its result is a step
	// (docs/api.md#structured-output-in-a-stream). Their names alone say a tool round.
	'OutputToolCallEvent',
	'OutputToolResultEvent',
]);

/**
 * The `type`s of the 2026 stream's runtime chunks the node knows: the run's life
 * (docs/api.md#2026-stream-dialect). Their data is not read, but for this leading key.
 */
const KNOWN_RUNTIME_TYPES: ReadonlySet<string> = new Set(['status', 'persisted']);

/**
 * A runtime chunk's `type`, as its data opens in the service's layout (a name, not text that could
 * be anyone's): `{"type": "status", …`.
 */
const RUNTIME_TYPE = /^\{\s*"type"\s*:\s*"([A-Za-z0-9_.:-]{1,40})"/;

/**
 * What the decoder is told of the names: the events known, those not read (decode.ts), which it
 * tells by name alone: whether the turn had begun when a run failed depends on them (answer.ts).
 * A runtime chunk is told with the opening of its data, for its `type`.
 */
export const STREAM_EVENT_NAMES = new EventNames(
	KNOWN_STREAM_EVENTS,
	UNREAD_EVENTS,
	true,
	new Set(['AgentRuntimeStreamChunk']),
);

/**
 * The events that say nothing of the assistant's turn: the run's own status, and the ends and
 * errors that close a stream. Any other event, the request's echo (the model was asked) among
 * them, a part, a tool event or one this node does not know, says the turn had begun
 * (docs/api.md#full-session-pool).
 */
export const BEFORE_TURN_EVENTS: ReadonlySet<string> = new Set([
	'AgentRuntimeStreamChunk',
	'completed',
	'failed',
	'End',
	'Error',
	'SSEErrorEvent',
	'error',
	// A bare `data:` line that names no event (`[DONE]`, other JSON): the flat form's named ones
	// are read under their own names (answer.ts).
	'message',
]);

/** Events that carry nothing the node reads. */
const SILENT_EVENTS: ReadonlySet<string> = new Set([
	// `message` is a bare `data:` line that names no event (`[DONE]`, other JSON).
	'message',
	...UNREAD_EVENTS,
]);

const TOOL_ROUND: StreamEvent = { type: 'toolRound' };

/** pydantic-ai's events that tell a tool call or its result on their own. */
const TOOL_EVENTS: Record<string, 'call' | 'result'> = {
	FunctionToolCallEvent: 'call',
	BuiltinToolCallEvent: 'call',
	FunctionToolResultEvent: 'result',
	BuiltinToolResultEvent: 'result',
};

/**
 * `steps`: also read what the steps need; off, the answer's path does no more than before. The
 * commonest events in the service's own layout are read without parsing them (`layout`, the
 * stream's: knownLayout.ts).
 */
export function toStreamEvents(
	message: SseMessage,
	steps = false,
	layout = new KnownLayout(),
): StreamEvent[] {
	const named = message.event === 'message' ? flatEvent(message.data) : message;
	switch (named.event) {
		case 'FrontendModelResponse':
			return knownContentEvents(named.data) ?? modelResponseEvents(named.data, steps);
		case 'PartStartEvent':
		case 'PartEndEvent':
			return (
				(steps ? undefined : knownPartEvents(named.event, named.data)) ??
				partEvent(named.event, parseObject<PartEventData>(named.data), steps)
			);
		case 'PartDeltaEvent':
			return (
				layout.deltaEvents(named.data) ??
				partDeltaEvent(parseObject<PartDeltaEventData>(named.data))
			);
		case 'FunctionToolCallEvent': {
			// A function tool runs between model responses (a builtin one, within a response). The
			// call is read with steps or without: it tells where the next message begins.
			const told = toolEvent('call', parseObject<Json>(named.data));
			const ran = told[0]?.type === 'toolEvent' ? told[0].part : undefined;
			return [ran ? { type: 'toolRound', ran } : TOOL_ROUND, ...(steps ? told : [])];
		}
		case 'FunctionToolResultEvent':
			return steps
				? [TOOL_ROUND, ...toolEvent(TOOL_EVENTS[named.event], parseObject<Json>(named.data))]
				: [TOOL_ROUND];
		case 'BuiltinToolCallEvent':
		case 'BuiltinToolResultEvent':
			return steps ? toolEvent(TOOL_EVENTS[named.event], parseObject<Json>(named.data)) : [];
		case 'OutputToolCallEvent':
		case 'OutputToolResultEvent':
			// Told by name alone (UNREAD_EVENTS): the output tool runs after the response that
			// called it, as a function tool does; a failed call is answered by a next response.
			return [TOOL_ROUND];
		case 'End': {
			const data = parseObject<EndEventData>(named.data);
			// Other data than an object, or nothing (namesNothing), may have named the answer.
			return [data || namesNothing(named.data) ? endEvent(data) : unreadable(named.event, true)];
		}
		case 'Error':
		case 'SSEErrorEvent':
			return [{ type: 'error', message: errorMessage(named.data) }];
		case 'completed':
			if (isKnownSucceeded(named.data)) return [{ type: 'end' }];
			return [runEndEvent(named.event, named.data)];
		case 'failed':
			return [runEndEvent(named.event, named.data)];
		case 'AgentRuntimeStreamChunk':
			return runtimeChunkEvents(named.data);
		default:
			if (!SILENT_EVENTS.has(named.event)) {
				return [{ type: 'unknown', name: printableEventName(named.event) }];
			}
			// A bare `data:` line whose JSON is cut short may be a flat event of the answer: SSE
			// names an event without a name `message` (docs/api.md#flat-stream-form).
			return named.event === 'message' && isCutObject(named.data) ? [unreadable('message')] : [];
	}
}

/**
 * A runtime chunk carries no answer; one of a `type` the node does not know is named (the service
 * may have begun to tell something new there). `opening`: what the decoder passed on of its data,
 * its opening (decode.ts), or nothing.
 */
function runtimeChunkEvents(opening: string): StreamEvent[] {
	const type = RUNTIME_TYPE.exec(opening)?.[1];
	return type !== undefined && !KNOWN_RUNTIME_TYPES.has(type)
		? [unknownKind('AgentRuntimeStreamChunk', 'type', type)]
		: [];
}

function modelResponseEvents(dataText: string, steps: boolean): StreamEvent[] {
	const data = parseObject<FrontendModelResponseData>(dataText);
	if (!data) return [unreadable('FrontendModelResponse')];
	const events: StreamEvent[] = [];
	if (typeof data.content === 'string' && data.content) {
		events.push({ type: 'content', text: data.content });
	}
	if (Array.isArray(data.parts)) {
		const told: Array<Unchecked<MessagePart>> = (data.parts as unknown[]).filter(isObject);
		const kinds = told.map(({ part_kind: kind }) => (typeof kind === 'string' ? kind : 'unknown'));
		for (const { part_kind: kind } of told) {
			if (isUnknownKind(kind, KNOWN_PART_KINDS)) {
				events.push(unknownKind('FrontendModelResponse', 'part_kind', kind));
			}
		}
		// The message whole so far: its text as a message's text is read everywhere.
		const { text, breaks } = messageTextParts(told);
		let snapshot: Extract<StreamEvent, { type: 'snapshot' }>;
		if (!steps) {
			// A tool call's parts are always read, as a Part event's: the output tool's may carry
			// the structured answer.
			const parts = kinds.includes('tool-call') ? (data.parts as unknown[]) : undefined;
			snapshot = parts
				? { type: 'snapshot', text, kinds, parts }
				: { type: 'snapshot', text, kinds };
		} else {
			// pydantic-ai's model message names the model that wrote it.
			const model =
				typeof data.model_name === 'string' && data.model_name ? data.model_name : undefined;
			snapshot = { type: 'snapshot', text, kinds, parts: data.parts as unknown[], model };
		}
		if (breaks.length === 0) events.push(snapshot);
		else {
			// Read before the event's content delta: the snapshot tells where its paragraphs are,
			// the content cannot, and the text the content carries is taken with them.
			snapshot.breaks = breaks;
			events.unshift(snapshot);
		}
	}
	return events;
}

function partEvent(
	type: 'PartStartEvent' | 'PartEndEvent',
	data: Unchecked<PartEventData> | undefined,
	steps: boolean,
): StreamEvent[] {
	if (!data || !isIndex(data.index) || !isObject(data.part)) return [unreadable(type)];
	const part: Unchecked<MessagePart> = data.part;
	const kind = typeof part.part_kind === 'string' ? part.part_kind : 'unknown';
	// Whether it is answer text is the assembler's call: an end may leave out the kind.
	const text = typeof part.content === 'string' ? part.content : '';
	const which = type === 'PartStartEvent' ? 'partStart' : 'partEnd';
	const response = responseOf(data);
	const event: StreamEvent =
		steps || kind === 'tool-call'
			? { type: which, index: data.index, kind, text, part: data.part, response }
			: { type: which, index: data.index, kind, text, response };
	return isUnknownKind(part.part_kind, KNOWN_PART_KINDS)
		? [event, unknownKind(type, 'part_kind', part.part_kind)]
		: [event];
}

/**
 * The model response a Part event belongs to (2026: `metadata.zmid`): a response may open with a
 * delta for an index the previous one used, so its id alone tells them apart.
 */
function responseOf(data: Json): string | undefined {
	const metadata = data.metadata;
	// Checked in place: this runs for every Part event.
	if (typeof metadata !== 'object' || metadata === null) return undefined;
	const zmid = (metadata as Json).zmid;
	return typeof zmid === 'string' && zmid ? zmid : undefined;
}

function partDeltaEvent(data: Unchecked<PartDeltaEventData> | undefined): StreamEvent[] {
	if (!data || !isIndex(data.index) || !isObject(data.delta)) return [unreadable('PartDeltaEvent')];
	const delta: Unchecked<PartDeltaEventData['delta']> = data.delta;
	const { part_delta_kind: kind, content_delta: text } = delta;
	const response = responseOf(data);
	if (kind === 'tool_call') {
		return [{ type: 'toolDelta', index: data.index, delta: data.delta, response }];
	}
	if (isUnknownKind(kind, KNOWN_DELTA_KINDS)) {
		const { name } = unknownKind('PartDeltaEvent', 'part_delta_kind', kind);
		// Without text it carries nothing for the answer (a citation's link, say): named alone.
		return typeof text === 'string' && text
			? [{ type: 'unknownTextDelta', index: data.index, name, response }]
			: [{ type: 'unknown', name }];
	}
	if (typeof text !== 'string' || !text) return [];
	return [
		{
			type: 'partDelta',
			index: data.index,
			kind: typeof kind === 'string' ? kind : undefined,
			text,
			response,
		},
	];
}

/**
 * The part a tool event tells: a call's under `part`; a result's under `part` from pydantic-ai
 * 1.93 on and in 2.x, under `result` before. Since 1.93 `result` is only a deprecated alias of
 * the same part, which its serializer never writes: a result with both is read at `part`, the
 * field of the framework that knows both names.
 */
function toolEvent(told: 'call' | 'result', data: Json | undefined): StreamEvent[] {
	const part = told === 'result' && !isObject(data?.part) ? data?.result : data?.part;
	return isObject(part) ? [{ type: 'toolEvent', part }] : [];
}

/** End's fields at the top level or, as one client reads them, under `data`. */
function endEvent(data: Unchecked<EndEventData> | undefined): StreamEvent {
	const nested: Unchecked<EndEventData['data']> | undefined =
		data && isObject(data.data) ? data.data : undefined;
	const end: StreamEvent = { type: 'end' };
	for (const fields of [data, nested]) {
		if (!fields) continue;
		const { output, conversation_id: conversationId } = fields;
		if (
			end.output === undefined &&
			(isObject(output) || (typeof output === 'string' && !isBlank(output)))
		) {
			end.output = output;
		} else if (Array.isArray(output) || typeof output === 'number' || typeof output === 'boolean') {
			end.otherOutput ??= Array.isArray(output) ? 'array' : typeof output;
		}
		if (end.conversationId === undefined && typeof conversationId === 'string' && conversationId) {
			end.conversationId = conversationId;
		}
	}
	return end;
}

/**
 * `completed` and `failed` (docs/api.md#2026-stream-dialect): `completed` with `status`
 * `succeeded` (in any letter case) ends the answer, and so does one with no status that names no
 * failure (no `error`, `error_type` or `failure_kind`); `failed`, or `completed` with another
 * status or naming a failure, is the run's failure with the service's `error`. Their fields may
 * also sit under `data` (flat form). Where there is no `error`, the words are those of `message`
 * or `detail` (FastAPI's), the data itself when it is text, or else the failure's class and
 * kind.
 */
function runEndEvent(name: 'completed' | 'failed', dataText: string): StreamEvent {
	const data = parseObject<RunEndEventData & { data: unknown; message: unknown }>(dataText);
	// A `completed` whose data cannot be read may have named a failure: it ends no answer (but
	// when it names nothing at all: namesNothing). A `failed` is the run's failure whatever its data.
	if (name === 'completed' && !data && !namesNothing(dataText)) return unreadable(name, true);
	const fields: Unchecked<RunEndEventData & { message: unknown; detail: unknown }> = {
		...(data && isObject(data.data) ? data.data : {}),
		...data,
	};
	// Without a status, an error, or a class or kind of failure, says the run did not succeed:
	// its text is no whole answer. Only a `completed` that names nothing at all is read leniently.
	const named = [fields.error_type, fields.failure_kind].filter(saysError);
	const status =
		nonBlank(fields.status) ??
		(name === 'failed' || saysError(fields.error) || named.length > 0 ? 'failed' : 'succeeded');
	if (name === 'completed' && isSucceeded(status)) return { type: 'end' };
	const said =
		errorShown(fields.error) ??
		words(fields.message) ??
		words(fields.detail) ??
		(data === undefined ? plainWords(dataText) : undefined) ??
		(named.map(errorShown).filter(Boolean).join(', ') || undefined);
	const failure: StreamEvent = {
		type: 'runFailed',
		status,
		message: holdsRequestEcho(data ?? dataText)
			? echoWithheld(said)
			: (said ?? `The run ended with status "${status}"`),
	};
	const errorType = nonBlank(fields.error_type);
	const failureKind = nonBlank(fields.failure_kind);
	if (errorType) failure.errorType = errorType;
	if (failureKind) failure.failureKind = failureKind;
	return failure;
}

/**
 * `succeeded`, as the service writes it, or in other letters or with white space around it: such
 * a status names no failure, and a run read as failed would lose a whole answer.
 */
function isSucceeded(status: string): boolean {
	return status.trim().toLowerCase() === 'succeeded';
}

/**
 * Data that is text, not JSON (JSON that did not parse may be cut short: no words then), nor the
 * request echo's.
 */
function plainWords(dataText: string): string | undefined {
	return opensAsJson(dataText) || holdsRequestEcho(dataText) ? undefined : nonBlank(dataText);
}

/** Text that is not blank, cut as a message shows it. */
function nonBlank(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() ? clippedMessage(value) : undefined;
}

/**
 * The service's words in an error field, however it sends them (docs/api.md#how-a-stream-ends):
 * text as it is, an object's words read as in other error bodies (serverMessage.ts).
 */
function words(value: unknown): string | undefined {
	return nonBlank(messageFromJson(value));
}

/**
 * What an error field shows, one rule for `failed`'s `error` and an error event's fields: its
 * words; else, when it says something went wrong (an object without words, a list, a number,
 * true), the value as it is. Never a value that is or holds the request echo (the user's files):
 * the event then says it held one (echoWithheld).
 */
function errorShown(value: unknown): string | undefined {
	if (holdsRequestEcho(value)) return undefined;
	return words(value) ?? (saysError(value) ? clippedMessage(JSON.stringify(value)) : undefined);
}

/**
 * An `Error` or `SSEErrorEvent`'s message: `message` as documented, `error` and `detail` where the
 * service's other error bodies carry it, at the top level or under `data` (flat form), each read
 * as `failed`'s `error` is (errorShown): the words anywhere in them first.
 */
function errorMessage(dataText: string): string {
	const data = parseObject<ErrorEventData & { data: unknown }>(dataText);
	const fields = [data, data && isObject(data.data) ? data.data : undefined];
	const values = fields.flatMap((field) =>
		(['message', 'error', 'detail'] as const).map((key) => field?.[key]),
	);
	const shown = values.map(words).find(Boolean) ?? values.map(errorShown).find(Boolean);
	if (holdsRequestEcho(data ?? dataText)) return echoWithheld(shown);
	if (shown) return shown;
	if (data) return 'The assistant reported an error without a message';
	return clippedMessage(dataText.trim()) || 'The assistant reported an error without a message';
}

/** An end's data that says nothing, as `{}` does: none (blank), or JSON's `null`. */
function namesNothing(dataText: string): boolean {
	return isBlank(dataText) || dataText.trim() === 'null';
}

/** Text that opens as a JSON object and is none (cut short, or past the bound on values). */
function isCutObject(text: string): boolean {
	return /^\s*\{/.test(text) && parseJsonObject(text) === undefined;
}

/**
 * A kind the stream named that is not one of `known`: read from the event as told, since the
 * events' own `unknown` stands for a part that named none, and a service that names a kind
 * `unknown` is still naming one.
 */
function isUnknownKind(told: unknown, known: ReadonlySet<string>): told is string {
	return typeof told === 'string' && !known.has(told);
}

/** An event named with a kind it told that this node does not know: `PartStartEvent (part_kind x)`. */
function unknownKind(
	event: string,
	field: 'part_kind' | 'part_delta_kind' | 'type',
	kind: string,
): Extract<StreamEvent, { type: 'unknown' }> {
	return { type: 'unknown', name: `${event} (${field} ${printableEventName(kind)})` };
}

function unreadable(name: string, ends = false): StreamEvent {
	return { type: 'unreadable', name, ends };
}

function parseObject<T>(text: string): (Unchecked<T> & Json) | undefined {
	return parseJsonObject(text) as (Unchecked<T> & Json) | undefined;
}

function isIndex(value: unknown): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
