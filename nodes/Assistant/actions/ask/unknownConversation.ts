import { NodeApiError, type IExecuteFunctions } from 'n8n-workflow';

import { apiError } from '../../../shared/transport/errors';
import { isToolVariant } from '../toolVariant';

/**
 * The AI Agent's tool asked to continue a conversation the service does not know (HTTP 404):
 * usually an ID the agent's model made up. The agent reads only the error's message, so the
 * message says what to do instead; elsewhere the error stays as it is.
 */
export function forAgentIfUnknownConversation(
	ctx: IExecuteFunctions,
	error: unknown,
	conversationId: string | undefined,
	itemIndex: number,
): unknown {
	if (!conversationId || !isToolVariant(ctx)) return error;
	if (!(error instanceof NodeApiError) || error.httpCode !== '404') return error;
	return apiError(
		ctx.getNode(),
		{
			message: `The conversation ID "${conversationId}" is not a conversation of this assistant (${error.message}). Ask again with an empty conversation ID to start a new conversation; pass a conversation ID only when it is the conversation_id of an earlier answer of this tool.`,
			description: error.description ?? undefined,
			httpCode: '404',
		},
		itemIndex,
	);
}
