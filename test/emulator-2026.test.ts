/**
 * The emulator's 2026 dialect against the streams the live service sent in 2026
 * (test/fixtures/captures/, docs/api.md#2026-stream-dialect), over HTTP: the same events with the
 * same fields, in the same order; failed runs; the 2026 errors; and `#replay=`, byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';

import {
	compareSignatures,
	parseEvents,
	signaturesOf,
	type StreamEvent,
} from '../scripts/live-check/signatures';
import { ECHO_PRIVATE_MARKER, type Emulator } from './emulator/server';
import { useEmulator } from './helpers/emulatorFixture';

const CAPTURES = path.join(__dirname, 'fixtures', 'captures');
const capture = (name: string) => fs.readFileSync(path.join(CAPTURES, name));
const captureEvents = (name: string) => parseEvents(capture(name).toString('utf8'));

// The 2026 dialect is the emulator's default; the describe blocks below that need other options
// start their own.
const emulator2026 = useEmulator({ token: 'tok_emulator_2026' });

interface Answer {
	status: number;
	headers: Headers;
	bytes: Buffer;
	text: string;
	events: StreamEvent[];
}

async function ask(
	body: Record<string, unknown>,
	emu: Emulator = emulator2026.emulator,
): Promise<Answer> {
	const response = await fetch(`${emu.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const bytes = Buffer.from(await response.arrayBuffer());
	const text = bytes.toString('utf8');
	return {
		status: response.status,
		headers: response.headers,
		bytes,
		text,
		events: parseEvents(text),
	};
}

const names = (events: StreamEvent[]) => events.map((event) => event.event);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire, read by path
const data = (event: StreamEvent | undefined) => event?.data as Record<string, any>;
/** The events the captures' authors removed are left out of comparisons with them. */
const withoutEcho = (events: StreamEvent[]) =>
	events.filter((event) => event.event !== 'FrontendModelRequest');

/** Each part's text as the stream tells it: its first piece in its start, then its deltas. */
function partTexts(
	events: StreamEvent[],
): Array<{ zmid: string; index: number; kind: string; text: string }> {
	const parts: Array<{ zmid: string; index: number; kind: string; text: string }> = [];
	for (const event of events) {
		const d = data(event);
		if (event.event === 'PartStartEvent') {
			const piece = d.part.content ?? d.part.args ?? '';
			parts.push({ zmid: d.metadata.zmid, index: d.index, kind: d.part.part_kind, text: piece });
		} else if (event.event === 'PartDeltaEvent') {
			let part = parts.find((p) => p.zmid === d.metadata.zmid && p.index === d.index);
			if (!part) {
				part = { zmid: d.metadata.zmid, index: d.index, kind: d.delta.part_delta_kind, text: '' };
				parts.push(part);
			}
			part.text += d.delta.content_delta ?? d.delta.args_delta ?? '';
		}
	}
	return parts;
}

