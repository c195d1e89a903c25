import path from 'node:path';

import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameterResourceLocator,
	INodeParameters,
} from 'n8n-workflow';

import {
	chain,
	itemsNode,
	loadPackage,
	manualTrigger,
	runWorkflow,
	workflowNode,
	type EngineCredential,
	type LoadedPackage,
	type RunOptions,
	type RunResult,
} from './engine';

/** The built package at the repository root (`npm test` builds it first). */
export const PACKAGE_DIR = path.resolve(__dirname, '..', '..');

export async function assistantPackage(): Promise<LoadedPackage> {
	return await loadPackage(PACKAGE_DIR);
}

export function emulatorCredential(baseUrl: string, accessToken: string): EngineCredential {
	return {
		id: 'assistant-emulator',
		name: 'Assistant (emulator)',
		type: 'assistantApi',
		data: { baseUrl, accessToken },
	};
}

export function rl(value: string, mode: 'list' | 'id' = 'id'): INodeParameterResourceLocator {
	return { __rl: true, mode, value };
}

/** An Assistant node with the emulator credential; `extra` sets node-level fields (onError…). */
export function assistantNode(
	pkg: LoadedPackage,
	name: string,
	parameters: INodeParameters,
	extra: Partial<INode> = {},
): INode {
	return workflowNode(name, pkg.nodeType('assistant'), parameters, {
		credentials: { assistantApi: { id: 'assistant-emulator', name: 'Assistant (emulator)' } },
		...extra,
	});
}

/** Trigger → items → the given nodes, run in the engine. */
export async function runWithItems(
	items: IDataObject[],
	nodes: INode[],
	options: RunOptions,
): Promise<RunResult> {
	const pkg = await assistantPackage();
	return await runWorkflow(pkg, chain(manualTrigger(), itemsNode(items), ...nodes), options);
}

/**
 * One item's Ask of `input` under Continue On Fail (a failure is the item's error) with no
 * retries (a failure is met once): `options` go beside Retries 0 (Stream on runs a streaming
 * execution), `parameters` beside the node's Operation and Input.
 */
export async function askOnceContinuing(
	credential: EngineCredential,
	input: string,
	options: INodeParameters = {},
	parameters: INodeParameters = {},
): Promise<RunResult> {
	const pkg = await assistantPackage();
	const node = assistantNode(
		pkg,
		'Assistant',
		{ operation: 'ask', input, ...parameters, options: { retries: 0, ...options } },
		{ onError: 'continueRegularOutput' },
	);
	return await runWithItems([{}], [node], {
		credentials: [credential],
		streaming: options.stream === true,
	});
}

export function jsonOf(items: INodeExecutionData[]): IDataObject[] {
	return items.map((item) => item.json);
}

/**
 * Everything a run shows a user or n8n's log, as one text to look through for what must never
 * be there (a token, the request echo): its data (items, errors, the Logs panel), its logs, its
 * streamed chunks and its error.
 */
export function everythingShown(run: RunResult): string {
	const error = run.error() as
		{ message?: string; description?: string; stack?: string } | undefined;
	return JSON.stringify({
		data: run.data,
		logs: run.logs,
		chunks: run.chunks,
		error: error && { message: error.message, description: error.description, stack: error.stack },
	});
}
