/**
 * Ask's structured output (output_format) from each of its sources in a stream
 * (docs/api.md#structured-output-in-a-stream), on the 2026 stream and the other dialects, against
 * a scripted server that replays exact bytes, through the real engine.
 */
import { COMPLETED_SUCCEEDED } from '../emulator/frames2026';
import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import {
	conversationJson,
	refuseRead,
	serveScript,
	sse,
	streamAnswer,
} from '../helpers/scripted-server';
import { partStart } from '../helpers/stream-2026';

const TOKEN = 'tok_structured_sources';
const assistant = useEmulator({ token: TOKEN });

const SCHEMA = JSON.stringify({
	type: 'object',
	properties: { summary: { type: 'string' }, count: { type: 'number' } },
	required: ['summary', 'count'],
});
const metadata = (zmid: string) => ({ zmid, runner_id: 'r-1' });
const textDelta = (index: number, content: string, zmid = 'z1') =>
	sse('PartDeltaEvent', {
		delta: { content_delta: content, part_delta_kind: 'text' },
		event_kind: 'part_delta',
		index,
		metadata: metadata(zmid),
	});
const argsDelta = (index: number, args: unknown, zmid = 'z1', name?: string) =>
	sse('PartDeltaEvent', {
		delta: {
			args_delta: args,
			part_delta_kind: 'tool_call',
			tool_call_id: `call_${index}`,
			tool_name_delta: name ?? null,
		},
		event_kind: 'part_delta',
		index,
		metadata: metadata(zmid),
	});
const call = (name: string, args: unknown, id = 'call_x') => ({
	args,
	part_kind: 'tool-call',
	tool_call_id: id,
	tool_name: name,
});
const completed = sse('completed', COMPLETED_SUCCEEDED);

async function runAgainst(
	body: string,
	options: Record<string, unknown> = {},
	extra: Record<string, unknown> = {},
	/** The conversation read's answer: the turn's response parts, or refused (401). */
	read: unknown[] | 401 = [],
) {
	let asked = '';
	const server = await serveScript(
		(response, _n, requestBody) => {
			asked = String(requestBody?.input);
			streamAnswer(response, 'con_ReviewR3Stream01', body);
		},
		(response) => {
			if (read === 401) {
				refuseRead(response);
				return;
			}
			conversationJson(
				response,
				'idle',
				read.length === 0
					? []
					: [
							{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: asked }] },
							{ kind: 'response', parts: read },
						],
			);
		},
	);
	try {
		const stream = options.stream === true;
		const run = await assistant.run(
			{
				input: 'Summarize',
				responseFormat: 'jsonSchema',
				jsonSchema: SCHEMA,
				options: { retries: 0, ...options },
				...extra,
			},
			{ credentials: [emulatorCredential(server.baseUrl, TOKEN)], streaming: stream },
		);
		return { ...run, asks: server.asks.length };
	} finally {
		await server.close();
	}
}

const A = { summary: 'first', count: 1 };
const B = { summary: 'second', count: 2 };

