/**
 * The Ask node in n8n's engine against the stream the live service sent in 2026: the emulator's
 * 2026 dialect (its default) and the captures replayed byte for byte (`#replay=`, whole and cut
 * anywhere), Stream on and off, Include Steps on: the answer whole, each ask sent once, and the
 * request echo's private text nowhere (docs/api.md#2026-stream-dialect).
 */
import fs from 'node:fs';
import path from 'node:path';

import { parseEvents } from '../../scripts/live-check/signatures';
import { COMPLETED_SUCCEEDED } from '../emulator/frames2026';
import { ECHO_PRIVATE_MARKER } from '../emulator/server';
import { emulatorCredential } from '../helpers/assistant';
import { useEmulator, type AssistantRun } from '../helpers/emulatorFixture';
import { conversationJson, serveScript, sse, streamAnswer, turn } from '../helpers/scripted-server';
import { partStart } from '../helpers/stream-2026';

const TOKEN = 'tok_stream_2026_suite';
const assistant = useEmulator({ token: TOKEN });

const CAPTURES = path.join(__dirname, '..', 'fixtures', 'captures');

/** A capture's answer as docs/api.md reads it: the text of its last response's text parts. */
function captureAnswer(name: string): string {
	const events = parseEvents(fs.readFileSync(path.join(CAPTURES, `${name}.sse`), 'utf8'));
	const texts = new Map<string, string>();
	for (const { event, data } of events) {
		const d = data as Record<string, Record<string, string>>;
		const key = `${d.metadata?.zmid}/${String(d.index)}`;
		if (event === 'PartStartEvent' && d.part.part_kind === 'text') texts.set(key, d.part.content);
		if (event === 'PartDeltaEvent' && d.delta.part_delta_kind === 'text') {
			texts.set(key, (texts.get(key) ?? '') + d.delta.content_delta);
		}
	}
	return [...texts.values()].join('');
}

/** Nothing the run gave (items, chunks, log lines, its error) holds the echo's private text. */
function expectNoEcho(run: AssistantRun): void {
	const everything = JSON.stringify({
		items: run.failure ? [] : run.outputs('Ask').map((item) => item.json),
		chunks: run.chunks,
		logs: run.logs,
		failure: run.failure ?? null,
	});
	expect(everything).not.toContain(ECHO_PRIVATE_MARKER);
	expect(everything).not.toContain('workspace_file');
}

/**
 * The ask of "Hi" with `retries`, against a server that answers it with `status`, `headers` and
 * `body`, and whose conversation reads answer idle and empty; closed after: the run, and the
 * requests the server got.
 */
async function runAgainstResponse(
	status: number,
	headers: Record<string, string>,
	body: string,
	retries: number,
): Promise<AssistantRun & { paths: string[] }> {
	const server = await serveScript(
		(response) => {
			response.writeHead(status, headers);
			response.end(body);
		},
		(response) => conversationJson(response, 'idle', []),
	);
	try {
		const run = await assistant.run(
			{ input: 'Hi', options: { retries } },
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)] },
		);
		return Object.assign(run, { paths: server.paths });
	} finally {
		await server.close();
	}
}

