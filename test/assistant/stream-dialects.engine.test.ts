/**
 * Every stream case in the n8n-core engine against the emulator, in both of the service's stream
 * dialects (docs/api.md#streams): each shape gives the answer the same ask gives without
 * streaming, a streaming workflow gets each piece once, error events and a full session pool are
 * read as docs/api.md#how-a-stream-ends and docs/api.md#full-session-pool say.
 */

import { useEmulator } from '../helpers/emulatorFixture';
import type { RunResult } from '../helpers/engine';

const TOKEN = 'secret-token-for-stream-dialects-7';

/** The `#shape=` of the live dialect's building blocks, alone and mixed. */
const SHAPES = [
	'parts',
	'snapshots',
	'final-snapshot',
	'content+parts',
	'parts+snapshots',
	'parts+snapshots+content+thinking',
	'final-snapshot+content',
	'thinking',
	'end-data',
	'end-top',
	'end-empty',
	'tool-call',
	'tool-call+snapshots+content+thinking',
	'documented',
	'live',
	'flat',
	'flat+content+snapshots+thinking',
	'file',
	'file+content+snapshots+thinking',
	'flat+file+tool-call+parts+content',
];

type Dialect = 'live' | 'documented';

/** The emulator in `dialect`, for the enclosing describe. */
const emulatorIn = (dialect: Dialect) =>
	useEmulator({ token: TOKEN, dialect, answerDelayMs: 0, chunkDelayMs: 0 });

/** Ask with Stream on. */
const STREAM = { stream: true };

function liveText(run: RunResult): string[] {
	return run.chunks.filter((chunk) => chunk.type === 'item').map((chunk) => String(chunk.content));
}

describe.each(['live', 'documented'] as const)('answers streamed in the %s dialect', (dialect) => {
	const assistant = emulatorIn(dialect);

	test('the streamed answer is the answer without streaming, for the dialect as it comes', async () => {
		const input = 'Tell me about café culture — briefly 😀';
		const whole = (await assistant.run({ input })).outputs('Ask')[0].json;
		const run = await assistant.run({ input, options: STREAM });
		expect(run.error()).toBeUndefined();
		const item = run.outputs('Ask')[0].json;
		expect(item.output).toBe(whole.output);
		expect(item.conversation_id).toEqual(expect.stringMatching(/^conv_/));
	});

	test.each(SHAPES)(
		'shape %s: the same answer as without streaming, each piece once',
		async (shape) => {
			const input = `Say something useful #shape=${shape}`;
			const whole = (await assistant.run({ input })).outputs('Ask')[0].json.output as string;
			const run = await assistant.run({ input, options: STREAM }, { streaming: true });
			expect(run.error()).toBeUndefined();
			const output = run.outputs('Ask')[0].json.output as string;
			expect(output).toBe(whole);
			expect(output).not.toContain('Let me think');
			// Live pieces, joined, are the streamed text: the answer, after what a tool call interrupted.
			const pieces = liveText(run);
			expect(pieces.every((piece) => piece.length > 0)).toBe(true);
			const joined = pieces.join('');
			if (shape.includes('tool-call')) {
				// End's output is the answer, the text around the file run on (pydantic-ai's text
				// output); the pieces are the stream's own reading, the text parts the emulator's file
				// separates ("[model=…]", " You said…") a paragraph each (docs/api.md#assembling-the-answer, 4).
				const streamed = shape.includes('file') ? whole.replace('] You', ']\n\n You') : whole;
				expect(joined).toBe(`Let me look that up.\n\n${streamed}`);
			} else {
				expect(joined).toBe(whole);
			}
			// One snapshot of the complete message is one piece; every other shape streams word by word.
			expect(pieces.length).toBeGreaterThan(shape === 'final-snapshot' ? 0 : 3);
		},
	);

	test('a structured answer streams as one whole object, equal to the JSON answer', async () => {
		const schema = {
			type: 'object',
			properties: { summary: { type: 'string' } },
			required: ['summary'],
		};
		const structured = {
			input: 'Summarize',
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(schema),
		};
		const whole = (await assistant.run(structured)).json.output;
		const run = await assistant.run({ ...structured, options: STREAM }, { streaming: true });
		expect(run.outputs('Ask')[0].json.output).toEqual(whole);
		const pieces = liveText(run);
		expect(pieces).toHaveLength(1);
		expect(JSON.parse(pieces[0])).toEqual(whole);
	});
});

