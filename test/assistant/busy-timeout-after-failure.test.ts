/**
 * A retry meets its own conversation's 409, and the conversation is still answering when Timeout
 * runs out (docs/api.md#recovery-after-a-failure, 3 and 5). When the running ask may be this one
 * (an earlier attempt may have reached the service, or the running turn has this ask's message),
 * the error names the conversation, says it may be answering this very ask, and that the ask was
 * not sent again: never that it was not taken. Only where that is certain does it say so. Against
 * a server the test scripts, in n8n-core's engine.
 */
import type * as http from 'node:http';

import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { conversationJson, serveScript, turn } from '../helpers/scripted-server';

const TOKEN = 'tok_BUSY_timeout_after_failure_r6';
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20, dialect: 'live' });

const before = turn('Hello', 'Hi.');
const busy = (response: http.ServerResponse) => {
	response.writeHead(409, { 'content-type': 'application/json' });
	response.end(JSON.stringify({ detail: 'Conversation is busy' }));
};

async function failureOf(
	server: Awaited<ReturnType<typeof serveScript>>,
	input: string,
	id: string,
) {
	try {
		const run = await assistant.run(
			{ input, conversationId: id, options: { retries: 2, timeoutMinutes: 0.05 } },
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
		);
		return {
			said: `${run.failure?.message} ${run.failure?.description}`,
			asks: server.asks.length,
		};
	} finally {
		await server.close();
	}
}

test('after a 502 the retry’s 409 wait runs out of time: the conversation may be answering this very ask', async () => {
	const id = 'con_BusyAfter502Time';
	const input = 'Pay the electricity bill';
	let busySince = 0;
	const server = await serveScript(
		(response, n) => {
			if (n === 1) {
				response.writeHead(502, { 'content-type': 'text/plain' });
				response.end('Bad Gateway');
				return;
			}
			// The first attempt's run, started late, holds the conversation.
			busySince ||= Date.now();
			busy(response);
		},
		(response) => {
			if (!busySince) return conversationJson(response, 'idle', before);
			conversationJson(response, 'running', [...before, ...turn(input)]);
		},
	);
	const { said, asks } = await failureOf(server, input, id);
	expect(asks).toBe(2);
	expect(said).toContain(id);
	expect(said).toMatch(/may be answering this very ask/);
	expect(said).toMatch(/The ask was not sent again/);
	expect(said).not.toMatch(/was not taken/);
});

test('a 409 whose running turn has this ask’s message: it may be this very ask', async () => {
	const id = 'con_BusySameMessage1';
	const input = 'Book the dentist for Friday';
	const server = await serveScript(busy, (response) =>
		conversationJson(response, 'running', [...before, ...turn(input)]),
	);
	const { said, asks } = await failureOf(server, input, id);
	expect(asks).toBe(1);
	expect(said).toContain(id);
	expect(said).toMatch(/may be answering this very ask/);
	expect(said).not.toMatch(/was not taken/);
});

test('a 409 from another ask, no attempt of this one reached the service: "this ask was not taken"', async () => {
	const id = 'con_BusyOtherAsk0001';
	const server = await serveScript(busy, (response) =>
		conversationJson(response, 'running', [...before, ...turn('Something else')]),
	);
	const { said, asks } = await failureOf(server, 'Book the dentist for Friday', id);
	expect(asks).toBe(1);
	expect(said).toMatch(/The conversation is busy answering an earlier request \(HTTP 409\)/);
	expect(said).toMatch(/still answering an earlier ask .*; this ask was not taken/);
	expect(said).toContain(id);
});
