import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../transport';
import { DEFAULT_RETRIES, MAX_RETRIES } from '../transport/retry';

/** Resource locators for the pickers: a searchable list, or an ID typed or set by expression. */

export const modelLocator: INodeProperties = {
	displayName: 'Model',
	name: 'model',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description:
		"The model that answers. Leave empty to use the assistant's default model. Values are model IDs such as anthropic:claude-haiku-4-5-20251001, or byok:… for a Bring Your Own Key model.",
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a model…',
			typeOptions: {
				searchListMethod: 'searchModels',
				searchable: true,
			},
		},
		{
			displayName: 'ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. anthropic:claude-haiku-4-5-20251001',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^\\S+$',
						errorMessage: 'A model ID has no spaces, e.g. anthropic:claude-haiku-4-5-20251001',
					},
				},
			],
		},
	],
};

export const personaLocator: INodeProperties = {
	displayName: 'Persona',
	name: 'persona',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description:
		'The persona (system prompt and style) that answers. Leave empty to use the active persona.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a persona…',
			typeOptions: {
				searchListMethod: 'searchPersonas',
				searchable: true,
			},
		},
		{
			displayName: 'ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. persona_researcher',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^\\S+$',
						errorMessage: 'A persona ID has no spaces',
					},
				},
			],
		},
	],
};

export const EXAMPLE_JSON_SCHEMA = `{
  "type": "object",
  "properties": {
    "summary": {
      "type": "string",
      "description": "The answer in one sentence"
    },
    "sentiment": {
      "type": "string",
      "enum": ["positive", "neutral", "negative"]
    },
    "topics": {
      "type": "array",
      "items": { "type": "string" }
    }
  },
  "required": ["summary", "sentiment", "topics"]
}`;

export const MAX_CONCURRENCY = 20;

/** Request options, for every operation; streaming ones only where Ask streams. */
export const requestOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			default: 1,
			typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
			displayOptions: { show: { '/operation': ['ask'] } },
			description:
				'How many items to ask at once. Output order and pairing stay those of the input; items that continue the same conversation still run one after another.',
		},
		{
			displayName: 'Idle Timeout (Ms)',
			name: 'idleTimeout',
			type: 'number',
			default: DEFAULT_IDLE_TIMEOUT_MS,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { '/operation': ['ask'], stream: [true] } },
			description:
				'How long a stream may stay silent between chunks before the item fails, in milliseconds',
		},
		{
			displayName: 'Retries',
			name: 'retries',
			type: 'number',
			default: DEFAULT_RETRIES,
			typeOptions: { minValue: 0, maxValue: MAX_RETRIES },
			description:
				'How many times to try again after a network error, a busy conversation (409), rate limiting (429) or a server error (5xx), with growing pauses. Other errors are never retried.',
		},
		{
			displayName: 'Stream',
			name: 'stream',
			type: 'boolean',
			default: false,
			displayOptions: { show: { '/operation': ['ask'] } },
			description:
				'Whether to receive the answer as a stream of chunks (Server-Sent Events) and assemble it; the output is the same',
		},
		{
			displayName: 'Timeout (Ms)',
			name: 'timeout',
			type: 'number',
			default: DEFAULT_TIMEOUT_MS,
			typeOptions: { minValue: 1 },
			description:
				'How long the whole call may take, retries included, in milliseconds. Answers can take minutes while the assistant uses tools.',
		},
		{
			displayName: 'Use Successor of Deprecated Model',
			name: 'useSuccessor',
			type: 'boolean',
			default: true,
			displayOptions: { show: { '/operation': ['ask'] } },
			description:
				"Whether to ask with the successor when the chosen model is deprecated in the service's catalog. A hint names the successor either way.",
		},
	],
};
