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
import { RunContext, type ExecuteRun } from '../../shared/runContext';
import type { AttemptPace } from '../../shared/transport/adaptivePace';
import { runItems } from './concurrency';

interface Operation {
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		run: ExecuteRun,
		pace?: AttemptPace,
	): Promise<INodeExecutionData[]>;
	/** How many items may run at once at most (checked by the operation); one when absent. */
	concurrency?(run: ExecuteRun): number;
	/** Whether its requests go at the pace the service allows (see concurrency.ts). */
	paced?: boolean;
	/** The conversation an item continues: items of one conversation run one after another. */
	conversationOf?(run: ExecuteRun, itemIndex: number): string | undefined;
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

	const run: ExecuteRun = new RunContext(this);
	// The run's items listen to the execution's cancellation once, not once per ask, and record
	// the asks they answered together, at the run's end.
	const releaseWatch = run.watch.hold();
	const releaseTurns = run.turns.hold();
	const runItem = async (
		itemIndex: number,
		pace: AttemptPace | undefined,
	): Promise<INodeExecutionData[]> => {
		try {
			const results = await chosen.execute.call(this, itemIndex, run, pace);
			return results.map((result) => ({ ...result, pairedItem: { item: itemIndex } }));
		} catch (caught) {
			const error = withItemIndex(this, caught, itemIndex);
			if (!this.continueOnFail()) throw error;
			return [errorItem(this, error, itemIndex)];
		}
	};

	try {
		let concurrency: number;
		try {
			concurrency = chosen.concurrency?.(run) ?? 1;
		} catch (caught) {
			// A bad Concurrency is every item's failure (it is read for the run, from the first).
			if (!this.continueOnFail()) throw withItemIndex(this, caught, 0);
			return [
				items.map((_, itemIndex) =>
					errorItem(this, withItemIndex(this, caught, itemIndex), itemIndex),
				),
			];
		}
		const perItem = await runItems(
			this,
			items.length,
			{
				concurrency,
				paced: chosen.paced === true,
				conversationOf: (itemIndex) => chosen.conversationOf?.(run, itemIndex),
			},
			runItem,
		);
		return [perItem.flat()];
	} finally {
		releaseTurns();
		releaseWatch();
	}
}

/**
 * A failed item under Continue On Fail: its error's words, advice and status in `json`. With On
 * Error > Continue (using error output), also the error itself on the item: that is what sends it
 * down the error output (n8n then makes its json `{ error: message }`, the error beside it).
 */
function errorItem(
	ctx: IExecuteFunctions,
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	const item: INodeExecutionData = { json: errorJson(error), pairedItem: { item: itemIndex } };
	if (ctx.getNode().onError === 'continueErrorOutput') item.error = error;
	return item;
}

function withItemIndex(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === itemIndex) return error;
		// One error of a request shared by all items (RunContext's), or of the run (a bad
		// Concurrency), fails each of them: each item's error is a copy that names that item.
		const copy = Object.create(
			Object.getPrototypeOf(error) as object,
			Object.getOwnPropertyDescriptors(error),
		) as typeof error;
		copy.context = { ...error.context, itemIndex };
		return copy;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return json;
}
