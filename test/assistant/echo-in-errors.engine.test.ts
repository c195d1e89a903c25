/**
 * A server that puts the service's echo of the request (the user's private workspace files) where
 * the node looks for an error's words (docs/api.md#errors, docs/security.md): a `failed` run's
 * `error`, an `Error` event's `message`, an error status's JSON or text body, an in-band `error`.
 * With the built package in n8n-core's engine: the echo, flat (`{"type": "FrontendModelRequest",
 * …}`) or as the named form's data (`"kind": "request"` and `parts`), is in no output item,
 * error, log line or streamed chunk, nor in the Assistant Chat Model's run; the error says the
 * answer held the request's copy, with the HTTP status and the words the server gave beside it.
 */
import http from 'node:http';

import type { INodeParameters } from 'n8n-workflow';

import {
	assistantPackage,
	emulatorCredential,
	everythingShown,
	askOnceContinuing,
} from '../helpers/assistant';
import { runChatModel } from '../helpers/chat-model';
import { serveNamedAsks, sse, streamAnswer } from '../helpers/scripted-server';
import { bareTextStart } from '../helpers/stream-2026';

/** What the user's workspace files say: never shown. */
const PRIVATE = 'PRIVATE-WORKSPACE-FILE-4242';

const WITHHELD = "the service's answer held its copy of the request, which is not shown";
const ALSO_WITHHELD = "the service's answer also held its copy of the request, which is not shown";

/** The echo as pydantic-ai writes a model request: the named form's data. */
const namedEcho = {
	kind: 'request',
	parts: [
		{ part_kind: 'system-prompt', content: `You are helpful. Workspace file notes.md: ${PRIVATE}` },
		{ part_kind: 'user-prompt', content: 'Hello' },
	],
};

/** The same, flat: its name as `type`. */
const flatEcho = { type: 'FrontendModelRequest', ...namedEcho };

const ASKS: Record<string, (response: http.ServerResponse) => void> = {
	failedEcho: (response) =>
		streamAnswer(response, 'con_f1', sse('failed', { status: 'failed', error: flatEcho })),
	failedEchoBesideMessage: (response) =>
		streamAnswer(
			response,
			'con_f2',
			sse('failed', { status: 'failed', error: namedEcho, message: 'The run broke' }),
		),
	errorEventEcho: (response) =>
		streamAnswer(response, 'con_f3', sse('Error', { message: flatEcho })),
	errorEventNamedEcho: (response) =>
		streamAnswer(response, 'con_f4', sse('Error', { message: { error: namedEcho } })),
	errorEventEchoAsText: (response) =>
		streamAnswer(response, 'con_f5', sse('Error', { message: JSON.stringify(flatEcho) })),
	status500JsonEcho(response) {
		response.writeHead(500, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify(flatEcho));
	},
	status500JsonEchoBesideDetail(response) {
		response.writeHead(500, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ error: namedEcho, detail: 'Internal error' }));
	},
	/** The flat echo then an error, one JSON per line (no `data:`). */
	status500NdjsonEcho(response) {
		response.writeHead(500, { 'Content-Type': 'application/x-ndjson' });
		response.end(
			`${JSON.stringify(flatEcho)}\n${JSON.stringify({ type: 'Error', message: 'boom' })}\n`,
		);
	},
	/** The named form's data, written with spaces as Python writes JSON, in a text body. */
	status502TextEcho(response) {
		response.writeHead(502, { 'Content-Type': 'text/plain' });
		response.end(`upstream said: ${JSON.stringify(namedEcho, null, 1)}`);
	},
	inBandEcho(response) {
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ error: flatEcho, conversation_id: 'con_f6' }));
	},
	/** Text streams, then a `failed` run whose error is the flat echo (Stream on: an error chunk). */
	textThenFailedEcho: (response) =>
		streamAnswer(
			response,
			'con_f7',
			bareTextStart('Let me look') + sse('failed', { status: 'failed', error: flatEcho }),
		),
	/** The flat echo, `event_kind` first, BOM, CRLF and CR, split at every byte. */
	flatEchoVariants(response) {
		response.writeHead(200, { 'Content-Type': 'text/event-stream', 'x-conversation-id': 'con_f8' });
		const { type, ...rest } = flatEcho;
		const body =
			'\uFEFF' +
			`data: ${JSON.stringify({ event_kind: 'part_start', type, ...rest })}\r\n\r\n` +
			`data:   ${JSON.stringify(flatEcho)}\r\r` +
			`event: FrontendModelRequest\r\nevent: PartStartEvent\r\ndata: ${JSON.stringify({ index: 0, part: { part_kind: 'text', content: PRIVATE } })}\r\n\r\n` +
			`data: ${JSON.stringify({ index: 0, part: { part_kind: 'text', content: PRIVATE } })}\nevent: FrontendModelRequest\n\n` +
			bareTextStart('Hello') +
			sse('completed', { status: 'succeeded' });
		const bytes = Buffer.from(body, 'utf8');
		let i = 0;
		const timer = setInterval(() => {
			if (i >= bytes.length) {
				clearInterval(timer);
				response.end();
				return;
			}
			response.write(bytes.subarray(i, i + 1));
			i += 1;
		}, 0);
	},
};

