/**
 * Exactly once (docs/api.md#exactly-once) where failures meet: an ask retried into its own
 * conversation's 409, a session-pool error after the assistant was at work, a recovered answer
 * and a later item with the same input, Concurrency after a failure, a JSON answer cut after its
 * headers, "never taken" near the deadline, an ask answered "303 See Other" whose answer could not
 * be read where it pointed, a run that stopped inside a tool round, a tool round whose request
 * holds a tool's image as a user-prompt part, and Include Steps after a recovery. Each case was
 * an ask sent again, an answer lost or a wrong one taken, or an item's fields lost, before its
 * fix. Against a server the test scripts, in n8n-core's engine.
 */
import type * as http from 'node:http';

import { assistantNode, assistantPackage, emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import {
	conversationJson,
	serveScript,
	sse,
	turn,
	type ScriptedServer,
} from '../helpers/scripted-server';
import { runAgent } from '../helpers/tool';

const TOKEN = 'tok_EXACTLY_once_edges_7c1';
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20, dialect: 'live' });
const credentials = (baseUrl: string) => [emulatorCredential(baseUrl, TOKEN)];
const answered = (text: string) =>
	sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: text } }) +
	sse('completed', { status: 'succeeded' });

/**
 * The ask run against a scripted server, closed after: what the run gave, with the asks and the
 * paths the server saw.
 */
async function runAgainst(
	server: ScriptedServer,
	parameters: Parameters<typeof assistant.run>[0],
	options: Omit<NonNullable<Parameters<typeof assistant.run>[1]>, 'credentials'> = {},
) {
	try {
		const run = await assistant.run(parameters, {
			...options,
			credentials: credentials(server.baseUrl),
		});
		return { ...run, asks: server.asks, paths: server.paths };
	} finally {
		await server.close();
	}
}

/**
 * An AI Agent calls the Assistant Tool (retries 2) once per entry, with that question and
 * conversation: what each call gave the agent, its observation or its error.
 */
async function agentCallsTool(
	baseUrl: string,
	calls: Array<{ question: string; conversationId: string }>,
): Promise<unknown[]> {
	const pkg = await assistantPackage();
	const node = assistantNode(
		pkg,
		'Personal Assistant',
		{
			operation: 'ask',
			input: "={{ $fromAI('question', 'q', 'string') }}",
			conversationId: "={{ $fromAI('conversationId', 'c', 'string', '') }}",
			options: { retries: 2 },
		},
		{ type: 'n8n-nodes-assistant.assistantTool' },
	);
	const { agent } = await runAgent(
		pkg,
		[node],
		calls.map((args, n) => ({ id: `call_${n + 1}`, args })),
		{ credentials: credentials(baseUrl) },
	);
	return agent.steps.map((step) => step.observation ?? step.error);
}

/**
 * Two items with the same input (Retries 2), each sent once, the second failing: the
 * conversation's answer may be the first item's, so the second does not take it.
 */
async function expectSecondRefused(
	server: ScriptedServer,
	parameters: { input: string; conversationId?: string },
): Promise<void> {
	const { failure } = await runAgainst(
		server,
		{ ...parameters, options: { retries: 2 } },
		{ items: [{}, {}] },
	);
	expect(failure?.message).toMatch(/cannot tell whether it took this ask/);
	expect(server.asks).toHaveLength(2);
}

const badGateway = (response: http.ServerResponse) => {
	response.writeHead(502, { 'content-type': 'text/plain' });
	response.end('Bad Gateway');
};

