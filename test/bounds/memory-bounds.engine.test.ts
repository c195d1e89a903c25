/**
 * No server makes the node hold unbounded memory (docs/api.md#memory-bounds): with the built
 * package in n8n-core's engine, a stream whose one `data:` line never ends (700 MiB on offer) and
 * a stream whose answer keeps growing (600 MiB of text on offer) each fail the item with a
 * message that says so, long before the server is done, while the process's resident memory
 * grows by far less than the 800 MB the probes of issue 29 saw. An honest 20-million-character
 * answer still comes back whole. Runs against n8n 1.x too (`npm run test:n8n1`).
 */
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../helpers/assistant';
import { peakRssGrowth, startStreamServer } from '../helpers/hostile-stream';

const MiB = 1024 * 1024;
/** Far below the 800 MB the unbounded node reached, far above the 64 MiB bound plus overhead. */
const GROWTH_LIMIT = 400 * MiB;

async function ask(baseUrl: string) {
	const pkg = await assistantPackage();
	const run = await runWithItems(
		[{}],
		[
			assistantNode(pkg, 'Assistant', {
				operation: 'ask',
				input: 'Hello',
				options: { retries: 0 },
			}),
		],
		{ credentials: [emulatorCredential(baseUrl, 'zo_sk_bounds-token')] },
	);
	return run;
}

test('a data: line that never ends fails the item at 64 MiB, memory bounded', async () => {
	const server = await startStreamServer('endless-line', 700 * MiB);
	try {
		const { result: run, growth } = await peakRssGrowth(async () => await ask(server.baseUrl));
		const error = run.error();
		expect(error?.message).toMatch(/event-stream line larger than 64 MiB/);
		expect(server.written()).toBeLessThan(200 * MiB);
		expect(growth).toBeLessThan(GROWTH_LIMIT);
	} finally {
		await server.close();
	}
}, 120_000);

test('an answer that keeps growing fails the item at 32 million characters, memory bounded', async () => {
	const server = await startStreamServer('endless-answer', 600 * MiB);
	try {
		const { result: run, growth } = await peakRssGrowth(async () => await ask(server.baseUrl));
		const error = run.error();
		expect(error?.message).toMatch(/answer grew past 32,000,000 characters/);
		expect((error as { description?: string }).description).toMatch(/No partial answer/);
		expect(server.written()).toBeLessThan(200 * MiB);
		expect(growth).toBeLessThan(GROWTH_LIMIT);
	} finally {
		await server.close();
	}
}, 120_000);

test('an honest answer of 20 million characters comes back whole', async () => {
	const server = await startStreamServer('honest-answer', 20_000_000);
	try {
		const run = await ask(server.baseUrl);
		expect(run.error()).toBeUndefined();
		const output = run.outputs('Assistant')[0].json.output as string;
		expect(output).toHaveLength(20_000_000);
	} finally {
		await server.close();
	}
}, 120_000);
