/**
 * The truth of a generated ask turn, independent of any stream: its model messages and their
 * parts, each text part cut into the pieces a model would send. What the answer must be follows
 * from it alone (docs/api.md#assembling-the-answer), never from the node's code.
 */
import type { Draw } from './prng';

export interface GeneratedPart {
	kind: 'text' | 'thinking' | 'builtin-tool-call';
	pieces: string[];
	/** A tool call's truth, and how the stream tells it (docs/api.md#steps). */
	tool?: GeneratedTool;
}

export interface GeneratedTool {
	partKind: 'builtin-tool-call' | 'tool-call';
	name: string;
	args: Record<string, unknown>;
	/** null: the stream gives no id. */
	id: string | null;
	/** Arguments as an object, as JSON text, or (with Part events) grown through deltas. */
	argsForm: 'object' | 'text' | 'delta';
	/** Also told by a `FunctionToolCallEvent` after its message. */
	callEvent: boolean;
	result: null | {
		content: unknown;
		/** A return part right after the call, or a `FunctionToolResultEvent` after its message. */
		as: 'part' | 'event';
		/** 2026: whether the tool succeeded, told in the result (it goes into the step). */
		outcome?: string;
	};
}

export interface GeneratedTurn {
	messages: GeneratedPart[][];
}

const WORDS = [
	'Hello',
	'café',
	'naïve',
	'😀',
	'中文',
	'line\nbreak',
	'tab\there',
	'"quoted"',
	'emoji 👩‍💻',
	'data: x',
	'event: End',
	'\\',
	'ok',
	'{"a": 1}',
	'\r\n',
];

function words(d: Draw, count: number): string {
	const parts: string[] = [];
	for (let i = 0; i < count; i++) parts.push(d.pick(WORDS));
	return parts.join(d.chance(0.8) ? ' ' : '');
}

/** Cuts a text into 1..n pieces, never empty, possibly inside a surrogate pair's neighbourhood. */
function cut(d: Draw, text: string): string[] {
	const characters = Array.from(text);
	const pieces: string[] = [];
	let current = '';
	for (const character of characters) {
		current += character;
		if (d.chance(0.35)) {
			pieces.push(current);
			current = '';
		}
	}
	if (current) pieces.push(current);
	return pieces;
}

/** Tools by message: a turn's calls have different names (a stream may not show where a message begins). */
const TOOL_NAMES = ['search_mail', 'read_file', 'web_search', 'calendar_list'];

function toolCall(d: Draw, message: number): GeneratedTool {
	const partKind = d.chance(0.5) ? 'builtin-tool-call' : 'tool-call';
	const name = TOOL_NAMES[message % TOOL_NAMES.length];
	const args = { query: words(d, d.int(0, 3)), page: message, deep: { ok: d.chance(0.5) } };
	const n = d.chance(0.8) ? d.int(0, 9999) : null;
	// Without an id, a call told twice is recognized by its name and arguments: each call's differ.
	// A quarter of the ids restart in each model response, as providers that number a response's
	// calls give them (`bash:0` in each: docs/api.md#steps): one id, a call in each message.
	const id = n === null ? null : n % 4 === 0 ? 'call:0' : `call_${message}_${n}`;
	return {
		partKind,
		name,
		args,
		id,
		argsForm: d.pick(['object', 'text', 'delta'] as const),
		callEvent: d.chance(0.3),
		result: d.chance(0.7)
			? {
					content: d.pick([[{ subject: words(d, 2) }], 'done ✓', { n: message }]),
					as: d.pick(['part', 'event'] as const),
				}
			: null,
	};
}

function part(d: Draw, kind: GeneratedPart['kind'], message = 0): GeneratedPart {
	if (kind === 'builtin-tool-call') return { kind, pieces: [], tool: toolCall(d, message) };
	return { kind, pieces: cut(d, words(d, d.int(1, 6))) };
}

