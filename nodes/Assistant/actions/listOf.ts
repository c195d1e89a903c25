import type { IExecuteFunctions } from 'n8n-workflow';

import { apiError } from '../transport/errors';
import type { RunCache } from './runCache';

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
