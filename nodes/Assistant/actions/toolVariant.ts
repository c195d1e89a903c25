import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Whether the node runs as the AI Agent's tool (n8n's `<node>Tool` variant of a `usableAsTool`
 * node): its answer goes to the agent, not to the workflow or its caller.
 */
export function isToolVariant(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return ctx.getNode().type.endsWith('Tool');
}
