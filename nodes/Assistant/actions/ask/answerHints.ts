import type { IExecuteFunctions } from 'n8n-workflow';

import type { RunCache } from '../runCache';
import { isToolVariant } from '../toolVariant';
import type { OutputFormat } from '../../../shared/outputFormat/responseFormat';

/**
 * Hints on the output pane after an item was answered, once per node run. They are added at run
 * time because n8n shows a description's hints whether or not the node succeeded, and evaluates
 * input-pane hints against the parent node.
 */
export async function addAnswerHints(
	ctx: IExecuteFunctions,
	cache: RunCache,
	outputFormat: OutputFormat | undefined,
): Promise<void> {
	// The AI Agent's tool variant has no following node to continue the conversation in.
	if (!isToolVariant(ctx)) {
		await cache.once('conversation hint', async () =>
			ctx.addExecutionHints({
				message:
					'To continue this conversation, set <b>Conversation ID</b> of a following Assistant node to <code>{{ $json.conversation_id }}</code>.',
				type: 'info',
				location: 'outputPane',
			}),
		);
	}
	if (outputFormat?.derived) {
		const schema = JSON.stringify(outputFormat.schema);
		await cache.once('derived schema hint', async () =>
			ctx.addExecutionHints({
				message: `Schema derived from the JSON Example: <code>${escapeHtml(schema)}</code>`,
				type: 'info',
				location: 'outputPane',
			}),
		);
	}
}

function escapeHtml(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
