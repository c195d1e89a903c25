import type { INodeProperties } from 'n8n-workflow';

import { responseFormatProperties } from '../shared/outputFormat/responseFormat';
import { modelLocator, personaLocator } from '../shared/parameters/locators';
import {
	idleTimeoutOption,
	retriesOption,
	timeoutOption,
} from '../shared/parameters/requestOptions';

/** The chat model's parameters: the pickers and request options are those both nodes share. */
export const chatModelProperties: INodeProperties[] = [
	// n8n's own chat models' connection hint (getConnectionHintNoticeField of n8n's AI utilities,
	// for an AI chain or agent), written out: the editor shows a notice of this container class,
	// with its Insert one link, only while the node is connected to nothing.
	{
		displayName:
			"This node must be connected to an AI chain. <a data-action='openSelectiveNodeCreator' data-action-parameter-creatorview='AI'>Insert one</a>",
		name: 'notice',
		type: 'notice',
		default: '',
		typeOptions: { containerClass: 'ndv-connection-hint-notice' },
	},
	modelLocator,
	personaLocator,
	...responseFormatProperties(),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Conversation ID',
				name: 'conversationId',
				type: 'string',
				default: '',
				placeholder: 'e.g. {{ $json.conversationId }}',
				description:
					"The assistant conversation to continue, e.g. one an Assistant node's Ask started or one kept per chat session. The answer's metadata names the conversation (conversationId), to store and pass back next time.",
			},
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
