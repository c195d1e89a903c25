/**
 * The AI node SDK's messages, as LangChain hands them to the chat model through the SDK's adapter:
 * builders the chat-model unit tests share.
 */
import type { Message } from '@n8n/ai-node-sdk';

export const system = (text: string): Message => ({
	role: 'system',
	content: [{ type: 'text', text }],
});
export const user = (text: string): Message => ({
	role: 'user',
	content: [{ type: 'text', text }],
});
export const assistant = (text: string, id?: string): Message => ({
	role: 'assistant',
	id,
	content: [{ type: 'text', text }],
});
export const toolCall = (toolCallId: string, toolName: string, input: string): Message => ({
	role: 'assistant',
	content: [{ type: 'tool-call', toolCallId, toolName, input }],
});
export const toolResult = (toolCallId: string, result: unknown, isError = false): Message => ({
	role: 'tool',
	content: [{ type: 'tool-result', toolCallId, result, isError }],
});

/** A result of the tool `name` made of content blocks (text, files), as a tool returns them. */
export const blocksFromTool = (name: string, toolCallId: string, result: unknown[]): Message => ({
	role: 'tool',
	name,
	content: [{ type: 'tool-result', toolCallId, result }],
});
