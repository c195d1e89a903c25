import type { INodeTypeDescription } from 'n8n-workflow';

import * as ask from './ask.operation';
import * as getCatalog from './getCatalog.operation';
import * as listModels from './listModels.operation';
import * as listPersonas from './listPersonas.operation';

/**
 * The node's parameters (each operation declares its own), its one-line description for the nodes
 * panel, and what an AI Agent reads about the node used as a tool. The rest of the node's
 * description is in Assistant.node.ts, where n8n's lint rules and package scanner look for it.
 */
export const versionDescription: Pick<INodeTypeDescription, 'description' | 'properties'> & {
	toolDescription: string;
} = {
	description: 'Send a message to your personal AI assistant',
	// The tool variant's description: say what to send and how to continue.
	toolDescription:
		"Ask the user's personal AI assistant, which can use their files, integrations and tools, and get its answer. Send a complete, self-contained question or instruction. Each answer includes a conversation_id: pass it back as the conversation ID to ask a follow-up in the same conversation, or leave it empty to start a new one.",
	properties: [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			default: 'ask',
			options: [
				{
					name: 'Ask',
					value: 'ask',
					action: 'Ask the assistant a question',
					description:
						'Send a message to the assistant and get its answer, as text or as an object matching a JSON Schema; can continue an earlier conversation',
				},
				{
					name: 'Get Catalog',
					value: 'getCatalog',
					action: 'Get the public model catalog',
					description: 'Get the public model catalog (sent without the access token)',
				},
				{
					name: 'List Models',
					value: 'listModels',
					action: 'List available models',
					description: 'List the models usable for a message, Bring Your Own Key models included',
				},
				{
					name: 'List Personas',
					value: 'listPersonas',
					action: 'List personas',
					description: 'List the configured personas',
				},
			],
		},
		...ask.description,
		...listModels.description,
		...getCatalog.description,
		...listPersonas.description,
	],
};