describe('the 2026 dialect is the streams the service sent (test/fixtures/captures/)', () => {
	test('a plain answer: the header, id lines, event order and every field as in the summarize capture', async () => {
		const answer = await ask({ input: 'Summarize the page', stream: true });
		expect(answer.status).toBe(200);
		expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
		expect(answer.headers.get('x-conversation-id')).toMatch(/^con_[A-Za-z0-9]{16}$/);
		const blocks = answer.text.split('\n\n').filter(Boolean);
		for (const block of blocks)
			expect(block).toMatch(/^id: [0-9a-f]{8}@\d{13}-\d+\nevent: \S+\ndata: \{.*\}$/);
		expect(answer.text).not.toContain('\r');

		const events = answer.events;
		const runtime = events.filter((e) => e.event === 'AgentRuntimeStreamChunk').map(data);
		expect(runtime.slice(0, 3).map((d) => d.status ?? d.type)).toEqual([
			'dispatching',
			'persisted',
			'progress',
		]);
		expect(names(events).slice(0, 5)).toEqual([
			'AgentRuntimeStreamChunk',
			'AgentRuntimeStreamChunk',
			'AgentRuntimeStreamChunk',
			'FrontendModelRequest',
			'PartStartEvent',
		]);
		expect(names(events).slice(-2)).toEqual(['AgentRuntimeStreamChunk', 'completed']);
		expect(data(events.at(-2)).type).toBe('persisted');
		expect(data(events.at(-1))).toEqual(data(captureEvents('2026-08-09-summarize.sse').at(-1)));

		const fixture = captureEvents('2026-08-09-summarize.sse');
		// The same run of names (parts collapsed), the same kinds, the same fields on each.
		const runs = (list: StreamEvent[]) => names(list).filter((n, i, all) => n !== all[i - 1]);
		expect(runs(withoutEcho(events))).toEqual(runs(fixture));
		expect(
			compareSignatures(signaturesOf(withoutEcho(events)), signaturesOf(fixture), 'the capture'),
		).toEqual([]);
		expect(
			compareSignatures(signaturesOf(fixture), signaturesOf(withoutEcho(events)), 'the emulator'),
		).toEqual([]);
	});

	test('the answer is the text parts, first pieces included: the same as the JSON answer', async () => {
		const streamed = await ask({ input: 'Say something', stream: true });
		const json = await ask({ input: 'Say something', stream: false });
		const parts = partTexts(streamed.events);
		expect(parts.map((p) => p.kind)).toEqual(['thinking', 'text']);
		expect(parts[1].text).toBe(JSON.parse(json.text).output);
		const textStart = streamed.events.find(
			(e) => e.event === 'PartStartEvent' && data(e).part.part_kind === 'text',
		);
		expect(data(textStart).part.content).toBe('[model=anthropic:claude-haiku-4-5-20251001 ');
		expect(data(textStart).previous_part_kind).toBe('thinking');
	});

	test('a tool round: as in the research capture; the next response has a new zmid and starts again at index 0', async () => {
		const answer = await ask({ input: 'What is new in my mail?', stream: true });
		const fixture = captureEvents('2026-08-09-research.sse');
		const events = withoutEcho(answer.events);
		expect(new Set(names(events))).toEqual(new Set(names(fixture)));
		expect(compareSignatures(signaturesOf(events), signaturesOf(fixture), 'the capture')).toEqual(
			[],
		);
		expect(compareSignatures(signaturesOf(fixture), signaturesOf(events), 'the emulator')).toEqual(
			[],
		);

		const parts = partTexts(answer.events);
		expect(parts.map((p) => `${p.index}:${p.kind}`)).toEqual([
			'0:thinking',
			'1:tool-call',
			'0:thinking',
			'1:text',
		]);
		expect(parts[0].zmid).not.toBe(parts[2].zmid);
		expect(JSON.parse(parts[1].text)).toEqual({ query: 'What is new in my mail?' });
		const call = data(events.find((e) => e.event === 'FunctionToolCallEvent'));
		expect(call.part).toMatchObject({
			tool_name: 'search_mail',
			args: parts[1].text,
			part_kind: 'tool-call',
		});
		const result = data(events.find((e) => e.event === 'FunctionToolResultEvent'));
		expect(result.result).toMatchObject({
			outcome: 'success',
			tool_call_id: call.part.tool_call_id,
		});
		expect(call.part.tool_call_id).toMatch(/^call_[0-9a-f]{24}$/);

		const failedTool = await ask({ input: 'hello #shape=2026+tool-error', stream: true });
		const failedResult = data(failedTool.events.find((e) => e.event === 'FunctionToolResultEvent'));
		expect(failedResult.result.outcome).toBe('error');
		expect(typeof failedResult.result.content).toBe('string');
	});

	test('the conversation holds the turn as the stream told it: text before the tool call only with #shape=2026+tool-lead', async () => {
		/** The stream's text parts, and the text parts of the conversation's responses. */
		const told = async (input: string) => {
			const answer = await ask({ input, stream: true });
			const id = String(answer.headers.get('x-conversation-id'));
			const read = await fetch(`${emulator2026.emulator.baseUrl}/conversations/${id}`, {
				headers: { authorization: `Bearer ${emulator2026.emulator.token}` },
			});
			const { messages } = (await read.json()) as {
				messages: Array<{ kind: string; parts: Array<{ part_kind: string; content: string }> }>;
			};
			return {
				streamed: partTexts(answer.events)
					.filter((part) => part.kind === 'text')
					.map((part) => part.text),
				held: messages
					.filter((message) => message.kind === 'response')
					.map((message) =>
						message.parts.filter((part) => part.part_kind === 'text').map((part) => part.content),
					),
			};
		};
		const plain = await told('What is new in my mail?');
		expect(plain.held).toEqual([[], plain.streamed]);
		const lead = await told('What is new in my mail? #shape=2026+tool-lead');
		expect(lead.streamed[0]).toBe('Let me look that up.');
		expect(lead.held).toEqual([[lead.streamed[0]], [lead.streamed[1]]]);
	});

	test('the request echo holds the input, a workspace file and the private marker; nothing else does', async () => {
		const answer = await ask({ input: 'Plan my week', stream: true });
		const echoes = answer.events.filter((e) => e.event === 'FrontendModelRequest');
		expect(echoes).toHaveLength(1);
		const echo = JSON.stringify(echoes[0].data);
		expect(echo).toContain('Plan my week');
		expect(echo).toContain('workspace_file');
		expect(echo).toContain(ECHO_PRIVATE_MARKER);
		const rest = answer.events.filter((e) => e.event !== 'FrontendModelRequest');
		expect(JSON.stringify(rest)).not.toContain(ECHO_PRIVATE_MARKER);
		// A tool round asks the model twice: two echoes.
		const round = await ask({ input: 'read my files', stream: true });
		expect(round.events.filter((e) => e.event === 'FrontendModelRequest')).toHaveLength(2);
	});

	test('structured output: final_result tool arguments grown through args_delta; End and text-JSON variants', async () => {
		const outputFormat = {
			type: 'object',
			properties: { summary: { type: 'string' }, count: { type: 'number' } },
			required: ['summary', 'count'],
		};
		const jsonOutput = async (input: string) =>
			JSON.parse((await ask({ input, output_format: outputFormat })).text).output;
		const expected = await jsonOutput('Count');
		const asTool = await ask({ input: 'Count', stream: true, output_format: outputFormat });
		const tool = partTexts(asTool.events).find((p) => p.kind === 'tool-call');
		const start = asTool.events.find(
			(e) => e.event === 'PartStartEvent' && data(e).part.part_kind === 'tool-call',
		);
		expect(data(start).part).toMatchObject({ tool_name: 'final_result', args: '' });
		expect(JSON.parse(String(tool?.text))).toEqual(expected);
		expect(partTexts(asTool.events).some((p) => p.kind === 'text')).toBe(false);

		const inEnd = await ask({
			input: 'Count #shape=2026+output-end',
			stream: true,
			output_format: outputFormat,
		});
		expect(names(inEnd.events).slice(-2)).toEqual(['End', 'completed']);
		expect(data(inEnd.events.at(-2))).toEqual({
			output: await jsonOutput('Count #shape=2026+output-end'),
		});

		const asText = await ask({
			input: 'Count #shape=2026+output-text',
			stream: true,
			output_format: outputFormat,
		});
		const text = partTexts(asText.events).find((p) => p.kind === 'text')?.text ?? '';
		expect(JSON.parse(text)).toEqual(await jsonOutput('Count #shape=2026+output-text'));
	});

	test('a whole answer in one PartStartEvent; deltas for a part whose start was not sent', async () => {
		const whole = await ask({ input: 'One go #shape=2026+whole-part+no-thinking', stream: true });
		const starts = whole.events.filter((e) => e.event === 'PartStartEvent');
		expect(starts).toHaveLength(1);
		expect(data(starts[0]).part.content).toContain('You said: "One go');
		expect(whole.events.some((e) => e.event === 'PartDeltaEvent')).toBe(false);

		const noStart = await ask({ input: 'No start #shape=2026+no-start', stream: true });
		const textStarts = noStart.events.filter(
			(e) => e.event === 'PartStartEvent' && data(e).part.part_kind === 'text',
		);
		expect(textStarts).toHaveLength(0);
		expect(partTexts(noStart.events).find((p) => p.kind === 'text')?.text).toContain(
			'You said: "No start',
		);
	});
});

