/**
 * Exactly once for the Assistant Chat Model (docs/api.md#exactly-once), which asks through the
 * shared ask: for every failure after acceptance, invoked (a chain) and streamed, the assistant
 * started the ask once and the AI message is the answer the conversation holds. In the real
 * n8n-core engine, against an emulator whose turns run on after their connection fails.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { assistantPackage, emulatorCredential } from '../helpers/assistant';
import {
	runChatModel,
	type ConsumerOutput,
	type Scenario,
	type ScriptMessage,
} from '../helpers/chat-model';
import { answeredConversation, heldAnswer } from '../helpers/conversations';
import { useEmulator } from '../helpers/emulatorFixture';
import { serveScript } from '../helpers/scripted-server';
import { readTranscript } from '../../nodes/AssistantChatModel/transcript';
import { withoutImages } from '../../nodes/shared/images';

const TOKEN = 'secret-token-for-exactly-once-chat-model';

// A running conversation says to look again after 20 ms, so no test waits the 5 s schedule.
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20 });

/** A conversation the chat model answered earlier: its id, and its answer marked as the node marks it. */
async function earlierAnswer(): Promise<{ id: string; messages: ScriptMessage[] }> {
	const { id, output } = await answeredConversation(assistant.emulator, 'Hi, I am Ada.');
	const mark = `assistant-conversation:${encodeURIComponent(id)}:1`;
	return {
		id,
		messages: [
			{ role: 'user', content: 'Hi, I am Ada.' },
			{ role: 'assistant', content: output, id: mark },
		],
	};
}

/** The input of the ask whose last message is this user message (its transcript). */
function askInputOf(userText: string): string {
	const request = assistant.emulator.stats.requests.find(
		(r) =>
			r.path === '/assistant/ask' &&
			readTranscript(String((r.body as IDataObject)?.input))?.entries.at(-1)?.content === userText,
	);
	return String((request?.body as IDataObject)?.input);
}

/** The conversation an emulated ask with this input went to. */
function conversationOf(input: string): string {
	const request = assistant.emulator.stats.requests.find(
		(r) => r.path === '/assistant/ask' && (r.body as IDataObject)?.input === input,
	);
	const continued = (request?.body as IDataObject)?.conversation_id;
	if (typeof continued === 'string') return continued;
	const started = [...assistant.emulator.stats.requests]
		.reverse()
		.find((r) => r.path.startsWith('/conversations/'));
	return decodeURIComponent(String(started?.path.slice('/conversations/'.length)));
}

const FAULTS: Array<[fault: string, continues: boolean]> = [
	['drop-after-accept', true],
	['drop-after-headers', false],
	['reset-mid-stream', false],
	['no-end', false],
	['empty-answer', false],
	['accepted-502', true],
	['conversation-busy', true],
];

describe.each(['invoke', 'stream'] as const)(
	'the chat model, %s: started once, the answer whole',
	(scenario) => {
		test.each(FAULTS)('#fault=%s (continuing a conversation: %s)', async (fault, continues) => {
			const earlier = continues ? await earlierAnswer() : { id: '', messages: [] };
			const input = `Send the summary #fault=${fault}&ms=150&times=1`;
			const result = await assistant.chat(scenario, [
				...earlier.messages,
				{ role: 'user', content: input },
			]);
			expect(result.error()).toBeUndefined();
			const output = result.outputs('Consumer')[0].json as ConsumerOutput;
			const asked = askInputOf(input);
			const id = continues ? earlier.id : conversationOf(asked);
			expect(output.text).toBe(await heldAnswer(assistant.emulator, id));
			expect(output.text).toContain(`You said: "${input}"`);
			if (scenario === 'stream') expect(output.chunks.join('')).toBe(output.text);
			expect(assistant.emulator.stats.startedAsks.get(asked)).toBe(1);
		});
	},
);

