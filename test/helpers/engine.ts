/**
 * Runs real workflows through the real n8n-core engine (WorkflowExecute), with a community
 * package loaded the way n8n loads it (PackageDirectoryLoader), credentials served from memory,
 * streamed chunks and the engine's logs collected. Also calls a node's listSearch methods (the
 * pickers) through n8n-core's LoadOptionsContext, and tests a credential the way n8n's
 * CredentialsTester does with a node's `testedBy` method. Only what this package uses.
 *
 * Usage (more in test/engine-harness.test.ts):
 *   const pkg = await loadPackage(repoRoot);
 *   const node: INode = { name: 'Ask', type: pkg.nodeType('assistant'), typeVersion: 1, ...,
 *     credentials: { assistantApi: { id: 'c1', name: 'Assistant' } } };
 *   const result = await runWorkflow(pkg, chain(manualTrigger(), itemsNode([{ q: 'hi' }]), node),
 *     { credentials: [{ id: 'c1', type: 'assistantApi', data: { apiKey: 'k' } }] });
 *   result.outputs('Ask'); // INodeExecutionData[]
 */
// First: sets up the process for n8n-core (user folder, loggers) before anything else loads.
import { logSinks } from './engine-env';

import { Writable } from 'node:stream';

import {
	CredentialTestContext,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	LoadOptionsContext,
	PackageDirectoryLoader,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ExecutionBaseError,
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialType,
	IConnections,
	IDataObject,
	INode,
	INodeCredentialTestResult,
	INodeCredentials,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	NodeConnectionType,
	StructuredChunk,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';
import path from 'node:path';

import { type EngineCredential, HarnessCredentialsHelper } from './engine-credentials';
import { MANUAL_TRIGGER_TYPE, TEST_ITEMS_TYPE, harnessNodeTypes } from './engine-nodes';

export type { EngineCredential } from './engine-credentials';
export { MANUAL_TRIGGER_TYPE, NO_OP_TYPE, TEST_ITEMS_TYPE } from './engine-nodes';

export interface RunOptions {
	/**
	 * Served by type + id (nodes reference `{ [type]: { id, name } }`); one given without an id
	 * serves any reference to its type.
	 */
	credentials?: EngineCredential[];
	/** Runs with `streamingEnabled` and a `sendChunk` hook; chunks land in `RunResult.chunks`. */
	streaming?: boolean;
	/**
	 * With `streaming`, false: each chunk is written as n8n writes it to a streaming response
	 * (`JSON.stringify(chunk) + '\n'`, to a stream that discards it) and counted, so a long
	 * stream's chunks are not kept alive, as in n8n (the bench's latency row);
	 * `RunResult.chunks` stays empty.
	 */
	keepChunks?: boolean;
	/** Aborting it cancels the execution (WorkflowExecute's PCancelable): status 'canceled'. */
	signal?: AbortSignal;
	/** Cancels the execution after this long, as n8n's execution timeout does. */
	timeoutMs?: number;
}

export interface RunResult {
	/** The raw run. */
	data: IRun;
	/** Main output 0 of the node's last run; throws if the node did not run or failed. */
	outputs(nodeName: string): INodeExecutionData[];
	/** The run's error (resultData.error), if any. */
	error(): ExecutionBaseError | undefined;
	/** The error of the node's last run, if any. */
	nodeError(nodeName: string): unknown;
	/** Streamed chunks (`sendChunk`), when `streaming`. */
	chunks: Array<{ type: string; content?: unknown; metadata?: unknown }>;
	/** How many chunks were sent, kept or not. */
	chunkCount: number;
	/** Every line the engine logged during the run: `[level] message {metadata as JSON}`. */
	logs: string[];
}

export interface LoadedPackage {
	dir: string;
	/** The package name, which prefixes its node types (`<name>.<node>`). */
	name: string;
	loader: PackageDirectoryLoader;
	/** The package's node types plus the harness's (manual trigger, no-op, test.items). */
	nodeTypes: INodeTypes;
	credentialTypes: Record<string, ICredentialType>;
	/** Full type name of one of the package's nodes: `nodeType('echo')` → `<package>.echo`. */
	nodeType(name: string): string;
}

export interface DynamicParameterOptions {
	credentials?: EngineCredential[];
	filter?: string;
	paginationToken?: string;
	currentNodeParameters?: INodeParameters;
	/** The parameter path the editor sends (e.g. `parameters.model`); defaults to `parameters`. */
	path?: string;
	typeVersion?: number;
}

/** Placeholder instance URLs: n8n-core builds URLs from these, so they must parse. */
const BASE_URL = 'http://localhost:5678';

class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (!type) {
			const known = Object.keys(this.types).join(', ');
			throw new Error(`Engine harness: unknown node type "${nodeType}" (known: ${known})`);
		}
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

const packages = new Map<string, Promise<LoadedPackage>>();

/**
 * Loads a built community package (its package.json `n8n` field) with n8n-core's
 * PackageDirectoryLoader; cached per folder.
 */
export async function loadPackage(packageDir: string): Promise<LoadedPackage> {
	const dir = path.resolve(packageDir);
	let loaded = packages.get(dir);
	if (!loaded) {
		loaded = readPackage(dir);
		packages.set(dir, loaded);
		loaded.catch(() => packages.delete(dir));
	}
	return await loaded;
}

async function readPackage(dir: string): Promise<LoadedPackage> {
	const loader = new PackageDirectoryLoader(dir);
	await loader.loadAll();
	const name = loader.packageName;
	const types: Record<string, INodeType | IVersionedNodeType> = harnessNodeTypes();
	for (const [nodeName, { type }] of Object.entries(loader.nodeTypes)) {
		types[`${name}.${nodeName}`] = type;
	}
	const credentialTypes: Record<string, ICredentialType> = {};
	for (const [typeName, { type }] of Object.entries(loader.credentialTypes)) {
		credentialTypes[typeName] = type;
	}
	return {
		dir,
		name,
		loader,
		nodeTypes: new HarnessNodeTypes(types),
		credentialTypes,
		nodeType: (nodeName) => `${name}.${nodeName}`,
	};
}

function unsupported(what: string) {
	return () => {
		throw new Error(`Engine harness: ${what} is not supported`);
	};
}

function createAdditionalData(
	credentialsHelper: HarnessCredentialsHelper,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		externalSecretsProxy: new ExternalSecretsProxy(),
		currentNodeExecutionIndex: 0,
		restApiUrl: `${BASE_URL}/rest`,
		instanceBaseUrl: `${BASE_URL}/`,
		formBaseUrl: `${BASE_URL}/form`,
		formWaitingBaseUrl: `${BASE_URL}/form-waiting`,
		formTestBaseUrl: `${BASE_URL}/form-test`,
		webhookBaseUrl: `${BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${BASE_URL}/webhook-test`,
		mcpBaseUrl: `${BASE_URL}/mcp`,
		mcpTestBaseUrl: `${BASE_URL}/mcp-test`,
		variables: {},
		userId: 'harness-user',
		logAiEvent: () => {},
		executeWorkflow: unsupported('executeWorkflow (sub-workflows)'),
		getRunExecutionData: unsupported('getRunExecutionData'),
		getRuntimeCredential: unsupported('getRuntimeCredential'),
		startRunnerTask: unsupported('startRunnerTask (task runners, e.g. the Code node)'),
		...extra,
	};
}

