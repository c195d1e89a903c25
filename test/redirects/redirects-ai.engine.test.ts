/**
 * Redirects on the AI side (docs/api.md#redirects), as redirects.engine.test.ts does for the
 * Assistant node: the built package in n8n-core's engine against real servers on loopback, the
 * service at the Base URL redirecting with 301, 302, 303, 307 or 308 to the same origin, another
 * port or another host (127.0.0.2).
 * - The Assistant Tool (the Assistant node as an AI Agent tool; test/helpers/tool.ts): called by
 *   an agent the way AI Agent v3 does (the engine runs the tool node) and through LangChain's
 *   `tool.invoke` (AI Agent v1/v2), for Ask, List Models and List Personas.
 * - The Assistant Chat Model (test/helpers/chat-model.ts): invoked directly (a chain's `invoke`,
 *   `stream`), under an agent's tool loop, its conversation read after a broken stream, and its
 *   pickers.
 * Within the origin the redirect is followed and the answer is the home server's; to another
 * origin nothing is sent there (so never the token), the call fails with the target, and nothing
 * that origin would answer reaches the agent, the consumer or the run's data.
 * The chat model needs n8n's AI node SDK, which n8n 1.x lacks: its part runs on n8n 2.x only
 * (jest.n8n1.config.js makes the SDK unresolvable, as it is there: the tool's part runs alone,
 * called through LangChain's invoke).
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { assistantNode, assistantPackage, emulatorCredential } from '../helpers/assistant';
import type { Scenario } from '../helpers/chat-model';
import { callListSearch, type LoadedPackage, type RunResult } from '../helpers/engine';
import {
	CONVERSATION_ID,
	STATUSES,
	TARGETS,
	sse,
	useRedirectOrigins,
	type Target,
	breakStreamAfterAccept,
} from '../helpers/redirect-servers';
import { runAgent, type AgentMode } from '../helpers/tool';
import { aiNodeSdkResolves } from '../helpers/ai-node-sdk';

const TOKEN = 'zo_sk_redirect-ai-token-29';
const TOOL_TYPE = 'n8n-nodes-assistant.assistantTool';

const onN8n2 = aiNodeSdkResolves();

const origins = useRedirectOrigins();
let pkg: LoadedPackage;

beforeAll(async () => {
	pkg = await assistantPackage();
});

const credential = () => emulatorCredential(`${origins.home.origin}/api`, TOKEN);
const isAsk = (path: string) => path.endsWith('/assistant/ask');

/** An idle conversation whose last turn is `input`, answered with `answer`. */
function conversation(response: ServerResponse, input: string, answer: string): true {
	response.writeHead(200, { 'Content-Type': 'application/json' });
	response.end(
		JSON.stringify({
			state: 'idle',
			messages: [
				{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: input }] },
				{ kind: 'response', parts: [{ part_kind: 'text', content: answer }] },
			],
		}),
	);
	return true;
}

/**
 * Under an agent the chat model's ask carries the tool envelope (an `output_format`): the home
 * answer is then its final answer, as the service would give it.
 */
function finalAnswer(response: ServerResponse): true {
	const envelope = {
		action: 'final_answer',
		final_answer: 'Answer from HOME',
		tool_name: 'calculator',
		tool_arguments_json: '{}',
	};
	response.writeHead(200, {
		'Content-Type': 'text/event-stream',
		'x-conversation-id': CONVERSATION_ID,
	});
	const part = { part_kind: 'text', content: JSON.stringify(envelope) };
	response.end(sse('PartStartEvent', { index: 0, part }) + sse('End', {}));
	return true;
}

/** The run holds neither the token nor anything another origin would answer. */
function expectNothingForeign(run: RunResult): void {
	const data = JSON.stringify(run.data);
	expect(data).not.toContain(TOKEN);
	expect(data).not.toContain('OTHER');
}

describe('the Assistant Tool', () => {
	const OPERATIONS: Array<[string, INodeParameters, IDataObject, (path: string) => boolean]> = [
		['Ask', { operation: 'ask' }, { question: 'Hello' }, isAsk],
		['List Models', { operation: 'listModels' }, {}, (path) => path.endsWith('/models/available')],
		[
			'List Personas',
			{ operation: 'listPersonas' },
			{},
			(path) => path.endsWith('/personas/available'),
		],
	];
	// n8n 1.x's tools carry no source node (createNodeAsTool's metadata), which the test agent's
	// engine requests name: there the tool is called as AI Agent v1/v2 call it, through invoke.
	const MODES: AgentMode[] = onN8n2 ? ['engineRequest', 'invoke'] : ['invoke'];

	describe.each(OPERATIONS)('%s', (_operation, parameters, args, matches) => {
		describe.each(MODES)('called by the agent (%s)', (mode) => {
			describe.each(STATUSES)('HTTP %i', (status) => {
				test.each(TARGETS)('to %s', async (target: Target) => {
					origins.redirectAt(matches, status, target);
					const tool: INode = assistantNode(pkg, 'Personal Assistant', parameters, {
						type: TOOL_TYPE,
					});
					const { run, agent } = await runAgent(pkg, [tool], [{ args }], {
						mode,
						credentials: [credential()],
						agentInput: { chatInput: 'Hello' },
					});
					origins.expectTokenOnlyAtHome(TOKEN);
					expect(run.error()).toBeUndefined();
					const [step] = agent.steps;
					if (target === 'same origin') {
						expect(step.error).toBeUndefined();
						expect(step.observation).toContain('HOME');
						expect(origins.home.seen.some((seen) => seen.path.startsWith('/moved/'))).toBe(true);
					} else {
						// The agent reads the failure (its model may tell the user); never an answer.
						const said = `${step.error ?? ''} ${step.observation ?? ''}`;
						origins.expectRedirectFailure(said, status, target, TOKEN);
						expect(said).not.toContain('HOME');
					}
					expectNothingForeign(run);
				});
			});
		});
	});
});

