/**
 * A generated turn told as an ask stream: in the documented dialect (content deltas), the live
 * one (Part events, growing or final `parts` snapshots) or a mix of sources
 * (docs/api.md#streams). Written from the API reference, not from the node's code.
 */
import type { Draw } from './prng';
import type { GeneratedPart, GeneratedTool, GeneratedTurn } from './turn';

export type Source = 'content' | 'parts' | 'snapshots' | 'final-snapshot';

export type WireEvent = [name: string | undefined, data: string];

const event = (name: string, data: unknown): WireEvent => [name, JSON.stringify(data)];

interface SnapshotPart {
	part_kind: string;
	content?: unknown;
	[field: string]: unknown;
}

/**
 * The answer-carrying events of a turn, through the given sources. With `leading`, a message
 * told by Part events alone may come first as a snapshot (the live form: no zmid names it).
 */
export function turnEvents(
	d: Draw,
	turn: GeneratedTurn,
	sources: Source[],
	leading = false,
): WireEvent[] {
	const events: WireEvent[] = [];
	const has = (source: Source) => sources.includes(source);
	// Beside growing or final snapshots, a whole one first would be a snapshot that shrank.
	const canLead = leading && has('parts') && !has('snapshots') && !has('final-snapshot');
	turn.messages.forEach((parts) => {
		const before = canLead && d.chance(0.25) ? leadingSnapshot(d, parts) : undefined;
		if (before) events.push(before);
		const snapshot: SnapshotPart[] = [];
		const snapshotEvent = () =>
			event('FrontendModelResponse', { parts: snapshot.map((p) => ({ ...p })) });
		parts.forEach((part, index) => {
			if (part.tool) {
				toolEvents(d, part.tool, index, sources, snapshot, snapshotEvent, events);
				return;
			}
			const pieces = [...part.pieces];
			// Only Part events carry a first piece in the part's start.
			const first =
				has('parts') && pieces.length > 0 && d.chance(0.6) ? (pieces.shift() as string) : '';
			if (has('parts')) events.push(partStart(index, part, first));
			snapshot.push({ part_kind: part.kind, content: first });
			if (first) {
				if (has('snapshots')) events.push(snapshotEvent());
				if (part.kind === 'text' && has('content')) events.push(contentEvent(first));
			}
			for (const piece of pieces) {
				snapshot[snapshot.length - 1].content += piece;
				const perSource: WireEvent[] = [];
				if (has('parts')) perSource.push(partDelta(d, index, part, piece));
				if (has('snapshots')) perSource.push(snapshotEvent());
				// Content deltas may come before or after the other sources, even before the event
				// that opens a new message.
				if (part.kind === 'text' && has('content')) {
					perSource.splice(d.int(0, perSource.length), 0, contentEvent(piece));
				}
				events.push(...perSource);
			}
			if (has('parts') && d.chance(0.7)) events.push(partEnd(d, index, part));
		});
		if (has('final-snapshot')) events.push(snapshotEvent());
		// A function tool's call and result may also be told on their own, after its message.
		for (const part of parts) {
			const tool = part.tool;
			if (!tool) continue;
			if (tool.callEvent) {
				events.push(
					event('FunctionToolCallEvent', {
						part: callPart(tool, tool.argsForm !== 'object'),
						event_kind: 'function_tool_call',
					}),
				);
			}
			if (tool.result?.as === 'event') {
				events.push(
					event('FunctionToolResultEvent', {
						result: returnPart(tool),
						event_kind: 'function_tool_result',
					}),
				);
			}
		}
	});
	return events;
}

function callPart(tool: GeneratedTool, asText: boolean): SnapshotPart {
	const part: SnapshotPart = {
		part_kind: tool.partKind,
		tool_name: tool.name,
		args: asText ? JSON.stringify(tool.args) : tool.args,
	};
	if (tool.id !== null) part.tool_call_id = tool.id;
	return part;
}

function returnPart(tool: GeneratedTool): SnapshotPart {
	const part: SnapshotPart = {
		part_kind: tool.partKind === 'tool-call' ? 'tool-return' : 'builtin-tool-return',
		tool_name: tool.name,
		content: tool.result?.content,
	};
	if (tool.id !== null) part.tool_call_id = tool.id;
	if (tool.result?.outcome) part.outcome = tool.result.outcome;
	return part;
}

/**
 * A tool call (and a result told as a part right after it) through the sources: Part events
 * (whole, or with the arguments grown through `tool_call` deltas), growing and final snapshots.
 */
