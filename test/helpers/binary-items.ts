/**
 * Binary data in the engine harness: a test node that emits items with files, stored through
 * n8n-core's BinaryDataService as n8n stores a node's files (`helpers.prepareBinaryData`), and a
 * switch to n8n's filesystem binary mode (files on disk, items holding only their ids) in a
 * temporary folder. Without the switch the service keeps files in the items (n8n's default
 * in-memory mode).
 */
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';

import { workflowNode, type LoadedPackage } from './engine';
import { itemsNodeDescription } from './engine-nodes';

export const BINARY_ITEMS_TYPE = 'test.binaryItems';

/** A file of an item: its bytes (base64), media type and file name. */
export interface TestFile {
	base64: string;
	mimeType: string;
	fileName?: string;
}

export interface BinaryItem {
	json?: IDataObject;
	binary?: Record<string, TestFile>;
}

/** Emits its `items`, each file stored with prepareBinaryData (memory or filesystem mode). */
class BinaryItems implements INodeType {
	description = itemsNodeDescription('binaryItems', 'Binary Items', 'Files', 'Items with files');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string;
		const items = JSON.parse(raw) as BinaryItem[];
		const out: INodeExecutionData[] = [];
		for (const item of items) {
			const binary: IBinaryKeyData = {};
			for (const [field, file] of Object.entries(item.binary ?? {})) {
				binary[field] = await this.helpers.prepareBinaryData(
					Buffer.from(file.base64, 'base64'),
					file.fileName,
					file.mimeType,
				);
			}
			out.push({ json: item.json ?? {}, binary, pairedItem: { item: 0 } });
		}
		return [out];
	}
}

/** The package with the Binary Items node beside its own (and the harness's) node types. */
export function withBinaryItems(pkg: LoadedPackage): LoadedPackage {
	const extra = new BinaryItems();
	const nodeTypes: INodeTypes = {
		getByName: (type: string): INodeType | IVersionedNodeType =>
			type === BINARY_ITEMS_TYPE ? extra : pkg.nodeTypes.getByName(type),
		getByNameAndVersion: (type: string, version?: number): INodeType =>
			type === BINARY_ITEMS_TYPE ? extra : pkg.nodeTypes.getByNameAndVersion(type, version),
		getKnownTypes: () => pkg.nodeTypes.getKnownTypes(),
	};
	return { ...pkg, nodeTypes };
}

export function binaryItemsNode(items: BinaryItem[], name = 'Files'): INode {
	return workflowNode(name, BINARY_ITEMS_TYPE, { items: JSON.stringify(items) });
}

interface ServiceInternals {
	config: { mode: string; localStoragePath: string };
	managers: Record<string, unknown>;
	mode: string;
}

/**
 * n8n's filesystem binary mode in a fresh temporary folder, as n8n sets it up at start
 * (`N8N_DEFAULT_BINARY_DATA_MODE=filesystem`); `stop` goes back to the in-memory mode and
 * deletes the folder. `files()` lists what is stored on disk (path and size).
 */
export async function filesystemBinaryMode(): Promise<{
	folder: string;
	files(): Array<{ path: string; bytes: number }>;
	stop(): void;
}> {
	const folder = mkdtempSync(path.join(tmpdir(), 'n8n-binary-'));
	const service = Container.get(BinaryDataService) as unknown as ServiceInternals & {
		init(): Promise<void>;
	};
	service.config.mode = 'filesystem';
	service.config.localStoragePath = folder;
	await service.init();
	return {
		folder,
		files: () => listFiles(folder),
		stop: () => {
			service.managers = {};
			rmSync(folder, { recursive: true, force: true });
		},
	};
}

function listFiles(folder: string): Array<{ path: string; bytes: number }> {
	const found: Array<{ path: string; bytes: number }> = [];
	for (const name of readdirSync(folder, { recursive: true }) as string[]) {
		const full = path.join(folder, name);
		const stat = statSync(full);
		if (stat.isFile()) found.push({ path: full, bytes: stat.size });
	}
	return found;
}
