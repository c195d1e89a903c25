/**
 * A generated turn told as the live service told it in 2026 (docs/api.md#2026-stream-dialect):
 * runtime chunks, the request echo (which holds a private marker that must never come out),
 * pydantic-ai's Part events with their fields, part indexes restarting with each model response,
 * tool rounds with `outcome`, and sometimes a whole part in its start or a part whose start never
 * came, or a runtime chunk of a type no capture shows. Written from the API reference and the captures, not from the node's code.
 */
import { ECHO_PRIVATE_MARKER, runtimeChunk as emulatorRuntimeChunk } from '../emulator/frames2026';
import type { Draw } from './prng';
import type { GeneratedPart, GeneratedTurn } from './turn';
import { leadingSnapshot, turnEvents, type WireEvent } from './wire';

export const ECHO_MARKER: string = ECHO_PRIVATE_MARKER;

const event = (name: string, data: unknown): WireEvent => [name, JSON.stringify(data)];

/** An `AgentRuntimeStreamChunk` with all nine keys, as the emulator sends it (and the captures show). */
export function runtimeChunk(type: 'status' | 'persisted', fields: Record<string, unknown>) {
	return event('AgentRuntimeStreamChunk', emulatorRuntimeChunk(type, fields).data);
}

/**
 * A runtime chunk of a type no capture shows, carrying private text where a reader of its data
 * would take it (a tool's output, say): named by its type, its data never read, the answer as it
 * was.
 */
function otherRuntimeChunk(d: Draw): WireEvent {
	return event('AgentRuntimeStreamChunk', {
		type: d.pick(['delta', 'tool_result', 'usage']),
		delta: ECHO_MARKER,
		tool_name: 'gmail',
		status: null,
		error: d.pick([null, ECHO_MARKER]),
		result: { stdout: ECHO_MARKER },
		data: null,
		message_id: null,
		runner_id: 'r-1',
	});
}

/**
 * The echo of the model's request. Its private text sits where an answer would be read from in
 * other events (`content`, `parts[].content`, `output`): a reader that takes anything from it leaks.
 */
export function echo(d: Draw): WireEvent {
	const file = `<workspace_file path="private.md">${ECHO_MARKER}</workspace_file>`;
	return event('FrontendModelRequest', {
		kind: 'request',
		content: ECHO_MARKER,
		output: ECHO_MARKER,
		parts: [
			{ part_kind: 'system-prompt', content: file },
			{ part_kind: d.pick(['user-prompt', 'text']), content: ECHO_MARKER },
		],
		delta: { part_delta_kind: 'text', content_delta: ECHO_MARKER },
	});
}

export const completed = (status = 'succeeded', error: string | null = null): WireEvent =>
	event('completed', {
		status,
		error,
		runner_id: null,
		error_type: error ? 'ProviderError' : null,
		failure_owner: error ? 'provider' : null,
		failure_kind: error ? 'provider_error' : null,
	});

export const failed = (message: string): WireEvent =>
	event('failed', {
		status: 'failed',
		error: message,
		runner_id: 'r-1',
		error_type: 'UserError',
		failure_owner: 'ours',
		failure_kind: 'unknown_model',
	});

type Json = Record<string, unknown>;

/**
 * One model response's events with the 2026 fields: `event_kind`, `metadata`, the previous part's
 * kind, provider fields, every delta naming its kind; no PartEndEvent (the service sent none).
 */
