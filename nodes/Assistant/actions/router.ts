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

type OperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	cache: RunCache,
) => Promise<INodeExecutionData[]>;

const operations: Record<string, OperationExecute> = {
	ask: ask.execute,
	listModels: listModels.execute,
	getCatalog: getCatalog.execute,
	listPersonas: listPersonas.execute,
};

/**
 * Runs the chosen operation for every input item. Each item yields its own outputs, paired
 * to it, or (under Continue On Fail) one error item; API errors keep their HTTP status.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = operations[operation];
	if (!execute) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`, {
			description: 'Choose Ask, List Models, Get Catalog or List Personas.',
		});
	}

	const cache = new RunCache();
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await execute.call(this, itemIndex, cache);
			for (const result of results) {
				returnData.push({ ...result, pairedItem: { item: itemIndex } });
			}
		} catch (caught) {
			const error = withItemIndex(this, caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			returnData.push({ json: errorJson(error), pairedItem: { item: itemIndex } });
		}
	}
	return [returnData];
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
