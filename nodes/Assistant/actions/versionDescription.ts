import type { INodeTypeDescription } from 'n8n-workflow';

import * as ask from './ask.operation';
import * as getCatalog from './getCatalog.operation';
import * as listModels from './listModels.operation';
import * as listPersonas from './listPersonas.operation';
import { toolDescriptionProperties } from './toolParameters';

/**
 * The node's parameters (each operation declares its own), its one-line description for the nodes
 * panel, and what an AI Agent reads about the node used as a tool. The rest of the node's
 * description is in Assistant.node.ts, where n8n's lint rules and package scanner look for it.
 */
export const versionDescription: Pick<INodeTypeDescription, 'description' | 'properties'> & {
	toolDescription: string;
} = {
	description: 'Send a message to your personal AI assistant',
	// The tool variant's line in the nodes panel; what the agent reads is each operation's
	// Description parameter (toolParameters.ts).
	toolDescription: 'Let the AI Agent ask your personal AI assistant',
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
		...toolDescriptionProperties,
		...ask.description,
		...listModels.description,
		...getCatalog.description,
		...listPersonas.description,
	],
};