describe('failed runs in 2026: HTTP 200, then `failed` (or `completed` with another status)', () => {
	test('an unknown model_name: the run is taken and fails as captured on 2026-08-19', async () => {
		const input = 'Hello unknown model';
		const answer = await ask({ input, stream: true, model_name: 'nonexistent-model-xyz' });
		expect(answer.status).toBe(200);
		expect(answer.headers.get('x-conversation-id')).toMatch(/^con_[A-Za-z0-9]{16}$/);
		const failed = answer.events.at(-1);
		expect(failed?.event).toBe('failed');
		const fixture = data(captureEvents('2026-08-19-failed-unknown-model.sse')[0]);
		expect(Object.keys(data(failed))).toEqual(Object.keys(fixture));
		expect({ ...data(failed), runner_id: '…' }).toEqual(fixture);
		expect(emulator2026.emulator.stats.startedAsks.get(input)).toBe(1);
		// Not streamed, the same ask is refused as before (422).
		expect((await ask({ input, model_name: 'nonexistent-model-xyz' })).status).toBe(422);
	});

	test('#fault=error-event ends with `failed`; #fault=completed-failed with `completed` whose status is failed', async () => {
		const failed = await ask({
			input: 'x #fault=error-event&message=Provider%20down',
			stream: true,
		});
		expect(failed.events.at(-1)?.event).toBe('failed');
		expect(data(failed.events.at(-1))).toMatchObject({ status: 'failed', error: 'Provider down' });
		expect(failed.events.some((e) => e.event === 'completed')).toBe(false);

		const completed = await ask({
			input: 'y #fault=completed-failed&message=Run%20crashed',
			stream: true,
		});
		const last = data(completed.events.at(-1));
		expect(completed.events.at(-1)?.event).toBe('completed');
		expect(last).toMatchObject({ status: 'failed', error: 'Run crashed' });
		expect(Object.keys(last)).toEqual([
			'status',
			'error',
			'runner_id',
			'error_type',
			'failure_owner',
			'failure_kind',
		]);
	});

	test('#fault=empty-answer: a run that completes without a part', async () => {
		const answer = await ask({ input: 'z #fault=empty-answer&ms=0', stream: true });
		expect(names(answer.events)).toEqual(['completed']);
		expect(data(answer.events[0]).status).toBe('succeeded');
	});
});

