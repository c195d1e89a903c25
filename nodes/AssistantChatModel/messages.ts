import type { Message, MessageContent } from '@n8n/ai-node-sdk';

import { noteOfEmptyMessage, noteOfFile, noteOfProviderPart } from './attachments';
import {
	writeTranscript,
	type TranscriptEntry,
	type TranscriptOptions,
	type TranscriptRole,
} from './transcript';

/**
 * LangChain's messages (system, human, AI, tool), as n8n's AI node SDK hands them over, become
 * the one `input` of an ask (docs/api.md#ask-request). Which messages an ask sends is askPlan.ts's
 * choice.
 */

/** Tool results name their call, not always the tool: the call says which tool it was. */
export function toolNamesById(messages: Message[]): Map<string, string> {
	const names = new Map<string, string>();
	for (const message of messages) {
		for (const content of message.content) {
			if (content.type === 'tool-call' && content.toolCallId) {
				names.set(content.toolCallId, content.toolName);
			}
		}
	}
	return names;
}

/** What an ask sends: its input, and the notes of what could not go with it. */
export interface Transcript {
	input: string;
	/** One note per attachment (or other part) left out, as it stands in the input. */
	leftOut: string[];
}

/**
 * The messages in the transcript's form (transcript.ts): one entry per message, in order, every
 * message whatever it holds; the workflow's tool catalogue after them when given.
 */
export function formatTranscript(
	messages: Message[],
	toolNames = toolNamesById(messages),
	options: TranscriptOptions = {},
): Transcript {
	const leftOut: string[] = [];
	const entries = messages.map((message) => entryOf(message, toolNames, leftOut));
	return { input: writeTranscript(entries, options), leftOut };
}

function roleOf(message: Message): TranscriptRole {
	switch (message.role) {
		case 'system':
			return 'instructions';
		case 'assistant':
			return 'assistant';
		case 'tool':
			return 'tool';
		default:
			return 'user';
	}
}

/**
 * Text is kept as it is; a file or a provider's part becomes a note where it stood; tool calls
 * and tool results keep their tool. Reasoning (a model's thinking, not what it said) and
 * citations (sources of text that is kept) are not part of the message's text.
 */
function entryOf(
	message: Message,
	toolNames: Map<string, string>,
	leftOut: string[],
): TranscriptEntry {
	const role = roleOf(message);
	const entry: TranscriptEntry = { role, content: '' };
	const parts = new Parts();
	const note = (text: string) => {
		leftOut.push(text);
		parts.note(text);
	};
	for (const block of message.content) {
		switch (block.type) {
			case 'text':
				parts.text(block.text);
				break;
			case 'file':
				note(noteOfFile(block, role));
				break;
			case 'provider':
				note(noteOfProviderPart(role));
				break;
			case 'tool-call':
				(entry.toolCalls ??= []).push({ tool: block.toolName, arguments: block.input || '{}' });
				break;
			case 'invalid-tool-call':
				(entry.toolCalls ??= []).push({
					tool: block.name ?? '(unnamed)',
					arguments: block.args ?? '',
				});
				break;
			case 'tool-result':
				entry.tool ??= message.name || toolNames.get(block.toolCallId) || '(unnamed)';
				if (block.isError) entry.failed = true;
				parts.text(resultText(block.result, role, (text) => (leftOut.push(text), text)));
				break;
			default:
				break;
		}
	}
	if (role === 'tool' && entry.tool === undefined) entry.tool = message.name || '(unnamed)';
	if (message.content.length === 0) note(noteOfEmptyMessage(role));
	entry.content = parts.join();
	return entry;
}

/** Text pieces joined as they are; a note on a line of its own among them. */
class Parts {
	private readonly pieces: Array<{ note: boolean; text: string }> = [];

	text(text: string): void {
		this.pieces.push({ note: false, text });
	}

	note(text: string): void {
		this.pieces.push({ note: true, text });
	}

	join(): string {
		let out = '';
		this.pieces.forEach((piece, index) => {
			const previous = this.pieces[index - 1];
			if (previous && (piece.note || previous.note) && out !== '' && !out.endsWith('\n')) {
				out += '\n';
			}
			out += piece.text;
		});
		return out;
	}
}

/** A tool result that is not text: its content blocks (files noted), or its JSON. */
function resultText(
	result: unknown,
	role: TranscriptRole,
	record: (note: string) => string,
): string {
	if (typeof result === 'string') return result;
	if (Array.isArray(result) && result.length > 0 && result.every(isContentBlock)) {
		const texts: string[] = [];
		for (const block of result as MessageContent[]) {
			if (block.type === 'text') texts.push(block.text);
			else if (block.type === 'file') texts.push(record(noteOfFile(block, role)));
			else texts.push(JSON.stringify(block));
		}
		return texts.join('\n');
	}
	const json = JSON.stringify(result);
	return json === undefined ? String(result) : json;
}

function isContentBlock(value: unknown): boolean {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { type?: unknown }).type === 'string'
	);
}
