import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import type {
	CatalogResponse,
	ModelEntry,
	ModelsResponse,
	PersonaEntry,
	PersonasResponse,
} from '../api';
import { readCatalog, successorOf } from '../catalog';
import { LIST_LIMIT_BYTES } from '../limits';
import { listEntries } from '../lists';
import { apiRequest } from '../transport';
import { apiError } from '../transport/errors';

/** The pickers' lists, loaded live and filtered here (the API has no search parameter). */

/** Someone is waiting in the editor: fail fast rather than after the ask's 10 minutes. */
const PICKER_TIMEOUT_MS = 30_000;

export async function searchModels(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const [response, catalog] = await Promise.all([
		apiRequest<ModelsResponse>(this, {
			method: 'GET',
			path: '/models/available',
			authenticated: true,
			listLimitBytes: LIST_LIMIT_BYTES,
			timeoutMs: PICKER_TIMEOUT_MS,
		}),
		// Only to mark deprecated models and those that see images: the list still shows when the
		// catalog is unavailable.
		readCatalog(this, 'picker', { timeoutMs: PICKER_TIMEOUT_MS, retries: 0 }).catch(
			() => undefined,
		),
	]);
	return {
		results: filterModels(pickable(this, response, 'models', 'model_name'), filter, catalog),
	};
}

export async function searchPersonas(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await apiRequest<PersonasResponse>(this, {
		method: 'GET',
		path: '/personas/available',
		authenticated: true,
		listLimitBytes: LIST_LIMIT_BYTES,
		timeoutMs: PICKER_TIMEOUT_MS,
	});
	return { results: filterPersonas(pickable(this, response, 'personas', 'id'), filter) };
}

/**
 * The entries a picker offers: those of the list (an answer in another shape fails as List Models
 * and List Personas fail, shared/lists.ts) that have an id to choose, each id once.
 */
function pickable<T>(
	ctx: ILoadOptionsFunctions,
	response: unknown,
	key: string,
	idField: string,
): T[] {
	const read = listEntries(response, key);
	if ('problem' in read) throw apiError(ctx.getNode(), read.problem, undefined);
	const seen = new Set<string>();
	return read.entries.filter((entry) => {
		const id = entry[idField];
		if (typeof id !== 'string' || id === '' || seen.has(id)) return false;
		seen.add(id);
		return true;
	}) as T[];
}

export function filterModels(
	models: ModelEntry[],
	filter?: string,
	catalog?: CatalogResponse,
): INodeListSearchItems[] {
	const terms = searchTerms(filter);
	const results: INodeListSearchItems[] = [];
	for (const model of inPriorityOrder(models)) {
		const successor = catalog ? successorOf(catalog, model.model_name) : undefined;
		const images = catalog ? imagesMark(catalog, model.model_name) : undefined;
		const haystack = `${model.label} ${model.model_name} ${model.vendor} ${model.type ?? ''} ${model.is_byok ? 'byok' : ''} ${successor ? 'deprecated' : ''} ${images ?? ''}`;
		if (!matches(haystack, terms)) continue;
		results.push({
			name: modelLabel(model, successor, images),
			value: model.model_name,
			description: model.description ?? undefined,
		});
	}
	return results;
}

/**
 * Lower `priority` first, as the service means its list to be read; entries without one after
 * those with one, and ties in the service's order (the sort is stable).
 */
function inPriorityOrder(models: ModelEntry[]): ModelEntry[] {
	const rank = (model: ModelEntry) =>
		typeof model.priority === 'number' && Number.isFinite(model.priority)
			? model.priority
			: Infinity;
	return models.some((model) => rank(model) !== Infinity)
		? [...models].sort((a, b) => (rank(a) === rank(b) ? 0 : rank(a) < rank(b) ? -1 : 1))
		: models;
}

/**
 * Whether the catalog says the model sees images (docs/api.md#images), for Ask's Image Fields:
 * marked only where the catalog says it, either way.
 */
function imagesMark(catalog: CatalogResponse, modelId: string): ImagesMark | undefined {
	const entry = (Array.isArray(catalog.models) ? catalog.models : []).find(
		(candidate) => candidate?.value === modelId,
	);
	if (entry?.supports_images === true) return 'sees images';
	if (entry?.supports_images === false) return 'text only';
	return undefined;
}

type ImagesMark = 'sees images' | 'text only';

/**
 * e.g. "Claude Haiku 4.5 · Anthropic · fast · 200k tokens · sees images", "My GPT key · Custom ·
 * BYOK", "Claude 3.5 Sonnet · Anthropic · deprecated, use anthropic:claude-sonnet-4-5".
 */
export function modelLabel(model: ModelEntry, successor?: string, images?: ImagesMark): string {
	const parts = [model.label || model.model_name, model.vendor];
	if (model.type) parts.push(model.type);
	if (model.context_window) parts.push(`${formatTokens(model.context_window)} tokens`);
	if (images) parts.push(images);
	if (model.is_byok) parts.push('BYOK');
	if (successor) parts.push(`deprecated, use ${successor}`);
	return parts.filter(Boolean).join(' · ');
}

export function filterPersonas(personas: PersonaEntry[], filter?: string): INodeListSearchItems[] {
	const terms = searchTerms(filter);
	const results: INodeListSearchItems[] = [];
	for (const persona of personas) {
		if (!matches(`${persona.name} ${persona.id} ${persona.model ?? ''}`, terms)) continue;
		results.push({
			name: `${persona.name || persona.id} · ${persona.model ?? 'default model'}`,
			value: persona.id,
			description: persona.prompt,
		});
	}
	return results;
}

function searchTerms(filter?: string): string[] {
	return (filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** Every term must appear somewhere: "claude fast" finds fast Claude models. */
function matches(haystack: string, terms: string[]): boolean {
	if (terms.length === 0) return true;
	const text = haystack.toLowerCase();
	return terms.every((term) => text.includes(term));
}

function formatTokens(tokens: number): string {
	if (tokens >= 1_000_000) return `${+(tokens / 1_000_000).toFixed(1)}M`;
	if (tokens >= 1_000) return `${Math.round(tokens / 1_000)}k`;
	return String(tokens);
}
