/**
 * Runs a `usableAsTool` node as an AI Agent tool, in the real n8n-core engine:
 *
 * - The tool variant (`<package>.<node>Tool`): n8n's app derives it from the node type
 *   (`convertNodeToAiTool` in n8n's CLI package, which n8n-core and n8n-workflow do not export):
 *   display name, the "Tool Description" parameters, codex. n8n-core needs only one thing of it
 *   to run the node as a tool: an `ai_tool` output and no `supplyData`, so that
 *   getInputConnectionData turns it into a LangChain tool with createNodeAsTool. That is all
 *   `toolVariant` sets; the rest of n8n's derivation is checked in the real n8n app
 *   (test/e2e/checks/backend.js, `tool-type`), so nothing here can drift from n8n unnoticed.
 * - `test.agent` is a minimal AI Agent: it takes its tools from its `ai_tool` input with
 *   `getInputConnectionData` (n8n-core's createNodeAsTool turns the tool node into a LangChain
 *   DynamicStructuredTool: name, description, $fromAI schema), shows them as a chat model would
 *   see them (`convertToOpenAITool`, what LangChain's bindTools sends) and makes the tool calls
 *   it is given, in one of the two ways n8n-core 2.41 supports:
 *     - `engineRequest` (the AI Agent node v3, n8n 2.x's default): it returns an EngineRequest
 *       with one ExecutionNodeAction per call, as the agent's createEngineRequests does; the
 *       engine (WorkflowExecute.handleEngineRequest) runs the tool node with the call's
 *       arguments and resumes the agent with an EngineResponse, which it reads the way the
 *       agent's buildSteps does (the observation is the JSON of the tool's `ai_tool` output items).
 *     - `invoke` (AI Agent v1/v2's LangChain AgentExecutor and other LangChain consumers): it
 *       calls `tool.invoke(args)`; the schema is validated by LangChain and n8n-core's
 *       makeHandleToolInvocation runs the node in a SupplyDataContext.
 */
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type {
	EngineRequest,
	EngineResponse,
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	ITaskData,
	IVersionedNodeType,
	NodeOutput,
} from 'n8n-workflow';
import {
	NodeConnectionTypes,
	NodeHelpers,
	NodeOperationError,
	jsonParse,
	nodeNameToToolName,
} from 'n8n-workflow';

// As helpers/chat-model.ts: both build their workflows with chain and withSubNodes.
import * as engine from './engine';
import type { LoadedPackage, RunOptions, RunResult } from './engine';

export const TEST_AGENT_TYPE = 'test.agent';

/**
 * The node type as n8n-core sees its tool variant: the node's own type (prototype-backed, so
 * `execute` and `methods` are the node's) with an `ai_tool` output, no main input, and the
 * `…Tool` name. Only types with `usableAsTool` may become tools.
 */
export function toolVariant(base: INodeType): INodeType {
	if (!base.description.usableAsTool) {
		throw new Error(`Node "${base.description.name}" cannot be used as a tool (no usableAsTool)`);
	}
	const description = Object.create(base.description, {
		name: { value: `${base.description.name}Tool` },
		inputs: { value: [] },
		outputs: { value: [NodeConnectionTypes.AiTool] },
	}) as INodeTypeDescription;
	return Object.create(base, { description: { value: description } }) as INodeType;
}

/** The package's node types, their synthetic `…Tool` variants (cached) and `test.agent`. */
class ToolAwareNodeTypes implements INodeTypes {
	private readonly tools = new Map<string, INodeType>();

	constructor(
		private readonly base: INodeTypes,
		private readonly agent: INodeType,
	) {}

	private isSyntheticTool(nodeType: string): boolean {
		if (!nodeType.endsWith('Tool')) return false;
		try {
			this.base.getByName(nodeType);
			return false;
		} catch {
			return true;
		}
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		if (nodeType === TEST_AGENT_TYPE) return this.agent;
		if (this.isSyntheticTool(nodeType)) return this.getByNameAndVersion(nodeType);
		return this.base.getByName(nodeType);
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		if (nodeType === TEST_AGENT_TYPE) return this.agent;
		if (!this.isSyntheticTool(nodeType)) return this.base.getByNameAndVersion(nodeType, version);
		const key = `${nodeType}?version=${version ?? 'default'}`;
		let tool = this.tools.get(key);
		if (!tool) {
			const baseName = nodeType.slice(0, -'Tool'.length);
			tool = toolVariant(this.base.getByNameAndVersion(baseName, version));
			this.tools.set(key, tool);
		}
		return tool;
	}

	getKnownTypes(): IDataObject {
		return this.base.getKnownTypes();
	}
}

