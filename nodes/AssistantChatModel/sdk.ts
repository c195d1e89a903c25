import { NodeOperationError, type INode } from 'n8n-workflow';

/**
 * n8n's AI node SDK, loaded only when the chat model is used. n8n loads every node of a package
 * together: a top-level import of the SDK would keep the whole package (the Assistant node and
 * the credential too) from loading on n8n versions without it (1.x, 2.x before 2.16).
 */

export type AiNodeSdk = typeof import('@n8n/ai-node-sdk');

/** The first n8n version that ships the SDK's chat model interface. */
export const FIRST_N8N_WITH_SDK = '2.16';

export async function loadAiNodeSdk(node: INode): Promise<AiNodeSdk> {
	try {
		return await import('@n8n/ai-node-sdk');
	} catch (error) {
		throw new NodeOperationError(
			node,
			`The Assistant Chat Model needs n8n ${FIRST_N8N_WITH_SDK} or newer`,
			{
				description: `It uses n8n's AI node SDK (@n8n/ai-node-sdk), which this n8n does not provide (${(error as Error).message}). Update n8n, or use the Assistant node's Ask operation, which works on every version.`,
			},
		);
	}
}