function shapeResponse(
	d: Draw,
	events: WireEvent[],
	zmid: string,
	startless: boolean,
): WireEvent[] {
	const metadata = { zmid, runner_id: 'r-1' };
	const kinds = new Map<number, string>();
	let previous: string | null = null;
	const shaped: WireEvent[] = [];
	for (const [name, text] of events) {
		if (name === 'PartEndEvent') continue;
		if (name !== 'PartStartEvent' && name !== 'PartDeltaEvent' && !name?.startsWith('Function')) {
			shaped.push([name, text]);
			continue;
		}
		const data = JSON.parse(text) as Json;
		if (name === 'PartStartEvent') {
			const part = data.part as Json;
			kinds.set(
				data.index as number,
				part.part_kind === 'tool-call' ? 'tool_call' : String(part.part_kind),
			);
			shaped.push(
				event(name, {
					event_kind: 'part_start',
					index: data.index,
					part: { ...part, id: null, provider_details: null, provider_name: null },
					previous_part_kind: previous,
					metadata,
				}),
			);
			previous = String(part.part_kind);
		} else if (name === 'PartDeltaEvent') {
			const delta = data.delta as Json;
			const kind = delta.part_delta_kind ?? kinds.get(data.index as number);
			shaped.push(
				event(name, {
					delta: { ...delta, part_delta_kind: kind, provider_details: null, provider_name: null },
					event_kind: 'part_delta',
					index: data.index,
					metadata,
				}),
			);
		} else if (name === 'FunctionToolCallEvent') {
			shaped.push(event(name, { args_valid: true, ...data, metadata }));
		} else {
			// pydantic-ai from 1.93 (and 2.x) writes the return part under `part`, before under `result`.
			const { result, ...rest } = data;
			const told = d.chance(0.5) ? { part: result } : { result };
			shaped.push(event(name, { content: null, ...rest, ...told, metadata }));
		}
	}
	return d.chance(0.3) ? wholeOrStartless(d, shaped, startless) : shaped;
}

/**
 * A text or thinking part told whole in its start (its deltas folded into it), or one whose start
 * never came (its first piece moved into a delta).
 */
function wholeOrStartless(d: Draw, events: WireEvent[], startless: boolean): WireEvent[] {
	const parsed = events.map(([name, text]) => ({ name, data: JSON.parse(text) as Json }));
	const starts = parsed.filter(
		(e) =>
			e.name === 'PartStartEvent' &&
			['text', 'thinking'].includes(String((e.data.part as Json).part_kind)),
	);
	if (starts.length === 0) return events;
	const start = d.pick(starts);
	const kind = String((start.data.part as Json).part_kind);
	const index = start.data.index;
	const deltas = parsed.filter(
		(e) => e.name === 'PartDeltaEvent' && e.data.index === index && e.data.event_kind,
	);
	const part = start.data.part as Json;
	if (!startless || d.chance(0.5)) {
		const pieces = deltas.map((e) => String((e.data.delta as Json).content_delta ?? ''));
		part.content = String(part.content ?? '') + pieces.join('');
		const kept = parsed.filter((e) => !deltas.includes(e));
		return kept.map((e) => event(String(e.name), e.data));
	}
	const first = String(part.content ?? '');
	const metadata = start.data.metadata;
	const moved = {
		name: 'PartDeltaEvent',
		data: {
			delta: {
				content_delta: first,
				part_delta_kind: kind,
				provider_details: null,
				provider_name: null,
			},
			event_kind: 'part_delta',
			index,
			metadata,
		},
	};
	const out = parsed.flatMap((e) => (e === start ? (first ? [moved] : []) : [e]));
	return out.map((e) => event(String(e.name), e.data));
}

/**
 * The whole turn in the 2026 dialect, before its end: the run's first chunks and the echo, each
 * model response (indexes from 0, its own zmid) and its `persisted` chunk, and between responses
 * the tool round's events, a `persisted` for the tool's return and the next request's echo.
 */
export function turnEvents2026(
	d: Draw,
	turn: GeneratedTurn,
	startlessAfterRound = false,
): WireEvent[] {
	const events: WireEvent[] = [
		runtimeChunk('status', { status: 'dispatching' }),
		runtimeChunk('persisted', { data: { message_id: 'u1' }, message_id: 'u1', runner_id: 'r-1' }),
		runtimeChunk('status', {
			status: 'progress',
			data: { message: 'Thinking\u2026', phase: 'model_request' },
			runner_id: 'r-1',
		}),
		echo(d),
	];
	turn.messages.forEach((parts, m) => {
		const zmid = `zmid${m}`;
		const told = turnEvents(d, { messages: [parts] }, ['parts']);
		const before = d.chance(0.25) ? leadingSnapshot(d, parts) : undefined;
		if (before) events.push(before);
		events.push(...shapeResponse(d, told, zmid, startlessAfterRound || m === 0));
		// The response told again whole once its tool round ran (a snapshot "may come once when the
		// message is complete", field notes): nothing of it counts twice.
		if (m < turn.messages.length - 1 && d.chance(0.2)) events.push(wholeSnapshot(d, parts));
		events.push(runtimeChunk('persisted', { message_id: zmid, runner_id: 'r-1' }));
		if (d.chance(0.15)) events.push(otherRuntimeChunk(d));
		if (m < turn.messages.length - 1) {
			events.push(runtimeChunk('persisted', { message_id: `tool${m}`, runner_id: 'r-1' }), echo(d));
		}
	});
	return events;
}

