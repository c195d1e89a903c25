import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { CatalogResponse } from '../api';
import { apiRequest } from '../transport';
import { listOf } from './listOf';
import { readRequestSettings } from './parameters';
import type { RunCache } from './runCache';

export const description: INodeProperties[] = [];

/** The public catalog, as served. The token is not sent: the endpoint needs none. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
): Promise<INodeExecutionData[]> {
	const catalog = await cache.once('catalog', () =>
		apiRequest<CatalogResponse>(this, { method: 'GET', path: '/models/catalog', authenticated: false, ...readRequestSettings(this, itemIndex) }),
	);
	listOf(this, catalog, 'models', itemIndex);
	// A copy per item: a later node that edits one item must not change the others.
	return [{ json: structuredClone(catalog) as IDataObject }];
}
