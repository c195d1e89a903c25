import type { Message, MessageContent } from '@n8n/ai-node-sdk';

import { normalized } from '../shared/recovery/turnReading';
import type { ConversationSource } from '../shared/transport/errors';
import { withoutImages } from '../shared/images';
import { isUnmarkedAnswerId } from './answerMessage';
import { readMark, type ConversationMark } from './conversationMark';
import type { ImagePolicy } from './chatImages';
import { formatTranscript, toolNamesById, type Transcript } from './messages';
import { ACTION_FINAL_ANSWER } from './toolEnvelope';

/**
 * Which of the messages n8n hands over an ask sends, and to which conversation
 * (docs/api.md#ask-request: a conversation keeps what it was sent, so nothing goes twice).
 *
 * - The history holds the node's marks (conversationMark.ts): the latest names the conversation.
 *   It holds the marked message and everything before it; an assistant message after the mark
 *   (an agent's memory keeps the final answer without its id) answered an ask of that
 *   conversation, so it holds everything up to that answer too. Only what follows is sent.
 * - Options > Conversation ID names a conversation: it is continued. When the history's latest
 *   mark names it, the mark says what it holds, as above; otherwise everything up to the
 *   history's last assistant message is taken as said there, and the messages after it (the new
 *   turn) are sent.
 * - Neither: a new conversation gets the whole transcript. When this node answered the turn
 *   already (a tool call since the last user message) in a conversation the service did not
 *   name, the plan says so: that transcript would ask the same request again.
 */

export interface PlannedAsk extends Transcript {
	/** The conversation to continue, or undefined for a new one. */
	conversationId?: string;
	/** Where that conversation came from: Options > Conversation ID, or the history's mark. */
	conversationFrom?: ConversationSource;
	/** The fingerprint of the tool catalogue the conversation holds, when the marks say so. */
	catalogue?: string;
	/**
	 * When the ask's messages repeat those the history's last answer from that conversation
	 * answered (a chat memory's "yes" twice): that answer's text. The conversation cannot tell
	 * the earlier turn from this ask's (isHeldAnswer).
	 */
	heldAnswer?: string;
	/**
	 * A new conversation for a turn that an answer of this node whose conversation the service
	 * did not name has begun to answer (a tool call since the last user message): the whole
	 * transcript would ask the same request again, where the assistant would do its work (a mail,
	 * a file) a second time (docs/api.md#exactly-once).
	 */
	turnBegunUnnamed?: true;
}

/** `images`: whether the messages' images go (chatImages.ts); without it, each is a note. */
export function planAsk(
	messages: Message[],
	chosenConversation?: string,
	images?: ImagePolicy,
): PlannedAsk {
	const toolNames = toolNamesById(messages);
	const mark = latestMark(messages);
	const marked =
		mark && (!chosenConversation || mark.conversationId === chosenConversation) ? mark : undefined;
	const conversationId = chosenConversation || marked?.conversationId;
	if (conversationId) {
		const conversationFrom: ConversationSource = chosenConversation ? 'option' : 'mark';
		const held = lastAssistantIndex(messages, marked?.index ?? -1);
		const fresh = messages.slice(held + 1);
		if (fresh.length > 0) {
			// A conversation the node asked before holds the transcript's whole preface.
			const plan: PlannedAsk = {
				conversationId,
				conversationFrom,
				...formatTranscript(fresh, toolNames, { continued: marked !== undefined, images }),
			};
			if (marked?.catalogue) plan.catalogue = marked.catalogue;
			const heldAnswer = repeatedAnswer(messages, held, fresh, (said) =>
				shownText(said, toolNames, images),
			);
			if (heldAnswer) plan.heldAnswer = heldAnswer;
			return plan;
		}
		// Nothing new (a history that ends with an answer): the conversation named by the option
		// gets the last message again rather than nothing; a mark's conversation is left alone.
		if (chosenConversation && messages.length > 0) {
			return {
				conversationId,
				conversationFrom,
				...formatTranscript(messages.slice(-1), toolNames, {
					continued: marked !== undefined,
					images,
				}),
			};
		}
	}
	const plan: PlannedAsk = formatTranscript(messages, toolNames, { images });
	if (turnBegunUnnamed(messages)) plan.turnBegunUnnamed = true;
	return plan;
}

