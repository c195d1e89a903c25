import type { IExecuteFunctions } from 'n8n-workflow';

import type { RunNotices } from '../../../shared/runNotices';
import { isToolVariant } from '../toolVariant';
import type { OutputFormat } from '../../../shared/outputFormat/responseFormat';

/**
 * Hints on the output pane after an item was answered, once per node run. They are added at run
 * time because n8n shows a description's hints whether or not the node succeeded, and evaluates
 * input-pane hints against the parent node.
 */
export function addAnswerHints(
	ctx: IExecuteFunctions,
	notices: RunNotices,
	outputFormat: OutputFormat | undefined,
): void {
	// The AI Agent's tool variant has no following node to continue the conversation in.
	if (notices.first('conversation hint') && !isToolVariant(ctx)) {
		ctx.addExecutionHints({
			message:
				'To continue this conversation, set <b>Conversation ID</b> of a following Assistant node to <code>{{ $json.conversation_id }}</code>.',
			type: 'info',
			location: 'outputPane',
		});
	}
	if (outputFormat?.derived && notices.first('derived schema hint')) {
		const schema = JSON.stringify(outputFormat.schema);
		ctx.addExecutionHints({
			message: `Schema derived from the JSON Example: <code>${escapeHtml(schema)}</code>`,
			type: 'info',
			location: 'outputPane',
		});
	}
}

function escapeHtml(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