test('a retry meets a 409 (the first attempt was running after all): the answer is read from the conversation, not asked a third time', async () => {
	const id = 'con_BusyAfterMaybe001';
	const input = 'Transfer 100 EUR to Carol';
	const before = turn('Hello', 'Hi.');
	const server = await serveScript(
		(response, n) => {
			if (n === 1) return badGateway(response);
			if (n === 2) {
				response.writeHead(409, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ detail: 'Conversation is busy' }));
				return;
			}
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			response.end(answered('Transferred again.'));
		},
		(response, n) => {
			// The 502's two reads do not show it yet; after the 409 it runs, then shows its answer.
			if (n <= 2) return conversationJson(response, 'idle', before);
			if (n === 3) return conversationJson(response, 'running', before);
			conversationJson(response, 'idle', [...before, ...turn(input, 'Transferred 100 EUR.')]);
		},
	);
	const { json } = await runAgainst(server, { input, conversationId: id, options: { retries: 2 } });
	expect(json).toEqual({ output: 'Transferred 100 EUR.', conversation_id: id, recovered: true });
	expect(server.asks).toHaveLength(2);
});

test.each([false, true])(
	'a session-pool error after the assistant ran a tool is no full pool: never sent again (Stream %s)',
	async (stream) => {
		const call = { part_kind: 'tool-call', tool_name: 'send_mail', args: '{}', tool_call_id: 'c1' };
		const server = await serveScript(
			(response) => {
				response.writeHead(200, {
					'content-type': 'text/event-stream',
					'x-conversation-id': 'con_PoolAfterTool0001',
					'retry-after': '1',
				});
				response.write(sse('PartStartEvent', { index: 0, part: call }));
				response.write(sse('FunctionToolCallEvent', { part: call }));
				response.end(sse('Error', { message: 'All assistant sessions are busy; cannot evict' }));
			},
			(response) => conversationJson(response, 'idle', []),
		);
		const { failure } = await runAgainst(server, {
			input: 'Mail the report to Alice',
			options: { stream, retries: 2 },
		});
		expect(failure?.message).toMatch(/sessions are busy/);
		expect(server.asks).toHaveLength(1);
	},
);

test('an answer recovered from the conversation counts as the run’s: a later item repeating its input fails instead of taking it', async () => {
	const id = 'con_RepeatTurn000001';
	const input = 'Send the weekly mail to Bob';
	const server = await serveScript(
		(response, n) => {
			if (n > 1) return badGateway(response);
			// The first item's stream breaks off after the service took it.
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			response.write(': dispatched\n\n');
			setTimeout(() => response.destroy(), 20);
		},
		(response) => conversationJson(response, 'idle', turn(input, 'Mail sent to Bob.')),
	);
	await expectSecondRefused(server, { input, conversationId: id });
});

test('a repeated ask whose stream closed after events this node does not know names them once, and says what to do about them', async () => {
	const id = 'con_RepeatUnknown001';
	const input = 'Archive the paid invoices';
	const server = await serveScript(
		(response, n) => {
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			// The second item's: an event of a changed service, then the end of the body.
			response.end(n === 1 ? answered('Archived 3 invoices.') : sse('RunHeartbeat', { beat: 1 }));
		},
		(response) => conversationJson(response, 'idle', turn(input, 'Archived 3 invoices.')),
	);
	const { failure, asks } = await runAgainst(
		server,
		{ input, conversationId: id, options: { retries: 2 } },
		{ items: [{}, {}] },
	);
	expect(failure?.message).toBe(
		`The stream ended before the answer was complete; it carried events this node does not know: RunHeartbeat; conversation ${id} cannot tell whether it took this ask`,
	);
	expect(failure?.description).toMatch(/does not know.*report these event names/);
	expect(asks).toHaveLength(2);
});

test('a new ask whose failed response names the conversation an earlier item with the same input was answered in: that answer is not taken for its own', async () => {
	const id = 'con_EarlierItem00001';
	const input = 'Pay the electricity bill';
	const server = await serveScript(
		(response, n) => {
			if (n === 1) {
				response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
				response.end(answered('Paid: 42 EUR.'));
				return;
			}
			// A proxy's 502 that passes on the conversation of the earlier ask.
			response.writeHead(502, { 'content-type': 'text/plain', 'x-conversation-id': id });
			response.end('Bad Gateway');
		},
		(response) => conversationJson(response, 'idle', turn(input, 'Paid: 42 EUR.')),
	);
	await expectSecondRefused(server, { input });
});