/** A node type given in full (`<package>.<node>`, `test.items`) or by its name in the package. */
function resolveNodeType(pkg: LoadedPackage, nodeType: string): string {
	try {
		pkg.nodeTypes.getByName(nodeType);
		return nodeType;
	} catch {
		return pkg.nodeType(nodeType);
	}
}

/** `{ [type]: { id, name } }` for the credentials the node type declares. */
function nodeCredentials(type: INodeType, credentials: EngineCredential[]): INodeCredentials {
	const result: INodeCredentials = {};
	for (const { name } of type.description.credentials ?? []) {
		const credential = credentials.find((candidate) => candidate.type === name);
		if (credential) result[name] = { id: credential.id ?? null, name: credential.name ?? name };
	}
	return result;
}

let executionCounter = 0;

/** Runs the workflow from its trigger with n8n-core's WorkflowExecute (mode 'manual'). */
export async function runWorkflow(
	pkg: LoadedPackage,
	workflow: { nodes: INode[]; connections: IConnections; settings?: IWorkflowSettings },
	options: RunOptions = {},
): Promise<RunResult> {
	const executionId = `harness-${++executionCounter}`;
	const settings: IWorkflowSettings = { executionOrder: 'v1', ...workflow.settings };
	const workflowData: IWorkflowBase = {
		id: 'harness-workflow',
		name: 'Engine harness workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings,
	};
	const instance = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		active: false,
		nodeTypes: pkg.nodeTypes,
		settings,
	});

	const chunks: StructuredChunk[] = [];
	let chunkCount = 0;
	const logs: string[] = [];
	let afterRun: IRun | undefined;
	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
	hooks.addHandler('workflowExecuteAfter', (run) => {
		afterRun = run;
	});
	if (options.streaming) {
		const keep = options.keepChunks !== false;
		// Where n8n would write the response: a stream that takes everything and keeps nothing.
		const response = new Writable({ write: (_chunk, _encoding, done) => done() });
		hooks.addHandler('sendChunk', (chunk) => {
			chunkCount++;
			if (keep) chunks.push(chunk);
			else response.write(`${JSON.stringify(chunk)}\n`);
		});
	}

	const credentialsHelper = new HarnessCredentialsHelper(
		pkg.credentialTypes,
		pkg.nodeTypes,
		options.credentials ?? [],
	);
	const additionalData = createAdditionalData(credentialsHelper, {
		hooks,
		executionId,
		workflowId: workflowData.id,
		streamingEnabled: options.streaming === true,
		executionTimeoutTimestamp:
			options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs,
		workflowSettings: settings,
	});
	const workflowExecute = new WorkflowExecute(additionalData, 'manual');

	logSinks.add(logs);
	let timer: NodeJS.Timeout | undefined;
	let onAbort: (() => void) | undefined;
	try {
		const execution = startRun(workflowExecute, instance);
		onAbort = () => execution.cancel();
		if (options.signal?.aborted) onAbort();
		else options.signal?.addEventListener('abort', onAbort, { once: true });
		if (options.timeoutMs !== undefined) {
			timer = setTimeout(() => {
				workflowExecute.timedOut = true;
				execution.cancel();
			}, options.timeoutMs);
		}
		const returned = await execution;
		return createResult(afterRun ?? returned, chunks, chunkCount, logs);
	} finally {
		clearTimeout(timer);
		if (onAbort) options.signal?.removeEventListener('abort', onAbort);
		logSinks.delete(logs);
	}
}

