/**
 * The Assistant node as an AI Agent tool (`usableAsTool`), called the way n8n's AI Agent calls
 * it, in the real n8n-core engine, against the emulator over real HTTP.
 *
 * n8n-core 2.41 has two ways to call a tool node, both exercised here (test/helpers/tool.ts):
 * - engine request (the AI Agent node v3, n8n 2.x's default): the agent takes its tools from
 *   `getInputConnectionData('ai_tool')` (createNodeAsTool: name, description, $fromAI schema),
 *   returns an EngineRequest for the model's tool calls, WorkflowExecute runs the tool node with
 *   the call's arguments as its input, and resumes the agent with the node's output;
 * - LangChain `tool.invoke(args)` (AI Agent v1/v2 and other LangChain consumers): the schema
 *   is validated, then makeHandleToolInvocation runs the node in a SupplyDataContext.
 */
import type { IDataObject, INode, INodeParameters, INodeType } from 'n8n-workflow';
import { FROM_AI_AUTO_GENERATED_MARKER, NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';

import { assistantNode, emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import type { LoadedPackage } from '../helpers/engine';
import {
	runAgent,
	toolDescriptionFor,
	withAiTools,
	type AgentRunOptions,
	type AgentToolCall,
} from '../helpers/tool';

const TOKEN = 'secret-token-for-tool-tests-7';
const TOOL_TYPE = 'n8n-nodes-assistant.assistantTool';
const TOOL_NODE = 'Personal Assistant';
const QUESTION = 'What is on my calendar?';

/** The parameters README suggests for the agent tool: Input and Conversation ID filled by the model. */
const FROM_AI_PARAMETERS: INodeParameters = {
	operation: 'ask',
	input: "={{ $fromAI('question', 'The question for the personal assistant', 'string') }}",
	conversationId:
		"={{ $fromAI('conversationId', 'Continue an earlier conversation; empty for a new one', 'string') }}",
};

const assistant = useEmulator({ token: TOKEN });
let pkg: LoadedPackage;
let nodeDescription: string;

beforeAll(() => {
	pkg = assistant.pkg;
	nodeDescription = pkg.nodeTypes.getByNameAndVersion(pkg.nodeType('assistant')).description
		.description;
});

function toolNode(parameters: INodeParameters = FROM_AI_PARAMETERS, name = TOOL_NODE): INode {
	return assistantNode(pkg, name, parameters, { type: TOOL_TYPE });
}

async function callTool(
	calls: AgentToolCall[],
	options: AgentRunOptions = {},
	node: INode = toolNode(),
) {
	return await runAgent(pkg, [node], calls, {
		credentials: [assistant.credential],
		agentInput: { chatInput: 'Check my calendar, please' },
		...options,
	});
}

interface Answer extends IDataObject {
	output: string;
	conversation_id: string;
}

/** The observation is what the agent's model reads: the JSON of the tool's output items. */
function answersOf(observation: string | undefined): Answer[] {
	expect(typeof observation).toBe('string');
	return JSON.parse(observation as string) as Answer[];
}

function expectNoToken(value: unknown) {
	expect(JSON.stringify(value)).not.toContain(TOKEN);
}

describe('the node is usable as a tool (its full tool type is checked in the real n8n app)', () => {
	test('as a tool the node runs its own code and methods, and its own type is left as it was', () => {
		const base = pkg.nodeTypes.getByNameAndVersion(pkg.nodeType('assistant'));
		const tool = withAiTools(pkg).nodeTypes.getByNameAndVersion(TOOL_TYPE);

		expect(base.description.usableAsTool).toEqual({
			replacements: { description: expect.stringMatching(/^[^\n]{1,60}$/) },
		});
		expect(tool.description).toMatchObject({ inputs: [], outputs: [NodeConnectionTypes.AiTool] });
		expect(tool.execute).toBe(base.execute);
		expect(tool.methods).toBe((base as INodeType).methods);
		expect(base.description.name).toBe('assistant');
		expect(base.description.outputs).toEqual([NodeConnectionTypes.Main]);
	});
});

describe('the tool variant in the editor (its listing is checked in the real n8n app, e2e tool-type)', () => {
	test('the agent-facing text is a Description parameter of the tool alone, one per operation', () => {
		expect(nodeDescription).not.toMatch(/\n/);
		expect(nodeDescription.length).toBeLessThanOrEqual(90);
		const tool = withAiTools(pkg).nodeTypes.getByNameAndVersion(TOOL_TYPE);
		const descriptions = tool.description.properties.filter(
			(property) => property.name === 'toolDescription',
		);
		expect(
			descriptions.map((property) => [
				property.displayOptions?.show?.operation,
				property.displayOptions?.show?.['@tool'],
			]),
		).toEqual([
			[['ask'], [true]],
			[['listModels'], [true]],
			[['listPersonas'], [true]],
			[['getCatalog'], [true]],
		]);
		expect(descriptions[0].default).toMatch(/self-contained question.*conversation_id/s);
		// The node itself shows none of it (n8n's `@tool` is false there).
		const node = { ...toolNode({ operation: 'ask' }), type: pkg.nodeType('assistant') };
		const base = pkg.nodeTypes.getByNameAndVersion(pkg.nodeType('assistant')).description;
		const shown = NodeHelpers.getNodeParameters(base.properties, {}, true, false, node, base);
		expect(shown).not.toHaveProperty('toolDescription');
		expect(shown).toMatchObject({ input: '', conversationId: '' });
	});

	test('Memory is among the Ask options the tool keeps, so an agent’s asks can run without memory', () => {
		const tool = withAiTools(pkg).nodeTypes.getByNameAndVersion(TOOL_TYPE);
		const askOptions = tool.description.properties.find(
			(property) =>
				property.name === 'options' && property.displayOptions?.show?.operation?.includes('ask'),
		);
		expect(askOptions?.options).toContainEqual(
			expect.objectContaining({ name: 'memory', type: 'boolean', default: true }),
		);
	});

	test('with Memory off, the tool’s ask sends memory_mode "off"', async () => {
		await callTool(
			[{ args: { question: QUESTION } }],
			{},
			toolNode({ ...FROM_AI_PARAMETERS, options: { memory: false } }),
		);
		const [ask] = assistant.askRequests();
		expect(ask.body).toMatchObject({ input: QUESTION, memory_mode: 'off' });
	});
});

describe('AI Agent v3: the engine runs the tool node for the agent’s tool call', () => {
	test('the agent sees the node name, the Ask description and a schema of the $fromAI keys', async () => {
		const { agent } = await callTool([{ args: { question: QUESTION } }]);
		expect(agent.tools).toEqual([
			{
				name: 'Personal_Assistant',
				description: expect.stringMatching(/self-contained question.*conversation_id/s),
				parameters: {
					$schema: 'http://json-schema.org/draft-07/schema#',
					type: 'object',
					properties: {
						question: { type: 'string', description: 'The question for the personal assistant' },
						conversationId: {
							type: 'string',
							description: 'Continue an earlier conversation; empty for a new one',
						},
					},
					// n8n makes every $fromAI key required unless it has a default (4th argument).
					required: ['question', 'conversationId'],
					additionalProperties: false,
				},
				sourceNodeName: TOOL_NODE,
				kind: 'DynamicStructuredTool',
			},
		]);
	});

	test('asks the assistant over HTTP with the agent’s arguments and hands the answer back', async () => {
		const { run, agent, toolRuns } = await callTool([{ args: { question: QUESTION } }]);

		expect(run.error()).toBeUndefined();
		expect(agent.steps).toHaveLength(1);
		const [step] = agent.steps;
		expect(step).toMatchObject({
			id: 'call_1',
			tool: 'Personal_Assistant',
			args: { question: QUESTION },
		});
		expect(step.error).toBeUndefined();
		expect(answersOf(step.observation)).toEqual([
			{
				output: expect.stringContaining(`You said: "${QUESTION}"`),
				conversation_id: expect.stringMatching(/\S+/),
			},
		]);

		// The request the emulator got: the question, nothing else (no conversation id sent).
		expect(assistant.emulator.stats.requests).toHaveLength(1);
		const [request] = assistant.emulator.stats.requests;
		expect(request).toMatchObject({ method: 'POST', path: '/assistant/ask', authorization: true });
		expect(request.body).toEqual({ input: QUESTION, stream: true });

		// The engine ran the tool node as its own run under the agent, logged as an ai_tool call.
		const [toolRun] = toolRuns(TOOL_NODE);
		expect(toolRuns(TOOL_NODE)).toHaveLength(1);
		expect(toolRun.executionStatus).toBe('success');
		expect(toolRun.source).toEqual([expect.objectContaining({ previousNode: 'Agent' })]);
		expect(toolRun.inputOverride?.ai_tool?.[0]?.[0]?.json).toEqual({ question: QUESTION });
		expect(toolRun.data?.ai_tool?.[0]?.map((item) => item.json)).toEqual(
			answersOf(step.observation),
		);
		expectNoToken(run.data);
	});
});

describe('AI Agent v3: conversations, several calls, failures', () => {
	test('the agent continues the conversation by passing back the conversation_id it was given', async () => {
		const first = await callTool([
			{ args: { question: 'Hi! My name is Ada.', conversationId: '' } },
		]);
		const [firstAnswer] = answersOf(first.agent.steps[0].observation);

		const second = await callTool([
			{ args: { question: 'What is my name?', conversationId: firstAnswer.conversation_id } },
		]);
		const [secondAnswer] = answersOf(second.agent.steps[0].observation);
		expect(secondAnswer.conversation_id).toBe(firstAnswer.conversation_id);
		expect(secondAnswer.output).toContain('Your name is Ada.');
		expect(secondAnswer.output).toContain('Earlier you said: "Hi! My name is Ada."');
		expect(assistant.emulator.stats.requests.map((r) => r.body)).toEqual([
			{ input: 'Hi! My name is Ada.', stream: true },
			{ input: 'What is my name?', conversation_id: firstAnswer.conversation_id, stream: true },
		]);
	});

	test('two tool calls in one turn: each tool run reads its own $fromAI arguments', async () => {
		const questions = ['First question?', 'Second question?'];
		const { agent, toolRuns } = await callTool(
			questions.map((question, index) => ({ id: `call_${index}`, args: { question } })),
		);
		expect(agent.steps.map((step) => step.id)).toEqual(['call_0', 'call_1']);
		agent.steps.forEach((step, index) => {
			expect(answersOf(step.observation)[0].output).toContain(`You said: "${questions[index]}"`);
		});
		expect(toolRuns(TOOL_NODE)).toHaveLength(2);
		expect(
			assistant.emulator.stats.requests.map((r) => (r.body as IDataObject).input).sort(),
		).toEqual(questions);
	});

	test("a credit failure reaches the agent in one message with the provider's words, not retried", async () => {
		const { run, agent } = await callTool([
			{ args: { question: `${QUESTION} #fault=credit-402` } },
		]);
		expect(run.error()).toBeUndefined();
		expect(agent.steps[0].error).toMatch(
			/^The account or the model's provider is out of credit \(HTTP 402\): .*can only afford 1843/,
		);
		expect(
			assistant.emulator.stats.requests.filter((request) => request.path === '/assistant/ask'),
		).toHaveLength(1);
	});

	test("503 model_not_found for the account's default model: the message the agent reads says to choose a model", async () => {
		const { agent } = await callTool([
			{ args: { question: `${QUESTION} #fault=model-not-found` } },
		]);
		// The agent (and the user it answers) gets only the message: the advice is in it.
		const observation = String(agent.steps[0].observation);
		expect(observation).toMatch(
			/The account's default model is not available \(HTTP 503\): model_not_found.*\. Choose a model in Model\./,
		);
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test('a failing call goes to the agent as an error it can read; the workflow goes on', async () => {
		const wrongToken = 'not-the-right-token-123';
		const { run, agent, toolRuns } = await callTool([{ args: { question: QUESTION } }], {
			credentials: [emulatorCredential(assistant.emulator.baseUrl, wrongToken)],
		});
		expect(run.error()).toBeUndefined();
		const [step] = agent.steps;
		// The engine turns the tool node's error into its ai_tool output: only the message, which
		// is therefore all the model learns (not the error's description).
		const message = 'The access token was rejected (HTTP 401): Invalid or missing access token';
		expect(step.error).toBe(message);
		expect(JSON.parse(step.observation as string)).toEqual([{ error: message }]);
		expect(toolRuns(TOOL_NODE)[0].executionStatus).toBe('error');
		expect(JSON.stringify(run.data)).not.toContain(wrongToken);
	});
});

describe('LangChain tool.invoke (AI Agent v1/v2): the node runs inside the agent’s call', () => {
	test('with the arguments the schema asks for, it returns the answer as JSON text', async () => {
		const { agent, toolRuns } = await callTool(
			[{ args: { question: QUESTION, conversationId: '' } }],
			{ mode: 'invoke' },
		);
		const [step] = agent.steps;
		expect(step.argsMatchSchema).toBe(true);
		expect(answersOf(step.observation)).toEqual([
			{
				output: expect.stringContaining(`You said: "${QUESTION}"`),
				conversation_id: expect.any(String),
			},
		]);
		expect(assistant.emulator.stats.requests.map((r) => r.body)).toEqual([
			{ input: QUESTION, stream: true },
		]);
		const [toolRun] = toolRuns(TOOL_NODE);
		expect(toolRun.inputOverride?.ai_tool?.[0]?.[0]?.json).toEqual({
			question: QUESTION,
			conversationId: '',
		});
		expect(toolRun.data?.ai_tool?.[0]?.[0]?.json).toEqual({
			response: answersOf(step.observation),
		});
	});

	test('without a $fromAI default, {question} alone is refused before anything is sent; with one it works', async () => {
		const refused = await callTool([{ args: { question: QUESTION } }], { mode: 'invoke' });
		expect(refused.agent.steps[0]).toMatchObject({ argsMatchSchema: false });
		expect(refused.agent.steps[0].error).toMatch(
			/did not match expected schema[\s\S]*conversationId/,
		);
		expect(assistant.emulator.stats.requests).toHaveLength(0);

		const optional = toolNode({
			...FROM_AI_PARAMETERS,
			conversationId:
				"={{ $fromAI('conversationId', 'Continue an earlier conversation; empty for a new one', 'string', '') }}",
		});
		const { agent } = await callTool(
			[{ args: { question: QUESTION } }],
			{ mode: 'invoke' },
			optional,
		);
		expect(agent.tools[0].parameters).toMatchObject({
			properties: { conversationId: { type: 'string', default: '' } },
			required: ['question'],
		});
		expect(agent.steps[0].argsMatchSchema).toBe(true);
		expect(answersOf(agent.steps[0].observation)[0].output).toContain(`You said: "${QUESTION}"`);
	});
});

describe('what the agent is told about the tool', () => {
	test('each operation’s own text by default, not the node’s one line; an edited one replaces it', async () => {
		const seen: Record<string, string> = {};
		for (const operation of ['ask', 'listModels', 'listPersonas', 'getCatalog']) {
			const { agent } = await callTool([], { mode: 'invoke' }, toolNode({ operation }));
			seen[operation] = agent.tools[0].description;
		}
		expect(seen.ask).toMatch(/self-contained question.*conversation_id/s);
		expect(seen.listModels).toMatch(/^List the language models/);
		expect(seen.listPersonas).toMatch(/^List the personas/);
		expect(seen.getCatalog).toMatch(/^Get the public catalog/);
		expect(Object.values(seen)).not.toContain(nodeDescription);
		const edited = toolNode({ operation: 'ask', toolDescription: 'Ask my assistant' });
		expect(toolDescriptionFor(pkg, edited)).toBe('Ask my assistant');
	});

	test('by default the model writes Input and may leave Conversation ID empty, each key described', async () => {
		const { agent } = await callTool(
			[{ args: { question: QUESTION } }],
			{ mode: 'invoke' },
			toolNode({ operation: 'ask' }),
		);
		expect(agent.tools[0].parameters).toMatchObject({
			properties: {
				question: { type: 'string', description: expect.stringMatching(/self-contained/) },
				conversationId: {
					type: 'string',
					default: '',
					description: expect.stringMatching(/earlier answer of this tool.*never make one up/),
				},
			},
			required: ['question'],
		});
		expect(agent.steps[0].argsMatchSchema).toBe(true);
		expect(answersOf(agent.steps[0].observation)[0].output).toContain(`You said: "${QUESTION}"`);
		expect(assistant.emulator.stats.requests.map((r) => r.body)).toEqual([
			{ input: QUESTION, stream: true },
		]);
	});

	/** What the agent is told when the tool is called with a conversation ID it made up. */
	async function agentToldFor(conversationId: string): Promise<string> {
		const { run, agent } = await callTool(
			[{ args: { question: QUESTION, conversationId } }],
			{},
			toolNode({ operation: 'ask' }),
		);
		expect(run.error()).toBeUndefined();
		const [{ error }] = JSON.parse(agent.steps[0].observation as string) as Array<{
			error: string;
		}>;
		return error;
	}

	test('a made-up conversation ID with spaces is refused before any request, in words the agent can act on', async () => {
		const invented = 'Conversation_ID of Ask the assistant';
		expect(await agentToldFor(invented)).toBe(
			`Conversation ID "${invented}" is not valid: IDs have no spaces or line breaks. Leave it empty to start a new conversation, or pass the conversation_id of an earlier answer`,
		);
		expect(assistant.emulator.stats.requests).toHaveLength(0);
	});

	test('a made-up conversation ID (HTTP 404) is answered in words the agent can act on', async () => {
		const invented = 'Conversation_ID_of_Ask_the_assistant';
		expect(await agentToldFor(invented)).toBe(
			`The conversation ID "${invented}" is not a conversation of this assistant (The conversation was not found (HTTP 404): Conversation not found). Ask again with an empty conversation ID to start a new conversation; pass a conversation ID only when it is the conversation_id of an earlier answer of this tool.`,
		);
	});

	test('in a streaming execution the tool sends the caller nothing: its answer is the agent’s', async () => {
		for (const stream of [false, true]) {
			const { run, agent } = await callTool(
				[{ args: { question: QUESTION } }],
				{ streaming: true },
				toolNode({ ...FROM_AI_PARAMETERS, options: { stream } }),
			);
			expect(answersOf(agent.steps[0].observation)[0].output).toContain(QUESTION);
			expect(run.chunks).toEqual([]);
		}
	});

	test('the editor’s "let the model define this" button: display-name keys, no descriptions', async () => {
		// What n8n's editor writes when the ✨ button is used on Input and Conversation ID.
		const generated = (key: string) =>
			`={{ ${FROM_AI_AUTO_GENERATED_MARKER} $fromAI('${key}', \`\`, 'string') }}`;
		const node = toolNode({
			operation: 'ask',
			input: generated('Input'),
			conversationId: generated('Conversation_ID'),
		});
		const { agent } = await callTool(
			[{ args: { Input: QUESTION, Conversation_ID: '' } }],
			{},
			node,
		);
		// The node's parameter descriptions never reach the model: only the tool description does.
		expect(agent.tools[0].parameters).toMatchObject({
			properties: { Input: { type: 'string' }, Conversation_ID: { type: 'string' } },
			required: ['Input', 'Conversation_ID'],
		});
		expect(agent.tools[0].parameters.properties).not.toHaveProperty('Input.description');
		expect(answersOf(agent.steps[0].observation)[0].output).toContain(`You said: "${QUESTION}"`);
	});
});

test('a token stored with its Bearer prefix is sent once-prefixed (docs/api.md#authentication)', async () => {
	const { run, agent } = await callTool([{ args: { question: QUESTION } }], {
		credentials: [emulatorCredential(assistant.emulator.baseUrl, `Bearer ${TOKEN} `)],
	});
	expect(run.error()).toBeUndefined();
	expect(answersOf(agent.steps[0].observation)[0].output).toContain(`You said: "${QUESTION}"`);
	expect(assistant.emulator.stats.requests.map((request) => request.authorizationForm)).toEqual([
		'Bearer <token>',
	]);
});