test('an answer that names another conversation than the one the ask continues counts for the continued one too', async () => {
	const input = 'Pay the rent';
	const server = await serveScript(
		(response, n) => {
			if (n === 1) {
				response.writeHead(200, {
					'content-type': 'application/json',
					'x-conversation-id': 'con_NamedOther000001',
				});
				response.end(JSON.stringify({ output: 'Paid: 900 EUR.' }));
				return;
			}
			badGateway(response);
		},
		(response) => conversationJson(response, 'idle', turn(input, 'Paid: 900 EUR.')),
	);
	await expectSecondRefused(server, { input, conversationId: 'con_Continued0000001' });
});

test('a conversation whose run stopped inside a tool round holds no answer: the text beside the tool call is not taken', async () => {
	const id = 'con_ToolRoundCut0001';
	const input = 'Mail Alice the report';
	const lookUp = { part_kind: 'tool-call', tool_name: 'search_contacts', args: '{}' };
	const server = await serveScript(
		(response) => {
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			response.write(': dispatched\n\n');
			setTimeout(() => response.destroy(), 20);
		},
		(response) =>
			conversationJson(response, 'idle', [
				...turn(input),
				{
					kind: 'response',
					parts: [{ part_kind: 'text', content: 'Let me look up Alice.' }, lookUp],
				},
				{
					kind: 'request',
					parts: [{ part_kind: 'tool-return', tool_name: 'search_contacts', content: 'alice@x' }],
				},
			]),
	);
	const { failure } = await runAgainst(server, { input, options: { retries: 2 } });
	expect(failure?.message).toMatch(/without an answer/);
	expect(server.asks).toHaveLength(1);
});

test('a turn whose tool returned an image (pydantic-ai puts it in a user-prompt part beside the tool’s return): the answer is read, the ask not sent again', async () => {
	const id = 'con_ToolReturnedImg1';
	const input = 'What does the chart in report.png show?';
	const view = {
		part_kind: 'tool-call',
		tool_name: 'view_image',
		args: '{"path": "report.png"}',
		tool_call_id: 'call_1',
	};
	const server = await serveScript(
		(response, n) => {
			// A proxy's 502 before the stream's headers: the ask may have been taken.
			if (n === 1) return badGateway(response);
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			response.end(answered('The chart shows sales doubling.'));
		},
		(response) =>
			conversationJson(response, 'idle', [
				...turn(input),
				{ kind: 'response', parts: [view] },
				{
					kind: 'request',
					parts: [
						{
							part_kind: 'tool-return',
							tool_name: 'view_image',
							content: 'See file 1c8a9f',
							tool_call_id: 'call_1',
						},
						{
							part_kind: 'user-prompt',
							content: [
								'This is file 1c8a9f:',
								{ kind: 'binary', media_type: 'image/png', data: 'iVBORw0KGgo=' },
							],
						},
					],
				},
				{
					kind: 'response',
					parts: [{ part_kind: 'text', content: 'The chart shows sales doubling.' }],
				},
			]),
	);
	const { failure, json } = await runAgainst(server, {
		input,
		conversationId: id,
		options: { retries: 2 },
	});
	expect(failure).toBeUndefined();
	expect(json.output).toBe('The chart shows sales doubling.');
	expect(server.asks).toHaveLength(1);
});

