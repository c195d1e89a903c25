/**
 * `npm run demo`: the example workflows run through the real n8n-core engine against the
 * built-in emulator, printing what every step produced (streamed chunks included).
 * No account needed.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { IConnections, INode, INodeExecutionData } from 'n8n-workflow';

import { startEmulator } from './emulator/server';
import { assistantNode, assistantPackage, emulatorCredential } from './helpers/assistant';
import { binaryItemsNode, withBinaryItems } from './helpers/binary-items';
import { chain, manualTrigger, runWorkflow, type EngineCredential } from './helpers/engine';

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
		failures += await askAboutAnImage(credential);
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

/**
 * examples/ask-image.json downloads its image with n8n's HTTP Request node, which this engine
 * does not have: here a test node makes the file (a tiny PNG) and Ask sends it by Image Fields.
 */
async function askAboutAnImage(credential: EngineCredential): Promise<number> {
	const pkg = withBinaryItems(await assistantPackage());
	const png =
		'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg==';
	const files = binaryItemsNode([
		{ binary: { data: { base64: png, mimeType: 'image/png', fileName: 'pixel.png' } } },
	]);
	const ask = assistantNode(pkg, 'Ask About the Image', {
		operation: 'ask',
		input: 'Describe this picture in two sentences.',
		imageFields: 'data',
	});
	console.log(
		'=== Assistant: ask about an image  (as examples/ask-image.json, the file made here)',
	);
	const run = await runWorkflow(pkg, chain(manualTrigger(), files, ask), {
		credentials: [credential],
	});
	const error = run.nodeError(ask.name) as { message?: string } | undefined;
	if (error) {
		console.log(`--- ${ask.name}: FAILED: ${error.message}\n`);
		return 1;
	}
	console.log(`--- ${ask.name}:\n${show(run.outputs(ask.name))}\n`);
	return 0;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
