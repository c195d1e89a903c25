/**
 * What the live service answered its users in 2026 (docs/api.md#errors-the-live-service-answered-in-2026),
 * through the Assistant Chat Model in n8n's engine: each failure says what happened, the HTTP
 * status and the service's own words, and its advice names only what this node has (it has no
 * Concurrency) and fits where the ask's conversation came from.
 */
import type { INodeProperties } from 'n8n-workflow';

import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { conversationJson, serveScript } from '../helpers/scripted-server';

const TOKEN = 'tok_chat_errors_2026';
// A running conversation says to read it again after 20 ms, so a recovery does not wait 5 s.
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20 });

type ShownError = (Error & { description?: string; httpCode?: string }) | undefined;

/** The display names of the Chat Model's Options (what "Options > X" advice may name). */
function chatModelOptionNames(): string[] {
	const type = assistant.pkg.nodeTypes.getByNameAndVersion(
		assistant.pkg.nodeType('assistantChatModel'),
	);
	const options = type.description.properties.find((p) => p.name === 'options');
	return ((options?.options ?? []) as INodeProperties[]).map((o) => o.displayName);
}

/** The options an error's description tells the user to change ("Options > X"). */
function optionsNamed(error: ShownError): string[] {
	return [
		...String(error?.description).matchAll(/Options > ([A-Z][\w ]*?\w)(?=[,.)]| or| and)/g),
	].map((m) => m[1]);
}

describe.each(['invoke', 'stream'] as const)('%s', (scenario) => {
	test("a provider's 429 inside a 502 is waited out, then advises only options the Chat Model has", async () => {
		const result = await assistant.chat(
			scenario,
			[{ role: 'user', content: 'Hi #fault=provider-429' }],
			{ options: { retries: 1 } },
		);
		const error = result.error() as ShownError;
		expect(error?.message).toMatch(
			/^The model's provider is rate limiting the account \(HTTP 502\)/,
		);
		// Waited out and retried once, as for a 429.
		expect(assistant.askRequests()).toHaveLength(2);
		const named = optionsNamed(error);
		expect(named).toContain('Retries');
		expect(named.filter((name) => !chatModelOptionNames().includes(name))).toEqual([]);
	});

	test('a full session pool advises only options the Chat Model has', async () => {
		const result = await assistant.chat(
			scenario,
			[{ role: 'user', content: 'Hi #fault=pool-busy' }],
			{ options: { retries: 0 } },
		);
		const error = result.error() as ShownError;
		expect(error?.message).toMatch(
			/^All of the account's assistant sessions are busy \(HTTP 503\)/,
		);
		expect(error?.description).not.toMatch(/Concurrency/);
		// Retries 0: not waited out, and not said to be.
		expect(assistant.askRequests()).toHaveLength(1);
		expect(error?.description).not.toMatch(/after waiting/);
		expect(optionsNamed(error).filter((name) => !chatModelOptionNames().includes(name))).toEqual(
			[],
		);
	});
});

