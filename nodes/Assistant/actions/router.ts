import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import * as ask from './ask.operation';
import * as getCatalog from './getCatalog.operation';
import * as listModels from './listModels.operation';
import * as listPersonas from './listPersonas.operation';
import { RunCache } from './runCache';

interface Operation {
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		cache: RunCache,
	): Promise<INodeExecutionData[]>;
	/** How many items may run at once (checked by the operation); one when absent. */
	concurrency?(ctx: IExecuteFunctions): number;
	/** The conversation an item continues: items of one conversation run one after another. */
	conversationOf?(ctx: IExecuteFunctions, itemIndex: number): string | undefined;
}

const operations: Record<string, Operation> = { ask, listModels, getCatalog, listPersonas };

/**
 * Runs the chosen operation for every input item. Each item yields its own outputs, paired
 * to it, or (under Continue On Fail) one error item; API errors keep their HTTP status.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operation = this.getNodeParameter('operation', 0) as string;
	const chosen = operations[operation];
	if (!chosen) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`, {
			description: 'Choose Ask, List Models, Get Catalog or List Personas.',
		});
	}

	const cache = new RunCache();
	const runItem = async (itemIndex: number): Promise<INodeExecutionData[]> => {
		try {
			const results = await chosen.execute.call(this, itemIndex, cache);
			return results.map((result) => ({ ...result, pairedItem: { item: itemIndex } }));
		} catch (caught) {
			const error = withItemIndex(this, caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			return [{ json: errorJson(error), pairedItem: { item: itemIndex } }];
		}
	};

	const concurrency = chosen.concurrency?.(this) ?? 1;
	const perItem =
		concurrency > 1
			? await runConcurrently(items.length, concurrency, runItem, (itemIndex) =>
					chosen.conversationOf?.(this, itemIndex),
				)
			: await runInOrder(items.length, runItem);
	return [perItem.flat()];
}

async function runInOrder(
	count: number,
	runItem: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[][]> {
	const perItem: INodeExecutionData[][] = [];
	for (let itemIndex = 0; itemIndex < count; itemIndex++) perItem.push(await runItem(itemIndex));
	return perItem;
}

/**
 * Up to `concurrency` items at once, taken in input order; results are placed by item index,
 * so output order is input order. Items of one conversation wait for the one before them
 * (the service answers 409 to a second request on a busy conversation). After a failure
 * (without Continue On Fail) no new item starts, and the failure of the lowest item is thrown,
 * as it would have been one at a time.
 */
async function runConcurrently(
	count: number,
	concurrency: number,
	runItem: (itemIndex: number) => Promise<INodeExecutionData[]>,
	conversationOfItem: (itemIndex: number) => string | undefined,
): Promise<INodeExecutionData[][]> {
	const perItem: INodeExecutionData[][] = new Array(count);
	const conversationTails = new Map<string, Promise<unknown>>();
	const failures = new Map<number, unknown>();
	let next = 0;

	const worker = async () => {
		while (next < count && failures.size === 0) {
			const itemIndex = next++;
			const conversation = conversationOfItem(itemIndex);
			const previous = conversation ? conversationTails.get(conversation) : undefined;
			const run = (async () => {
				if (previous) await previous.catch(() => undefined);
				perItem[itemIndex] = await runItem(itemIndex);
			})();
			if (conversation) conversationTails.set(conversation, run);
			try {
				await run;
			} catch (error) {
				failures.set(itemIndex, error);
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
	return perItem;
}

function withItemIndex(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		// Errors of requests shared by all items (see RunCache) were made without an item.
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return json;
}
