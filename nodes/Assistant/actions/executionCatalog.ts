import type { IExecuteFunctions } from 'n8n-workflow';

import type { CatalogResponse } from '../../shared/api';
import { readCatalog } from '../../shared/catalog';
import { readRequestSettings } from '../../shared/parameters/requestOptions';
import type { RunCache } from './runCache';

/** Read once per execution (and per node run when the engine has no execution id). */
export async function catalogOfExecution(
	ctx: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
): Promise<CatalogResponse> {
	const settings = readRequestSettings(ctx, itemIndex);
	const executionId = ctx.getExecutionId();
	return await cache.once('catalog', () =>
		readCatalog(ctx, executionId ? { executionId } : 'uncached', settings),
	);
}
