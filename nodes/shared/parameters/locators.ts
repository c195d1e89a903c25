import type { INodeProperties } from 'n8n-workflow';

import { describeValue, invalidParameter, type ParameterContext } from './parameterErrors';

/**
 * The model and persona pickers (a searchable list, or an ID typed or set by expression), and
 * how their value is read: shared by every node that lets the user choose a model or a persona.
 */

/** A picker: a searchable list from the account, or an ID without spaces. */
function locator(spec: {
	displayName: string;
	name: string;
	description: string;
	listPlaceholder: string;
	searchListMethod: string;
	idPlaceholder: string;
	idError: string;
}): INodeProperties {
	return {
		displayName: spec.displayName,
		name: spec.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description: spec.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: spec.listPlaceholder,
				typeOptions: { searchListMethod: spec.searchListMethod, searchable: true },
			},
			{
				displayName: 'ID',
				name: 'id',
				type: 'string',
				placeholder: spec.idPlaceholder,
				validation: [
					{ type: 'regex', properties: { regex: '^\\S+$', errorMessage: spec.idError } },
				],
			},
		],
	};
}

export const modelLocator = locator({
	displayName: 'Model',
	name: 'model',
	description:
		"The model that answers. Leave empty to use the assistant's default model. Values are model IDs such as anthropic:claude-haiku-4-5-20251001, or byok:… for a Bring Your Own Key model.",
	listPlaceholder: 'Select a model…',
	searchListMethod: 'searchModels',
	idPlaceholder: 'e.g. anthropic:claude-haiku-4-5-20251001',
	idError: 'A model ID has no spaces, e.g. anthropic:claude-haiku-4-5-20251001',
});

export const personaLocator = locator({
	displayName: 'Persona',
	name: 'persona',
	description:
		'The persona (system prompt and style) that answers. Leave empty to use the active persona.',
	listPlaceholder: 'Select a persona…',
	searchListMethod: 'searchPersonas',
	idPlaceholder: 'e.g. persona_researcher',
	idError: 'A persona ID has no spaces',
});

/**
 * A locator's ID; undefined when empty (the assistant's default is used). Accepts the locator
 * object and, for workflows that set it by expression, a plain string.
 */
export function readLocatorId(
	ctx: ParameterContext,
	itemIndex: number,
	name: 'model' | 'persona',
): string | undefined {
	const label = name === 'model' ? 'Model' : 'Persona';
	const raw = ctx.getNodeParameter(name, itemIndex, '');
	let value: unknown = raw;
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
		value = (raw as { value?: unknown }).value;
	}
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') {
		throw invalidParameter(
			ctx,
			itemIndex,
			`${label} must be an ID (text)`,
			`Got ${describeValue(value)}. Pick a ${name} from the list or type its ID${name === 'model' ? ', e.g. anthropic:claude-haiku-4-5-20251001' : ''}; leave it empty for the default.`,
		);
	}
	const id = value.trim();
	if (id === '') return undefined;
	if (/\s/.test(id)) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`${label} ID "${id}" is not valid: IDs have no spaces`,
			`Pick the ${name} from the list, or type its ID exactly as List ${label === 'Model' ? 'Models' : 'Personas'} returns it.`,
		);
	}
	return id;
}
