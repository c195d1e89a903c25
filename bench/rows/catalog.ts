/**
 * Row 5: catalog reuse. Get Catalog over N items: how many requests reach /models/catalog.
 */
import { startEmulator } from '../../test/emulator/server';
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import type { Row } from '../lib/report';
import { fmtSpreadMs, spread, timed } from '../lib/stats';

const TOKEN = 'bench-token-0123456789abcdef';

export interface CatalogOptions {
	items: number;
	runs: number;
}

export async function catalogRow({ items, runs }: CatalogOptions): Promise<Row> {
	const emulator = await startEmulator({ token: TOKEN });
	try {
		const pkg = await assistantPackage();
		const credential = emulatorCredential(emulator.baseUrl, TOKEN);
		const node = assistantNode(pkg, 'Catalog', {
			operation: 'getCatalog',
			catalogOutput: 'catalog',
		});
		const inputs = Array.from({ length: items }, (_, i) => ({ i }));
		const counts: number[] = [];
		const wall: number[] = [];
		for (let i = 0; i < runs; i++) {
			emulator.reset();
			const { ms, value: run } = await timed(
				async () => await runWithItems(inputs, [node], { credentials: [credential] }),
			);
			const outputs = run.outputs('Catalog');
			if (outputs.length !== items || !Array.isArray(outputs[items - 1].json.models)) {
				throw new Error(`Get Catalog: ${outputs.length} outputs for ${items} items`);
			}
			if (outputs[0].json === outputs[1].json)
				throw new Error('Get Catalog: items share one object');
			counts.push(emulator.stats.requests.filter((r) => r.path === '/models/catalog').length);
			wall.push(ms);
		}
		const worst = Math.max(...counts);
		const verdict = worst <= 1 ? 'met' : 'missed';
		return {
			name: '5. Catalog reuse',
			measure: `Get Catalog ×${items}, requests`,
			figure: `${worst} request${worst === 1 ? '' : 's'}`,
			baseline: `${items} (one per item)`,
			ratio: `${(worst / items).toFixed(3)}×`,
			target: '1 request',
			verdict,
			why:
				verdict === 'missed'
					? `${worst} requests reached /models/catalog for one run; see "Targets missed"`
					: undefined,
			details: [
				`Get Catalog over ${items} items in the engine, ${runs} runs; GET /models/catalog requests the emulator recorded per run: ${counts.join(', ')}. Every item gets its own copy of the catalog (checked). Wall time per run: ${fmtSpreadMs(spread(wall))}.`,
			],
		};
	} finally {
		await emulator.close();
	}
}
