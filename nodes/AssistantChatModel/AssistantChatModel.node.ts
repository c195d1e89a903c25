import {
	NodeConnectionTypes,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';

import { readLocatorId, readRequestSettings } from '../Assistant/actions/parameters';
import { searchModels, searchPersonas } from '../Assistant/methods/listSearch';
import { AssistantChatModel as ChatModelOfAssistant, type MemoryMode } from './chatModel';
import { chatModelProperties } from './description';
import { loadAiNodeSdk } from './sdk';

export class AssistantChatModel implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Assistant Chat Model',
		name: 'assistantChatModel',
		icon: { light: 'file:assistant.svg', dark: 'file:assistant.dark.svg' },
		group: ['transform'],
		version: 1,
		// The chosen model, or the assistant's default.
		subtitle: '={{ $parameter["model"]?.value || "default model" }}',
		description: 'Your personal AI assistant as the language model of an AI Agent or AI chain',
		documentationUrl:
			'https://github.com/n8n-nodes-assistant/n8n-nodes-assistant#assistant-chat-model',
		defaults: { name: 'Assistant Chat Model' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiLanguageModel],
		outputNames: ['Model'],
		credentials: [{ name: 'assistantApi', required: true }],
		properties: chatModelProperties,
	};

	methods = {
		listSearch: { searchModels, searchPersonas },
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		// Every parameter is checked before the SDK is loaded and before any request.
		// (The Assistant node's readers use only getNodeParameter and getNode, which this has.)
		const parameters = this as unknown as IExecuteFunctions;
		const settings = {
			...readRequestSettings(parameters, itemIndex),
			modelName: readLocatorId(parameters, itemIndex, 'model'),
			personaId: readLocatorId(parameters, itemIndex, 'persona'),
			memoryMode: readMemoryMode(this, itemIndex),
		};
		const sdk = await loadAiNodeSdk(this.getNode());
		const model = new ChatModelOfAssistant(this, settings, sdk.getParametersJsonSchema);
		return sdk.supplyModel(this, model);
	}
}

function readMemoryMode(ctx: ISupplyDataFunctions, itemIndex: number): MemoryMode | undefined {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as { memoryMode?: unknown };
	const mode = options.memoryMode;
	if (mode === undefined || mode === 'enabled') return undefined;
	if (mode === 'off') return 'off';
	throw new NodeOperationError(
		ctx.getNode(),
		`Memory Mode ${JSON.stringify(mode)} is not supported`,
		{
			itemIndex,
			description: 'Set Options > Memory Mode to "Enabled" or "Off".',
		},
	);
}