let server: { origin: string; close(): Promise<void> };
let origin = '';

beforeAll(async () => {
	server = await serveNamedAsks(ASKS);
	origin = server.origin;
});

afterAll(async () => await server.close());

const credential = () => emulatorCredential(`${origin}/api`, 'Zo_Sk_Echo-Errors-Token-4Hj8');

async function ask(input: string, extra: INodeParameters = {}) {
	return await askOnceContinuing(credential(), input, extra);
}

describe('an error that holds the request echo shows none of it', () => {
	test.each([
		[
			'a failed run whose error is the flat echo',
			'failedEcho',
			`The assistant's run failed: ${WITHHELD}`,
		],
		[
			'a failed run whose error is the named echo, its message beside it',
			'failedEchoBesideMessage',
			`The assistant's run failed: The run broke (${ALSO_WITHHELD})`,
		],
		[
			'an Error event whose message is the flat echo',
			'errorEventEcho',
			`The assistant reported an error: ${WITHHELD}`,
		],
		[
			'an Error event whose message holds the named echo',
			'errorEventNamedEcho',
			`The assistant reported an error: ${WITHHELD}`,
		],
		[
			'an Error event whose message is the echo written as JSON text',
			'errorEventEchoAsText',
			`The assistant reported an error: ${WITHHELD}`,
		],
		['a 500 whose JSON body is the flat echo', 'status500JsonEcho', `(HTTP 500): ${WITHHELD}`],
		[
			'a 500 whose JSON body holds the named echo beside a detail',
			'status500JsonEchoBesideDetail',
			`(HTTP 500): Internal error (${ALSO_WITHHELD})`,
		],
		[
			'a 500 whose body is the echo and an error, one JSON a line',
			'status500NdjsonEcho',
			`(HTTP 500): ${WITHHELD}`,
		],
		['a 502 whose text body quotes the named echo', 'status502TextEcho', `(HTTP 502): ${WITHHELD}`],
		[
			'a 200 answer whose in-band error is the flat echo',
			'inBandEcho',
			`The assistant could not answer: ${WITHHELD}`,
		],
	])('%s: the item fails saying so, without the echo', async (_what, kind, said) => {
		const run = await ask(`#${kind}#`);
		const error = run.outputs('Assistant')[0].json.error as { message?: string } | string;
		expect(typeof error === 'string' ? error : error.message).toContain(said);
		expect(everythingShown(run)).not.toContain(PRIVATE);
		expect(everythingShown(run)).not.toContain('system-prompt');
	});

	test('text, then a failed run whose error is the echo (Stream on): none of it in the chunks or the item', async () => {
		const run = await ask('#textThenFailedEcho#', { stream: true });
		expect(run.outputs('Assistant')[0].json.error).toBeDefined();
		expect(everythingShown(run)).toContain(WITHHELD);
		expect(everythingShown(run)).not.toContain(PRIVATE);
	});

	test('the Assistant Chat Model: a failed run whose error is the echo', async () => {
		const pkg = await assistantPackage();
		const run = await runChatModel(
			pkg,
			'invoke',
			[{ role: 'user', content: '#failedEcho#' }],
			{},
			{ credentials: [credential()] },
		);
		expect(run.error()).toBeDefined();
		expect(everythingShown(run)).toContain(WITHHELD);
		expect(everythingShown(run)).not.toContain(PRIVATE);
	});
});

test.each([false, true])(
	'the echo flat and renamed, after a BOM, with CRLF and CR, split at every byte (Stream %s): the answer alone',
	async (stream) => {
		const run = await ask('#flatEchoVariants#', { stream });
		const [item] = run.outputs('Assistant');
		expect(item.json.output).toBe('Hello');
		expect(everythingShown(run)).not.toContain(PRIVATE);
	},
);
