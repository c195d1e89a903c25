/**
 * The stream's last event without the blank line that ends it (docs/api.md#how-a-stream-ends),
 * through the Ask node in n8n's engine, Stream off and on: a scripted server writes a turn and
 * ends the body right after that event's `data:` line, closing it or resetting the connection.
 * Its conversation read is refused (401, as the live service answered one kind of token on
 * 2026-09-20), so that only the stream can answer. A terminal event whose data is whole JSON
 * ends the stream however the server ended the body, in every dialect and in the flat form; any
 * other last event, or one cut inside its data, leaves the stream incomplete: never an answer.
 * Where the node hangs up itself (Idle Timeout, Timeout), the event could go on: it is not read.
 */
import type * as http from 'node:http';

import { COMPLETED_SUCCEEDED, failureData } from '../emulator/frames2026';
import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { refuseRead, serveScript, sse } from '../helpers/scripted-server';

const TOKEN = 'tok_stream_last_event_suite';
const assistant = useEmulator({ token: TOKEN, conversationRetryAfterMs: 20 });

const ANSWER = 'Here is the answer.';
const metadata = { zmid: 'z1aaaaaaaaaa', runner_id: 'r-1' };

/** The run dispatched, then the answer in a text part's start and deltas (2026 dialect). */
const turn =
	sse('AgentRuntimeStreamChunk', { type: 'status', status: 'dispatching', runner_id: null }) +
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { content: 'Here ', id: null, part_kind: 'text' },
		previous_part_kind: null,
		metadata,
	}) +
	['is the ', 'answer.']
		.map((piece) =>
			sse('PartDeltaEvent', {
				delta: { content_delta: piece, part_delta_kind: 'text' },
				event_kind: 'part_delta',
				index: 0,
				metadata,
			}),
		)
		.join('');

/** An event in the flat form: no `event:` line, its name in its data (docs/api.md#flat-stream-form). */
const flat = (data: Record<string, unknown>) => `data: ${JSON.stringify(data)}\n\n`;

type Ending = 'closed' | 'reset';

/** The body, then its end: closed as a server ends it, or the connection reset (no last chunk). */
function reply(response: http.ServerResponse, body: string, ending: Ending): void {
	response.writeHead(200, {
		'content-type': 'text/event-stream; charset=utf-8',
		'x-conversation-id': 'con_LastEventCut0001',
	});
	if (ending === 'closed') {
		response.end(body);
		return;
	}
	response.write(body);
	setTimeout(() => response.socket?.destroy(), 30);
}

/** `body` without its last event's blank line; with 'line end', without its data line's end too. */
const cut = (body: string, what: 'blank line' | 'line end') =>
	body.slice(0, what === 'blank line' ? -1 : -2);

/** An ask against a server that sends `body` and ends it so: the run, and how many asks it sent. */
async function ask(body: string, ending: Ending, options: Record<string, unknown>) {
	const server = await serveScript((response) => reply(response, body, ending), refuseRead);
	try {
		const run = await assistant.run(
			{ input: 'Hi', options: { retries: 2, ...options } },
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)], streaming: true },
		);
		const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
		return { run, asks: server.asks.length, streamed: pieces.map((c) => String(c.content)) };
	} finally {
		await server.close();
	}
}

