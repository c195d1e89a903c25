import type { CatalogResponse } from '../../../nodes/shared/api';
import { successorOf } from '../../../nodes/shared/catalog';

function catalogWith(deprecation_map: Record<string, string>): CatalogResponse {
	return {
		models: [],
		media_gateway_public_discovery_enabled: false,
		default_chat_model_id: 'openai:gpt-5',
		featured_model_ids: [],
		featured_models_are_free: false,
		featured_model_labels: [],
		promo_end_date: null,
		deprecation_map,
	};
}

describe('the successor of a deprecated model (docs/api.md#catalog)', () => {
	test('a deprecated model is answered by its successor', () => {
		expect(successorOf(catalogWith({ 'a:old': 'a:new' }), 'a:old')).toBe('a:new');
	});

	test('a successor that is itself deprecated is followed to the end of the chain', () => {
		const catalog = catalogWith({ 'a:v1': 'a:v2', 'a:v2': 'a:v3', 'a:v3': 'a:v4' });
		expect(successorOf(catalog, 'a:v1')).toBe('a:v4');
		expect(successorOf(catalog, 'a:v3')).toBe('a:v4');
	});

	test('a model that is not deprecated has no successor', () => {
		expect(successorOf(catalogWith({ 'a:old': 'a:new' }), 'a:new')).toBeUndefined();
		expect(successorOf(catalogWith({}), 'a:any')).toBeUndefined();
	});

	test('a loop in the map ends where it would repeat, never hangs', () => {
		expect(successorOf(catalogWith({ 'a:x': 'a:y', 'a:y': 'a:x' }), 'a:x')).toBe('a:y');
		expect(successorOf(catalogWith({ 'a:x': 'a:x' }), 'a:x')).toBeUndefined();
	});

	test('a catalog without a usable deprecation_map, or with empty successors, deprecates nothing', () => {
		const withoutMap = { ...catalogWith({}), deprecation_map: null } as unknown as CatalogResponse;
		expect(successorOf(withoutMap, 'a:old')).toBeUndefined();
		expect(successorOf(catalogWith({ 'a:old': '' }), 'a:old')).toBeUndefined();
	});
});
