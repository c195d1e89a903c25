import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { CatalogModel, CatalogResponse } from '../../shared/api';
import { successorOf } from '../../shared/catalog';
import { listOf } from './listOf';
import {
	optionsCollection,
	optionsOf,
	readRequestSettings,
} from '../../shared/parameters/requestOptions';
import type { ExecuteRun } from '../../shared/runContext';
import {
	describeValue,
	invalidParameter,
	type ParameterContext,
} from '../../shared/parameters/parameterErrors';

const showForCatalog = { show: { operation: ['getCatalog'] } };

const MEDIA_DOMAIN_OPTIONS = [
	{ name: 'Chat', value: 'chat' },
	{ name: 'Image', value: 'image' },
	{ name: 'Speech', value: 'speech' },
	{ name: 'Transcription', value: 'transcription' },
	{ name: 'Video', value: 'video' },
];

/** The media domains the picker offers; a catalog may name more (checked against it). */
const MEDIA_DOMAINS = MEDIA_DOMAIN_OPTIONS.map((option) => option.value);

export const description: INodeProperties[] = [
	{
		displayName: 'Output',
		name: 'catalogOutput',
		type: 'options',
		default: 'models',
		options: [
			{
				name: 'One Item per Model',
				value: 'models',
				description: 'Each catalog model as its own item, like List Models',
			},
			{
				name: 'The Whole Catalog',
				value: 'catalog',
				description:
					'One item holding the catalog as the service serves it: models, default_chat_model_id, featured_model_ids, deprecation_map, …',
			},
		],
		displayOptions: showForCatalog,
	},
	{
		displayName: 'Filters',
		name: 'catalogFilters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showForCatalog,
		options: [
			{
				displayName: 'Featured Only',
				name: 'featuredOnly',
				type: 'boolean',
				default: false,
				description: 'Whether to keep only the models listed in featured_model_ids',
			},
			{
				displayName: 'Media Domains',
				name: 'mediaDomains',
				type: 'multiOptions',
				default: [],
				description:
					'Keep only models of these kinds; chat models are those without a media domain',
				options: MEDIA_DOMAIN_OPTIONS,
			},
		],
	},
	optionsCollection('getCatalog', [
		{
			displayName: 'Add Deprecation Info',
			name: 'addDeprecationInfo',
			type: 'boolean',
			default: false,
			description:
				'Whether to add to each model "deprecated" (true or false) and "successor" (the model to use instead, from deprecation_map, or null)',
		},
	]),
];

interface CatalogSelection {
	featuredOnly: boolean;
	mediaDomains: string[];
	addDeprecationInfo: boolean;
}

/**
 * The public catalog, one item per model by default (readable in table view, like List Models),
 * as served unless filters ask otherwise. The token is not sent (docs/api.md#catalog).
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ExecuteRun,
): Promise<INodeExecutionData[]> {
	const options = optionsOf(run, itemIndex);
	const filters = (this.getNodeParameter('catalogFilters', itemIndex, {}) ?? {}) as IDataObject;
	const mediaDomains = readMediaDomains(this, itemIndex, filters.mediaDomains);
	const catalog = await run.catalog(readRequestSettings(run, itemIndex, options));
	listOf(this, catalog, 'models', itemIndex);
	checkMediaDomains(this, itemIndex, mediaDomains, catalog);
	const wholeCatalog = this.getNodeParameter('catalogOutput', itemIndex, 'models') === 'catalog';
	const selection: CatalogSelection = {
		featuredOnly: filters.featuredOnly === true || filters.featuredOnly === 'true',
		mediaDomains,
		addDeprecationInfo: options.addDeprecationInfo === true,
	};

	const selecting =
		selection.featuredOnly || selection.mediaDomains.length > 0 || selection.addDeprecationInfo;
	// Copies: a later node that edits one item must not change the others, nor the cache.
	const models = selecting ? selectModels(catalog, selection) : structuredClone(catalog.models);
	if (!wholeCatalog) return models.map((model) => ({ json: model as IDataObject }));
	return [{ json: { ...structuredClone(catalog), models } as IDataObject }];
}

/**
 * Filters > Media Domains: the picker's list, or by an expression a list of names or a text of
 * them separated by commas ("image, video"); anything else fails the item, naming the filter.
 */
function readMediaDomains(ctx: ParameterContext, itemIndex: number, value: unknown): string[] {
	const listed =
		value === undefined || value === null
			? []
			: typeof value === 'string'
				? value.split(',')
				: value;
	if (!Array.isArray(listed) || listed.some((domain) => typeof domain !== 'string')) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`Media Domains must be a list of media domains (got ${describeValue(value)})`,
			`Choose them in Filters > Media Domains, or give a list such as ["image", "video"] or the text "image, video".`,
		);
	}
	return (listed as string[]).map((domain) => domain.trim().toLowerCase()).filter(Boolean);
}

/** A media domain neither the picker nor the catalog knows would keep no model: say so. */
function checkMediaDomains(
	ctx: ParameterContext,
	itemIndex: number,
	domains: string[],
	catalog: CatalogResponse,
): void {
	const known = new Set([
		...MEDIA_DOMAINS,
		...catalog.models.map((model) => model.media_domain ?? 'chat'),
	]);
	const unknown = domains.filter((domain) => !known.has(domain));
	if (unknown.length === 0) return;
	throw invalidParameter(
		ctx,
		itemIndex,
		`Media Domains: ${unknown.map((domain) => JSON.stringify(domain)).join(', ')} ${unknown.length === 1 ? 'is no media domain' : 'are no media domains'} of the catalog`,
		`Use one of ${[...known].join(', ')}.`,
	);
}

function selectModels(catalog: CatalogResponse, filters: CatalogSelection): CatalogModel[] {
	const featured = new Set(catalog.featured_model_ids ?? []);
	const domains = new Set(filters.mediaDomains);
	return catalog.models
		.filter((model) => !filters.featuredOnly || featured.has(model.value))
		.filter((model) => domains.size === 0 || domains.has(model.media_domain ?? 'chat'))
		.map((model) => {
			const copy = structuredClone(model);
			if (filters.addDeprecationInfo) {
				const successor = successorOf(catalog, model.value);
				copy.deprecated = successor !== undefined;
				copy.successor = successor ?? null;
			}
			return copy;
		});
}