type Execution = ReturnType<WorkflowExecute['run']>;

/**
 * `WorkflowExecute.run`: n8n-core 2.x takes one options object (`{ workflow, startNode, … }`);
 * 1.x took positional arguments (`workflow, startNode, …`). Told apart by the declared arity.
 */
function startRun(workflowExecute: WorkflowExecute, workflow: Workflow): Execution {
	const run = workflowExecute.run as unknown as (...args: unknown[]) => Execution;
	if (run.length <= 1) return workflowExecute.run({ workflow });
	try {
		return run.call(workflowExecute, workflow);
	} catch (error) {
		throw withIssueDetails(error, workflowExecute, workflow);
	}
}

/**
 * n8n-core 1.x refuses a workflow whose nodes have issues (a required parameter missing, a value
 * failing its field validation) with a bare "The workflow has issues…" (its editor shows the
 * issues on the nodes); 2.x puts them in the message. On 1.x, add them from the same check
 * (`checkReadyForExecution`), worded as 2.x does, so a test can see why the run was refused.
 */
function withIssueDetails(error: unknown, workflowExecute: WorkflowExecute, workflow: Workflow) {
	if (!(error instanceof Error) || error.constructor.name !== 'WorkflowHasIssuesError')
		return error;
	const startNode = workflow.getStartNode()?.name;
	const issues = workflowExecute.checkReadyForExecution(workflow, { startNode }) ?? {};
	const lines = Object.entries(issues).map(([nodeName, nodeIssues]) => {
		const messages: string[] = [];
		if (nodeIssues.execution !== undefined) messages.push('Execution Error.');
		for (const byName of [nodeIssues.parameters, nodeIssues.credentials, nodeIssues.input]) {
			for (const list of Object.values(byName ?? {})) messages.push(...list);
		}
		if (nodeIssues.typeUnknown !== undefined) messages.push('Node Type is not known.');
		return `- '${nodeName}': ${messages.join(' ')}`;
	});
	if (lines.length > 0) error.message = `${error.message}\n${lines.join('\n')}`;
	return error;
}

