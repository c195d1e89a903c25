import type { Message, MessageContent } from '@n8n/ai-node-sdk';

import { isAnswerId } from './answerMessage';
import { fileNameOf, noteOfEmptyMessage, noteOfFile, noteOfProviderPart } from './attachments';
import { imageOfFile, isImageFile, type ImagePolicy } from './chatImages';
import { shownToolName } from './toolEnvelope';
import {
	writeTranscript,
	type TranscriptContent,
	type TranscriptImage,
	type TranscriptEntry,
	type TranscriptOptions,
	type TranscriptRole,
	type TranscriptToolCall,
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

export interface FormatOptions extends TranscriptOptions {
	/** Whether images go with the ask (chatImages.ts); without it, each is a note. */
	images?: ImagePolicy;
}

/**
 * The messages in the transcript's form (transcript.ts): one entry per message, in order, every
 * message whatever it holds; the workflow's tool catalogue after them when given.
 */
export function formatTranscript(
	messages: Message[],
	toolNames = toolNamesById(messages),
	{ images, ...options }: FormatOptions = {},
): Transcript {
	const leftOut: string[] = [];
	const files = new Files(images, leftOut);
	const entries = messages.map((message) => entryOf(message, toolNames, files));
	return { input: writeTranscript(entries, options), leftOut };
}

type ContentFile = Extract<MessageContent, { type: 'file' }>;

/** What becomes of each file: an image the model sees goes as it is, anything else is a note. */
class Files {
	constructor(
		private readonly policy: ImagePolicy | undefined,
		private readonly leftOut: string[],
	) {}

	/** `ownLine` false: in a tool's result, whose blocks are one per line already. */
	add(parts: Parts, file: ContentFile, role: TranscriptRole, ownLine = true): void {
		if (this.policy && isImageFile(file)) {
			const image = this.policy.send ? imageOfFile(file, fileNameOf(file)) : this.policy;
			if ('markdown' in image) parts.image(image.markdown, ownLine);
			else this.note(parts, noteOfFile(file, role, image.reason), ownLine);
			return;
		}
		this.note(parts, noteOfFile(file, role), ownLine);
	}

	note(parts: Parts, text: string, ownLine = true): void {
		this.leftOut.push(text);
		parts.note(text, ownLine);
	}
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

/** A tool's name as the assistant is given it in the catalogue (toolEnvelope.ts). */
function toolShown(name: string | undefined): string {
	return name ? shownToolName(name) : '(unnamed)';
}

/**
 * Text is kept as it is; a file or a provider's part becomes a note where it stood; tool calls
 * and tool results keep their tool (by the name the catalogue gives it) and their call's id; a
 * user message keeps its author's name.
 * Reasoning (a model's thinking, not what it said) and citations (sources of text that is kept)
 * are not part of the message's text.
 */
function entryOf(message: Message, toolNames: Map<string, string>, files: Files): TranscriptEntry {
	const role = roleOf(message);
	const entry: TranscriptEntry = { role, content: '' };
	if (role === 'user' && message.name) entry.name = message.name;
	const parts = new Parts();
	for (const block of message.content) {
		switch (block.type) {
			case 'text':
				parts.text(block.text);
				break;
			case 'file':
				files.add(parts, block, role);
				break;
			case 'provider':
				files.note(parts, noteOfProviderPart(role));
				break;
			case 'tool-call':
				(entry.toolCalls ??= []).push(
					callOf(block, shownToolName(block.toolName), block.input || '{}'),
				);
				break;
			case 'invalid-tool-call':
				(entry.toolCalls ??= []).push(
					callOf(block, block.name ? shownToolName(block.name) : '(unnamed)', block.args ?? ''),
				);
				break;
			case 'tool-result':
				entry.tool ??= toolShown(message.name || toolNames.get(block.toolCallId));
				entry.toolCallId ??= writtenCallId(block);
				if (block.isError) entry.failed = true;
				addResult(parts, block.result, role, files);
				break;
			default:
				break;
		}
	}
	if (role === 'tool' && entry.tool === undefined) entry.tool = toolShown(message.name);
	if (message.content.length === 0) files.note(parts, noteOfEmptyMessage(role));
	entry.content = parts.join();
	return entry;
}

/**
 * The call id the transcript writes, on a call and on its result, so that the assistant knows
 * which result answers which call (two calls of one tool may be answered in any order). None when
 * n8n gives none or an empty one (a LangChain tool message without its call's id), nor for the
 * node's own calls (answerMessage.ts): one per answer, answered by the result after it, with an
 * id that is the node's mark, which the assistant's conversation never saw.
 */
function writtenCallId(block: { toolCallId?: string }): string | undefined {
	const id = block.toolCallId;
	return id && !isAnswerId(id) ? id : undefined;
}

/** A call as the transcript writes it: with its id when it has one, for its result to name. */
function callOf(block: { toolCallId?: string }, tool: string, args: string): TranscriptToolCall {
	const id = writtenCallId(block);
	return id === undefined ? { tool, arguments: args } : { id, tool, arguments: args };
}

interface Piece {
	text: string;
	/** A note, or an image of the message: on a line of its own. */
	ownLine: boolean;
	image?: true;
}

/**
 * Text pieces joined as they are; a note or an image on a line of its own among them. The
 * content is text, or, with images, its pieces of text and images (transcript.ts).
 */
class Parts {
	private readonly pieces: Piece[] = [];

	text(text: string): void {
		this.pieces.push({ text, ownLine: false });
	}

	note(text: string, ownLine = true): void {
		this.pieces.push({ text, ownLine });
	}

	image(markdown: string, ownLine = true): void {
		this.pieces.push({ text: markdown, ownLine, image: true });
	}

	join(): TranscriptContent {
		const out: Array<string | TranscriptImage> = [];
		let last = '';
		const append = (text: string) => {
			if (text === '') return;
			const end = out.length - 1;
			if (typeof out[end] === 'string') out[end] += text;
			else out.push(text);
			last = text;
		};
		this.pieces.forEach((piece, index) => {
			const previous = this.pieces[index - 1];
			if (
				previous &&
				(piece.ownLine || previous.ownLine) &&
				out.length > 0 &&
				!last.endsWith('\n')
			) {
				append('\n');
			}
			if (piece.image) {
				out.push({ image: piece.text });
				last = piece.text;
			} else {
				append(piece.text);
			}
		});
		if (!out.some((piece) => typeof piece !== 'string'))
			return (out[0] as string | undefined) ?? '';
		return out;
	}
}

/**
 * A tool result that is not text: its content blocks, one per line (files as in a message), or
 * its JSON.
 */
function addResult(parts: Parts, result: unknown, role: TranscriptRole, files: Files): void {
	if (typeof result === 'string') return parts.text(result);
	if (Array.isArray(result) && result.length > 0 && result.every(isContentBlock)) {
		(result as MessageContent[]).forEach((block, index) => {
			if (index > 0) parts.text('\n');
			if (block.type === 'text') parts.text(block.text);
			else if (block.type === 'file') files.add(parts, block, role, false);
			else parts.text(JSON.stringify(block));
		});
		return;
	}
	const json = JSON.stringify(result);
	parts.text(json === undefined ? String(result) : json);
}

function isContentBlock(value: unknown): boolean {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { type?: unknown }).type === 'string'
	);
}