describe.each([false, true])('Stream %s, Include Steps on', (stream) => {
	const options = { stream, includeSteps: true, includeThinking: true };

	test('the 2026 dialect: the answer, sent once, no echo anywhere', async () => {
		const input = `Plan my week (${String(stream)})`;
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toBe(
			`[model=anthropic:claude-haiku-4-5-20251001 persona=persona_general] You said: "${input}".`,
		);
		expect(run.json.conversation_id).toMatch(/^con_[A-Za-z0-9]{16}$/);
		expect(assistant.emulator.stats.startedAsks.get(input)).toBe(1);
		expect(assistant.askRequests()).toHaveLength(1);
		expectNoEcho(run);
		if (stream) expect(run.chunks.length).toBeGreaterThan(3);
	});

	test('an event of the answer cut short on the wire: the whole answer from its conversation, sent once, no echo', async () => {
		const input = `Plan my week (${String(stream)}) #fault=unreadable-event`;
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure).toBeUndefined();
		expect(run.json).toMatchObject({ output: expect.stringContaining(input), recovered: true });
		if (stream) {
			const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
			expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(run.json.output);
		}
		expect(assistant.emulator.stats.startedAsks.get(input)).toBe(1);
		expect(assistant.askRequests()).toHaveLength(1);
		expectNoEcho(run);
	});

	test('a tool round: the call, its result with outcome, the answer after it', async () => {
		const input = `What is new in my mail? (${String(stream)})`;
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure).toBeUndefined();
		expect(String(run.json.output)).toContain(`You said: "${input}"`);
		const steps = run.json.steps as Array<Record<string, unknown>>;
		const tools = steps.filter((step) => step.type !== 'thinking');
		expect(tools).toEqual([
			expect.objectContaining({
				type: 'tool_call',
				tool_name: 'search_mail',
				args: { query: input },
			}),
			expect.objectContaining({
				type: 'tool_result',
				tool_name: 'search_mail',
				outcome: 'success',
			}),
		]);
		expect(assistant.askRequests()).toHaveLength(1);
		expectNoEcho(run);
	});

	test.each([
		['2026-08-09-summarize', ''],
		['2026-08-09-summarize', '&split=random&seed=5'],
		['2026-08-09-research', '&split=random&seed=9'],
	])('the capture %s%s replayed: its whole answer, first pieces included', async (name, split) => {
		const input = `Summarize #replay=${name}${split}`;
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure).toBeUndefined();
		const answer = captureAnswer(name);
		expect(answer.length).toBeGreaterThan(400);
		// The research turn's first response has no text: its answer is the second's.
		expect(run.json.output).toBe(answer);
		expect(run.json.conversation_id).toMatch(/^con_/);
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test('the failed capture: the service’s words, not "incomplete", not sent again', async () => {
		const input = 'Hello #replay=2026-08-19-failed-unknown-model&split=random&seed=2';
		const run = await assistant.run({ input, options }, { streaming: stream });
		expect(run.failure?.message).toContain('Unknown model: nonexistent-model-xyz');
		expect(run.failure?.message).not.toMatch(/ended before the answer was complete/);
		expect(assistant.askRequests()).toHaveLength(1);
	});

	test('an unknown model in the 2026 dialect: the failed run, once', async () => {
		const input = `Hi there (${String(stream)})`;
		const run = await assistant.run(
			{ input, options, model: { __rl: true, mode: 'id', value: 'nonexistent-model-xyz' } },
			{ streaming: stream },
		);
		expect(run.failure?.message).toContain('Unknown model: nonexistent-model-xyz');
		expect(assistant.emulator.stats.startedAsks.get(input)).toBe(1);
		expectNoEcho(run);
	});
});

test('a JSON Schema answer as the output tool’s arguments (the 2026 dialect’s default)', async () => {
	const schema = {
		type: 'object',
		properties: { summary: { type: 'string' }, count: { type: 'number' } },
		required: ['summary', 'count'],
	};
	const run = await assistant.run({
		input: 'Count the apples',
		responseFormat: 'jsonSchema',
		jsonSchema: JSON.stringify(schema),
		options: { stream: true },
	});
	expect(run.failure).toBeUndefined();
	expect(run.json.output).toEqual({ summary: 'Count the apples', count: 42 });
	expectNoEcho(run);
});

describe('a stream sent under an error status or as another type: its events named, their data never shown', () => {
	const body =
		`event: FrontendModelRequest\ndata: {"workspace_file": "${ECHO_PRIVATE_MARKER}"}\n\n` +
		'event: PartStartEvent\ndata: {"index": 0, "part": {"part_kind": "text", "content": "Hi"}}\n\n' +
		'event: completed\ndata: {"status": "succeeded"}\n\n';

	test.each([
		[500, 'text/event-stream'],
		[200, 'application/json'],
		[400, 'text/plain'],
	])('HTTP %s as %s', async (status, type) => {
		const run = await runAgainstResponse(status, { 'content-type': type }, body, 0);
		expect(run.failure?.message).toContain(
			'an event stream (its events: PartStartEvent, completed; their data is not shown)',
		);
		expectNoEcho(run);
	});
});

