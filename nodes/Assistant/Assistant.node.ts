import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { router } from './actions/router';
import { versionDescription } from './actions/versionDescription';
import { assistantApiTest } from '../shared/methods/credentialTest';
import { searchModels, searchPersonas } from '../shared/methods/listSearch';

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
		description: versionDescription.description,
		documentationUrl: DOCUMENTATION_URL,
		defaults: { name: 'Assistant' },
		// The AI Agent's tool variant reads what to send and how to continue, not the one-liner.
		usableAsTool: { replacements: { description: versionDescription.toolDescription } },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Tested by a node method: it tells a web page, a wrong token and no answer apart.
		credentials: [{ name: 'assistantApi', required: true, testedBy: 'assistantApiTest' }],
		properties: versionDescription.properties,
	};

	methods = {
		listSearch: { searchModels, searchPersonas },
		credentialTest: { assistantApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