describe('the errors users met in 2026 (docs/api.md#errors-the-live-service-answered-in-2026)', () => {
	test.each([
		['model-disabled', 403, { detail: 'Model is disabled: vercel:zai/glm-5.2' }],
		['unknown-provider', 502, { detail: 'Unknown provider' }],
		['insufficient-balance', 402, { detail: 'Insufficient Balance' }],
		['conversation-not-found', 404, { detail: 'Conversation not found' }],
	])('#fault=%s: %i with the service’s words', async (fault, status, body) => {
		const answer = await ask({ input: `q #fault=${fault}`, stream: true });
		expect(answer.status).toBe(status);
		expect(answer.headers.get('content-type')).toBe('application/json');
		expect(JSON.parse(answer.text)).toEqual(body);
	});

	test('#fault=model-not-found (the default model) and #fault=provider-429 (a provider’s 429 inside a 502)', async () => {
		const notFound = await ask({ input: 'q #fault=model-not-found', stream: true });
		expect(notFound.status).toBe(503);
		expect(JSON.parse(notFound.text).detail).toContain('model_not_found');
		const wrapped = await ask({ input: 'q #fault=provider-429', stream: true });
		expect(wrapped.status).toBe(502);
		expect(JSON.parse(wrapped.text).error).toMatch(
			/^The model stream was interrupted\.\.\. \(status_code: 429, .*exceeded your subscription rate limits\)$/,
		);
	});

	test('an unknown con_ id is 404 Conversation not found; #fault=empty-json is a 200 JSON answer with "output": ""', async () => {
		const unknown = await ask({
			input: 'q',
			stream: true,
			conversation_id: 'con_AAAAAAAAAAAAAAAA',
		});
		expect(unknown.status).toBe(404);
		expect(JSON.parse(unknown.text)).toEqual({ detail: 'Conversation not found' });
		const empty = await ask({ input: 'q #fault=empty-json&ms=0', stream: true });
		expect(empty.status).toBe(200);
		expect(empty.headers.get('content-type')).toBe('application/json');
		expect(JSON.parse(empty.text)).toEqual({
			output: '',
			conversation_id: expect.stringMatching(/^con_/),
		});
	});
});