describe.each([
	['Stream off', { stream: false }],
	['Stream on', { stream: true }],
	['Stream on, Include Steps', { stream: true, includeSteps: true, includeThinking: true }],
])('%s', (_label, options) => {
	test('final_result args as JSON text whole in the PartStartEvent, completed', async () => {
		const run = await runAgainst(
			partStart(0, call('final_result', JSON.stringify(A)), 'z1') + completed,
			options,
		);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
		if (options.stream) {
			expect(
				run.chunks
					.filter((c) => c.type === 'item')
					.map((c) => c.content)
					.join(''),
			).toBe(JSON.stringify(A));
		}
	});

	test('final_result args grown through args_delta split inside strings and unicode escapes', async () => {
		const text = '{"summary": "caf\\u00e9 \\"q\\" \\ud83d\\ude00", "count": 3}';
		const pieces = [
			text.slice(0, 14),
			text.slice(14, 17),
			text.slice(17, 30),
			text.slice(30, 37),
			text.slice(37),
		];
		const body =
			partStart(0, call('final_result', ''), 'z1') +
			pieces.map((p) => argsDelta(0, p)).join('') +
			completed;
		const run = await runAgainst(body, options);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual({ summary: 'café "q" 😀', count: 3 });
	});

	test('after a tool round (indexes restart), a delta for an unseen start grows final_result', async () => {
		const bash = call('bash', '{"cmd": "ls"}', 'call_b');
		const body =
			partStart(0, { part_kind: 'text', content: 'Let me look.' }, 'z1') +
			partStart(1, bash, 'z1') +
			sse('FunctionToolCallEvent', {
				args_valid: true,
				part: bash,
				event_kind: 'function_tool_call',
				metadata: metadata('z1'),
			}) +
			sse('FunctionToolResultEvent', {
				content: null,
				event_kind: 'function_tool_result',
				result: {
					content: 'ok',
					outcome: 'success',
					part_kind: 'tool-return',
					tool_call_id: 'call_b',
					tool_name: 'bash',
				},
				metadata: metadata('z1'),
			}) +
			argsDelta(0, '{"summary": "fir', 'z2', 'final_result') +
			argsDelta(0, 'st", "count": 1}', 'z2') +
			completed;
		const run = await runAgainst(body, options);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
		if ('includeSteps' in options) {
			const steps = run.json.steps as Array<Record<string, unknown>>;
			expect(steps.filter((s) => s.tool_name === 'final_result')).toEqual([]);
		}
	});

	test('End output disagreeing with the tool call: End wins', async () => {
		const body = partStart(0, call('final_result', A), 'z1') + sse('End', { output: B });
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(B);
	});

	test('final_result call followed by text in the same message: the call wins', async () => {
		const body =
			partStart(0, call('final_result', A), 'z1') +
			partStart(1, { part_kind: 'text', content: 'Done! ' }, 'z1') +
			textDelta(1, JSON.stringify(B)) +
			completed;
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(A);
	});

	test('text that is the object in a code fence inside prose', async () => {
		const body =
			partStart(0, { part_kind: 'text', content: 'Here it is:\n```json\n' }, 'z1') +
			textDelta(0, JSON.stringify(A)) +
			textDelta(0, '\n```\nHope this helps.') +
			completed;
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(A);
	});

	test('the object only in a PartStartEvent text part', async () => {
		const run = await runAgainst(
			partStart(0, { part_kind: 'text', content: JSON.stringify(A) }, 'z1') + completed,
			options,
		);
		expect(run.json.output).toEqual(A);
	});

	test('the flat form: End under data with output as JSON text', async () => {
		const body =
			`data: ${JSON.stringify({ type: 'FrontendModelResponse', content: 'thinking aloud' })}\n\n` +
			`data: ${JSON.stringify({ type: 'End', data: { output: JSON.stringify(A), conversation_id: 'con_x' } })}\n\n`;
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(A);
	});

	test('a non-object JSON (array) as the output tool args fails (observation: via the no-answer/recovery path)', async () => {
		const run = await runAgainst(
			partStart(0, call('final_result', '[1, 2]'), 'z1') + completed,
			options,
			{},
			[call('final_result', '[1, 2]')],
		);
		expect(run.failure).toBeDefined();
		expect(run.asks).toBe(1);
	});

	test('a schema mismatch in the tool call names it', async () => {
		const run = await runAgainst(
			partStart(0, call('final_result', { summary: 'x' }), 'z1') + completed,
			options,
		);
		expect(run.failure?.message).toContain('does not match the JSON Schema: count: required');
	});

	test('final_result in a FrontendModelResponse snapshot (parts), End without output; the conversation read refused (401)', async () => {
		const body =
			sse('FrontendModelResponse', { parts: [call('final_result', A)] }) + sse('End', {});
		const run = await runAgainst(body, options, {}, 401);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});

	test('final_result as JSON text in a snapshot, then completed; the conversation read refused (401)', async () => {
		const body =
			sse('FrontendModelResponse', { parts: [call('final_result', JSON.stringify(A))] }) +
			completed;
		const run = await runAgainst(body, options, {}, 401);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});

	test('final_result in a snapshot the conversation also holds: answered from the stream, not recovered', async () => {
		const body =
			sse('FrontendModelResponse', { parts: [call('final_result', JSON.stringify(A))] }) +
			completed;
		const run = await runAgainst(body, options, {}, [call('final_result', JSON.stringify(A))]);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
		expect(run.json.recovered).toBeUndefined();
	});

	test('a snapshot ahead of the args_delta deltas, the rest of them after it: the object once, neither cut nor doubled; the conversation read refused (401)', async () => {
		const text = JSON.stringify(A);
		const body =
			partStart(0, call('final_result', '', 'call_0'), 'z1') +
			argsDelta(0, text.slice(0, 8)) +
			// The framework's response so far, further on than its Part events (whole here).
			sse('FrontendModelResponse', { parts: [call('final_result', text, 'call_0')] }) +
			argsDelta(0, text.slice(8, 20)) +
			argsDelta(0, text.slice(20)) +
			completed;
		const run = await runAgainst(body, options, {}, 401);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});

	test('the output tool part started again naming no tool, its name grown again through tool_name_delta: the object once; the conversation read refused (401)', async () => {
		const text = JSON.stringify(A);
		const grow = (start: Record<string, unknown>) =>
			partStart(0, start, 'z1') +
			argsDelta(0, text.slice(0, 12), 'z1', 'final_') +
			argsDelta(0, text.slice(12), 'z1', 'result');
		const nameless = { args: '', part_kind: 'tool-call', tool_call_id: 'call_0' };
		const body = grow({ ...nameless, tool_name: '' }) + grow(nameless) + completed;
		const run = await runAgainst(body, options, {}, 401);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
		// The output tool is the answer, never a step (docs/api.md#steps).
		if ('includeSteps' in options) expect(run.json.steps).toEqual([]);
	});

	test('two final_result calls: the first is the answer, as pydantic-ai takes it (the second "not used")', async () => {
		const second = call('final_result', JSON.stringify(B), 'call_2');
		const body =
			partStart(0, call('final_result', JSON.stringify(A), 'call_1'), 'z1') +
			partStart(1, second, 'z1') +
			sse('FinalResultEvent', {
				event_kind: 'final_result',
				tool_name: 'final_result',
				tool_call_id: 'call_1',
			}) +
			// pydantic-ai tells the skipped output call and its "not used" return as events
			sse('FunctionToolCallEvent', {
				args_valid: null,
				part: second,
				event_kind: 'function_tool_call',
				metadata: metadata('z1'),
			}) +
			sse('FunctionToolResultEvent', {
				content: null,
				event_kind: 'function_tool_result',
				result: {
					content: 'Output tool not used - a final result was already processed.',
					part_kind: 'tool-return',
					tool_call_id: 'call_2',
					tool_name: 'final_result',
				},
				metadata: metadata('z1'),
			}) +
			completed;
		const run = await runAgainst(body, options);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});

	test('a stray "{" in prose before the object: the last complete object is the answer', async () => {
		const body =
			partStart(
				0,
				{ part_kind: 'text', content: 'Objects open with { and close later. Here: ' },
				'z1',
			) +
			textDelta(0, JSON.stringify(A)) +
			completed;
		const run = await runAgainst(body, options);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});
});