describe('Include Steps, when the answer was read from the conversation', () => {
	test('after a 409’s wait: steps (none) and model are still there', async () => {
		const id = 'con_StepsBusy0000001';
		const input = 'Transfer 100 EUR to Carol';
		const before = turn('Hello', 'Hi.');
		const server = await serveScript(
			(response, n) => {
				if (n === 1) return badGateway(response);
				response.writeHead(409, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ detail: 'Conversation is busy' }));
			},
			(response, n) => {
				if (n <= 2) return conversationJson(response, 'idle', before);
				if (n === 3) return conversationJson(response, 'running', before);
				conversationJson(response, 'idle', [...before, ...turn(input, 'Transferred 100 EUR.')]);
			},
		);
		const { json } = await runAgainst(server, {
			input,
			conversationId: id,
			options: { retries: 2, includeSteps: true },
		});
		expect(json).toEqual({
			output: 'Transferred 100 EUR.',
			conversation_id: id,
			recovered: true,
			steps: [],
			model: null,
		});
		expect(server.asks).toHaveLength(2);
	});

	test('after a stream that broke: the model it named before', async () => {
		const id = 'con_StepsModel000001';
		const input = 'Find the invoice from ACME';
		const call = {
			part_kind: 'tool-call',
			tool_name: 'search_mail',
			args: { q: 'ACME' },
			tool_call_id: 'c1',
		};
		const server = await serveScript(
			(response) => {
				response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
				response.write(sse('PartStartEvent', { index: 0, part: call }));
				response.write(
					sse('FrontendModelResponse', { parts: [call], model_name: 'vendor:model-x' }),
				);
				setTimeout(() => response.destroy(), 30);
			},
			(response) => conversationJson(response, 'idle', turn(input, 'Found it: #123.')),
		);
		const { json } = await runAgainst(server, {
			input,
			options: { retries: 2, includeSteps: true },
		});
		expect(json?.output).toBe('Found it: #123.');
		expect(json?.steps).toHaveLength(1);
		expect(json?.model).toBe('vendor:model-x');
	});
});

test.each([1, 2, 5])(
	'Concurrency %i: once an item failed the run, the items waiting for its conversation are not sent',
	async (concurrency) => {
		const id = 'con_SharedConvo00001';
		const server = await serveScript(
			(response, _n, body) => {
				if (body?.input === 'first') {
					response.writeHead(400, { 'content-type': 'application/json' });
					response.end(JSON.stringify({ detail: 'Bad request' }));
					return;
				}
				response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
				response.end(answered('Paid the invoice.'));
			},
			(response) => conversationJson(response, 'idle', []),
		);
		const { failure } = await runAgainst(
			server,
			{ input: '={{ $json.q }}', conversationId: id, options: { concurrency, retries: 0 } },
			{
				items: [{ q: 'first' }, ...[1, 2, 3, 4, 5].map((i) => ({ q: `Pay invoice ${i}` }))],
			},
		);
		expect(failure?.message).toMatch(/HTTP 400/);
		expect(server.asks.map((body) => body?.input)).toEqual(['first']);
	},
);

test.each<[string, (response: http.ServerResponse, id: string) => void]>([
	[
		'a JSON answer cut mid-body',
		(response, id) => {
			response.writeHead(200, { 'content-type': 'application/json', 'x-conversation-id': id });
			response.write('{"output": "Booked ro');
			setTimeout(() => response.destroy(), 20);
		},
	],
	[
		'a JSON answer without a content type cut mid-body',
		(response, id) => {
			response.writeHead(200, { 'x-conversation-id': id });
			response.write('\n{"output": "Booked ro');
			setTimeout(() => response.destroy(), 20);
		},
	],
	[
		'a JSON answer declared an event stream, cut mid-body',
		(response, id) => {
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			response.write('{"output": "Booked ro');
			setTimeout(() => response.destroy(), 20);
		},
	],
	[
		'a body without a content type cut before its first byte',
		(response, id) => {
			response.writeHead(200, { 'x-conversation-id': id });
			response.flushHeaders();
			setTimeout(() => response.destroy(), 20);
		},
	],
])('%s: the conversation its headers named is read for the answer', async (_what, cut) => {
	const id = 'con_JsonCutHeader0001';
	const input = 'Book the meeting room';
	const server = await serveScript(
		(response) => cut(response, id),
		(response) => conversationJson(response, 'idle', turn(input, 'Booked room 4.')),
	);
	const { json } = await runAgainst(server, { input, options: { retries: 2 } });
	expect(json).toEqual({ output: 'Booked room 4.', conversation_id: id, recovered: true });
	expect(server.asks).toHaveLength(1);
});

