import type { INodeProperties } from 'n8n-workflow';

import { modelLocator, personaLocator } from '../Assistant/actions/descriptions';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../Assistant/transport';
import { DEFAULT_RETRIES, MAX_RETRIES } from '../Assistant/transport/retry';

/** The chat model's parameters: the pickers are the Assistant node's own. */
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
			{
				displayName: 'Idle Timeout (Ms)',
				name: 'idleTimeout',
				type: 'number',
				default: DEFAULT_IDLE_TIMEOUT_MS,
				typeOptions: { minValue: 1 },
				description:
					'How long a streamed answer may stay silent between chunks before the call fails, in milliseconds',
			},
			{
				displayName: 'Memory Mode',
				name: 'memoryMode',
				type: 'options',
				default: 'enabled',
				options: [
					{
						name: 'Enabled',
						value: 'enabled',
						description: "The assistant may use its workspace's memory",
					},
					{
						name: 'Off',
						value: 'off',
						description: 'The assistant answers without its memory, from the messages alone',
					},
				],
				description: "Whether the assistant may use its workspace's memory when it answers",
			},
			{
				displayName: 'Retries',
				name: 'retries',
				type: 'number',
				default: DEFAULT_RETRIES,
				typeOptions: { minValue: 0, maxValue: MAX_RETRIES },
				description:
					'How many times to try again after a network error, a busy conversation (409), rate limiting (429) or a server error (5xx), with growing pauses',
			},
			{
				displayName: 'Timeout (Ms)',
				name: 'timeout',
				type: 'number',
				default: DEFAULT_TIMEOUT_MS,
				typeOptions: { minValue: 1 },
				description:
					'How long one answer may take, retries included, in milliseconds. Answers can take minutes while the assistant uses its own tools.',
			},
		],
	},
];