describe('#replay=<capture>: the capture, byte for byte', () => {
	test.each(['2026-08-09-summarize', '2026-08-09-research', '2026-08-19-failed-unknown-model'])(
		'%s, whole and split at random offsets, with its recorded head',
		async (name) => {
			const bytes = capture(`${name}.sse`);
			const metaFile = path.join(CAPTURES, `${name}.meta.json`);
			const meta = fs.existsSync(metaFile)
				? JSON.parse(fs.readFileSync(metaFile, 'utf8')).response
				: null;
			for (const split of ['', '&split=random&seed=7', '&split=1,2,3,100,5000']) {
				const input = `Replay ${name}${split} #replay=${name}${split}`;
				const answer = await ask({ input, stream: true });
				expect(answer.bytes.equals(bytes)).toBe(true);
				expect(answer.status).toBe(meta?.status ?? 200);
				expect(answer.headers.get('content-type')).toBe(
					meta?.content_type ?? 'text/event-stream; charset=utf-8',
				);
				expect(answer.headers.get('x-conversation-id')).toEqual(
					meta?.x_conversation_id ?? expect.stringMatching(/^con_[A-Za-z0-9]{16}$/),
				);
				expect(emulator2026.emulator.stats.startedAsks.get(input)).toBe(1);
				expect(emulator2026.emulator.stats.completedAsks.get(input)).toBe(1);
			}
		},
	);

	describe('the replay option', () => {
		const replaying = useEmulator({
			token: 'tok_emulator_2026_replay',
			replay: { capture: '2026-08-09-summarize', split: 'random', seed: 3 },
		});

		test('answers every ask with the capture; an unknown capture is a 422 naming the known ones', async () => {
			const answer = await ask({ input: 'anything', stream: true }, replaying.emulator);
			expect(answer.bytes.equals(capture('2026-08-09-summarize.sse'))).toBe(true);
			const unknown = await ask({ input: 'x #replay=../../package', stream: true });
			expect(unknown.status).toBe(422);
			expect(unknown.text).toContain('2026-08-09-summarize');
		});
	});
});

describe('the older dialects stay, by name (an unknown one is refused: test/emulator.test.ts)', () => {
	const live = useEmulator({ token: 'tok_emulator_2026_live', dialect: 'live' });

	test('dialect live sends the 2025 Part events and End; #shape=live does too', async () => {
		const answer = await ask({ input: 'old', stream: true }, live.emulator);
		expect(names(answer.events)).toContain('End');
		expect(names(answer.events)).not.toContain('completed');
		expect(answer.headers.get('x-conversation-id')).toMatch(/^conv_/);
		const shaped = await ask({ input: 'old #shape=live', stream: true });
		expect(names(shaped.events)).toContain('End');
	});
});