describe('a 2xx response that carried no event (docs/api.md#how-a-stream-ends): said so, by its Content-Type when it is no event stream, sent once', () => {
	test.each([
		[
			'a web page (a Base URL that points at a website)',
			{ 'content-type': 'text/html; charset=utf-8' },
			'<!doctype html><html><body><div id="app"></div></body></html>',
			'The stream ended before the answer was complete; it carried no event (Content-Type text/html; charset=utf-8)',
			/check that the credential's Base URL points at the Assistant API/,
		],
		[
			'a body without a Content-Type',
			{},
			'Hello there\n',
			'The stream ended before the answer was complete; it carried no event (no Content-Type)',
			/check that the credential's Base URL points at the Assistant API/,
		],
		[
			'an event stream of keep-alive comments alone',
			{ 'content-type': 'text/event-stream' },
			': keep-alive\n\n: keep-alive\n\n',
			'The stream ended before the answer was complete; it carried no event',
			/closed the stream before sending anything of the answer/,
		],
	])('%s', async (_, headers: Record<string, string>, body, message, description) => {
		const run = await runAgainstResponse(200, headers, body, 2);
		expect(run.failure?.message).toBe(message);
		expect(run.failure?.description).toMatch(description);
		// A 2xx: the ask may have been taken, and no conversation is known to read it from.
		expect(run.paths).toEqual(['POST /assistant/ask']);
	});
});

test('an error status whose event stream holds a long echo before its error event: the error’s words, no echo', async () => {
	// Far past the 64 KiB an error body keeps: the echo's data is dropped as it streams.
	const echo = `event: FrontendModelRequest\ndata: {"workspace_file": "${ECHO_PRIVATE_MARKER} ${'x'.repeat(300 * 1024)}"}\n\n`;
	const run = await runAgainstResponse(
		500,
		{ 'content-type': 'text/event-stream' },
		`${echo}event: failed\ndata: {"status": "failed", "error": "Unknown model: acme:large", "error_type": "UserError"}\n\n`,
		0,
	);
	expect(run.failure?.message).toMatch(/HTTP 500/);
	expect(run.failure?.message).toContain('Unknown model: acme:large');
	expectNoEcho(run);
});

