import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { LIST_LIMIT_BYTES } from '../../shared/limits';
import { listEntries } from '../../shared/lists';
import { apiRequest } from '../../shared/transport';
import { apiError } from '../../shared/transport/errors';
import { readRequestSettings } from '../../shared/parameters/requestOptions';
import type { RunNotices } from '../../shared/runNotices';
import type { ExecuteRun } from '../../shared/runContext';

/**
 * The execute of a list operation (List Models, List Personas): the list is read once per node
 * run, and every item gets one output item per entry.
 */
export function listOperation<TEntry extends object>(key: string, path: string) {
	return async function execute(
		this: IExecuteFunctions,
		itemIndex: number,
		run: ExecuteRun,
	): Promise<INodeExecutionData[]> {
		// Checked for every item, though the list is read with the first one's: a bad option
		// fails its own item, as it would if the list were read per item.
		const settings = readRequestSettings(run, itemIndex);
		const response = await run.once(key, () =>
			apiRequest<Record<string, TEntry[]>>(this, {
				method: 'GET',
				path,
				authenticated: true,
				listLimitBytes: LIST_LIMIT_BYTES,
				...settings,
				credentials: run.credentials,
				watch: run.watch,
			}),
		);
		addListPerItemHint(this, run.notices);
		return listOf(this, response, key, itemIndex).map((entry) => ({
			json: { ...entry } as IDataObject,
		}));
	};
}

/**
 * The entries under `key` of a list response (shared/lists.ts), or a clear error when the
 * service sent another shape.
 */
export function listOf<TKey extends string, TEntry>(
	ctx: IExecuteFunctions,
	response: { [key in TKey]: TEntry[] },
	key: TKey,
	itemIndex: number,
): TEntry[] {
	const read = listEntries(response, key);
	if ('problem' in read) throw apiError(ctx.getNode(), read.problem, itemIndex);
	return read.entries as TEntry[];
}

/** With several input items every item gets the whole list: say so once, and how to get one. */
export function addListPerItemHint(ctx: IExecuteFunctions, notices: RunNotices): void {
	if (ctx.getInputData().length < 2 || !notices.first('list per item hint')) return;
	ctx.addExecutionHints({
		message:
			'The list is fetched once per run and every input item gets all of it. For a single list, turn on <b>Execute Once</b> in the node settings.',
		type: 'info',
		location: 'outputPane',
	});
}