/** Since the last user message, this node answered in a conversation the service did not name. */
function turnBegunUnnamed(messages: Message[]): boolean {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index];
		if (message.role === 'user') return false;
		if (message.role !== 'assistant') continue;
		if (idsOf(message).some(isUnmarkedAnswerId)) return true;
	}
	return false;
}

/** The latest assistant message this node produced: its id or a tool call id is a mark. */
function latestMark(messages: Message[]): (ConversationMark & { index: number }) | undefined {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index];
		if (message.role !== 'assistant') continue;
		for (const id of idsOf(message)) {
			const mark = readMark(id);
			if (mark) return { ...mark, index };
		}
	}
	return undefined;
}

/**
 * The text of the assistant message at `held`, when the messages it answered (those after the
 * assistant message before it) are the very messages this ask sends (`fresh`), as the
 * conversation shows them (`shown`). Undefined otherwise: a turn with other messages cannot be
 * taken for this ask's.
 */
function repeatedAnswer(
	messages: Message[],
	held: number,
	fresh: Message[],
	shown: (said: Message[]) => string,
): string | undefined {
	const answer = messages[held];
	if (answer?.role !== 'assistant') return undefined;
	let from = held - 1;
	while (from >= 0 && messages[from].role !== 'assistant') from--;
	const answered = messages.slice(from + 1, held);
	if (answered.length !== fresh.length) return undefined;
	// Messages whose roles or texts differ show differently: only the rest is written out (an
	// ask's messages are written already; these would be written again, images and all).
	if (answered.some((message, index) => saidPlainly(message) !== saidPlainly(fresh[index]))) {
		return undefined;
	}
	if (shown(answered) !== shown(fresh)) return undefined;
	return textOf(answer);
}

/** A message's text parts, joined as they are. */
function textOf(message: Message): string {
	return message.content
		.map((content) => (content.type === 'text' ? content.text : ''))
		.join('')
		.trim();
}

/** A message's role and text: two messages that differ here are written differently too. */
function saidPlainly(message: Message): string {
	return `${message.role}\n${textOf(message)}`;
}

/**
 * Whether an answer read from the conversation after a failure is the one the history holds
 * (PlannedAsk's heldAnswer), as text, or as the tool envelope's final answer: then the
 * conversation's last turn may be the earlier one, asked with the same message in an earlier
 * execution (a chat memory's "yes" twice), and not this ask's (docs/api.md#recovery-after-a-failure).
 */
export function isHeldAnswer(output: string | Record<string, unknown>, held: string): boolean {
	const answer =
		typeof output === 'object' && output.action === ACTION_FINAL_ANSWER
			? output.final_answer
			: output;
	const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
	return normalized(text) === normalized(held);
}

/**
 * Messages as their conversation shows them: as the ask writes them (text parts joined, a file
 * the model cannot take as its note), with the images it sends taken out, as the service takes
 * them out of the prompt (docs/api.md#images). A new photo with the same words reads there as
 * the last one did: the conversation cannot tell such turns apart, and neither does this.
 */
function shownText(
	said: Message[],
	toolNames: Map<string, string>,
	images: ImagePolicy | undefined,
): string {
	return withoutImages(formatTranscript(said, toolNames, { continued: true, images }).input);
}

/** The last assistant message at or after `from` (or `from` itself when none is). */
function lastAssistantIndex(messages: Message[], from: number): number {
	for (let index = messages.length - 1; index > from; index--) {
		if (messages[index].role === 'assistant') return index;
	}
	return from;
}

/** An assistant message's ids, where this node puts its marks: its own, and its tool calls'. */
function idsOf(message: Message): Array<string | undefined> {
	return [message.id, ...message.content.map(toolCallIdOf)];
}

function toolCallIdOf(content: MessageContent): string | undefined {
	return content.type === 'tool-call' ? content.toolCallId : undefined;
}
