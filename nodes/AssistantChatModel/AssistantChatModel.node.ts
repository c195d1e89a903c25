import {
	NodeConnectionTypes,
	type INodeType,
	type INodeTypeDescription,
	type ISupplyDataFunctions,
	type SupplyData,
} from 'n8n-workflow';
// A type import: erased from the build, so the package still loads on n8n without the SDK (the
// SDK itself is loaded when the model is used, sdk.ts). It also marks this node as built on the
// SDK, which n8n's community-node lint rules require of a node whose codex says "AI" and has
// subcategories (AssistantChatModel.node.json: AI > Language Models, where the AI nodes'
// Model input looks for it).
import type { ChatModel } from '@n8n/ai-node-sdk';

import { readOutputFormat } from '../shared/outputFormat/responseFormat';
import { readLocatorId } from '../shared/parameters/locators';
import { invalidParameter } from '../shared/parameters/parameterErrors';
import { optionsOf, readRequestSettings } from '../shared/parameters/requestOptions';
import { assistantApiTest } from '../shared/methods/credentialTest';
import { searchModels, searchPersonas } from '../shared/methods/listSearch';
import { RunContext } from '../shared/runContext';
import { chatModelProperties } from './description';
import type { MemoryMode } from './modelSettings';
import { loadAiNodeSdk } from './sdk';
import { patchSdkAdapter } from './sdkAdapter';
import { AssistantSdkChatModel } from './sdkChatModel';

export class AssistantChatModel implements INodeType {
	// Written out like the Assistant node's, not shared with it: n8n's community-node lint rules
	// and its package scanner read these fields (icon, credentials and their test) as literals of
	// each node class.
	description: INodeTypeDescription = {
		displayName: 'Assistant Chat Model',
		name: 'assistantChatModel',
		icon: { light: 'file:assistant.svg', dark: 'file:assistant.dark.svg' },
		group: ['transform'],
		version: 1,
		// The chosen model's ID, or the assistant's default. n8n's $parameter hands a picker's
		// value over already unwrapped (the ID, not the {__rl, mode, value} object).
		subtitle: '={{ $parameter["model"] || "default model" }}',
		description: 'Your personal AI assistant as the language model of an AI Agent or AI chain',
		documentationUrl:
			'https://github.com/n8n-nodes-assistant/n8n-nodes-assistant#assistant-chat-model',
		defaults: { name: 'Assistant Chat Model' },
		inputs: [],
		outputs: [NodeConnectionTypes.AiLanguageModel],
		outputNames: ['Model'],
		// The same credential and its test, so it can be created and checked from this node too.
		credentials: [{ name: 'assistantApi', required: true, testedBy: 'assistantApiTest' }],
		properties: chatModelProperties,
	};

	methods = {
		listSearch: { searchModels, searchPersonas },
		credentialTest: { assistantApiTest },
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		// What this model's calls share: the credential, the catalog, what was told once.
		const run = new RunContext(this);
		// Every parameter is checked before the SDK is loaded and before any request.
		const options = optionsOf(run, itemIndex);
		const settings = {
			...readRequestSettings(run, itemIndex, options),
			modelName: readLocatorId(run, itemIndex, 'model'),
			personaId: readLocatorId(run, itemIndex, 'persona'),
			...readChatOptions(this, itemIndex, options),
			outputFormat: readOutputFormat(run, itemIndex)?.schema,
			run,
		};
		const sdk = await loadAiNodeSdk(this.getNode());
		const model: ChatModel = new AssistantSdkChatModel(this, settings, sdk.getParametersJsonSchema);
		const supplied = sdk.supplyModel(this, model);
		// The Logs panel's details and the AI Agent's images, on the SDK's adapter (sdkAdapter.ts).
		return { ...supplied, response: patchSdkAdapter(supplied.response, this.logger) };
	}
}

/**
 * Options > Memory (on by default, and then not sent: the service's default) and Options >
 * Conversation ID (text; a number from an expression is taken as its digits), checked.
 */
function readChatOptions(
	ctx: ISupplyDataFunctions,
	itemIndex: number,
	options: Record<string, unknown>,
): { memoryMode?: MemoryMode; conversationId?: string } {
	const { memory, conversationId: id } = options;
	if (memory !== undefined && typeof memory !== 'boolean') {
		throw invalidParameter(
			ctx,
			itemIndex,
			`Memory must be on or off (got ${JSON.stringify(memory)})`,
			'Set Options > Memory to on or off.',
		);
	}
	if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
		throw invalidParameter(
			ctx,
			itemIndex,
			`Conversation ID must be text (got ${JSON.stringify(id)})`,
			"Set Options > Conversation ID to a conversation's ID, e.g. {{ $json.conversationId }}, or remove the option.",
		);
	}
	const conversationId = id === undefined || id === null ? undefined : String(id).trim();
	// No conversation id holds white space: this is text, or several ids run together.
	if (conversationId && /\s/.test(conversationId)) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`Conversation ID ${JSON.stringify(conversationId.length > 80 ? `${conversationId.slice(0, 80)}…` : conversationId)} is not valid: IDs have no spaces or line breaks`,
			"Set Options > Conversation ID to one conversation's ID, e.g. {{ $json.conversationId }}, or remove the option.",
		);
	}
	return {
		memoryMode: memory === false ? 'off' : undefined,
		conversationId: conversationId || undefined,
	};
}