test('"never taken" needs its later look: with no time left for it, the ask is not sent again', async () => {
	const id = 'con_DeadlineConfirm01';
	const server = await serveScript(
		(response) => {
			// The gateway gives up after 1.85 s of a 3 s Timeout; the service may have the ask.
			setTimeout(() => badGateway(response), 1850);
		},
		(response) => {
			// No pause asked for: the schedule's 5 s applies, and does not fit.
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ state: 'idle', messages: [] }));
		},
	);
	const { failure } = await runAgainst(server, {
		input: 'Order the flowers',
		conversationId: id,
		options: { retries: 2, timeoutMinutes: 0.05 },
	});
	expect(failure?.message).toBe(
		`The response failed, and conversation ${id} did not show the ask yet when the 3 s Timeout ran short`,
	);
	expect(failure?.description).toMatch(/not sent again/);
	expect(server.asks).toHaveLength(1);
});

const TOOL_CONVERSATION = 'con_ToolRepeat0000001';
const QUESTION = 'Send Bob the daily report';

test('the Assistant Tool called twice with the same question in one execution (a run each): the second, lost at a proxy, does not take the first one’s answer', async () => {
	const server = await serveScript(
		(response, n) => {
			if (n === 1) {
				response.writeHead(200, {
					'content-type': 'text/event-stream',
					'x-conversation-id': TOOL_CONVERSATION,
				});
				response.end(
					sse('PartStartEvent', {
						index: 0,
						part: { part_kind: 'text', content: 'Sent the report (1).' },
					}) + sse('completed', { status: 'succeeded' }),
				);
				return;
			}
			response.writeHead(502, { 'content-type': 'text/plain' });
			response.end('Bad Gateway');
		},
		// The conversation holds the first call only.
		(response) => conversationJson(response, 'idle', turn(QUESTION, 'Sent the report (1).')),
	);
	try {
		const observations = await agentCallsTool(server.baseUrl, [
			{ question: QUESTION, conversationId: TOOL_CONVERSATION },
			{ question: QUESTION, conversationId: TOOL_CONVERSATION },
		]);
		expect(String(observations[1])).toMatch(/cannot tell whether it took this ask/);
	} finally {
		await server.close();
	}
});