describe('more edges (Stream on)', () => {
	const options = { stream: true };
	test('a cut object in args_delta (never closed) fails, never a partial object', async () => {
		const body =
			partStart(0, call('final_result', ''), 'z1') + argsDelta(0, '{"summary": "fir') + completed;
		const run = await runAgainst(body, options, {}, [call('final_result', '{"summary": "fir')]);
		expect(run.failure).toBeDefined();
	});
	test('start args a first piece, deltas, then PartEndEvent repeating the whole: the object once', async () => {
		const text = JSON.stringify(A);
		const body =
			partStart(0, call('final_result', text.slice(0, 5)), 'z1') +
			argsDelta(0, text.slice(5)) +
			sse('PartEndEvent', {
				event_kind: 'part_end',
				index: 0,
				part: call('final_result', text),
				metadata: metadata('z1'),
			}) +
			completed;
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(A);
		expect(
			run.chunks
				.filter((c) => c.type === 'item')
				.map((c) => c.content)
				.join(''),
		).toBe(JSON.stringify(A));
	});
	test('final_result beside a bash call, the run stops in the tool round: the output call counts', async () => {
		const bash = call('bash', '{}', 'call_b');
		const body =
			partStart(0, call('final_result', A, 'call_f'), 'z1') +
			partStart(1, bash, 'z1') +
			sse('FunctionToolResultEvent', {
				event_kind: 'function_tool_result',
				result: {
					content: 'Tool not executed - a final result was already processed.',
					part_kind: 'tool-return',
					tool_call_id: 'call_b',
					tool_name: 'bash',
				},
				metadata: metadata('z1'),
			}) +
			completed;
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(A);
	});
	test('an object in message 1, text without one after a tool round: fails', async () => {
		const bash = call('bash', '{}', 'call_b');
		const body =
			partStart(0, { part_kind: 'text', content: JSON.stringify(A) }, 'z1') +
			partStart(1, bash, 'z1') +
			sse('FunctionToolCallEvent', {
				part: bash,
				event_kind: 'function_tool_call',
				metadata: metadata('z1'),
			}) +
			sse('FunctionToolResultEvent', {
				event_kind: 'function_tool_result',
				result: {
					content: 'ok',
					part_kind: 'tool-return',
					tool_call_id: 'call_b',
					tool_name: 'bash',
				},
				metadata: metadata('z1'),
			}) +
			partStart(0, { part_kind: 'text', content: 'All done.' }, 'z2') +
			completed;
		const run = await runAgainst(body, options, {}, [{ part_kind: 'text', content: 'All done.' }]);
		expect(run.failure?.message).toMatch(/did not return an object|not whole/);
	});
	test('a PartStartEvent again for the same index of the same zmid: its args replace the part’s', async () => {
		const body =
			partStart(0, call('final_result', JSON.stringify(A)), 'z1') +
			partStart(0, call('final_result', JSON.stringify(B)), 'z1') +
			completed;
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(B);
	});
	test('the output tool part started again (same index, same zmid) and its deltas told again: the object once', async () => {
		const text = JSON.stringify(A);
		const grow =
			partStart(0, call('final_result', ''), 'z1') +
			argsDelta(0, text.slice(0, 12)) +
			argsDelta(0, text.slice(12));
		const body = grow + grow + completed;
		const run = await runAgainst(body, options, {}, 401);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});
	test('a text part started again and told again is taken once, as the output tool part is', async () => {
		const text = JSON.stringify(A);
		const grow =
			partStart(0, { part_kind: 'text', content: '' }, 'z1') +
			textDelta(0, text.slice(0, 12)) +
			textDelta(0, text.slice(12));
		const run = await runAgainst(grow + grow + completed, options, {}, 401);
		expect(run.failure).toBeUndefined();
		expect(run.json.output).toEqual(A);
	});
	test('mixed: documented content deltas of the JSON plus End without output', async () => {
		const text = JSON.stringify(A);
		const body =
			sse('FrontendModelResponse', { content: text.slice(0, 10) }) +
			sse('FrontendModelResponse', { content: text.slice(10) }) +
			sse('End', {});
		const run = await runAgainst(body, options);
		expect(run.json.output).toEqual(A);
		expect(
			run.chunks
				.filter((c) => c.type === 'item')
				.map((c) => c.content)
				.join(''),
		).toBe(text);
	});
});
