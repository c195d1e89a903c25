import { NodeOperationError, type INode } from 'n8n-workflow';

/** What every parameter check needs of its context: Ask's, and any node that reads these parameters. */
export interface ParameterContext {
	getNode(): INode;
	getNodeParameter(
		name: string,
		itemIndex: number,
		fallback?: unknown,
		options?: { rawExpressions?: boolean },
	): unknown;
}

/** A bad parameter: the message names it, the description says how to fix it; nothing was sent. */
export function invalidParameter(
	ctx: Pick<ParameterContext, 'getNode'>,
	itemIndex: number,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

/** A value as a user reads it in an error: "a list", "an object", "null", a quoted string. */
export function describeValue(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'string') return JSON.stringify(value);
	return `${typeof value} ${String(value)}`;
}