describe('an ask answered "303 See Other" was taken: whatever fails after it, it is not sent again', () => {
	const id = 'con_SeeOther00000001';
	const input = 'Book the flight to Lisbon';
	const seeOther = (response: http.ServerResponse, withConversation: boolean) => {
		response.writeHead(303, {
			location: '/assistant/answers/1',
			...(withConversation ? { 'x-conversation-id': id } : {}),
		});
		response.end();
	};

	/**
	 * The ask (Retries 2) against a server that answers it "303 See Other", naming the
	 * conversation or not, and answers every other request with `read`: what the run gave, and
	 * the asks and paths the server saw.
	 */
	async function askSeeOther(
		withConversation: boolean,
		read: (response: http.ServerResponse, n: number) => void,
	) {
		const server = await serveScript((response) => seeOther(response, withConversation), read);
		return await runAgainst(server, { input, options: { retries: 2 } });
	}

	const pool = 'All assistant sessions are busy; cannot evict';
	const ok = (type: string, body: string) => (response: http.ServerResponse) => {
		response.writeHead(200, { 'content-type': type });
		response.end(body);
	};

	test.each<[string, (response: http.ServerResponse) => void]>([
		['is refused (502)', badGateway],
		['breaks off', (response) => response.destroy()],
		[
			'is a full session pool (an Error event)',
			ok('text/event-stream', sse('Error', { message: pool })),
		],
		[
			'is a full session pool (an error in JSON)',
			ok('application/json', JSON.stringify({ error: pool })),
		],
		[
			'is pointed away from the Base URL',
			(response) => {
				response.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
				response.end();
			},
		],
	])('its answer %s: read from the conversation the 303 named', async (_, answer) => {
		const { json, asks, paths } = await askSeeOther(true, (response, n) => {
			if (n === 1) return answer(response);
			conversationJson(response, 'idle', turn(input, 'Booked: TP 1234.'));
		});
		expect(json).toEqual({ output: 'Booked: TP 1234.', conversation_id: id, recovered: true });
		expect(asks).toHaveLength(1);
		expect(paths[1]).toBe('GET /assistant/answers/1');
	});

	test('its answer comes where it pointed, without the conversation: the one the 303 named', async () => {
		const { json, asks } = await askSeeOther(true, (response) => {
			response.writeHead(200, { 'content-type': 'text/event-stream' });
			response.end(answered('Booked: TP 1234.'));
		});
		expect(json).toEqual({ output: 'Booked: TP 1234.', conversation_id: id });
		expect(asks).toHaveLength(1);
	});

	test('the 303 names one conversation, the stream where it points another and breaks off: the stream’s is read', async () => {
		const { json, asks } = await askSeeOther(true, (response) => {
			const url = response.req.url ?? '';
			if (url === '/assistant/answers/1') {
				response.writeHead(200, {
					'content-type': 'text/event-stream',
					'x-conversation-id': 'con_StreamOwn00000001',
				});
				response.end(
					sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Booked' } }),
				);
				return;
			}
			const answer = url.endsWith('/con_StreamOwn00000001') ? 'Booked: TP 1234.' : 'Not this.';
			conversationJson(response, 'idle', turn(input, answer));
		});
		expect(json).toEqual({
			output: 'Booked: TP 1234.',
			conversation_id: 'con_StreamOwn00000001',
			recovered: true,
		});
		expect(asks).toHaveLength(1);
	});

	test('a stream where it points that names its conversation only in End: its own, not the 303’s', async () => {
		const { json } = await askSeeOther(
			true,
			ok(
				'text/event-stream',
				sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'Booked.' } }) +
					sse('End', { data: { output: 'Booked.', conversation_id: 'con_OwnConversation01' } }),
			),
		);
		expect(json).toEqual({ output: 'Booked.', conversation_id: 'con_OwnConversation01' });
	});

	test('a JSON answer where it points, naming no conversation: the 303’s', async () => {
		const { json, asks } = await askSeeOther(
			true,
			ok('application/json', JSON.stringify({ output: 'Booked: TP 1234.' })),
		);
		expect(json).toEqual({ output: 'Booked: TP 1234.', conversation_id: id });
		expect(asks).toHaveLength(1);
	});

	test.each([
		[
			'a JSON answer',
			'application/json',
			(own: string) => JSON.stringify({ output: '', conversation_id: own }),
		],
		[
			'a stream',
			'text/event-stream',
			(own: string) => sse('End', { data: { output: '', conversation_id: own } }),
		],
	])(
		'%s where it points, empty, naming its own conversation: that one is read, not the 303’s',
		async (_, type, body) => {
			const own = 'con_AnswerOwn0000001';
			const { json, asks } = await askSeeOther(true, (response) => {
				const url = response.req.url ?? '';
				if (url === '/assistant/answers/1') return ok(type, body(own))(response);
				const answer = url.endsWith(`/${own}`) ? 'Booked: TP 1234.' : 'Not this.';
				conversationJson(response, 'idle', turn(input, answer));
			});
			expect(json).toEqual({ output: 'Booked: TP 1234.', conversation_id: own, recovered: true });
			expect(asks).toHaveLength(1);
		},
	);

	test('its answer is refused and no conversation is named: an error saying it was taken', async () => {
		const { failure, asks } = await askSeeOther(false, (response) => badGateway(response));
		expect(failure?.message).toMatch(
			/^The service took the ask \(it answered "303 See Other"\), but its answer could not be read where it pointed: .*HTTP 502/,
		);
		expect(failure?.description).toMatch(/not sent again/);
		expect(asks).toHaveLength(1);
	});

	test('where it pointed, a 200 that is not the API’s: that error, saying the ask was taken', async () => {
		const { failure, asks } = await askSeeOther(
			false,
			ok('application/json', '<html>Sign in</html>'),
		);
		expect(failure?.message).toMatch(
			/^The assistant sent a response that is not JSON \(HTTP 200\)/,
		);
		expect(failure?.description).toMatch(/had taken the ask .*not sent again/);
		expect(asks).toHaveLength(1);
	});

	test('the Assistant Tool: a 404 where it pointed is no unknown conversation, and the agent is not told to ask again', async () => {
		const server = await serveScript(
			(response) => seeOther(response, true),
			(response, n) => {
				response.writeHead(n === 1 ? 404 : 403, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ detail: n === 1 ? 'Not found' : 'Forbidden' }));
			},
		);
		try {
			const [observed] = await agentCallsTool(server.baseUrl, [
				{ question: input, conversationId: id },
			]);
			const observation = String(observed);
			expect(observation).toMatch(/took the ask/);
			expect(observation).not.toMatch(/Ask again/);
			expect(server.asks).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});

