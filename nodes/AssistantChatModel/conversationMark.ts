/**
 * The conversation an answer belongs to travels with the answer itself: in the AI message's id
 * and in its tool call ids, which n8n's agents hand back with the history on their next call
 * (the AI Agent rebuilds its steps from the tool call ids between turns, and its memory keeps
 * the tool calls across executions). So the next call knows which conversation to continue, and
 * which tool catalogue that conversation holds, without any state kept in the process, which
 * queue mode (a worker per execution) would break.
 */

const PREFIX = 'assistant-conversation:';

export interface ConversationMark {
	conversationId: string;
	/** The fingerprint of the tool catalogue the conversation holds (toolEnvelope.ts). */
	catalogue?: string;
}

/**
 * `messageCount` (the messages of the call answered) keeps marks unique within a conversation
 * (tool call ids must be). The parts are joined
 * with ":", which encodeURIComponent escapes inside the id.
 */
export function markOfConversation(
	conversationId: string,
	messageCount: number,
	catalogue?: string,
): string {
	const mark = `${PREFIX}${encodeURIComponent(conversationId)}:${messageCount}`;
	return catalogue ? `${mark}:${catalogue}` : mark;
}

export function readMark(mark: string | undefined): ConversationMark | undefined {
	if (!mark || !mark.startsWith(PREFIX)) return undefined;
	const [id, messageCount, catalogue, ...rest] = mark.slice(PREFIX.length).split(':');
	if (!id || messageCount === undefined || rest.length > 0) return undefined;
	try {
		const conversationId = decodeURIComponent(id);
		return catalogue ? { conversationId, catalogue } : { conversationId };
	} catch {
		return undefined;
	}
}

export function conversationOfMark(mark: string | undefined): string | undefined {
	return readMark(mark)?.conversationId;
}