(onN8n2 ? describe : describe.skip)('the Assistant Chat Model', () => {
	async function chat(scenario: Scenario, modelParameters: INodeParameters = {}) {
		const { runChatModel } = await import('../helpers/chat-model');
		const run = await runChatModel(
			pkg,
			scenario,
			[{ role: 'user', content: 'Hello' }],
			modelParameters,
			{ credentials: [credential()] },
		);
		const error = run.error() as { message?: string; description?: string } | undefined;
		const text = error ? undefined : String(run.outputs('Consumer')[0].json.text);
		return { run, text, message: error ? `${error.message} ${error.description ?? ''}` : '' };
	}

	const SCENARIOS: Array<[string, Scenario]> = [
		['invoked directly', 'invoke'],
		['streamed directly', 'stream'],
		['under an agent', 'agent'],
		['under an agent, streamed', 'agentStream'],
	];

	describe.each(SCENARIOS)('%s', (_how, scenario) => {
		describe.each(STATUSES)('HTTP %i', (status) => {
			test.each(TARGETS)('to %s', async (target: Target) => {
				origins.redirectAt(isAsk, status, target);
				const redirectAsk = origins.home.intercept!;
				const underAgent = scenario.startsWith('agent');
				origins.home.intercept = (request, response, body) => {
					// (A 303 makes it a GET without body: the answer there is still the agent's.)
					const envelope = request.url === '/moved/assistant/ask' && underAgent;
					return envelope ? finalAnswer(response) : redirectAsk(request, response, body);
				};
				const { run, text, message } = await chat(scenario);
				origins.expectTokenOnlyAtHome(TOKEN);
				if (target === 'same origin') {
					expect(message).toBe('');
					expect(text).toBe('Answer from HOME');
				} else {
					expect(text).toBeUndefined();
					origins.expectRedirectFailure(message, status, target, TOKEN);
					expect(message).toContain('Base URL');
				}
				expectNothingForeign(run);
			});
		});
	});

	describe('its conversation read after the stream broke off', () => {
		describe.each(STATUSES)('HTTP %i', (status) => {
			test.each(TARGETS)('to %s', async (target: Target) => {
				origins.redirectAt((path) => path.includes('/conversations/'), status, target);
				const redirectRead = origins.home.intercept!;
				let input = '';
				origins.home.intercept = (request, response, body) => {
					if (request.url?.startsWith('/moved/conversations/')) {
						// The chat model's ask is its transcript: the conversation holds that input.
						return conversation(response, input, 'Answer from HOME');
					}
					if (request.url !== '/api/assistant/ask') return redirectRead(request, response, body);
					input = String((JSON.parse(body) as IDataObject).input);
					return breakStreamAfterAccept(response);
				};
				const { run, text, message } = await chat('invoke');
				origins.expectTokenOnlyAtHome(TOKEN);
				const asks = origins.home.seen.filter((seen) => seen.path === '/api/assistant/ask');
				expect(asks).toHaveLength(1);
				if (target === 'same origin') {
					expect(message).toBe('');
					expect(text).toBe('Answer from HOME');
				} else {
					expect(text).toBeUndefined();
					expect(message).toContain(origins.server(target).origin.replace('http://', ''));
					expect(message).not.toContain(TOKEN);
				}
				expectNothingForeign(run);
			});
		});
	});

	describe.each([
		['model picker', 'searchModels', '/models/available'],
		['persona picker', 'searchPersonas', '/personas/available'],
	])('its %s', (_kind, method, suffix) => {
		describe.each(STATUSES)('HTTP %i', (status) => {
			test.each(TARGETS)('to %s', async (target: Target) => {
				origins.redirectAt((path) => path.endsWith(suffix), status, target);
				let found = '';
				let failure = '';
				try {
					const results = await callListSearch(pkg, pkg.nodeType('assistantChatModel'), method, {
						credentials: [credential()],
					});
					found = JSON.stringify(results);
				} catch (error) {
					failure = `${(error as Error).message} ${(error as { description?: string }).description ?? ''}`;
				}
				origins.expectTokenOnlyAtHome(TOKEN);
				if (target === 'same origin') {
					expect(failure).toBe('');
					expect(found).toContain('HOME');
				} else {
					expect(found).toBe('');
					origins.expectRedirectFailure(failure, status, target, TOKEN);
				}
			});
		});
	});
});