function createResult(
	data: IRun,
	chunks: StructuredChunk[],
	chunkCount: number,
	logs: string[],
): RunResult {
	const { runData } = data.data.resultData;
	const lastRun = (nodeName: string) => runData[nodeName]?.at(-1);
	return {
		data,
		chunks,
		chunkCount,
		logs,
		error: () => data.data.resultData.error,
		nodeError: (nodeName) => lastRun(nodeName)?.error,
		outputs(nodeName) {
			const run = lastRun(nodeName);
			if (!run) {
				const ran = Object.keys(runData).join(', ') || 'none';
				const runError = data.data.resultData.error?.message;
				throw new Error(
					`Node "${nodeName}" did not run (nodes that ran: ${ran})` +
						(runError ? `; the run failed: ${runError}` : ''),
				);
			}
			if (run.error && !run.data) {
				throw new Error(`Node "${nodeName}" failed: ${run.error.message}`);
			}
			return run.data?.main?.[0] ?? [];
		},
	};
}

/**
 * What n8n's DynamicNodeParametersService builds for the editor's dynamic parameter requests:
 * a one-node workflow and a LoadOptionsContext, with `currentNodeParameters` in additionalData.
 */
function loadOptionsContext(
	pkg: LoadedPackage,
	nodeType: string,
	options: DynamicParameterOptions,
): { context: LoadOptionsContext; type: INodeType } {
	const typeName = resolveNodeType(pkg, nodeType);
	const type = pkg.nodeTypes.getByNameAndVersion(typeName, options.typeVersion);
	const credentials = options.credentials ?? [];
	const parameters = options.currentNodeParameters ?? {};
	const node: INode = {
		id: 'uuid-1234',
		name: 'Temp-Node',
		type: typeName,
		typeVersion: options.typeVersion ?? type.description.defaultVersion ?? lastVersion(type),
		position: [0, 0],
		parameters,
		credentials: nodeCredentials(type, credentials),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: pkg.nodeTypes,
	});
	const credentialsHelper = new HarnessCredentialsHelper(
		pkg.credentialTypes,
		pkg.nodeTypes,
		credentials,
	);
	const additionalData = createAdditionalData(credentialsHelper, {
		currentNodeParameters: parameters,
	});
	const parameterPath = options.path ?? 'parameters';
	return { context: new LoadOptionsContext(workflow, node, additionalData, parameterPath), type };
}

function lastVersion(type: INodeType): number {
	const { version } = type.description;
	return Array.isArray(version) ? version[version.length - 1] : version;
}

/** Invokes `methods.listSearch[methodName]` as the editor's resource-locator picker does. */
export async function callListSearch(
	pkg: LoadedPackage,
	nodeType: string,
	methodName: string,
	options: DynamicParameterOptions = {},
): Promise<INodeListSearchResult> {
	const { context, type } = loadOptionsContext(pkg, nodeType, options);
	const method = type.methods?.listSearch?.[methodName];
	if (typeof method !== 'function') {
		throw new Error(`Engine harness: ${nodeType} has no listSearch method "${methodName}"`);
	}
	return await method.call(context, options.filter, options.paginationToken);
}

