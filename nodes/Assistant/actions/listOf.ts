import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { apiRequest } from '../../shared/transport';
import { apiError } from '../../shared/transport/errors';
import { readRequestSettings } from '../../shared/parameters/requestOptions';
import type { RunCache } from './runCache';

/**
 * The execute of a list operation (List Models, List Personas): the list is read once per node
 * run, and every item gets one output item per entry.
 */
export function listOperation<TEntry extends object>(key: string, path: string) {
	return async function execute(
		this: IExecuteFunctions,
		itemIndex: number,
		cache: RunCache,
	): Promise<INodeExecutionData[]> {
		const response = await cache.once(key, () =>
			apiRequest<Record<string, TEntry[]>>(this, {
				method: 'GET',
				path,
				authenticated: true,
				...readRequestSettings(this, itemIndex),
			}),
		);
		await addListPerItemHint(this, cache);
		return listOf(this, response, key, itemIndex).map((entry) => ({
			json: { ...entry } as IDataObject,
		}));
	};
}

/** The array under `key` of a list response, or a clear error when the service sent another shape. */
export function listOf<TKey extends string, TEntry>(
	ctx: IExecuteFunctions,
	response: { [key in TKey]: TEntry[] },
	key: TKey,
	itemIndex: number,
): TEntry[] {
	const list = (response as Record<string, unknown> | null)?.[key];
	if (!Array.isArray(list)) {
		throw apiError(
			ctx.getNode(),
			{
				message: `The assistant's answer has no "${key}" list`,
				description: `Expected {"${key}": [...]}. Check that the credential's base URL points at the Assistant API.`,
			},
			itemIndex,
		);
	}
	return list as TEntry[];
}

/** With several input items every item gets the whole list: say so once, and how to get one. */
export async function addListPerItemHint(ctx: IExecuteFunctions, cache: RunCache): Promise<void> {
	if (ctx.getInputData().length < 2) return;
	await cache.once('list per item hint', async () =>
		ctx.addExecutionHints({
			message:
				'The list is fetched once per run and every input item gets all of it. For a single list, turn on <b>Execute Once</b> in the node settings.',
			type: 'info',
			location: 'outputPane',
		}),
	);
}
