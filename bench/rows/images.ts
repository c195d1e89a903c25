/**
 * Row 9: images in the ask (docs/api.md#images). Ten items with a 2 MB image each, in n8n's
 * default binary mode (the files in the items), sent by Ask's Image Fields, against the least an
 * n8n node can do to send the same asks: read each file with n8n's binary helper, write it as a
 * Markdown data URL after the text, POST it with n8n's authenticated helper, one item after
 * another as Ask does. Peak memory growth over the run (after a full GC) and wall time, side by
 * side in the same engine against the emulator in a worker thread (its memory is not counted).
 */
import { randomBytes } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { assistantNode, assistantPackage, emulatorCredential } from '../../test/helpers/assistant';
import { binaryItemsNode, withBinaryItems, type BinaryItem } from '../../test/helpers/binary-items';
import {
	chain,
	manualTrigger,
	runWorkflow,
	workflowNode,
	type LoadedPackage,
} from '../../test/helpers/engine';
import { testNodeDescription } from '../../test/helpers/engine-nodes';
import type { Row } from '../lib/report';
import { startWorkerEmulator } from '../lib/workerEmulator';
import {
	PeakMemory,
	collectGarbageSettled,
	fmtMb,
	fmtRatio,
	fmtSpreadMs,
	spread,
	timed,
} from '../lib/stats';

const TOKEN = 'bench-token-images-0123456789ab';
const BARE_TYPE = 'bench.bareImageAsk';
const INPUT = 'What is in this picture?';
/** Over the bare node, for memory and for time. */
const TARGET = 1.5;

/** Reads the item's `data` file with n8n's helper, writes it after the input, POSTs it. */
class BareImageAsk implements INodeType {
	description: INodeType['description'] = {
		...testNodeDescription(
			'bareImageAsk',
			'Bare Image Ask',
			'POSTs the input and the item’s image, nothing else',
			{ name: 'Bare Image Ask', group: 'transform' },
			[{ displayName: 'URL', name: 'url', type: 'string', default: '' }],
		),
		credentials: [{ name: 'assistantApi', required: true }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const url = this.getNodeParameter('url', 0) as string;
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const binary = this.helpers.assertBinaryData(i, 'data');
			const bytes = await this.helpers.getBinaryDataBuffer(i, 'data');
			const input = `${INPUT}\n\n![${binary.fileName}](data:${binary.mimeType};base64,${bytes.toString('base64')})`;
			const answer = (await this.helpers.httpRequestWithAuthentication.call(this, 'assistantApi', {
				method: 'POST',
				url,
				headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
				body: { input },
				json: true,
			})) as IDataObject;
			out.push({
				json: { output: answer.output, conversation_id: answer.conversation_id },
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}

function withBareImageAsk(pkg: LoadedPackage): LoadedPackage {
	const bare = new BareImageAsk();
	const nodeTypes: INodeTypes = {
		getByName: (type: string): INodeType | IVersionedNodeType =>
			type === BARE_TYPE ? bare : pkg.nodeTypes.getByName(type),
		getByNameAndVersion: (type: string, version?: number): INodeType =>
			type === BARE_TYPE
				? NodeHelpers.getVersionedNodeType(bare, version)
				: pkg.nodeTypes.getByNameAndVersion(type, version),
		getKnownTypes: () => pkg.nodeTypes.getKnownTypes(),
	};
	return { ...pkg, nodeTypes };
}

export interface ImagesOptions {
	items: number;
	imageBytes: number;
	runs: number;
}

export async function imagesRow({ items, imageBytes, runs }: ImagesOptions): Promise<Row> {
	const emulator = await startWorkerEmulator({ token: TOKEN, answerDelayMs: 0 });
	try {
		const pkg = withBareImageAsk(withBinaryItems(await assistantPackage()));
		const credential = emulatorCredential(emulator.baseUrl, TOKEN);
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
		const files: BinaryItem[] = Array.from({ length: items }, (_, i) => ({
			json: { i },
			binary: {
				data: {
					base64: Buffer.concat([png, randomBytes(imageBytes - png.length)]).toString('base64'),
					mimeType: 'image/png',
					fileName: `photo-${i}.png`,
				},
			},
		}));
		const ask = assistantNode(pkg, 'Ask', { operation: 'ask', input: INPUT, imageFields: 'data' });
		const bare = workflowNode(
			'Ask',
			BARE_TYPE,
			{ url: `${emulator.baseUrl}/assistant/ask` },
			{
				credentials: { assistantApi: { id: 'assistant-emulator', name: 'Assistant (emulator)' } },
			},
		);
		const side = async (node: typeof ask) => {
			await emulator.reset();
			await collectGarbageSettled();
			const memory = new PeakMemory();
			const { ms, value: run } = await timed(
				async () =>
					await runWorkflow(pkg, chain(manualTrigger(), binaryItemsNode(files), node), {
						credentials: [credential],
					}),
			);
			const peak = memory.stop();
			const outputs = run.outputs('Ask');
			if (
				outputs.length !== items ||
				outputs.some((item) => !String(item.json.output).includes('sha256'))
			)
				throw new Error(
					`Images: ${outputs.length} answers for ${items} items, or an image not seen`,
				);
			return { ms, peak };
		};
		const node: Array<{ ms: number; peak: number }> = [];
		const base: Array<{ ms: number; peak: number }> = [];
		// Alternated, so that neither side always runs on a warmer engine.
		for (let i = 0; i < runs; i++) {
			base.push(await side(bare));
			node.push(await side(ask));
		}
		const median = (values: number[]) => spread(values).median;
		const nodePeak = median(node.map((r) => r.peak));
		const basePeak = median(base.map((r) => r.peak));
		const nodeMs = median(node.map((r) => r.ms));
		const baseMs = median(base.map((r) => r.ms));
		const memoryRatio = nodePeak / basePeak;
		const timeRatio = nodeMs / baseMs;
		const verdict = memoryRatio <= TARGET && timeRatio <= TARGET ? 'met' : 'missed';
		const total = items * imageBytes;
		return {
			name: '9. Images',
			measure: `Ask ×${items}, a ${fmtMb(imageBytes)} image each: peak memory, time`,
			figure: `${fmtMb(nodePeak)}, ${fmtSpreadMs(spread(node.map((r) => r.ms)))}`,
			baseline: `${fmtMb(basePeak)}, ${fmtSpreadMs(spread(base.map((r) => r.ms)))} (bare node)`,
			ratio: `${fmtRatio(memoryRatio)} memory, ${fmtRatio(timeRatio)} time`,
			target: `≤ ${TARGET}× both`,
			verdict,
			why: verdict === 'missed' ? 'see "Targets missed"' : undefined,
			details: [
				`${items} items in n8n's default binary mode (${fmtMb(total)} of images, ${fmtMb((total * 4) / 3)} as base64), Ask with Image Fields against a bare node that reads each file with n8n's helper and POSTs it as a data URL, ${runs} runs each, alternated; emulator in a worker thread. Peak memory growth per run (MB), node: ${node.map((r) => (r.peak / 1e6).toFixed(1)).join(', ')}; bare: ${base.map((r) => (r.peak / 1e6).toFixed(1)).join(', ')}. The items themselves hold the images as base64 on both sides.`,
			],
		};
	} finally {
		await emulator.close();
	}
}
