import type { Message, MessageContent } from '@n8n/ai-node-sdk';

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

/**
 * A lone user message is sent as it is (a chain's prompt); anything more becomes a transcript
 * with one labelled section per message, in order.
 */
export function formatTranscript(messages: Message[], toolNames = toolNamesById(messages)): string {
	const sections = messages
		.map((message) => formatMessage(message, toolNames))
		.filter((section) => section.body.trim() !== '');
	if (sections.length === 1 && sections[0].label === 'User') return sections[0].body;
	return sections.map(({ label, body }) => `${label}:\n${body}`).join('\n\n');
}

interface Section {
	label: string;
	body: string;
}

function formatMessage(message: Message, toolNames: Map<string, string>): Section {
	switch (message.role) {
		case 'system':
			return { label: 'Instructions', body: textOf(message.content) };
		case 'user':
			return { label: 'User', body: textOf(message.content) };
		case 'assistant':
			return { label: 'Assistant', body: assistantBody(message.content) };
		case 'tool':
			return toolSection(message, toolNames);
		default:
			return { label: 'User', body: textOf(message.content) };
	}
}

function assistantBody(content: MessageContent[]): string {
	const parts: string[] = [];
	const text = textOf(content);
	if (text) parts.push(text);
	for (const block of content) {
		if (block.type === 'tool-call') {
			parts.push(`(called the tool ${block.toolName} with the arguments ${block.input || '{}'})`);
		}
	}
	return parts.join('\n');
}

function toolSection(message: Message, toolNames: Map<string, string>): Section {
	const bodies: string[] = [];
	let name = message.name;
	for (const block of message.content) {
		if (block.type === 'tool-result') {
			name = name || toolNames.get(block.toolCallId);
			const result = typeof block.result === 'string' ? block.result : resultText(block.result);
			bodies.push(block.isError ? `(the tool failed) ${result}` : result);
		} else if (block.type === 'text') {
			bodies.push(block.text);
		}
	}
	return { label: `Result of the tool ${name || '(unnamed)'}`, body: bodies.join('\n') };
}

/** A tool result that is not text: its text blocks, or its JSON. */
function resultText(result: unknown): string {
	if (Array.isArray(result) && result.every((entry) => isTextBlock(entry))) {
		return (result as Array<{ text: string }>).map((entry) => entry.text).join('\n');
	}
	const json = JSON.stringify(result);
	return json === undefined ? String(result) : json;
}

function isTextBlock(value: unknown): value is { type: 'text'; text: string } {
	return (
		typeof value === 'object' &&
		value !== null &&
		(value as { type?: unknown }).type === 'text' &&
		typeof (value as { text?: unknown }).text === 'string'
	);
}

/** Text blocks only: reasoning is the model's own, files and citations are not sendable as text. */
export function textOf(content: MessageContent[]): string {
	return content
		.filter((block): block is Extract<MessageContent, { type: 'text' }> => block.type === 'text')
		.map((block) => block.text)
		.join('');
}