/**
 * A response told whole by a snapshot: every part, its tool calls too; or, when it wrote text,
 * maybe its text and thinking alone (its text tells which message it is; without text, a
 * snapshot of thinking alone could as well be the next response's).
 */
function wholeSnapshot(d: Draw, parts: GeneratedPart[]): WireEvent {
	const wroteText = parts.some((part) => part.kind === 'text' && part.pieces.join('') !== '');
	const told = wroteText && d.chance(0.5) ? parts.filter((part) => !part.tool) : parts;
	return event('FrontendModelResponse', {
		parts: told.map((part) =>
			part.tool
				? {
						part_kind: part.tool.partKind,
						tool_name: part.tool.name,
						args: part.tool.args,
						tool_call_id: part.tool.id,
					}
				: { part_kind: part.kind, content: part.pieces.join('') },
		),
	});
}

/**
 * The arguments of pydantic-ai's output tool, grown through `args_delta`: the object. When the
 * call is its response's first part, `FrontendModelResponse` snapshots may come among its Part
 * events (before them too), each the framework's response so far: its arguments behind the
 * deltas told, as far as them or ahead of them (whole, the deltas still to come). From
 * pydantic-ai 1.93 maybe followed by the output tool's own call and result events, which tell
 * the call again whole and are no step.
 */
export function outputToolEvents(d: Draw, object: Json, index: number): WireEvent[] {
	const text = JSON.stringify(object);
	const metadata = { zmid: 'zmid-out', runner_id: 'r-1' };
	const id = 'call_final';
	const snapshots = index === 0 && d.chance(0.6);
	const snapshot = (told: number) => {
		const reach = d.pick(['behind', 'as far', 'ahead', 'whole'] as const);
		const length =
			reach === 'behind'
				? d.int(0, told)
				: reach === 'as far'
					? told
					: reach === 'ahead'
						? d.int(told, text.length)
						: text.length;
		return event('FrontendModelResponse', {
			parts: [
				{
					part_kind: 'tool-call',
					tool_name: 'final_result',
					args: text.slice(0, length),
					tool_call_id: id,
				},
			],
		});
	};
	const events: WireEvent[] = snapshots && d.chance(0.3) ? [snapshot(0)] : [];
	events.push(
		event('PartStartEvent', {
			event_kind: 'part_start',
			index,
			part: {
				args: '',
				id: null,
				part_kind: 'tool-call',
				tool_call_id: id,
				tool_name: 'final_result',
			},
			previous_part_kind: null,
			metadata,
		}),
	);
	for (let at = 0; at < text.length;) {
		if (snapshots && d.chance(0.3)) events.push(snapshot(at));
		const size = d.int(1, 9);
		events.push(
			event('PartDeltaEvent', {
				delta: {
					args_delta: text.slice(at, at + size),
					part_delta_kind: 'tool_call',
					tool_call_id: id,
				},
				event_kind: 'part_delta',
				index,
				metadata,
			}),
		);
		at += size;
	}
	if (d.chance(0.5)) {
		const call = {
			args: text,
			part_kind: 'tool-call',
			tool_call_id: id,
			tool_name: 'final_result',
		};
		events.push(
			event('OutputToolCallEvent', {
				args_valid: true,
				event_kind: 'output_tool_call',
				part: call,
				metadata,
			}),
			event('OutputToolResultEvent', {
				event_kind: 'output_tool_result',
				part: {
					content: 'Final result processed.',
					metadata: null,
					outcome: 'success',
					part_kind: 'tool-return',
					tool_call_id: id,
					tool_name: 'final_result',
				},
				metadata,
			}),
		);
	}
	return events;
}
