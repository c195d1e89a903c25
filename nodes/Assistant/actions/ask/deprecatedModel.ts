import type { IExecuteFunctions } from 'n8n-workflow';

import { successorOf } from '../../../shared/catalog';
import { catalogOfExecution } from '../executionCatalog';
import type { RunCache } from '../runCache';

/**
 * A deprecated model id is answered by its successor (Options > Replace Deprecated Model, on by
 * default), with a hint either way, so that workflows keep working when the service retires a
 * model (docs/api.md#catalog). The catalog is only an aid here: when it cannot be read, the model
 * is sent as chosen.
 */
export async function activeModel(
	ctx: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
	modelId: string,
	useSuccessor: boolean,
): Promise<string> {
	let successor: string | undefined;
	try {
		successor = successorOf(await catalogOfExecution(ctx, itemIndex, cache), modelId);
	} catch (error) {
		ctx.logger.debug(
			`Assistant: catalog not available for the deprecation check: ${(error as Error).message}`,
		);
		return modelId;
	}
	if (!successor) return modelId;
	await cache.once(`deprecation hint ${modelId}`, async () =>
		ctx.addExecutionHints({
			message: useSuccessor
				? `Model "${modelId}" is deprecated: asked its successor "${successor}" instead. Choose "${successor}" in Model to make this permanent.`
				: `Model "${modelId}" is deprecated; its successor is "${successor}". Choose it in Model, or turn on Options > Replace Deprecated Model.`,
			type: 'warning',
			location: 'outputPane',
		}),
	);
	return useSuccessor ? successor : modelId;
}
