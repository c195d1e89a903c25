/**
 * Minimal stand-ins for the n8n-nodes-base nodes a test workflow needs (n8n-nodes-base is not
 * installed): a Manual Trigger, a No Op (n8n's credential tester runs `test` requests on it)
 * and `test.items`, which emits the items given in its `items` parameter.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError, jsonParse } from 'n8n-workflow';

export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
export const NO_OP_TYPE = 'n8n-nodes-base.noOp';
export const TEST_ITEMS_TYPE = 'test.items';

/**
 * The description of a test node type, version 1, with the fields every n8n node type has (the
 * engine reads them): one main output, and one main input unless it is a trigger.
 */
export function testNodeDescription(
	name: string,
	displayName: string,
	description: string,
	defaults: { name: string; group: 'trigger' | 'transform' | 'organization' },
	properties: INodeProperties[] = [],
): INodeType['description'] {
	return {
		displayName,
		name,
		group: [defaults.group],
		version: 1,
		description,
		defaults: { name: defaults.name },
		inputs: defaults.group === 'trigger' ? [] : [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties,
	};
}

/** A test node that emits the items of its `items` parameter (a JSON array). */
export function itemsNodeDescription(
	name: string,
	displayName: string,
	defaultName: string,
	description: string,
): INodeType['description'] {
	const items: INodeProperties = {
		displayName: 'Items',
		name: 'items',
		type: 'json',
		default: '[]',
	};
	return testNodeDescription(
		name,
		displayName,
		description,
		{ name: defaultName, group: 'transform' },
		[items],
	);
}

/** Like n8n's Manual Trigger: a trigger whose manual run emits one empty item. */
class ManualTrigger implements INodeType {
	description = testNodeDescription(
		'manualTrigger',
		'Manual Trigger',
		'Runs the flow on clicking a button in n8n',
		{ name: 'When clicking ‘Execute workflow’', group: 'trigger' },
	);

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([this.helpers.returnJsonArray([{}])]);
		};
		return { manualTriggerFunction };
	}
}

/** Like n8n's No Op: passes its input through. */
class NoOp implements INodeType {
	description = testNodeDescription('noOp', 'No Operation, do nothing', 'No Operation', {
		name: 'No Operation, do nothing',
		group: 'organization',
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/**
 * Emits the items of its `items` parameter (a JSON array of objects, or an expression returning
 * one), once per run, each paired with the first input item.
 */
class TestItems implements INodeType {
	description = itemsNodeDescription('items', 'Test Items', 'Items', 'Emits the given items');

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
