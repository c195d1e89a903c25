/**
 * A review's finding. docs/security.md says the token is replaced by `[redacted]` in "the
 * pieces a streaming workflow or an AI Agent is given", and that "escapes that write some of its
 * characters beside the rest of it are redacted with it". A stream that writes the token with
 * one character escaped right after its first eight characters, the piece cut there, got the
 * token's middle into the streamed chunks (the item itself was redacted whole).
 */
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../helpers/assistant';
import { runChatModel } from '../helpers/chat-model';
import { serveRequests, sse, streamAnswer, type ServedRequests } from '../helpers/scripted-server';
import { bareTextDelta, bareTextStart } from '../helpers/stream-2026';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ-LongMiddlePart-xyz12345';
const ESCAPED = `${TOKEN.slice(0, 8)}%65${TOKEN.slice(9)}`;

let server: ServedRequests;

beforeAll(async () => {
	server = await serveRequests((_request, _body, response) =>
		streamAnswer(
			response,
			'con_x',
			bareTextStart(`Key: ${ESCAPED.slice(0, 11)}`) +
				bareTextDelta(ESCAPED.slice(11, -8)) +
				bareTextDelta(`${ESCAPED.slice(-8)} ok`) +
				sse('completed', { status: 'succeeded' }),
		),
	);
});

afterAll(async () => await server.close());

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
		{ credentials: [emulatorCredential(`${server.origin}/api`, TOKEN)], streaming: true },
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
			credentials: [emulatorCredential(`${server.origin}/api`, TOKEN)],
		},
	);
	expect(run.error()).toBeUndefined();
	const shown = JSON.stringify(run.outputs('Consumer')[0].json);
	expect(shown).not.toContain('LongMiddlePart');
});
