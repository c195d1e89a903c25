/**
 * A review's finding. docs/security.md says the token is replaced by `[redacted]` in "the
 * pieces a streaming workflow or an AI Agent is given", and that "escapes that write some of its
 * characters beside the rest of it are redacted with it". A stream that writes the token with
 * one character escaped right after its first eight characters, the piece cut there, got the
 * token's middle into the streamed chunks (the item itself was redacted whole).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../helpers/assistant';
import { runChatModel } from '../helpers/chat-model';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ-LongMiddlePart-xyz12345';
const ESCAPED = `${TOKEN.slice(0, 8)}%65${TOKEN.slice(9)}`;

function event(name: string, data: unknown): string {
	return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
const textPart = (content: string) =>
	event('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { part_kind: 'text', content },
		metadata: { zmid: 'm1' },
	});
const textDelta = (content: string) =>
	event('PartDeltaEvent', {
		event_kind: 'part_delta',
		index: 0,
		delta: { part_delta_kind: 'text', content_delta: content },
		metadata: { zmid: 'm1' },
	});

let server: http.Server;
let origin = '';

beforeAll(async () => {
	server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			response.writeHead(200, {
				'Content-Type': 'text/event-stream',
				'x-conversation-id': 'con_x',
			});
			response.end(
				textPart(`Key: ${ESCAPED.slice(0, 11)}`) +
					textDelta(ESCAPED.slice(11, -8)) +
					textDelta(`${ESCAPED.slice(-8)} ok`) +
					event('completed', { status: 'succeeded' }),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

test('Ask with Stream: the streamed chunks hold no part of the token', async () => {
	const pkg = await assistantPackage();
	const run = await runWithItems(
		[{}],
		[
			assistantNode(pkg, 'Assistant', {
				operation: 'ask',
				input: 'hi',
				options: { retries: 0, stream: true },
			}),
		],
		{ credentials: [emulatorCredential(`${origin}/api`, TOKEN)], streaming: true },
	);
	const [item] = run.outputs('Assistant');
	// The item is redacted whole:
	expect(item.json.output).toBe('Key: [redacted] ok');
	// And so are the chunks the caller (a public chat, a webhook) is given:
	const chunks = JSON.stringify(run.chunks);
	expect(chunks).not.toContain('LongMiddlePart');
});

test('Assistant Chat Model streamed (what an AI Agent streams to its chat): no part of the token', async () => {
	const pkg = await assistantPackage();
	const run = await runChatModel(
		pkg,
		'stream',
		[{ role: 'user', content: 'hi' }],
		{},
		{
			credentials: [emulatorCredential(`${origin}/api`, TOKEN)],
		},
	);
	expect(run.error()).toBeUndefined();
	const shown = JSON.stringify(run.outputs('Consumer')[0].json);
	expect(shown).not.toContain('LongMiddlePart');
});