describe.each([false, true])('Stream %s', (stream) => {
	const options = { stream };

	describe.each(['closed', 'reset'] as const)(
		'the body %s right after the last event',
		(ending) => {
			test.each([
				['2026 `completed`', 'blank line', sse('completed', COMPLETED_SUCCEEDED)],
				['2026 `completed`', 'line end', sse('completed', COMPLETED_SUCCEEDED)],
				[
					'2025 `End`, its fields under `data`',
					'blank line',
					sse('End', { data: { output: ANSWER, conversation_id: 'con_LastEventCut0001' } }),
				],
				['documented `End`', 'line end', sse('End', {})],
				['flat `completed`', 'blank line', flat({ type: 'completed', ...COMPLETED_SUCCEEDED })],
				['flat `End`', 'line end', flat({ type: 'End', data: { output: ANSWER } })],
			] as const)(
				'%s whole but for its %s: the answer, each piece once, asked once',
				async (_name, what, end) => {
					const { run, asks, streamed } = await ask(cut(turn + end, what), ending, options);
					expect(run.failure).toBeUndefined();
					expect(run.json.output).toBe(ANSWER);
					expect(streamed.join('')).toBe(ANSWER);
					expect(asks).toBe(1);
				},
			);

			test.each([
				[
					'2026 `failed`',
					sse('failed', failureData('Unknown model: nonexistent-model-xyz')),
					"The assistant's run failed: Unknown model: nonexistent-model-xyz",
				],
				[
					'2026 `completed` with another status',
					sse('completed', failureData('The provider went away', { status: 'cancelled' })),
					"The assistant's run failed: The provider went away",
				],
				[
					'documented `Error`',
					sse('Error', { message: 'Upstream model failed' }),
					'The assistant reported an error: Upstream model failed',
				],
				[
					'2025 `SSEErrorEvent`',
					sse('SSEErrorEvent', { message: 'Upstream model failed', turn_status: 'error' }),
					'The assistant reported an error: Upstream model failed',
				],
				[
					'flat `Error`',
					flat({ type: 'Error', data: { message: 'Upstream model failed' } }),
					'The assistant reported an error: Upstream model failed',
				],
			])(
				'%s whole but for its blank line: the service’s failure, asked once',
				async (_n, end, said) => {
					const { run, asks } = await ask(cut(turn + end, 'blank line'), ending, options);
					expect(run.failure?.message).toContain(said);
					expect(asks).toBe(1);
				},
			);

			test.each([
				[
					'a text delta (whole JSON, but no end)',
					sse('PartDeltaEvent', {
						delta: { content_delta: ' More.', part_delta_kind: 'text' },
						event_kind: 'part_delta',
						index: 0,
						metadata,
					}),
				],
				['an event the node does not know', sse('RunProgress', { step: 3 })],
				['`completed` cut inside its data', sse('completed', COMPLETED_SUCCEEDED).slice(0, -12)],
			])('%s, last: no answer, asked once', async (_name, last) => {
				const { run, asks } = await ask(cut(turn + last, 'blank line'), ending, options);
				expect(run.failure?.message).toMatch(
					ending === 'closed'
						? /^The stream ended before the answer was complete/
						: /^The stream broke off before the answer was complete/,
				);
				expect(run.json.output).toBeUndefined();
				expect(asks).toBe(1);
			});
		},
	);

	/**
	 * The node's own stop, where the server kept the body open: the event could still go on (the
	 * blank line, or another data line), so it is left unread, as a stop leaves what follows.
	 */
	test('`completed` whole but for its blank line, then silence until the node hangs up (Idle Timeout with Stream on, Timeout off): not read', async () => {
		const body = cut(turn + sse('completed', COMPLETED_SUCCEEDED), 'blank line');
		const server = await serveScript((response) => {
			response.writeHead(200, {
				'content-type': 'text/event-stream; charset=utf-8',
				'x-conversation-id': 'con_LastEventCut0001',
			});
			// Nothing more, and the connection kept open: only the node's limit ends the wait.
			response.write(body);
		}, refuseRead);
		// Idle Timeout applies to a stream read piece by piece (Stream on) alone.
		const limit = stream ? { idleTimeoutSeconds: 0.4 } : { timeoutMinutes: 0.01 };
		try {
			const run = await assistant.run(
				{ input: 'Hi', options: { stream, retries: 2, ...limit } },
				{ credentials: [emulatorCredential(server.baseUrl, TOKEN)], streaming: true },
			);
			expect(run.failure?.message).toBe(
				stream
					? 'The stream stalled: no data for 0.4 s'
					: 'The assistant did not answer within 0.6 s',
			);
			expect(run.json.output).toBeUndefined();
			expect(server.asks).toHaveLength(1);
		} finally {
			await server.close();
		}
	});
});