describe.each(['invoke', 'stream'] as const)(
	'the chat model, %s: a 2026 stream broken off after a tool round',
	(scenario) => {
		test('the AI message is the turn’s text, the text before the tool call too: the same as the same ask unbroken', async () => {
			// The response that calls the tool writes "Let me look that up." first; the stream breaks
			// halfway through its text pieces, in the answer's response after the tool round.
			const message = 'Check the news #shape=2026+tool-lead #fault=reset-mid-stream&ms=150&times=1';
			const ask = async () => {
				const result = await assistant.chat(scenario, [{ role: 'user', content: message }]);
				expect(result.error()).toBeUndefined();
				return result.outputs('Consumer')[0].json as ConsumerOutput;
			};
			const broken = await ask();
			expect(assistant.emulator.stats.startedAsks.get(askInputOf(message))).toBe(1);
			// The same ask again (its fault used up), in a new conversation: the stream unbroken.
			const whole = await ask();
			expect(whole.text).toMatch(/^Let me look that up\.\n\n\[model=.*You said: "Check the news/);
			expect(broken.text).toBe(whole.text);
			if (scenario === 'stream') {
				expect(broken.chunks.length).toBeGreaterThan(2);
				expect(broken.chunks.join('')).toBe(broken.text);
			}
		});
	},
);

describe('an ask that repeats the conversation’s last message (docs/api.md#recovery-after-a-failure)', () => {
	test.each<[string, Scenario]>([
		['one model for every round', 'agent'],
		['the model taken anew each round, as AI Agent v3 does', 'agentRounds'],
	])(
		'an agent’s tool giving the same result twice, the second result’s ask failing at a proxy: neither the earlier answer taken nor the ask sent again (%s)',
		async (_how, scenario) => {
			const conversation = 'con_SameResultTwice1';
			const callCalculator = JSON.stringify({
				action: 'call_tool',
				final_answer: '',
				tool_name: 'calculator',
				tool_arguments_json: '{"input":"6 * 7"}',
			});
			const inputs: string[] = [];
			const server = http.createServer((request, response) => {
				let body = '';
				request.on('data', (chunk: Buffer) => (body += chunk.toString()));
				request.on('end', () => {
					if (request.url === '/assistant/ask') {
						inputs.push(String((JSON.parse(body) as IDataObject).input));
						// The first two asks call the calculator; the third meets a proxy's 502.
						if (inputs.length === 3) {
							response.writeHead(502, { 'content-type': 'text/html' });
							response.end('<html><body>Bad gateway</body></html>');
							return;
						}
						response.writeHead(200, { 'content-type': 'application/json' });
						response.end(JSON.stringify({ output: callCalculator, conversation_id: conversation }));
						return;
					}
					// The conversation holds the first two turns; the second's message is the third's.
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
				const run = await runChatModel(
					await assistantPackage(),
					scenario,
					[{ role: 'user', content: 'What is 6 * 7?' }],
					{},
					{ credentials: [emulatorCredential(`http://127.0.0.1:${port}`, TOKEN)] },
				);
				expect(inputs).toHaveLength(3);
				expect(inputs[2]).toBe(inputs[1]);
				expect(run.error()?.message).toBe(
					`The assistant service failed (HTTP 502): Bad gateway; conversation ${conversation} cannot tell whether it took this ask`,
				);
				expect(run.error()?.description).toMatch(/not sent again/);
			} finally {
				await new Promise<void>((resolve) => server.close(() => resolve()));
			}
		},
	);
});

describe('a later execution whose message repeats the conversation’s last one (a chat memory)', () => {
	const conversation = 'con_RepeatedYes00001';
	const earlierAnswerText = 'Done: I sent the mail to Bob.';
	/** The chat memory: two earlier turns, the last answered `earlierAnswerText`; then `message`. */
	const history = (lastMessage: string, message: string): ScriptMessage[] => [
		{ role: 'user', content: 'Draft a mail to Bob' },
		{
			role: 'assistant',
			content: 'Drafted. Shall I send it?',
			id: `assistant-conversation:${conversation}:1`,
		},
		{ role: 'user', content: lastMessage },
		{
			role: 'assistant',
			content: earlierAnswerText,
			id: `assistant-conversation:${conversation}:3`,
		},
		{ role: 'user', content: message },
	];

	/**
	 * The scenario's run against a server whose ask meets a proxy's 502, and whose conversation
	 * ends with a turn of this ask's very input answered `earlierAnswerText` (with tools, in the
	 * envelope's final answer): the earlier turn's, or this ask's own with the same answer.
	 */
	async function runWithConversationShowing(scenario: Scenario, messages: ScriptMessage[]) {
		const answer =
			scenario === 'agent'
				? JSON.stringify({
						action: 'final_answer',
						final_answer: earlierAnswerText,
						tool_name: '',
						tool_arguments_json: '',
					})
				: earlierAnswerText;
		const server = await serveScript(
			(response) => {
				response.writeHead(502, { 'content-type': 'text/html' });
				response.end('<html><body>Bad gateway</body></html>');
			},
			(response) => {
				const turns = [
					{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: inputs()[0] }] },
					{ kind: 'response', parts: [{ part_kind: 'text', content: answer }] },
				];
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ state: 'idle', messages: turns }));
			},
		);
		const inputs = () => server.asks.map((body) => String(body?.input));
		try {
			const run = await runChatModel(
				await assistantPackage(),
				scenario,
				messages,
				{},
				{
					credentials: [emulatorCredential(server.baseUrl, TOKEN)],
				},
			);
			return { run, inputs: inputs() };
		} finally {
			await server.close();
		}
	}

	test.each(['invoke', 'stream', 'agent'] as const)(
		'%s: the same message as the last turn’s, its ask failing at a proxy: the earlier execution’s answer is not taken for it',
		async (scenario) => {
			const { run, inputs } = await runWithConversationShowing(scenario, history('yes', 'yes'));
			// Sent once (a 502 may have come after the service took it), and not answered with
			// the earlier execution's answer: the user's second "yes" may never have reached it.
			expect(inputs).toHaveLength(1);
			expect(run.error()?.message).toBe(
				`The assistant service failed (HTTP 502): Bad gateway; conversation ${conversation} cannot tell whether it took this ask`,
			);
			expect(run.error()?.description).toMatch(/not sent again/);
		},
	);

	test.each(['invoke', 'stream'] as const)(
		'%s: another message answered as the last turn was: the conversation’s answer is this ask’s, taken',
		async (scenario) => {
			const { run, inputs } = await runWithConversationShowing(
				scenario,
				history('Send it', 'And send it to Ada too'),
			);
			expect(inputs).toHaveLength(1);
			expect(run.error()).toBeUndefined();
			expect((run.outputs('Consumer')[0].json as ConsumerOutput).text).toBe(earlierAnswerText);
		},
	);
});

