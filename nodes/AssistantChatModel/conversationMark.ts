/**
 * The conversation an answer belongs to travels with the answer itself: in the AI message's id
 * and in its tool call ids, which n8n's agents hand back with the history on their next call
 * (the AI Agent rebuilds its steps from the tool call ids between turns). So the next call knows
 * which conversation to continue without any state kept in the process, which queue mode (a
 * worker per execution) would break.
 */

const PREFIX = 'assistant-conversation:';

/** `turn` keeps marks unique within a conversation (tool call ids must be). */
export function markOfConversation(conversationId: string, turn: number): string {
	return `${PREFIX}${encodeURIComponent(conversationId)}:${turn}`;
}

export function conversationOfMark(mark: string | undefined): string | undefined {
	if (!mark || !mark.startsWith(PREFIX)) return undefined;
	const rest = mark.slice(PREFIX.length);
	const end = rest.lastIndexOf(':');
	if (end <= 0) return undefined;
	try {
		return decodeURIComponent(rest.slice(0, end)) || undefined;
	} catch {
		return undefined;
	}
}
