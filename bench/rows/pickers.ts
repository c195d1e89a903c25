/**
 * Row 4: the model picker's search over 2,000 models with a filter string, without the network:
 * `filterModels` (what the picker's listSearch method runs on the fetched list) per call.
 */
import type { ModelEntry } from '../../nodes/shared/api';
import { filterModels } from '../../nodes/shared/methods/listSearch';
import type { Row } from '../lib/report';
import { fmtMs, fmtRatio, fmtSpreadMs, spread } from '../lib/stats';

const TARGET_MS = 10;

export interface PickerOptions {
	models: number;
	callsPerRun: number;
	runs: number;
	filter: string;
}

const VENDORS = [
	'Anthropic',
	'OpenAI',
	'Google',
	'Mistral',
	'Meta',
	'DeepSeek',
	'xAI',
	'Cohere',
	'Custom',
];
const FAMILIES = [
	'Claude',
	'GPT',
	'Gemini',
	'Mistral',
	'Llama',
	'DeepSeek',
	'Grok',
	'Command',
	'My key',
];
const TYPES = ['fast', 'capable', null];

/** A deterministic list shaped like GET /models/available: labels, vendors, types, BYOK entries. */
export function makeModels(count: number): ModelEntry[] {
	return Array.from({ length: count }, (_, i) => {
		const family = i % FAMILIES.length;
		const byok = i % 10 === 9;
		return {
			model_name: byok
				? `byok:${i.toString(16).padStart(8, '0')}-8b4d-4c9e-a7f1-2d5b9e0c6a84`
				: `${VENDORS[family].toLowerCase()}:${FAMILIES[family].toLowerCase().replace(/\s/g, '-')}-${i}`,
			label: `${FAMILIES[family]} ${1 + (i % 7)}.${i % 10} ${i % 3 === 0 ? 'mini' : 'pro'} #${i}`,
			vendor: byok ? 'Custom' : VENDORS[family],
			description:
				i % 4 === 0 ? null : `Model number ${i}: good for everyday questions and automations.`,
			type: byok ? null : TYPES[i % 3],
			context_window: byok ? null : [8_000, 128_000, 200_000, 1_000_000][i % 4],
			is_byok: byok,
		};
	});
}

/** The least a search can do: one case-insensitive substring test on label and id. */
function bareFilter(models: ModelEntry[], filter: string) {
	const term = filter.toLowerCase();
	return models
		.filter((m) => `${m.label} ${m.model_name}`.toLowerCase().includes(term))
		.map((m) => ({ name: m.label, value: m.model_name }));
}

function perCall(calls: number, run: () => unknown): number {
	const started = performance.now();
	let sink = 0;
	for (let i = 0; i < calls; i++) sink += (run() as unknown[]).length;
	const ms = (performance.now() - started) / calls;
	if (sink < 0) throw new Error('unreachable');
	return ms;
}

export function pickerRow({ models: count, callsPerRun, runs, filter }: PickerOptions): Row {
	const models = makeModels(count);
	const matches = filterModels(models, filter).length;
	const empty = filterModels(models, '').length;
	if (empty !== count) throw new Error(`filterModels('') returned ${empty} of ${count}`);
	// Warm-up, so the JIT has compiled both before timing.
	perCall(callsPerRun, () => filterModels(models, filter));
	perCall(callsPerRun, () => bareFilter(models, filter));
	const node: number[] = [];
	const bare: number[] = [];
	const noFilter: number[] = [];
	for (let i = 0; i < runs; i++) {
		node.push(perCall(callsPerRun, () => filterModels(models, filter)));
		bare.push(perCall(callsPerRun, () => bareFilter(models, filter)));
		noFilter.push(perCall(callsPerRun, () => filterModels(models, '')));
	}
	const s = spread(node);
	const b = spread(bare);
	const nf = spread(noFilter);
	const worst = Math.max(s.median, nf.median);
	const verdict = worst < TARGET_MS ? 'met' : 'missed';
	return {
		name: '4. Picker search',
		measure: `filterModels, ${count} models, "${filter}"`,
		figure: `${fmtSpreadMs(s)} per call`,
		baseline: `${fmtSpreadMs(b)} (bare substring filter)`,
		ratio: fmtRatio(s.median / b.median),
		target: `< ${TARGET_MS} ms`,
		verdict,
		why: verdict === 'missed' ? `${fmtMs(worst)} per call; see "Targets missed"` : undefined,
		details: [
			`\`filterModels\` (nodes/shared/methods/listSearch.ts, what the model picker runs on the fetched list) over ${count} generated models (labels, vendors, fast/capable/none, context windows, every 10th BYOK), filter "${filter}" (${matches} matches); ${callsPerRun} calls per run, ${runs} runs, time per call. No network: the list request is the emulator's, once per picker open.`,
			`Baseline: the least a search can do, one lower-cased substring test on label + id and a map to {name, value}.`,
			`With an empty filter (every model listed with its label, ${count} results): ${fmtSpreadMs(nf)} per call.`,
		],
	};
}