test('a 502 on a continued conversation, its reads with a Retry-After that is no delay ("-1"): "never taken" waits the schedule’s first pause, and the answer is read, not asked again', async () => {
	const id = 'con_RetryAfterJunk01';
	const input = 'Send the invoice to Dana';
	const before = turn('Hello', 'Hi.');
	const read = (response: http.ServerResponse, messages: unknown[]) => {
		// Date.parse reads "-1" as a date of 2001: taken as a pause of none, before.
		response.writeHead(200, { 'content-type': 'application/json', 'retry-after': '-1' });
		response.end(JSON.stringify({ state: 'idle', messages }));
	};
	let firstAskAt = 0;
	const server = await serveScript(
		(response, n) => {
			if (n === 1) firstAskAt = Date.now();
			response.writeHead(502, { 'content-type': 'text/plain' });
			response.end('Bad Gateway');
		},
		(response) => {
			// The service stores the user's message a moment (1.5 s) after it starts the run.
			if (Date.now() - firstAskAt < 1500) return read(response, before);
			read(response, [...before, ...turn(input, 'Sent the invoice.')]);
		},
	);
	try {
		const run = await assistant.run(
			{ input, conversationId: id, options: { retries: 2 } },
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
		);
		expect(server.asks).toHaveLength(1);
		expect(run.json).toEqual({ output: 'Sent the invoice.', conversation_id: id, recovered: true });
	} finally {
		await server.close();
	}
}, 30_000);