describe.each(['live', 'documented'] as const)('streams that fail in the %s dialect', (dialect) => {
	const assistant = emulatorIn(dialect);

	test("an error event fails the item with the server's message, whatever its name", async () => {
		const run = await assistant.run({ input: 'Go #fault=error-event', options: STREAM });
		const error = run.error();
		expect(error?.message).toMatch(/^The assistant reported an error: \S/);
		expect(error?.description).toMatch(/\.$/);
		expect(JSON.stringify(error)).not.toContain(TOKEN);
	});

	test("the flat form's error event fails the item with the text at data.data.message", async () => {
		const run = await assistant.run({
			input: 'Go #fault=error-event #shape=flat',
			options: STREAM,
		});
		const error = run.error();
		expect(error?.message).toMatch(/^The assistant reported an error: \S/);
		expect(error?.message).not.toMatch(/without a message/);
	});

	test('a streaming workflow is told when the answer fails after it began', async () => {
		const run = await assistant.run(
			{ input: 'Go #fault=error-event', options: STREAM },
			{ streaming: true },
		);
		const types = run.chunks.map((chunk) => chunk.type);
		expect(types[0]).toBe('begin');
		expect(types.at(-1)).toBe('error');
		// n8n sends the failed node's description: what to do, never the token.
		expect(String(run.chunks.at(-1)?.content)).toBe(run.error()?.description);
		expect(JSON.stringify(run.chunks)).not.toContain(TOKEN);
	});

	test('a stream that closes without End is never a partial answer: the whole one comes from its conversation', async () => {
		const run = await assistant.run({ input: 'Go #fault=no-end', options: STREAM });
		// docs/api.md#recovery-after-a-failure
		expect(run.outputs('Ask')[0].json).toMatchObject({
			output: expect.stringMatching(/You said: "Go #fault=no-end"\.$/),
			recovered: true,
		});
	});

	test.each(['parts', 'snapshots', 'content+parts', 'flat', 'documented'])(
		'shape %s, an event of the answer cut short on the wire: the whole answer from its conversation, each piece once, asked once',
		async (shape) => {
			// docs/api.md#how-a-stream-ends: what the event carried is not known.
			const input = `Say something useful #shape=${shape} #fault=unreadable-event`;
			const run = await assistant.run({ input, options: STREAM }, { streaming: true });
			expect(run.error()).toBeUndefined();
			const item = run.outputs('Ask')[0].json;
			expect(item).toMatchObject({ output: expect.stringMatching(/You said/), recovered: true });
			expect(liveText(run).join('')).toBe(item.output);
			expect(assistant.askRequests()).toHaveLength(1);
		},
	);

	test.each(['pool-busy', 'pool-evict', 'pool-busy-200', 'pool-busy-event'])(
		'a full session pool (%s) is waited out and then answered',
		async (fault) => {
			const input = `Busy #fault=${fault}&retryAfter=1&times=1`;
			const run = await assistant.run({ input, options: STREAM });
			expect(run.error()).toBeUndefined();
			expect(run.outputs('Ask')[0].json.output).toMatch(/You said/);
			expect(assistant.askRequests()).toHaveLength(2);
		},
	);

	test('a session pool that stays full fails saying to run fewer asks at once', async () => {
		const run = await assistant.run({ input: 'Busy #fault=pool-busy&retryAfter=0&times=20' });
		const error = run.error();
		expect(error?.message).toMatch(
			/^All of the account's assistant sessions are busy \(HTTP 503\): /,
		);
		expect(error?.description).toMatch(/Run fewer asks at the same time/);
		// Its whole schedule: the first attempt and four retries.
		expect(assistant.askRequests()).toHaveLength(5);
	});

	test('the model that answered instead is on the item and in a hint', async () => {
		const run = await assistant.run({
			input: 'Hello #fallback=openai:gpt-5-mini',
			options: STREAM,
		});
		const item = run.outputs('Ask')[0].json;
		expect(item.model_fallback).toBe('openai:gpt-5-mini');
		const plain = await assistant.run({ input: 'Hello' });
		expect(plain.outputs('Ask')[0].json).not.toHaveProperty('model_fallback');
	});
});
