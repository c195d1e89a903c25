/**
 * A generated turn told as an ask stream: in the documented dialect (content deltas), the live
 * one (Part events, growing or final `parts` snapshots) or a mix of sources
 * (docs/api.md#streams). Written from the API reference, not from the node's code.
 */
import type { Draw } from './prng';
import type { GeneratedPart, GeneratedTurn } from './turn';

export type Source = 'content' | 'parts' | 'snapshots' | 'final-snapshot';

export type WireEvent = [name: string | undefined, data: string];

const event = (name: string, data: unknown): WireEvent => [name, JSON.stringify(data)];

interface SnapshotPart {
	part_kind: string;
	content: string;
}

/** The answer-carrying events of a turn, through the given sources. */
export function turnEvents(d: Draw, turn: GeneratedTurn, sources: Source[]): WireEvent[] {
	const events: WireEvent[] = [];
	const has = (source: Source) => sources.includes(source);
	turn.messages.forEach((parts) => {
		const snapshot: SnapshotPart[] = [];
		const snapshotEvent = () =>
			event('FrontendModelResponse', { parts: snapshot.map((p) => ({ ...p })) });
		parts.forEach((part, index) => {
			const pieces = [...part.pieces];
			// Only Part events carry a first piece in the part's start.
			const first =
				has('parts') && pieces.length > 0 && d.chance(0.6) ? (pieces.shift() as string) : '';
			if (has('parts')) events.push(partStart(index, part, first));
			snapshot.push({ part_kind: part.kind, content: first });
			// A tool call is a part of its own: a growing snapshot shows it when it comes.
			if (part.kind === 'builtin-tool-call' && has('snapshots')) events.push(snapshotEvent());
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
	});
	return events;
}

function contentEvent(piece: string): WireEvent {
	return event('FrontendModelResponse', { content: piece });
}

function partStart(index: number, part: GeneratedPart, first: string): WireEvent {
	if (part.kind === 'builtin-tool-call') {
		return event('PartStartEvent', {
			index,
			part: { part_kind: part.kind, tool_name: 'web_search', args: { q: 'x' }, tool_call_id: 't1' },
		});
	}
	return event('PartStartEvent', { index, part: { part_kind: part.kind, content: first } });
}

function partDelta(d: Draw, index: number, part: GeneratedPart, piece: string): WireEvent {
	// A delta may leave out its kind: it is then its part's kind.
	const delta: Record<string, string> = { content_delta: piece };
	if (d.chance(0.6)) delta.part_delta_kind = part.kind;
	return event('PartDeltaEvent', { index, delta });
}

function partEnd(d: Draw, index: number, part: GeneratedPart): WireEvent {
	if (part.kind === 'builtin-tool-call') {
		return event('PartEndEvent', {
			index,
			part: { part_kind: part.kind, tool_name: 'web_search' },
		});
	}
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

/** The wire text of the events, with random line endings and `data:` layouts. */
export function serialize(d: Draw, events: WireEvent[]): string {
	const lineEnd = d.chance(0.5) ? () => '\n' : () => (d.chance(0.7) ? '\r\n' : '\n');
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