describe('2026 streams a scripted server sends, Stream off and on', () => {
	const metadata = (zmid: string) => ({ zmid, runner_id: 'r-1' });
	const partDelta = (index: number, kind: string, content: string, zmid = 'z1') =>
		sse('PartDeltaEvent', {
			delta: { content_delta: content, part_delta_kind: kind },
			event_kind: 'part_delta',
			index,
			metadata: metadata(zmid),
		});
	const completed = sse('completed', COMPLETED_SUCCEEDED);
	/** A built-in tool's call and return, parts of the response that ran it. */
	const webSearch = { part_kind: 'builtin-tool-call', tool_name: 'web_search', args: '{}' };
	const webPage = { part_kind: 'builtin-tool-return', tool_name: 'web_search', content: 'a page' };

	/**
	 * The ask run (streaming workflow) against a server that streams `body` and whose conversation
	 * reads answer idle with `messages`, closed after: what the run gave, and how many asks it sent.
	 */
	async function runAgainst(
		body: string,
		parameters: Parameters<typeof assistant.run>[0],
		messages: unknown[] = [],
	) {
		const server = await serveScript(
			(response) => streamAnswer(response, 'con_Scripted2026Str01', body),
			(response) => conversationJson(response, 'idle', messages),
		);
		try {
			const run = await assistant.run(parameters, {
				credentials: [emulatorCredential(server.baseUrl, TOKEN)],
				streaming: true,
			});
			return { ...run, asks: server.asks.length };
		} finally {
			await server.close();
		}
	}

	describe('a JSON Schema answer that does not match the schema fails the item, quoting it (docs/api.md#structured-output-in-a-stream)', () => {
		const schema = JSON.stringify({
			type: 'object',
			properties: { summary: { type: 'string' }, score: { type: 'number' } },
			required: ['summary', 'score'],
		});
		test.each([
			[
				'End output without the required fields',
				sse('End', { output: { foo: 1 } }),
				'summary: required; score: required',
			],
			[
				'End output of the wrong types',
				sse('End', { output: { summary: 5, score: 'high' } }),
				'summary: expected string, got number; score: expected number, got string',
			],
			[
				'an object the assistant only quoted in its refusal',
				partStart(
					0,
					{
						part_kind: 'text',
						content: 'I cannot do that. An example would be {"note": "n/a"}',
					},
					'z1',
				) + completed,
				'summary: required; score: required',
			],
		])('%s', async (_name, body, problems) => {
			const run = await runAgainst(body, {
				input: 'Summarize',
				responseFormat: 'jsonSchema',
				jsonSchema: schema,
				options: { retries: 0 },
			});
			expect(run.failure?.message).toContain(
				`The assistant's answer does not match the JSON Schema: ${problems}`,
			);
			expect(run.failure?.description).toMatch(/^Its answer begins "\{/);
			expect(run.asks).toBe(1);
		});

		test('a matching answer, an optional field null, is the output', async () => {
			const optional = JSON.stringify({
				type: 'object',
				properties: { summary: { type: 'string' }, note: { type: 'string' } },
				required: ['summary'],
			});
			const run = await runAgainst(sse('End', { output: { summary: 'Done.', note: null } }), {
				input: 'Summarize',
				responseFormat: 'jsonSchema',
				jsonSchema: optional,
			});
			expect(run.failure).toBeUndefined();
			expect(run.json.output).toEqual({ summary: 'Done.', note: null });
		});
	});

	describe.each([false, true])('Stream %s', (stream) => {
		test('a snapshot of the response after a tool round, just before its Part events: its text and thinking once', async () => {
			const call = {
				args: '{"q": "x"}',
				part_kind: 'tool-call',
				tool_call_id: 'call_1',
				tool_name: 'search_mail',
			};
			const result = {
				content: 'none',
				metadata: null,
				outcome: 'success',
				part_kind: 'tool-return',
				timestamp: 't',
				tool_call_id: 'call_1',
				tool_name: 'search_mail',
			};
			const body =
				partStart(0, { part_kind: 'text', content: 'Let me check.' }, 'z1') +
				partStart(1, call, 'z1') +
				sse('FunctionToolCallEvent', { args_valid: true, part: call, metadata: metadata('z1') }) +
				sse('FunctionToolResultEvent', { content: null, result, metadata: metadata('z1') }) +
				sse('FrontendModelResponse', {
					parts: [
						{ part_kind: 'thinking', content: 'Nothing new.' },
						{ part_kind: 'text', content: 'No new mail.' },
					],
				}) +
				partStart(0, { part_kind: 'thinking', content: 'Nothing' }, 'z2') +
				partDelta(0, 'thinking', ' new.', 'z2') +
				partStart(1, { part_kind: 'text', content: 'No new' }, 'z2') +
				partDelta(1, 'text', ' mail.', 'z2') +
				completed;
			const options = { stream, includeSteps: true, includeThinking: true };
			const run = await runAgainst(body, { input: 'Mail?', options });
			expect(run.failure).toBeUndefined();
			const answer = 'Let me check.\n\nNo new mail.';
			expect(run.json.output).toBe(answer);
			const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
			expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(answer);
			const steps = run.json.steps as Array<Record<string, unknown>>;
			expect(steps.filter((step) => step.type === 'thinking')).toEqual([
				expect.objectContaining({ content: 'Nothing new.' }),
			]);
			expect(run.asks).toBe(1);
		});

		test('text parts a built-in tool separates within one response: two paragraphs, each piece once', async () => {
			const body =
				partStart(0, { part_kind: 'text', content: 'Let me search' }, 'z1') +
				partDelta(0, 'text', ' the web.') +
				partStart(1, webSearch, 'z1') +
				partStart(2, webPage, 'z1') +
				partStart(3, { part_kind: 'text', content: 'Found' }, 'z1') +
				partDelta(3, 'text', ' it.') +
				completed;
			const run = await runAgainst(body, { input: 'Search?', options: { stream } });
			expect(run.failure).toBeUndefined();
			const answer = 'Let me search the web.\n\nFound it.';
			expect(run.json.output).toBe(answer);
			const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
			expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(answer);
			expect(run.asks).toBe(1);
		});

		test('cut off in the paragraph after a built-in tool: the answer from the conversation goes on from what went out', async () => {
			const input = `Search and tell (${String(stream)})`;
			const body =
				partStart(0, { part_kind: 'text', content: 'Let me search.' }, 'z1') +
				partStart(1, webSearch, 'z1') +
				partStart(2, webPage, 'z1') +
				partStart(3, { part_kind: 'text', content: 'Found' }, 'z1');
			const response = {
				kind: 'response',
				parts: [
					{ part_kind: 'text', content: 'Let me search.' },
					webSearch,
					webPage,
					{ part_kind: 'text', content: 'Found it.' },
				],
			};
			const run = await runAgainst(body, { input, options: { stream } }, [
				...turn(input),
				response,
			]);
			expect(run.failure).toBeUndefined();
			const answer = 'Let me search.\n\nFound it.';
			expect(run.json).toMatchObject({ output: answer, recovered: true });
			const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
			expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(answer);
			expect(run.asks).toBe(1);
		});

		test('a builtin tool call started again (same index, same zmid) naming no tool, its name grown again through tool_name_delta: one step, its name once', async () => {
			const toolDelta = (name: string, args: string) =>
				sse('PartDeltaEvent', {
					delta: {
						args_delta: args,
						part_delta_kind: 'tool_call',
						tool_call_id: 'b1',
						tool_name_delta: name,
					},
					event_kind: 'part_delta',
					index: 0,
					metadata: metadata('z1'),
				});
			const nameless = { args: '', part_kind: 'builtin-tool-call', tool_call_id: 'b1' };
			const grow = (start: Record<string, unknown>) =>
				partStart(0, start, 'z1') + toolDelta('web_', '{"q": ') + toolDelta('search', '"weather"}');
			// The provider ran it: its return is a part of the same response, no tool event.
			const result = {
				content: 'sunny',
				part_kind: 'builtin-tool-return',
				tool_call_id: 'b1',
				tool_name: 'web_search',
			};
			const body =
				grow({ ...nameless, tool_name: '' }) +
				grow(nameless) +
				partStart(1, result, 'z1') +
				partStart(2, { part_kind: 'text', content: 'It is sunny.' }, 'z1') +
				completed;
			const options = { stream, includeSteps: true };
			const run = await runAgainst(body, { input: 'Weather?', options });
			expect(run.failure).toBeUndefined();
			expect(run.json.output).toBe('It is sunny.');
			const ids = { tool_name: 'web_search', tool_call_id: 'b1' };
			expect(run.json.steps).toEqual([
				{ type: 'tool_call', ...ids, args: { q: 'weather' } },
				{ type: 'tool_result', ...ids, content: 'sunny' },
			]);
			expect(run.asks).toBe(1);
		});

		test.each(['SUCCEEDED', 'Succeeded'])(
			'`completed` with status %j: the answer, asked once (docs/api.md#how-a-stream-ends)',
			async (status) => {
				const body =
					partStart(0, { part_kind: 'text', content: 'All' }, 'z1') +
					partDelta(0, 'text', ' done.') +
					sse('completed', { ...COMPLETED_SUCCEEDED, status });
				const run = await runAgainst(body, { input: 'Done?', options: { stream, retries: 2 } });
				expect(run.failure).toBeUndefined();
				expect(run.json.output).toBe('All done.');
				const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
				expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe('All done.');
				expect(run.asks).toBe(1);
			},
		);

		describe('a model message with no text that ended in a builtin tool call, then the next one told by its snapshot before its Part events: its text once', () => {
			const call = {
				part_kind: 'builtin-tool-call',
				tool_name: 'web_search',
				args: { q: 'weather' },
				tool_call_id: 'b1',
			};
			const snapshot = (...parts: unknown[]) => sse('FrontendModelResponse', { parts });
			const text = { part_kind: 'text', content: 'It is sunny.' };
			const thinking = { part_kind: 'thinking', content: 'Found.' };
			test.each([
				[
					'live Part events, End',
					sse('PartStartEvent', { index: 0, part: call }) +
						snapshot(text) +
						sse('PartStartEvent', { index: 0, part: text }) +
						sse('End', {}),
				],
				[
					'live Part events, then a 2026 response',
					sse('PartStartEvent', { index: 0, part: call }) +
						snapshot(thinking, text) +
						partStart(0, thinking, 'z2') +
						partStart(1, text, 'z2') +
						completed,
				],
			])('%s', async (_name, body) => {
				const run = await runAgainst(body, { input: 'Weather?', options: { stream, retries: 0 } });
				expect(run.failure).toBeUndefined();
				expect(run.json.output).toBe('It is sunny.');
				const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
				expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe('It is sunny.');
				expect(run.asks).toBe(1);
			});
		});

		describe('content deltas one piece behind the Part events, past the tool call: every piece once', () => {
			// The documented `content` deltas tell the first response's text as its Part events do,
			// one piece behind: " check." comes after the tool-call part started.
			const call = { args: '', part_kind: 'tool-call', tool_call_id: 'call_1', tool_name: 'bash' };
			const firstResponse =
				partStart(0, { part_kind: 'text', content: 'Let me' }, 'z1') +
				sse('FrontendModelResponse', { content: 'Let me' }) +
				partDelta(0, 'text', ' check.') +
				partStart(1, call, 'z1') +
				sse('FrontendModelResponse', { content: ' check.' }) +
				sse('FunctionToolCallEvent', {
					args_valid: true,
					event_kind: 'function_tool_call',
					part: { ...call, args: '{"cmd": "ls"}' },
					metadata: metadata('z1'),
				}) +
				sse('FunctionToolResultEvent', {
					content: null,
					event_kind: 'function_tool_result',
					result: {
						content: 'ok',
						metadata: null,
						outcome: 'success',
						part_kind: 'tool-return',
						timestamp: 't',
						tool_call_id: 'call_1',
						tool_name: 'bash',
					},
					metadata: metadata('z1'),
				});
			const thinkingResponse = partStart(
				0,
				{ part_kind: 'thinking', content: 'Nothing more to say.', id: 'reasoning_content' },
				'z2',
			);

			test.each([
				[
					'the run completes right after the tool round',
					firstResponse + completed,
					'Let me check.',
				],
				[
					'the response after the round only thinks',
					firstResponse + thinkingResponse + completed,
					'Let me check.',
				],
				[
					'the response after the round thinks, then writes "Done." as content',
					firstResponse +
						thinkingResponse +
						sse('FrontendModelResponse', { content: 'Done.' }) +
						completed,
					'Let me check.\n\nDone.',
				],
			])(
				'%s: the output and the streamed pieces hold each piece once',
				async (_n, body, answer) => {
					const run = await runAgainst(body, {
						input: 'Check it',
						options: { stream, retries: 0 },
					});
					expect(run.failure).toBeUndefined();
					expect(run.json.output).toBe(answer);
					const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
					expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(answer);
					expect(run.asks).toBe(1);
				},
			);
		});

		test('an Error event whose `error` is an object: the service’s words, sent once', async () => {
			const body =
				partStart(0, { part_kind: 'text', content: 'Working' }, 'z1') +
				sse('Error', { error: { message: 'Upstream model overloaded', type: 'overloaded_error' } });
			const run = await runAgainst(body, { input: 'Hi', options: { stream, retries: 2 } });
			expect(run.failure?.message).toBe(
				'The assistant reported an error: Upstream model overloaded',
			);
			expect(run.asks).toBe(1);
		});

		test('a `completed` with no status that names a failure class and kind: the item fails, the text before it is no answer, sent once', async () => {
			const body =
				partStart(0, { part_kind: 'text', content: 'Partial' }, 'z1') +
				sse('completed', {
					status: null,
					error: null,
					runner_id: null,
					error_type: 'ProviderError',
					failure_owner: 'provider',
					failure_kind: 'provider_error',
				});
			const run = await runAgainst(body, { input: 'Hi', options: { stream, retries: 2 } });
			expect(run.json?.output).toBeUndefined();
			expect(run.failure?.message).toBe(
				"The assistant's run failed: ProviderError, provider_error",
			);
			expect(run.asks).toBe(1);
		});

		test('an unknown end event, the stream closes, the conversation does not show the ask: the error still names the event, never its data', async () => {
			// Stream on: part of the answer went out (the workflow would get it twice); off: the
			// response had begun. Either way the ask is not sent again.
			const body =
				partStart(0, { part_kind: 'text', content: 'Half an answer' }, 'z1') +
				sse('run_finished', { status: 'succeeded', secret: ECHO_PRIVATE_MARKER });
			const run = await runAgainst(body, { input: 'Hi', options: { stream, retries: 2 } }, []);
			// The stream closed without an end, and the error says so (it did not break off).
			expect(run.failure?.message).toMatch(
				stream
					? /^The stream ended before the answer was complete, and conversation \S+ does not show this ask/
					: /^The stream ended before the answer was complete, and conversation \S+ does not show the ask/,
			);
			// Part of the answer went out: the service took the ask, so the advice is to look first.
			if (stream) expect(run.failure?.description).toMatch(/look at the conversation/);
			expect(run.failure?.message).toContain(
				'the stream carried events this node does not know: run_finished',
			);
			expect(run.failure?.description).toMatch(/report these event names/);
			expect(JSON.stringify([run.failure, run.chunks, run.logs])).not.toContain(
				ECHO_PRIVATE_MARKER,
			);
			expect(run.asks).toBe(1);
		});

		test('events this node does not know, then `completed` without an answer: the error names them, never their data; an answer in the conversation is taken; the ask is sent once', async () => {
			// A service that renamed the events of its text, and still ends its stream.
			const body = sse('TextChunk', { text: 'Hello', secret: ECHO_PRIVATE_MARKER }) + completed;
			const input = `Hi (${String(stream)}, renamed)`;
			const none = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
				...turn(input),
			]);
			expect(none.json?.output).toBeUndefined();
			expect(none.failure?.message).toBe(
				'The assistant finished without an answer (conversation con_Scripted2026Str01); it carried events this node does not know: TextChunk',
			);
			expect(none.failure?.description).toMatch(/report these event names/);
			const unshown = await runAgainst(body, { input, options: { stream, retries: 2 } }, []);
			expect(unshown.failure?.message).toBe(
				'The assistant finished without an answer, and conversation con_Scripted2026Str01 does not show the ask; the stream carried events this node does not know: TextChunk',
			);
			const found = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
				...turn(input, 'Hello'),
			]);
			expect(found.failure).toBeUndefined();
			expect(found.json).toMatchObject({ output: 'Hello', recovered: true });
			for (const run of [none, unshown, found]) {
				expect(run.logs).toContainEqual(expect.stringContaining('does not know: "TextChunk"'));
				expect(JSON.stringify([run.failure, run.json, run.chunks, run.logs])).not.toContain(
					ECHO_PRIVATE_MARKER,
				);
				expect(run.asks).toBe(1);
			}
		});

		test('parts and runtime chunks of kinds this node does not know, then `completed` without an answer: the error names the kinds, never the data; sent once', async () => {
			// A service that renamed the kind of its text parts and told the text in runtime chunks.
			const body =
				sse('AgentRuntimeStreamChunk', {
					type: 'delta',
					delta: ECHO_PRIVATE_MARKER,
					error: null,
				}) +
				partStart(0, { part_kind: 'output', content: ECHO_PRIVATE_MARKER }, 'z1') +
				completed;
			const input = `Hi (${String(stream)}, renamed kinds)`;
			const run = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
				...turn(input),
			]);
			expect(run.failure?.message).toBe(
				'The assistant finished without an answer (conversation con_Scripted2026Str01); it carried events this node does not know: AgentRuntimeStreamChunk (type delta), PartStartEvent (part_kind output)',
			);
			expect(run.logs).toContainEqual(
				expect.stringContaining('does not know: "AgentRuntimeStreamChunk (type delta)"'),
			);
			expect(JSON.stringify([run.failure, run.json, run.chunks, run.logs])).not.toContain(
				ECHO_PRIVATE_MARKER,
			);
			expect(run.asks).toBe(1);
		});

		describe('a text delta whose data cannot be read (docs/api.md#how-a-stream-ends)', () => {
			const body =
				partStart(0, { part_kind: 'text', content: 'The meeting' }, 'z1') +
				// Its JSON cut short: the words it carried are not known.
				'event: PartDeltaEvent\ndata: {"delta": {"content_delta": " moved to\n\n' +
				partDelta(0, 'text', ' Friday.') +
				completed;

			test('the answer is read from the conversation, whole, the ask sent once', async () => {
				const input = `When is the meeting? (${String(stream)})`;
				const answer = 'The meeting moved to Friday.';
				const run = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
					...turn(input, answer),
				]);
				expect(run.failure).toBeUndefined();
				expect(run.json.output).toBe(answer);
				// Streamed, no piece went out after the event: the answer goes on from what did
				// (docs/api.md#recovery-after-a-failure), each word once.
				const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
				expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(answer);
				if (stream) expect(String(pieces[0].content)).toBe('The meeting');
				// n8n's log says what was seen, the event's name, never its data.
				const told = run.logs.filter((line) => line.includes('could not read'));
				expect(told).toEqual([
					expect.stringContaining(
						'the service\'s stream carried a "PartDeltaEvent" event whose data this node could not read',
					),
				]);
				expect(told[0]).not.toContain('moved to');
				expect(run.asks).toBe(1);
			});

			test('without the answer in the conversation, the item fails naming the event, never the text cut', async () => {
				const input = `When is the meeting? (${String(stream)}, none)`;
				const run = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
					...turn(input),
				]);
				expect(run.json?.output).toBeUndefined();
				expect(run.failure?.message).toMatch(
					/^The assistant finished without an answer \(conversation con_Scripted2026Str01\): The stream carried events this node could not read: PartDeltaEvent$/,
				);
				expect(run.asks).toBe(1);
			});
		});

		test('text in a delta of a kind this node does not know: the answer is read from the conversation, the kind named', async () => {
			const input = `When is the meeting? (${String(stream)}, renamed kind)`;
			const answer = 'The meeting moved to Friday.';
			const body =
				partStart(0, { part_kind: 'text', content: 'The meeting' }, 'z1') +
				partDelta(0, 'output_text', ' moved to') +
				partDelta(0, 'text', ' Friday.') +
				completed;
			const run = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
				...turn(input, answer),
			]);
			expect(run.failure).toBeUndefined();
			expect(run.json).toMatchObject({ output: answer, recovered: true });
			const pieces = run.chunks.filter((chunk) => chunk.type === 'item');
			expect(pieces.map((chunk) => String(chunk.content)).join('')).toBe(answer);
			expect(run.logs).toContainEqual(
				expect.stringContaining(
					'carried a "PartDeltaEvent (part_delta_kind output_text)" event whose data this node could not read',
				),
			);
			expect(run.asks).toBe(1);
		});

		test('text parts told out of order: the answer is read from the conversation, never cut', async () => {
			const input = `When is the meeting? (${String(stream)}, out of order)`;
			const answer = 'The meeting moved to Friday.';
			// An earlier part grows after a later one has text (docs/api.md#assembling-the-answer, 2).
			const body =
				partStart(0, { part_kind: 'text', content: 'The meeting' }, 'z1') +
				partStart(1, { part_kind: 'text', content: ' to Friday.' }, 'z1') +
				partDelta(0, 'text', ' moved') +
				completed;
			const run = await runAgainst(body, { input, options: { stream, retries: 2 } }, [
				...turn(input, answer),
			]);
			expect(run.failure).toBeUndefined();
			expect(run.json).toMatchObject({ output: answer, recovered: true });
			expect(run.logs).toContainEqual(
				expect.stringContaining(
					'carried a "PartDeltaEvent (text out of place)" event whose data this node could not read',
				),
			);
			expect(run.asks).toBe(1);
		});
	});
});
