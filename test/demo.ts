/**
 * `npm run demo`: the example workflows run through the real n8n-core engine against the
 * built-in emulator, printing what every step produced (streamed chunks included).
 * No account needed.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { IConnections, INode, INodeExecutionData } from 'n8n-workflow';

import { startEmulator } from './emulator/server';
import { assistantPackage, emulatorCredential } from './helpers/assistant';
import { runWorkflow } from './helpers/engine';

const EXAMPLES_DIR = path.resolve(__dirname, '..', 'examples');
const ORDER = [
	'ask-text.json',
	'ask-json-schema.json',
	'ask-json-example.json',
	'conversation-chain.json',
	'ask-streamed.json',
	'list-models.json',
	'list-personas.json',
	'get-catalog.json',
];

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
}

function show(items: INodeExecutionData[]): string {
	const shown = items.slice(0, 3).map((item) => {
		const text = JSON.stringify(item.json, null, 2);
		const lines = text.split('\n');
		return lines.length > 24
			? `${lines.slice(0, 24).join('\n')}\n  … (${lines.length - 24} more lines)`
			: text;
	});
	const more =
		items.length > 3 ? `\n… and ${items.length - 3} more items (${items.length} in all)` : '';
	return shown.join('\n') + more;
}

async function main(): Promise<void> {
	const emulator = await startEmulator();
	const credential = emulatorCredential(emulator.baseUrl, emulator.token);
	console.log(
		`Emulator: ${emulator.baseUrl} (2026 stream dialect; token from the emulator's built-in default)\n`,
	);
	let failures = 0;
	try {
		const pkg = await assistantPackage();
		for (const file of ORDER) {
			const workflow = JSON.parse(
				fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'),
			) as ExampleWorkflow;
			const streaming = workflow.nodes.some(
				(node) => (node.parameters.options as { stream?: boolean })?.stream,
			);
			console.log(`=== ${workflow.name}  (examples/${file})`);
			const run = await runWorkflow(pkg, workflow, { credentials: [credential], streaming });
			for (const node of workflow.nodes) {
				if (node.type !== pkg.nodeType('assistant')) continue;
				const error = run.nodeError(node.name) as { message?: string } | undefined;
				if (error) {
					failures++;
					console.log(`--- ${node.name}: FAILED: ${error.message}`);
					continue;
				}
				console.log(`--- ${node.name}:\n${show(run.outputs(node.name))}`);
			}
			if (streaming) {
				const pieces = run.chunks
					.filter((chunk) => chunk.type === 'item')
					.map((chunk) => String(chunk.content));
				console.log(
					`--- streamed chunks (${run.chunks.length}: begin, ${pieces.length} items, end):`,
				);
				console.log(pieces.map((piece) => JSON.stringify(piece)).join(' + '));
			}
			console.log();
		}
	} finally {
		await emulator.close();
	}
	if (failures > 0) {
		console.error(`${failures} step(s) failed`);
		process.exitCode = 1;
	} else {
		console.log('Every example ran.');
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
