/**
 * Minimal stand-ins for the n8n-nodes-base nodes a test workflow needs (n8n-nodes-base is not
 * installed): a Manual Trigger, a No Op (n8n's credential tester runs `test` requests on it)
 * and `test.items`, which emits the items given in its `items` parameter.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, jsonParse } from 'n8n-workflow';

export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
export const NO_OP_TYPE = 'n8n-nodes-base.noOp';
export const TEST_ITEMS_TYPE = 'test.items';

/** Like n8n's Manual Trigger: a trigger whose manual run emits one empty item. */
class ManualTrigger implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'When clicking ‘Execute workflow’' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([this.helpers.returnJsonArray([{}])]);
		};
		return { manualTriggerFunction };
	}
}

/** Like n8n's No Op: passes its input through. */
class NoOp implements INodeType {
	description: INodeType['description'] = {
		displayName: 'No Operation, do nothing',
		name: 'noOp',
		group: ['organization'],
		version: 1,
		description: 'No Operation',
		defaults: { name: 'No Operation, do nothing' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

// Each test node type declares the fields every n8n node type has (as NoOp above does): the
// engine reads them, so the descriptions share their shape.
/**
 * Emits the items of its `items` parameter (a JSON array of objects, or an expression returning
 * one), once per run, each paired with the first input item.
 */
class TestItems implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Test Items',
		name: 'items',
		group: ['transform'],
		version: 1,
		description: 'Emits the given items',
		defaults: { name: 'Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = typeof raw === 'string' ? jsonParse<unknown>(raw) : raw;
		if (!Array.isArray(items)) {
			throw new NodeOperationError(this.getNode(), 'The "items" parameter must be a JSON array');
		}
		return [items.map((json: IDataObject) => ({ json, pairedItem: { item: 0 } }))];
	}
}

/** The harness's own node types, by their full type name. */
export function harnessNodeTypes(): Record<string, INodeType> {
	return {
		[MANUAL_TRIGGER_TYPE]: new ManualTrigger(),
		[NO_OP_TYPE]: new NoOp(),
		[TEST_ITEMS_TYPE]: new TestItems(),
	};
}
