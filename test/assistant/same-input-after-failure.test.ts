/**
 * Two items with the same input in one conversation, one execution, Continue On Fail on
 * (docs/api.md#recovery-after-a-failure). The first is taken by the service but fails: its
 * conversation could not be read, or was still answering when its Timeout ran out. The second
 * fails before the service confirmed it, and its conversation now shows the first one's turn,
 * answered: "the conversation cannot tell the two apart", so the second item fails naming the
 * conversation instead of taking the first one's answer for its own, and is not sent again.
 * Against a server the test scripts, in n8n-core's engine.
 */
import type * as http from 'node:http';

import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { conversationJson, serveScript, sse, turn } from '../helpers/scripted-server';

const TOKEN = 'tok_SAME_input_after_failure_r6';
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20, dialect: 'live' });

const input = 'Send the weekly report to Erin';
const before = turn('Hello', 'Hi.');
const firstAnswer = 'Sent the report to Erin.';

/** Item 1: taken (a 2xx stream began), then cut without its end. Item 2: a proxy's 502. */
function takenThenBadGateway(id: string) {
	return (response: http.ServerResponse, n: number) => {
		if (n === 1) {
			response.writeHead(200, { 'content-type': 'text/event-stream', 'x-conversation-id': id });
			response.end(
				sse('PartStartEvent', { index: 0, part: { part_kind: 'thinking', content: 'Hm' } }),
			);
			return;
		}
		response.writeHead(502, { 'content-type': 'text/plain' });
		response.end('Bad Gateway');
	};
}

async function runTwoItems(
	server: Awaited<ReturnType<typeof serveScript>>,
	id: string,
	options: Record<string, unknown>,
) {
	try {
		const run = await assistant.run(
			{ input, conversationId: id, options },
			{
				items: [{}, {}],
				node: { onError: 'continueRegularOutput' },
				credentials: [emulatorCredential(server.baseUrl, TOKEN)],
			},
		);
		return { items: run.outputs('Ask').map((item) => item.json), asks: server.asks.length };
	} finally {
		await server.close();
	}
}

describe('an earlier item with the same input was taken and failed: the next one does not take its answer', () => {
	test('the first item failed because its conversation could not be read', async () => {
		const id = 'con_SameInputUnread1';
		const server = await serveScript(takenThenBadGateway(id), (response, n) => {
			if (n === 1) {
				// Item 1's read fails for good: its item fails naming the conversation.
				response.writeHead(404, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ detail: 'Not Found' }));
				return;
			}
			// Item 1's turn finished meanwhile; item 2 never reached the service.
			conversationJson(response, 'idle', [...before, ...turn(input, firstAnswer)]);
		});
		const { items, asks } = await runTwoItems(server, id, { retries: 2 });
		expect(items[0]).toHaveProperty('error');
		expect(items[1]).not.toHaveProperty('output');
		expect(JSON.stringify(items[1])).toMatch(/cannot tell whether it took this ask/);
		expect(JSON.stringify(items[1])).toContain(id);
		// Item 2 was not sent again.
		expect(asks).toBe(2);
	});

	test('the first item was still answering when its Timeout ran out', async () => {
		const id = 'con_SameInputTimeout';
		let asked = 0;
		const ask = takenThenBadGateway(id);
		const server = await serveScript(
			(response, n) => {
				asked = n;
				ask(response, n);
			},
			(response) => {
				// Item 1's turn runs past its Timeout, and has finished by item 2's read.
				if (asked === 1) return conversationJson(response, 'running', [...before, ...turn(input)]);
				conversationJson(response, 'idle', [...before, ...turn(input, firstAnswer)]);
			},
		);
		const { items, asks } = await runTwoItems(server, id, { retries: 2, timeoutMinutes: 0.05 });
		expect(JSON.stringify(items[0])).toMatch(
			/still answering in conversation con_SameInputTimeout/,
		);
		expect(items[1]).not.toHaveProperty('output');
		expect(JSON.stringify(items[1])).toMatch(/cannot tell whether it took this ask/);
		expect(asks).toBe(2);
	});
});