test('a new photo with the same words as the last turn’s, its ask failing at a proxy: the earlier photo’s answer is not taken for it', async () => {
	const conversation = 'con_RepeatedPhoto0001';
	const earlier = 'It is a red apple.';
	const png = (fill: number) =>
		Buffer.concat([
			Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
			Buffer.alloc(64, fill),
		]).toString('base64');
	const photo = (fill: number): ScriptMessage => ({
		role: 'user',
		content: 'What is this?',
		image: { mimeType: 'image/png', base64: png(fill) },
	});
	const server = await serveScript(
		(response) => {
			response.writeHead(502, { 'content-type': 'text/html' });
			response.end('<html><body>Bad gateway</body></html>');
		},
		(response) => {
			// The conversation's last turn: the earlier photo's, its image taken out of the prompt
			// by the service (docs/api.md#images), so it reads as this ask's does without its own.
			const prompt = withoutImages(String(server.asks[0]?.input));
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify({
					state: 'idle',
					messages: [
						{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: prompt }] },
						{ kind: 'response', parts: [{ part_kind: 'text', content: earlier }] },
					],
				}),
			);
		},
	);
	try {
		const run = await runChatModel(
			await assistantPackage(),
			'invoke',
			[photo(1), { role: 'assistant', content: earlier }, photo(2)],
			{ options: { conversationId: conversation, retries: 0 } },
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
		);
		expect(server.asks).toHaveLength(1);
		expect(String(server.asks[0]?.input)).toContain(png(2));
		expect(run.error()?.message).toBe(
			`The assistant service failed (HTTP 502): Bad gateway; conversation ${conversation} cannot tell whether it took this ask`,
		);
	} finally {
		await server.close();
	}
});
