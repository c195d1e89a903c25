/**
 * The truth of a generated ask turn, independent of any stream: its model messages and their
 * parts, each text part cut into the pieces a model would send. What the answer must be follows
 * from it alone (docs/api.md#assembling-the-answer), never from the node's code.
 */
import type { Draw } from './prng';

export interface GeneratedPart {
	kind: 'text' | 'thinking' | 'builtin-tool-call';
	pieces: string[];
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

function part(d: Draw, kind: GeneratedPart['kind']): GeneratedPart {
	if (kind === 'builtin-tool-call') return { kind, pieces: [] };
	return { kind, pieces: cut(d, words(d, d.int(1, 6))) };
}

/** `messageCount` messages; texts of consecutive messages start differently (else ambiguous). */
export function generateTurn(d: Draw, messageCount: number, withText = true): GeneratedTurn {
	const messages: GeneratedPart[][] = [];
	let previousFirst = '';
	for (let m = 0; m < messageCount; m++) {
		const parts: GeneratedPart[] = [];
		if (d.chance(0.4)) parts.push(part(d, 'thinking'));
		const textParts = withText ? (m === messageCount - 1 ? d.int(1, 2) : d.int(0, 2)) : 0;
		for (let t = 0; t < textParts; t++) parts.push(part(d, 'text'));
		// A turn's messages are split by tool calls: each but the last ends with one.
		if (m < messageCount - 1) parts.push(part(d, 'builtin-tool-call'));
		else if (d.chance(0.15)) parts.push(part(d, 'thinking'));
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

export function messageText(parts: GeneratedPart[]): string {
	return parts
		.filter((p) => p.kind === 'text')
		.map((p) => p.pieces.join(''))
		.join('');
}

/** The assembled text the rule gives: message texts, the empty left out, joined by a blank line. */
export function expectedText(turn: GeneratedTurn): string {
	return turn.messages
		.map(messageText)
		.filter((text) => text)
		.join('\n\n');
}
