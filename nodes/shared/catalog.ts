import type { CatalogResponse } from './api';
import { LIST_LIMIT_BYTES } from './limits';
import { apiRequest, getCredentials, type AssistantContext, type ApiRequest } from './transport';

/**
 * The public catalog, read at most once per execution whoever needs it (Get Catalog, Ask's
 * deprecation check, the chat model's image check: every item and node of the execution), and at
 * most once a minute for the editor's model picker — the service itself caches it for a minute.
 *
 * Module-level, unlike the rest of a run's state (runContext.ts), because it must outlive a node
 * run: the nodes of one execution, and the picker's searches, each have their own context. It is
 * safe to share: the catalog is public (read without the token, the same for every account of a
 * service), entries are keyed by the credential's base URL as well, and kept for a bounded time
 * and count. Each node's bundle has its own copy, so the two nodes of one execution may read it
 * once each.
 */

const PICKER_TTL_MS = 60_000;
/** Long enough for any execution; entries are also evicted by count. */
const EXECUTION_TTL_MS = 30 * 60_000;
/** With each catalog within LIST_LIMIT_BYTES (limits.ts): what all of them may hold is bounded too. */
const MAX_ENTRIES = 16;

interface Entry {
	expires: number;
	catalog: Promise<CatalogResponse>;
}

const entries = new Map<string, Entry>();

/** Whose reads share one request; 'uncached' reads every time (the caller keeps it). */
export type CatalogScope = { executionId: string } | 'picker' | 'uncached';

export async function readCatalog(
	ctx: AssistantContext,
	scope: CatalogScope,
	settings: Pick<ApiRequest, 'timeoutMs' | 'retries' | 'itemIndex' | 'credentials'> = {},
): Promise<CatalogResponse> {
	const request = () =>
		apiRequest<CatalogResponse>(ctx, {
			method: 'GET',
			path: '/models/catalog',
			authenticated: false,
			listLimitBytes: LIST_LIMIT_BYTES,
			...settings,
		});
	if (scope === 'uncached') return await request();
	const { baseUrl } = await getCredentials(ctx, settings.credentials);
	const key = `${scope === 'picker' ? 'picker' : `execution:${scope.executionId}`}|${baseUrl}`;
	const now = Date.now();
	const cached = entries.get(key);
	if (cached && cached.expires > now) return await cached.catalog;

	const catalog = request();
	entries.set(key, {
		expires: now + (scope === 'picker' ? PICKER_TTL_MS : EXECUTION_TTL_MS),
		catalog,
	});
	evictOldest();
	// A failed read is not kept: the next one may succeed.
	catalog.catch(() => {
		if (entries.get(key)?.catalog === catalog) entries.delete(key);
	});
	return await catalog;
}

function evictOldest(): void {
	const now = Date.now();
	for (const [key, entry] of entries) {
		if (entries.size <= MAX_ENTRIES && entry.expires > now) break;
		entries.delete(key);
	}
}

/**
 * The active successor of a deprecated model id, following chains (a → b → c);
 * undefined when the id is not deprecated.
 */
export function successorOf(catalog: CatalogResponse, modelId: string): string | undefined {
	const map = catalog.deprecation_map;
	if (typeof map !== 'object' || map === null) return undefined;
	let current = modelId;
	const seen = new Set<string>([current]);
	while (typeof map[current] === 'string' && map[current] && !seen.has(map[current])) {
		current = map[current];
		seen.add(current);
	}
	return current === modelId ? undefined : current;
}
