import type { INodeProperties } from 'n8n-workflow';

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
