import type { IExecuteFunctions } from 'n8n-workflow';

import { apiError } from '../transport/errors';

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