describe('a stream cut around the assistant’s tool round, the answer recovered', () => {
	const ID = 'con_ToolRoundCut0001';
	const INPUT = 'What is on my calendar today?';
	const lookUp = {
		part_kind: 'tool-call',
		tool_name: 'calendar',
		args: '{}',
		tool_call_id: 'call_1',
	};
	const toolReturn = {
		part_kind: 'tool-return',
		tool_name: 'calendar',
		tool_call_id: 'call_1',
		content: '3',
	};
	const meta = (zmid: string) => ({ zmid, runner_id: 'r1' });
	const text = (content: string) => ({ part_kind: 'text', content });
	const start = (index: number, part: object, zmid: string) =>
		sse('PartStartEvent', { event_kind: 'part_start', index, part, metadata: meta(zmid) });
	/** The first response: `first`, then the tool call, which the assistant runs. */
	const firstResponse = (first: string) =>
		start(0, { part_kind: 'text', content: first }, 'z1') +
		start(1, lookUp, 'z1') +
		sse('FunctionToolCallEvent', {
			event_kind: 'function_tool_call',
			args_valid: true,
			part: lookUp,
			metadata: meta('z1'),
		});

	/**
	 * An Ask (with `stream`, a streaming workflow) whose stream `streamed` breaks off, the turn
	 * running on: its conversation then holds `first` (no text part when empty) and the tool call,
	 * the tool's return, and `second` as the last response. The item's output, what the caller was
	 * streamed, and how many asks were sent.
	 */
	async function runCut(streamed: string, first: string, second: string, stream = true) {
		const server = await serveScript(
			(response) => {
				response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': ID });
				response.write(streamed);
				setTimeout(() => response.destroy(), 30);
			},
			(response) =>
				conversationJson(response, 'idle', [
					...turn(INPUT),
					{
						kind: 'response',
						parts: [...(first ? [{ part_kind: 'text', content: first }] : []), lookUp],
					},
					{ kind: 'request', parts: [toolReturn] },
					{ kind: 'response', parts: [{ part_kind: 'text', content: second }] },
				]),
		);
		try {
			const run = await assistant.run(
				{ input: INPUT, options: { stream } },
				{ streaming: true, credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
			);
			expect(run.failure).toBeUndefined();
			expect(run.json.recovered).toBe(true);
			return {
				asks: server.asks.length,
				output: run.json.output,
				streamed: run.chunks
					.filter((c) => c.type === 'item')
					.map((c) => String(c.content))
					.join(''),
			};
		} finally {
			await server.close();
		}
	}

	const toolResult = sse('FunctionToolResultEvent', {
		event_kind: 'function_tool_result',
		result: { ...toolReturn, outcome: 'success' },
		metadata: meta('z1'),
	});

	test.each([false, true])(
		'the item is the turn’s text, as the stream unbroken gives it: the text before the tool call too (Stream on: %s)',
		async (stream) => {
			const first = 'Let me check your calendar.';
			const second = 'You have 3 meetings.';
			const cut = firstResponse(first) + toolResult + start(0, text('You have'), 'z2');
			const { asks, output, streamed } = await runCut(cut, first, second, stream);
			expect(asks).toBe(1);
			expect(output).toBe(`${first}\n\n${second}`);
			// With Stream off, the caller gets it whole at the end; on, the pieces, each once.
			expect(streamed).toBe(output);
		},
	);

	test('cut in the text before the tool call: the caller gets the rest of that text, then the next message', async () => {
		const first = 'Let me check your calendar.';
		const second = 'You have 3 meetings.';
		const cut = start(0, text('Let me ch'), 'z1');
		const { output, streamed } = await runCut(cut, first, second);
		expect(output).toBe(`${first}\n\n${second}`);
		expect(streamed).toBe(output);
	});

	test('the stream told text the conversation does not hold: the item is what it holds, and the caller gets the rest of the message the stream left open', async () => {
		const cut =
			firstResponse('Let me check your calendar.') + toolResult + start(0, text('You have'), 'z2');
		const { asks, output, streamed } = await runCut(cut, '', 'You have 3 meetings.');
		expect(asks).toBe(1);
		expect(output).toBe('You have 3 meetings.');
		// Nothing twice: the text the conversation lacks was sent already, the rest follows it.
		expect(streamed).toBe('Let me check your calendar.\n\nYou have 3 meetings.');
	});

	test('cut while the tool runs: the streaming caller gets the recovered answer whole after what it had, none of it cut (an earlier message’s end it starts with is no part of it)', async () => {
		const first = 'Let me check **your calendar**';
		const second = '**Today:** 3 meetings.';
		const { asks, output, streamed } = await runCut(firstResponse(first), first, second);
		expect(asks).toBe(1);
		expect(output).toBe(`${first}\n\n${second}`);
		// The caller had `first`; none of `second` was sent: it gets all of it after a blank line
		// (docs/api.md: "a streaming workflow gets what it had not yet received of it (the answer
		// beyond the pieces already sent, never a piece twice)").
		expect(streamed).toBe(`${first}\n\n${second}`);
	});

	test('cut while the next message thinks: the streaming caller gets that message whole, after a blank line, also when it begins with all that was sent', async () => {
		const first = 'Let me check your calendar.';
		const second = 'Let me check your calendar. You have 3 meetings.';
		const cut =
			firstResponse(first) +
			toolResult +
			start(0, { part_kind: 'thinking', content: 'Three meetings', id: 'reasoning_content' }, 'z2');
		const { asks, output, streamed } = await runCut(cut, first, second);
		expect(asks).toBe(1);
		expect(output).toBe(`${first}\n\n${second}`);
		expect(streamed).toBe(output);
	});
});
