import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { router } from './actions/router';
import { versionDescription } from './actions/versionDescription';
import { searchModels, searchPersonas } from './methods/listSearch';

const DOCUMENTATION_URL = 'https://github.com/n8n-nodes-assistant/n8n-nodes-assistant#readme';

export class Assistant implements INodeType {
	// The node's own fields stay here, in the class, where n8n's community-node lint rules and
	// its package scanner look for them; the parameters (and the description text) come from
	// actions/versionDescription.ts.
	description: INodeTypeDescription = {
		displayName: 'Assistant',
		name: 'assistant',
		icon: { light: 'file:assistant.svg', dark: 'file:assistant.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ {"ask": "Ask", "listModels": "List Models", "getCatalog": "Get Catalog", "listPersonas": "List Personas"}[$parameter["operation"]] }}',
		// Also what an AI Agent reads about the node used as a tool: kept beside the parameters.
		description: versionDescription.description,
		documentationUrl: DOCUMENTATION_URL,
		defaults: { name: 'Assistant' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'assistantApi', required: true }],
		hints: [
			{
				message:
					'Each input item sends one message. Map the text to send into <b>Input</b> with an expression, e.g. <code>{{ $json.question }}</code>.',
				type: 'info',
				location: 'inputPane',
				whenToDisplay: 'beforeExecution',
				displayCondition: '={{ $parameter["operation"] === "ask" }}',
			},
			{
				message:
					'To continue this conversation, set <b>Conversation ID</b> of a following Assistant node to <code>{{ $json.conversation_id }}</code>.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition: '={{ $parameter["operation"] === "ask" }}',
			},
			{
				message:
					'The list is fetched once per run and every input item gets all of it. For a single list, turn on <b>Execute Once</b> in the node settings.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition:
					'={{ ["listModels", "listPersonas"].includes($parameter["operation"]) && $input.all().length > 1 }}',
			},
		],
		properties: versionDescription.properties,
	};

	methods = {
		listSearch: { searchModels, searchPersonas },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