/** The node method that tests a credential type (`testedBy`), as n8n's CredentialsTester finds it. */
function credentialTestOf(pkg: LoadedPackage, credentialType: string): ICredentialTestFunction {
	for (const { type } of Object.values(pkg.loader.nodeTypes)) {
		const versions = 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
		for (const nodeType of versions) {
			const declared = nodeType.description.credentials?.find((c) => c.name === credentialType);
			const method =
				typeof declared?.testedBy === 'string'
					? nodeType.methods?.credentialTest?.[declared.testedBy]
					: undefined;
			if (method) return method;
		}
	}
	throw new Error(`Engine harness: no node tests the credential type "${credentialType}"`);
}

/**
 * Tests a credential the way n8n's CredentialsTester does with a node's `testedBy` method (the
 * only kind of test this package has): the stored data with the type's defaults applied, passed
 * to the method in n8n-core's CredentialTestContext.
 */
export async function testCredential(
	pkg: LoadedPackage,
	credentialType: string,
	data: Record<string, unknown>,
): Promise<INodeCredentialTestResult> {
	const test = credentialTestOf(pkg, credentialType);
	const credential = { id: 'harness-credential', name: 'Test', type: credentialType, data };
	const credentialsHelper = new HarnessCredentialsHelper(pkg.credentialTypes, pkg.nodeTypes, [
		credential,
	]);
	const additionalData = createAdditionalData(credentialsHelper);
	const withDefaults = credentialsHelper.applyDefaults(
		additionalData,
		credentialType,
		{ ...data } as ICredentialDataDecryptedObject,
		'internal',
	);
	return await test.call(new CredentialTestContext(additionalData), {
		...credential,
		data: withDefaults,
	});
}

/** A node of a harness workflow (version 1; where it sits on the canvas does not matter here). */
export function workflowNode(
	name: string,
	type: string,
	parameters: INodeParameters,
	extra: Partial<INode> = {},
): INode {
	return { id: name, name, type, typeVersion: 1, position: [0, 0], parameters, ...extra };
}

/** A Manual Trigger node (the start of every harness workflow). */
export function manualTrigger(name = 'Trigger'): INode {
	return workflowNode(name, MANUAL_TRIGGER_TYPE, {});
}

/** A `test.items` node emitting these items (its `items` may also be an `={{ ... }}` expression). */
export function itemsNode(items: IDataObject[] | string, name = 'Items'): INode {
	return workflowNode(name, TEST_ITEMS_TYPE, {
		items: typeof items === 'string' ? items : JSON.stringify(items),
	});
}

/** Connects the nodes one after the other (main output 0 → main input 0). */
export function chain(...nodes: INode[]): { nodes: INode[]; connections: IConnections } {
	const connections: IConnections = {};
	for (let i = 0; i < nodes.length - 1; i++) {
		const next = { node: nodes[i + 1].name, type: NodeConnectionTypes.Main, index: 0 };
		connections[nodes[i].name] = { main: [[next]] };
	}
	return { nodes, connections };
}

/**
 * The workflow with each sub-node connected to `consumer`'s input of `type` (an AI Agent's
 * `ai_tool`, a chain's `ai_languageModel`…), as the editor connects sub-nodes.
 */
export function withSubNodes(
	workflow: { nodes: INode[]; connections: IConnections },
	consumer: string,
	type: NodeConnectionType,
	subNodes: INode[],
): { nodes: INode[]; connections: IConnections } {
	const connections: IConnections = { ...workflow.connections };
	for (const subNode of subNodes) {
		connections[subNode.name] = { [type]: [[{ node: consumer, type, index: 0 }]] };
	}
	return { nodes: [...workflow.nodes, ...subNodes], connections };
}
