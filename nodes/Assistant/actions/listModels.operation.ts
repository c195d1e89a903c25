import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ModelsResponse } from '../api';
import { apiRequest } from '../transport';
import { addListPerItemHint, listOf } from './listOf';
import { optionsCollection, readRequestSettings } from './requestOptions';
import type { RunCache } from './runCache';

export const description: INodeProperties[] = [optionsCollection('listModels')];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
): Promise<INodeExecutionData[]> {
	const response = await cache.once('models', () =>
		apiRequest<ModelsResponse>(this, {
			method: 'GET',
			path: '/models/available',
			authenticated: true,
			...readRequestSettings(this, itemIndex),
		}),
	);
	await addListPerItemHint(this, cache);
	return listOf(this, response, 'models', itemIndex).map((model) => ({ json: { ...model } }));
}
