import type { INode } from 'n8n-workflow';

/**
 * The INode a unit test or the engine harness hands to code that only reads a node's identity
 * (for an error's node, or to resolve credentials): an Assistant node named Ask unless told.
 * The e2e checks spell their nodes alike, but as the workflow JSON n8n imports, not through this.
 */
export function fakeNode(identity: Partial<INode> = {}): INode {
	return {
		id: 'unit',
		name: 'Ask',
		type: 'n8n-nodes-assistant.assistant',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		...identity,
	};
}