/** The package with its tool variants and the `test.agent` node added to its node types. */
export function withAiTools(pkg: LoadedPackage): LoadedPackage {
	return { ...pkg, nodeTypes: new ToolAwareNodeTypes(pkg.nodeTypes, new TestAgent()) };
}

// ---------------------------------------------------------------------------------------------
// The agent
// ---------------------------------------------------------------------------------------------

export type AgentMode = 'engineRequest' | 'invoke';

/** A tool call the agent's "model" makes. */
export interface AgentToolCall {
	/** The tool's name as the model sees it; defaults to the only (first) tool. */
	tool?: string;
	args: IDataObject;
	/** Defaults to `call_<n>`. */
	id?: string;
}

/** A tool as the agent's chat model sees it (the OpenAI tool format, as LangChain binds it). */
export interface SeenTool {
	name: string;
	description: string;
	/** JSON Schema of the arguments. */
	parameters: IDataObject;
	/** The workflow node behind the tool (createNodeAsTool's metadata). */
	sourceNodeName: string;
	/** The LangChain class, e.g. DynamicStructuredTool. */
	kind: string;
}

/** One tool call and what the agent got back. */
export interface AgentStep {
	id: string;
	tool: string;
	args: IDataObject;
	/** Whether the tool's schema accepts the arguments (LangChain checks it on `invoke`). */
	argsMatchSchema: boolean;
	/** What the model is given as the tool's result (a JSON string). */
	observation?: string;
	/** The error the call raised (`invoke`), or the tool node's run error (`engineRequest`). */
	error?: string;
}

export interface AgentOutput extends IDataObject {
	tools: SeenTool[];
	steps: AgentStep[];
}

interface LangChainTool {
	name: string;
	description: string;
	schema: unknown;
	metadata?: Record<string, unknown>;
	invoke(input: unknown): Promise<unknown>;
}

function describeTool(tool: LangChainTool): SeenTool {
	const openAi = convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
	return {
		name: openAi.function.name,
		description: openAi.function.description ?? '',
		parameters: openAi.function.parameters as IDataObject,
		sourceNodeName: String(tool.metadata?.sourceNodeName),
		kind: tool.constructor.name,
	};
}

function argsMatchSchema(tool: LangChainTool | undefined, args: IDataObject): boolean {
	const schema = tool?.schema as { safeParse?: (value: unknown) => { success: boolean } };
	return typeof schema?.safeParse === 'function' ? schema.safeParse(args).success : false;
}

/**
 * The agent's buildSteps: the tool's `ai_tool` output items as JSON (a failed tool node's are
 * `[{ error: <message> }]`, set by the engine), else its error, else "".
 */
function observationOf(data: ITaskData): Pick<AgentStep, 'observation' | 'error'> {
	const error = data.error ? { error: data.error.message } : {};
	const items = data.data?.[NodeConnectionTypes.AiTool]?.[0]?.map((item) => item?.json);
	if (items && items.length > 0) return { observation: JSON.stringify(items), ...error };
	if (data.error) {
		const observation = {
			error: data.error.message ?? 'Unknown error',
			errorType: data.error.name,
		};
		return { observation: JSON.stringify(observation), ...error };
	}
	return { observation: JSON.stringify('') };
}

/**
 * A minimal AI Agent: `ai_tool` input (any number of tools), `mode` (engineRequest | invoke) and
 * `toolCalls` (a JSON array of AgentToolCall). Outputs one item: AgentOutput.
 */
class TestAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Agent',
		name: 'agent',
		group: ['transform'],
		version: 1,
		description: 'Calls its tools the way n8n’s AI Agent does',
		defaults: { name: 'Agent' },
		inputs: [
			NodeConnectionTypes.Main,
			{ type: NodeConnectionTypes.AiTool, displayName: 'Tool', required: true },
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Mode',
				name: 'mode',
				type: 'options',
				default: 'engineRequest',
				options: [
					{ name: 'Engine Request', value: 'engineRequest' },
					{ name: 'Invoke', value: 'invoke' },
				],
			},
			{ displayName: 'Tool Calls', name: 'toolCalls', type: 'json', default: '[]' },
		],
	};

	async execute(this: IExecuteFunctions, response?: EngineResponse): Promise<NodeOutput> {
		const tools = (await this.getInputConnectionData(
			NodeConnectionTypes.AiTool,
			0,
		)) as LangChainTool[];
		const seen = tools.map(describeTool);
		const mode = this.getNodeParameter('mode', 0) as AgentMode;
		const rawCalls = this.getNodeParameter('toolCalls', 0) as string | AgentToolCall[];
		const calls = (
			typeof rawCalls === 'string' ? jsonParse(rawCalls) : rawCalls
		) as AgentToolCall[];
		const resolved = calls.map((call, index) => {
			const tool = call.tool ? tools.find((t) => t.name === call.tool) : tools[0];
			if (!tool) {
				throw new NodeOperationError(this.getNode(), `No tool named "${call.tool}"`);
			}
			return { id: call.id ?? `call_${index + 1}`, tool, args: call.args };
		});

		if (mode === 'invoke') {
			const steps: AgentStep[] = [];
			for (const { id, tool, args } of resolved) {
				const step: AgentStep = {
					id,
					tool: tool.name,
					args,
					argsMatchSchema: argsMatchSchema(tool, args),
				};
				try {
					step.observation = String(await tool.invoke(args));
				} catch (error) {
					step.error = (error as Error).message;
				}
				steps.push(step);
			}
			return [[{ json: { tools: seen, steps } }]];
		}

		// engineRequest: first run asks the engine to run the tools; the resumed run reads them.
		if (!response || response.actionResponses.length === 0) {
			const request: EngineRequest = {
				actions: resolved.map(({ id, tool, args }) => ({
					actionType: 'ExecutionNodeAction' as const,
					nodeName: String(tool.metadata?.sourceNodeName),
					input: args,
					type: NodeConnectionTypes.AiTool,
					id,
					metadata: { itemIndex: 0 },
				})),
				metadata: {},
			};
			return request;
		}
		const steps: AgentStep[] = response.actionResponses.map(({ action, data }) => ({
			id: action.id,
			tool: nodeNameToToolName(action.nodeName),
			args: action.input,
			argsMatchSchema: argsMatchSchema(
				tools.find((t) => t.metadata?.sourceNodeName === action.nodeName),
				action.input,
			),
			...observationOf(data),
		}));
		return [[{ json: { tools: seen, steps } }]];
	}
}

// ---------------------------------------------------------------------------------------------
// Running it
// ---------------------------------------------------------------------------------------------

export interface AgentRunOptions extends RunOptions {
	mode?: AgentMode;
	/** The agent's input item (what a Chat Trigger would send). */
	agentInput?: IDataObject;
	/** Agent node name; default 'Agent'. */
	agentName?: string;
}

export interface AgentRun {
	run: RunResult;
	/** The agent's output (throws if it did not run). */
	agent: AgentOutput;
	/** The tool node's runs: input as the engine logged it, `ai_tool` output, error. */
	toolRuns(nodeName: string): ITaskData[];
}

/** Trigger → Items(agentInput) → Agent, with each tool node connected to the agent's `ai_tool`. */
export function agentWorkflow(
	tools: INode[],
	calls: AgentToolCall[],
	options: Pick<AgentRunOptions, 'mode' | 'agentInput' | 'agentName'> = {},
): { nodes: INode[]; connections: IConnections } {
	const trigger = engine.manualTrigger();
	const items = engine.itemsNode([options.agentInput ?? { chatInput: 'Hello' }]);
	const agentName = options.agentName ?? 'Agent';
	const parameters: INodeParameters = {
		mode: options.mode ?? 'engineRequest',
		toolCalls: JSON.stringify(calls),
	};
	const agent: INode = {
		id: agentName,
		name: agentName,
		type: TEST_AGENT_TYPE,
		typeVersion: 1,
		position: [600, 0],
		parameters,
	};
	return engine.withSubNodes(
		engine.chain(trigger, items, agent),
		agentName,
		NodeConnectionTypes.AiTool,
		tools,
	);
}

/** Runs agentWorkflow in the engine, with the package's tool variants available. */
export async function runAgent(
	pkg: LoadedPackage,
	tools: INode[],
	calls: AgentToolCall[],
	options: AgentRunOptions = {},
): Promise<AgentRun> {
	const { mode, agentInput, agentName = 'Agent', ...runOptions } = options;
	const run = await engine.runWorkflow(
		withAiTools(pkg),
		agentWorkflow(tools, calls, { mode, agentInput, agentName }),
		runOptions,
	);
	const [item] = run.outputs(agentName);
	return {
		run,
		agent: item.json as AgentOutput,
		toolRuns: (nodeName) => run.data.data.resultData.runData[nodeName] ?? [],
	};
}

/** NodeHelpers.getToolDescriptionForNode for a node of the tool type (what createNodeAsTool uses). */
export function toolDescriptionFor(pkg: LoadedPackage, node: INode): string {
	const type = withAiTools(pkg).nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	return NodeHelpers.getToolDescriptionForNode(node, type);
}
