import type { INodeProperties } from 'n8n-workflow';

import { modelLocator, personaLocator } from '../shared/parameters/locators';
import {
	idleTimeoutOption,
	retriesOption,
	timeoutOption,
} from '../shared/parameters/requestOptions';

/** The chat model's parameters: the pickers and request options are those both nodes share. */
export const chatModelProperties: INodeProperties[] = [
	{
		displayName:
			'Connect this node to the Model input of an AI Agent or of an AI chain (Basic LLM Chain, Information Extractor, Text Classifier, …).',
		name: 'connectionNotice',
		type: 'notice',
		default: '',
	},
	modelLocator,
	personaLocator,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			idleTimeoutOption,
			{
				displayName: 'Memory',
				name: 'memory',
				type: 'boolean',
				default: true,
				description:
					"Whether the assistant may use your workspace's memory to answer. Turn it off to have it answer from the messages alone.",
			},
			retriesOption,
			timeoutOption,
		],
	},
];