describe('404 Conversation not found', () => {
	test("for the conversation the chat memory's mark names: the advice is about the memory, not the empty Conversation ID", async () => {
		const result = await assistant.chat(
			'invoke',
			[
				{ role: 'user', content: 'Hi' },
				// What the node marked on an earlier execution, kept by the agent's memory; the
				// conversation no longer exists on the service (deleted, or another account).
				{
					role: 'assistant',
					content: 'Hello!',
					id: 'assistant-conversation:con_GoneGone12345678:1',
				},
				{ role: 'user', content: 'How are you?' },
			],
			{}, // Options > Conversation ID left empty
		);
		const error = result.error() as ShownError;
		expect(assistant.askRequests()[0].body).toMatchObject({
			conversation_id: 'con_GoneGone12345678',
		});
		expect(error?.message).toBe(
			'The conversation was not found (HTTP 404): Conversation not found',
		);
		expect(error?.description).not.toMatch(/Check Conversation ID|Leave it empty/);
		expect(error?.description).toMatch(/chat memory/);
		expect(error?.description).toMatch(/new chat session/);
		// Not started anew behind the user's back: the memory's context would be lost unsaid.
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test('for the conversation Options > Conversation ID names: the advice is to check that option', async () => {
		const result = await assistant.chat('invoke', [{ role: 'user', content: 'Hi' }], {
			options: { conversationId: 'con_GoneGone12345678' },
		});
		const error = result.error() as ShownError;
		expect(assistant.askRequests()[0].body).toMatchObject({
			conversation_id: 'con_GoneGone12345678',
		});
		expect(error?.message).toBe(
			'The conversation was not found (HTTP 404): Conversation not found',
		);
		expect(error?.description).toMatch(/^Check Conversation ID/);
	});

	test.each(['agent', 'agentStream'] as const)(
		'%s: for the correction sent back to the conversation that had just answered, the service lost it: run again, no Conversation ID or chat memory to check',
		async (scenario) => {
			const answered = 'con_JustAnswered123456';
			// The first ask is answered in a conversation with a call of a tool the agent does not
			// have; the correction sent back to that conversation meets the service's 404.
			const server = await serveScript(
				(response, n) => {
					if (n === 1) {
						response.writeHead(200, {
							'content-type': 'application/json',
							'x-conversation-id': answered,
						});
						const reply = {
							action: 'call_tool',
							final_answer: '',
							tool_name: 'no_such_tool',
							tool_arguments_json: '{}',
						};
						response.end(
							JSON.stringify({ output: JSON.stringify(reply), conversation_id: answered }),
						);
						return;
					}
					response.writeHead(404, { 'content-type': 'application/json' });
					response.end('{"detail": "Conversation not found"}');
				},
				(response) => {
					response.writeHead(404, { 'content-type': 'application/json' });
					response.end('{"detail": "Conversation not found"}');
				},
			);
			try {
				const result = await assistant.chat(
					scenario,
					[{ role: 'user', content: 'What is 6 * 7?' }],
					{}, // Options > Conversation ID left empty, and no chat memory
					{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
				);
				expect(server.paths).toEqual(['POST /assistant/ask', 'POST /assistant/ask']);
				const [first, correction] = server.asks as Array<{
					input?: string;
					conversation_id?: string;
				}>;
				expect(first.conversation_id).toBeUndefined();
				expect(correction.conversation_id).toBe(answered);
				expect(correction.input).toMatch(/^Your last reply could not be used\. /);
				const error = result.error() as ShownError;
				expect(error?.message).toBe(
					'The conversation the assistant had just answered in was not found (HTTP 404): Conversation not found',
				);
				expect(error?.description).not.toMatch(/Conversation ID|chat memory|chat session/);
				expect(error?.description).toMatch(/lost the conversation on its side/);
				expect(error?.description).toMatch(/run the execution again/);
			} finally {
				await server.close();
			}
		},
	);
});

describe.each(['invoke', 'stream'] as const)(
	'%s: an accepted ask without an answer, whose conversation does not show it',
	(scenario) => {
		test('a 200 JSON answer with an empty output: the error says the assistant finished without an answer, not that the response broke off', async () => {
			const conversation = 'con_NotShownChat00001';
			const server = await serveScript(
				(response) => {
					response.writeHead(200, { 'content-type': 'application/json' });
					response.end(JSON.stringify({ output: '', conversation_id: conversation }));
				},
				(response) => conversationJson(response, 'idle', []),
			);
			try {
				const result = await assistant.chat(
					scenario,
					[{ role: 'user', content: 'Hi' }],
					{ options: { retries: 1 } },
					{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
				);
				const error = result.error() as ShownError;
				expect(error?.message).toBe(
					`The assistant finished without an answer, and conversation ${conversation} does not show the ask`,
				);
				expect(error?.description).toMatch(/not sent again/);
				expect(server.asks).toHaveLength(1);
			} finally {
				await server.close();
			}
		});
	},
);