function toolEvents(
	d: Draw,
	tool: GeneratedTool,
	index: number,
	sources: Source[],
	snapshot: SnapshotPart[],
	snapshotEvent: () => WireEvent,
	events: WireEvent[],
): void {
	const has = (source: Source) => sources.includes(source);
	const whole = callPart(tool, tool.argsForm !== 'object');
	if (has('parts')) {
		if (tool.argsForm === 'delta') {
			const text = JSON.stringify(tool.args);
			const start: SnapshotPart = { ...whole, args: '' };
			if (d.chance(0.3)) delete start.tool_call_id;
			events.push(event('PartStartEvent', { index, part: start }));
			for (let at = 0; at < text.length;) {
				const size = d.int(1, 12);
				const delta: Record<string, unknown> = {
					part_delta_kind: 'tool_call',
					args_delta: text.slice(at, at + size),
				};
				if (at === 0 && tool.id !== null) delta.tool_call_id = tool.id;
				events.push(event('PartDeltaEvent', { index, delta }));
				at += size;
			}
			if (d.chance(0.7)) events.push(event('PartEndEvent', { index, part: whole }));
		} else {
			events.push(event('PartStartEvent', { index, part: whole }));
			if (d.chance(0.7)) events.push(event('PartEndEvent', { index, part: whole }));
		}
	}
	snapshot.push(whole);
	// A tool call is a part of its own: a growing snapshot shows it when it comes.
	if (has('snapshots')) events.push(snapshotEvent());
	if (tool.result?.as !== 'part') return;
	const returned = returnPart(tool);
	if (has('parts')) {
		events.push(event('PartStartEvent', { index: index + 1, part: returned }));
		if (d.chance(0.5)) events.push(event('PartEndEvent', { index: index + 1, part: returned }));
	}
	snapshot.push(returned);
	if (has('snapshots')) events.push(snapshotEvent());
}

function contentEvent(piece: string): WireEvent {
	return event('FrontendModelResponse', { content: piece });
}

function partStart(index: number, part: GeneratedPart, first: string): WireEvent {
	return event('PartStartEvent', { index, part: { part_kind: part.kind, content: first } });
}

function partDelta(d: Draw, index: number, part: GeneratedPart, piece: string): WireEvent {
	// A delta may leave out its kind: it is then its part's kind.
	const delta: Record<string, string> = { content_delta: piece };
	if (d.chance(0.6)) delta.part_delta_kind = part.kind;
	return event('PartDeltaEvent', { index, delta });
}

function partEnd(d: Draw, index: number, part: GeneratedPart): WireEvent {
	const whole: Record<string, string> = { content: part.pieces.join('') };
	if (d.chance(0.8)) whole.part_kind = part.kind;
	return event('PartEndEvent', { index, part: whole });
}

/** Comments, `[DONE]` and unknown events, which carry nothing. */
export function noise(d: Draw): WireEvent {
	return d.pick<WireEvent>([
		[undefined, ': keep-alive'],
		[undefined, 'data: [DONE]'],
		event('Heartbeat', { at: 1 }),
		event('ToolCallEvent', { content: 'not the answer', parts: [] }),
	]);
}

/** Lines no reader reads (a comment, an `id:`, a `retry:`), as serialize puts them among an event's. */
export const UNREAD_LINES = [': ping', 'id: 7', 'retry: 3000'];

/**
 * The wire text of the events, with random line endings and `data:` layouts, now and then a
 * comment, `id:` or `retry:` line among an event's lines. A lone `\r` ends every line of its
 * stream or none: followed by a `\n` ending, it would make one `\r\n`.
 */
export function serialize(d: Draw, events: WireEvent[]): string {
	// About 15 % lone `\r`, 40 % `\n`, 45 % `\r\n` and `\n` mixed.
	const lineEnd = d.chance(0.15)
		? () => '\r'
		: d.chance(0.47)
			? () => '\n'
			: () => (d.chance(0.7) ? '\r\n' : '\n');
	let text = '';
	for (const [name, data] of events) {
		const lines: string[] = [];
		if (name === undefined) {
			lines.push(data);
		} else {
			lines.push(`event: ${name}`);
			// SSE joins data lines with \n: JSON reads it as whitespace between tokens.
			const cutAt = data.indexOf('":');
			if (cutAt > 0 && d.chance(0.2)) {
				lines.push(`data: ${data.slice(0, cutAt + 2)}`, `data: ${data.slice(cutAt + 2)}`);
			} else {
				lines.push(d.chance(0.1) ? `data:${data}` : `data: ${data}`);
			}
			// A line no reader reads, anywhere in the event, between its data lines too.
			if (d.chance(0.05)) {
				lines.splice(d.int(0, lines.length), 0, d.pick(UNREAD_LINES));
			}
		}
		text += lines.map((line) => line + lineEnd()).join('') + lineEnd();
	}
	return text;
}

/** Splits the bytes anywhere, inside multi-byte characters too. */
export function frame(d: Draw, bytes: Buffer): Uint8Array[] {
	const chunks: Uint8Array[] = [];
	const maxSize = d.pick([1, 3, 7, 40, 400]);
	for (let offset = 0; offset < bytes.length;) {
		const size = d.int(1, maxSize);
		chunks.push(bytes.subarray(offset, offset + size));
		offset += size;
	}
	return chunks;
}

/**
 * The response told first as a `FrontendModelResponse` snapshot, then by its Part events (the
 * sources in any mix, field notes): its parts before its tool call, whole or the last one cut
 * short. Each piece must still count once, in one message.
 */
export function leadingSnapshot(d: Draw, parts: GeneratedPart[]): WireEvent | undefined {
	const told = parts
		.filter((part) => !part.tool)
		.map((part) => ({ part_kind: part.kind, content: part.pieces.join('') }));
	if (told.length === 0) return undefined;
	if (d.chance(0.4)) {
		const { pieces } = parts[told.length - 1];
		told[told.length - 1].content = pieces.slice(0, d.int(0, pieces.length)).join('');
	}
	return event('FrontendModelResponse', { parts: told });
}