/**
 * `messageCount` messages; texts of consecutive messages start differently (else ambiguous).
 * `paragraphs`: a message's two text parts may have thinking between them (two paragraphs), where
 * the stream shows its parts; `content` deltas alone cannot tell them (docs/api.md#assembling-the-answer, 4).
 */
export function generateTurn(
	d: Draw,
	messageCount: number,
	withText = true,
	paragraphs = false,
): GeneratedTurn {
	const messages: GeneratedPart[][] = [];
	let previousFirst = '';
	let previousThought = '';
	for (let m = 0; m < messageCount; m++) {
		const parts: GeneratedPart[] = [];
		if (d.chance(0.4)) parts.push(part(d, 'thinking'));
		const textParts = withText ? (m === messageCount - 1 ? d.int(1, 2) : d.int(0, 2)) : 0;
		for (let t = 0; t < textParts; t++) {
			if (t > 0 && paragraphs && d.chance(0.4)) parts.push(part(d, 'thinking'));
			parts.push(part(d, 'text'));
		}
		// A turn's messages are split by tool calls: each but the last ends with one.
		if (m < messageCount - 1) parts.push(part(d, 'builtin-tool-call', m));
		else if (d.chance(0.15)) parts.push(part(d, 'thinking'));
		// Likewise their thinking texts: a snapshot can tell a new message from its thinking alone.
		const thought = parts.find((p) => p.kind === 'thinking' && p.pieces.length > 0);
		if (thought && Array.from(thought.pieces.join(''))[0] === previousThought) {
			thought.pieces.unshift(previousThought === '§' ? '¶' : '§');
		}
		if (thought) previousThought = Array.from(thought.pieces.join(''))[0];
		let text = messageText(parts);
		if (text && Array.from(text)[0] === previousFirst) {
			const first = parts.find((p) => p.kind === 'text' && p.pieces.length > 0) as GeneratedPart;
			first.pieces.unshift(previousFirst === '§' ? '¶' : '§');
			text = messageText(parts);
		}
		if (text) previousFirst = Array.from(text)[0];
		messages.push(parts);
	}
	return { messages };
}

/** Text parts run on; a blank line where another part lies between two that have text. */
export function messageText(parts: GeneratedPart[]): string {
	let text = '';
	let separated = false;
	for (const p of parts) {
		const content = p.pieces.join('');
		if (p.kind !== 'text') separated = true;
		else if (content) {
			text += separated && text ? `\n\n${content}` : content;
			separated = false;
		}
	}
	return text;
}

/**
 * The steps the rule gives (docs/api.md#steps): per message, its thinking texts (with
 * `thinking`, when a source that shows parts carries them), its tool call and its result, in order.
 */
export function expectedSteps(turn: GeneratedTurn, thinking: boolean, partsShown: boolean) {
	const steps: Array<Record<string, unknown>> = [];
	if (!partsShown) return steps;
	for (const parts of turn.messages) {
		for (const p of parts) {
			if (p.kind === 'thinking' && thinking && p.pieces.join('')) {
				steps.push({ type: 'thinking', content: p.pieces.join('') });
			}
			const tool = p.tool;
			if (!tool) continue;
			const ids = { tool_name: tool.name, tool_call_id: tool.id };
			steps.push({
				type: 'tool_call',
				tool_name: tool.name,
				args: tool.args,
				tool_call_id: tool.id,
			});
			if (tool.result) {
				const { outcome } = tool.result;
				steps.push({
					type: 'tool_result',
					...ids,
					content: tool.result.content,
					...(outcome ? { outcome } : {}),
				});
			}
		}
	}
	return steps;
}

/** The blank lines within the turn's messages (messageText), for the fuzz's own check. */
export function paragraphCount(turn: GeneratedTurn): number {
	let count = 0;
	for (const parts of turn.messages) count += messageText(parts).split('\n\n').length - 1;
	return count;
}

/** The assembled text the rule gives: message texts, the empty left out, joined by a blank line. */
export function expectedText(turn: GeneratedTurn): string {
	return turn.messages
		.map(messageText)
		.filter((text) => text)
		.join('\n\n');
}
