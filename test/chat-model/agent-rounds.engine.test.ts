/**
 * The Assistant Chat Model taken anew for every round of an agent, as n8n's AI Agent v3 does (each
 * of its executes takes the model from its input again: ToolsAgent/V3's buildExecutionContext →
 * getChatModel → the chat model's supplyData), so that no run of the model sees the previous
 * round's ask. A tool giving the same result twice, and the next ask lost at a proxy: the
 * conversation cannot tell whether it took that ask, and its earlier answer (a tool call) must
 * not be taken for it (docs/api.md#recovery-after-a-failure).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { z } from 'zod';

import { assistantPackage, emulatorCredential, rl } from '../helpers/assistant';
import { chain, itemsNode, manualTrigger, runWorkflow, withSubNodes } from '../helpers/engine';

const TOKEN = 'tok_agent_rounds_suite_01';
const CONVERSATION = 'con_SameResultTwiceV3';

const calculator = langchainTool(async () => '42', {
	name: 'calculator',
	description: 'Evaluates an arithmetic expression',
	schema: z.object({ input: z.string() }),
});

interface Model {
	bindTools(tools: unknown[]): { invoke(messages: BaseMessage[]): Promise<AIMessage> };
}

const toolRuns: IDataObject[] = [];

class V3LikeAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'V3-like agent',
		name: 'v3agent',
		group: ['transform'],
		version: 1,
		description: 'One model per round, as AI Agent v3',
		usableAsTool: true,
		defaults: { name: 'Agent' },
		inputs: [
			NodeConnectionTypes.Main,
			{
				type: NodeConnectionTypes.AiLanguageModel,
				displayName: 'Model',
				required: true,
				maxConnections: 1,
			},
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions) {
		const history: BaseMessage[] = [new HumanMessage('What is 6 * 7? Check it twice.')];
		for (let round = 0; round < 5; round++) {
			// What each execute of AI Agent v3 does: the model from its input, anew.
			const model = (await this.getInputConnectionData(
				NodeConnectionTypes.AiLanguageModel,
				0,
			)) as Model;
			const message = await model.bindTools([calculator]).invoke(history);
			const calls = message.tool_calls ?? [];
			if (calls.length === 0) return [[{ json: { text: message.text, toolRuns } }]];
			history.push(new AIMessage({ content: '', id: message.id, tool_calls: calls }));
			for (const call of calls) {
				toolRuns.push(call.args as IDataObject);
				history.push(
					new ToolMessage({ content: '42', tool_call_id: call.id ?? '', name: call.name }),
				);
			}
		}
		throw new Error('no end');
	}
}

class Types implements INodeTypes {
	constructor(
		private readonly base: INodeTypes,
		private readonly agent: INodeType,
	) {}
	getByName(type: string): INodeType | IVersionedNodeType {
		return type === 'test.v3agent' ? this.agent : this.base.getByName(type);
	}
	getByNameAndVersion(type: string, version?: number): INodeType {
		return type === 'test.v3agent' ? this.agent : this.base.getByNameAndVersion(type, version);
	}
	getKnownTypes(): IDataObject {
		return this.base.getKnownTypes();
	}
}

test('a tool giving the same result twice, the next ask lost at a proxy: the run fails, no earlier answer taken, no tool run again', async () => {
	const callCalculator = JSON.stringify({
		action: 'call_tool',
		final_answer: '',
		tool_name: 'calculator',
		tool_arguments_json: '{"input":"6 * 7"}',
	});
	const final = JSON.stringify({
		action: 'final_answer',
		final_answer: 'It is 42.',
		tool_name: 'calculator',
		tool_arguments_json: '{}',
	});
	const inputs: string[] = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			if (request.url === '/assistant/ask') {
				inputs.push(String((JSON.parse(body) as IDataObject).input));
				if (inputs.length === 3) {
					// A proxy's 502: the ask never reached the assistant.
					response.writeHead(502, { 'content-type': 'text/html' });
					response.end('<html><body>Bad gateway</body></html>');
					return;
				}
				response.writeHead(200, { 'content-type': 'application/json' });
				const output = inputs.length <= 2 ? callCalculator : final;
				response.end(JSON.stringify({ output, conversation_id: CONVERSATION }));
				return;
			}
			// The conversation holds the first two turns only (the third never reached it).
			const messages = inputs.slice(0, 2).flatMap((input) => [
				{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: input }] },
				{ kind: 'response', parts: [{ part_kind: 'text', content: callCalculator }] },
			]);
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ state: 'idle', messages }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	try {
		const pkg = await assistantPackage();
		const agent: INode = {
			id: 'Agent',
			name: 'Agent',
			type: 'test.v3agent',
			typeVersion: 1,
			position: [600, 0],
			parameters: {},
		};
		const model: INode = {
			id: 'Model',
			name: 'Assistant Chat Model',
			type: pkg.nodeType('assistantChatModel'),
			typeVersion: 1,
			position: [600, 200],
			parameters: { model: rl(''), persona: rl('') },
			credentials: { assistantApi: { id: 'assistant-emulator', name: 'Assistant (emulator)' } },
		};
		const run = await runWorkflow(
			{ ...pkg, nodeTypes: new Types(pkg.nodeTypes, new V3LikeAgent()) },
			withSubNodes(
				chain(manualTrigger(), itemsNode([{}]), agent),
				'Agent',
				NodeConnectionTypes.AiLanguageModel,
				[model],
			),
			{ credentials: [emulatorCredential(`http://127.0.0.1:${port}`, TOKEN)] },
		);
		expect(inputs[2]).toBe(inputs[1]);
		expect(run.error()?.message).toMatch(/cannot tell whether it took this ask/);
		expect(toolRuns).toHaveLength(2);
	} finally {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});
