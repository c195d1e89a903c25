import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { PersonasResponse } from '../api';
import { apiRequest } from '../transport';
import { addListPerItemHint, listOf } from './listOf';
import { optionsCollection, readRequestSettings } from './requestOptions';
import type { RunCache } from './runCache';

export const description: INodeProperties[] = [optionsCollection('listPersonas')];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
): Promise<INodeExecutionData[]> {
	const response = await cache.once('personas', () =>
		apiRequest<PersonasResponse>(this, {
			method: 'GET',
			path: '/personas/available',
			authenticated: true,
			...readRequestSettings(this, itemIndex),
		}),
	);
	await addListPerItemHint(this, cache);
	return listOf(this, response, 'personas', itemIndex).map((persona) => ({ json: { ...persona } }));
}
