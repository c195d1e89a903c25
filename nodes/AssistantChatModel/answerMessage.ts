import type { GenerateResult, StreamChunk } from '@n8n/ai-node-sdk';

import { answeringModel } from '../shared/askAssistant';
import type { AskResult } from './ask';
import { markOfConversation, readMark } from './conversationMark';
import type { LogDetails } from './logsPanel';
import { ACTIVE_PERSONA, DEFAULT_MODEL, type AssistantModelSettings } from './modelSettings';

/** The assistant's answer as the SDK's AI message: its text, id, metadata, and as stream chunks. */

/**
 * The AI message's response metadata, also shown in the Logs panel: the conversation the answer
 * belongs to, the model that answered (the one the service fell back to, else the one its
 * stream names, else the chosen one), the persona, what the assistant did (docs/api.md#steps)
 * and, in `leftOut`, the notes of what could not be sent.
 */
export function answerMetadata(
	answer: AskResult,
	settings: AssistantModelSettings,
	leftOut: string[],
): LogDetails {
	return {
		conversationId: answer.conversationId,
		...(answer.modelFallback ? { modelFallback: answer.modelFallback } : {}),
		...(answer.steps ? { steps: answer.steps } : {}),
		...(leftOut.length > 0 ? { leftOut } : {}),
		modelName: answeringModel(answer, settings.modelName) ?? DEFAULT_MODEL,
		persona: settings.personaId ?? ACTIVE_PERSONA,
	};
}

/**
 * The answer as a text AI message. `messageCount` (the messages the call was given) keeps its id
 * unique within the conversation.
 */
export function textResult(
	text: string,
	answer: AskResult,
	messageCount: number,
	metadata: LogDetails,
	catalogue?: string,
): GenerateResult {
	return {
		finishReason: 'stop',
		providerMetadata: metadata,
		message: {
			role: 'assistant',
			id: answerId(answer.conversationId, messageCount, catalogue),
			content: [{ type: 'text', text }],
		},
	};
}

/** An object answer (an output format) as its JSON, so chains and output parsers read it. */
export function answerText(output: AskResult['output']): string {
	return typeof output === 'string' ? output : JSON.stringify(output);
}

/** An answer's id when the service named no conversation. */
const UNMARKED_ANSWER = 'assistant-answer:';

/** Carries the conversation, and the tool catalogue it holds, to the next call (conversationMark.ts). */
export function answerId(
	conversationId: string | null,
	messageCount: number,
	catalogue?: string,
): string {
	return conversationId
		? markOfConversation(conversationId, messageCount, catalogue)
		: `${UNMARKED_ANSWER}${messageCount}`;
}

/** Whether an id is one answerId gave an answer whose service named no conversation. */
export function isUnmarkedAnswerId(id: string | undefined): boolean {
	return id !== undefined && id.startsWith(UNMARKED_ANSWER);
}

/** Whether an id is one answerId gave: the node's own, on its answers and its tool calls. */
export function isAnswerId(id: string): boolean {
	return id.startsWith(UNMARKED_ANSWER) || readMark(id) !== undefined;
}

/** A whole result as stream chunks: the answer in word-sized pieces, or the one tool call. */
export function* resultAsChunks(result: GenerateResult): Generator<StreamChunk> {
	for (const content of result.message.content) {
		if (content.type === 'text') {
			for (const word of content.text.split(/(?<=\s)(?=\S)/))
				yield { type: 'text-delta', delta: word };
		} else if (content.type === 'tool-call') {
			yield {
				type: 'tool-call-delta',
				id: content.toolCallId,
				name: content.toolName,
				argumentsDelta: content.input,
			};
		}
	}
	yield {
		type: 'finish',
		finishReason: result.finishReason ?? 'stop',
		providerMetadata: result.providerMetadata,
	};
}
