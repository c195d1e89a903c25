/**
 * The shared ask after a failure that may have come after acceptance
 * (docs/api.md#recovery-after-a-failure), against a service the test scripts: the answer read
 * from the conversation, the ask sent again only when the conversation shows it was never taken.
 * The engine suites (test/assistant/exactly-once.test.ts) run the same against the emulator.
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { askAssistant, type AskCall } from '../../../nodes/shared/askAssistant';
import { RequestLifetime } from '../../../nodes/shared/transport/lifetime';
import { fakeExecuteContext, type FakeAnswer } from '../../helpers/execute-context';

const call = (request: AskCall['request']): AskCall => ({
	request,
	asker: { node: 'assistant' },
	stream: false,
	timeoutMs: 10_000,
	idleTimeoutMs: 0,
	retries: 2,
});

/** The service's conversation c1: running `runningReads` times, then idle with `messages`. */
function conversation(runningReads: number, messages: unknown[]) {
	let reads = 0;
	return (): FakeAnswer => {
		reads += 1;
		const running = reads <= runningReads;
		return {
			statusCode: 200,
			body: { state: running ? 'running' : 'idle', messages },
			// Read again soon: the test does not wait the public client's 5 s.
			headers: { 'retry-after-ms': '0' },
		};
	};
}

const asked = (input: string) => [
	{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: input }] },
	{ kind: 'response', parts: [{ part_kind: 'text', content: `Answer to ${input}` }] },
];
/** The answer read back from conversation c1 to the ask `input` (as `asked` holds it). */
const recoveredFromC1 = (input: string) => ({
	output: `Answer to ${input}`,
	conversationId: 'c1',
	recovered: true,
});

function scripted(answers: { ask: Array<() => FakeAnswer>; read?: () => FakeAnswer }): {
	ctx: ReturnType<typeof fakeExecuteContext>['ctx'];
	sent: () => string[];
} {
	let asks = 0;
	const { ctx, requests } = fakeExecuteContext({
		items: [{}],
		parameter: () => undefined,
		respond: (request: IHttpRequestOptions) => {
			if (request.method === 'GET' && String(request.url).includes('/conversations/c1')) {
				return answers.read?.() ?? { statusCode: 404, body: { detail: 'Not Found' } };
			}
			return answers.ask[Math.min(asks++, answers.ask.length - 1)]();
		},
	});
	return {
		ctx,
		sent: () =>
			requests.map((request) => `${request.method} ${new URL(String(request.url)).pathname}`),
	};
}

describe('a 200 with an empty answer: read from the conversation once it is idle', () => {
	it.each(['', ' \n '])(
		'a service that answers the streamed ask with JSON and the output %j',
		async (output) => {
			const { ctx, sent } = scripted({
				ask: [() => ({ statusCode: 200, body: { output, conversation_id: 'c1' } })],
				read: conversation(2, asked('Mail the report')),
			});
			const result = await askAssistant(ctx, call({ input: 'Mail the report' }));
			expect(result).toEqual(recoveredFromC1('Mail the report'));
			expect(sent()).toEqual([
				'POST /api/assistant/ask',
				'GET /api/conversations/c1',
				'GET /api/conversations/c1',
				'GET /api/conversations/c1',
			]);
		},
	);
});

describe('a 5xx after acceptance', () => {
	it('continuing a conversation: read from it, not sent again', async () => {
		const { ctx, sent } = scripted({
			ask: [() => ({ statusCode: 502, body: 'Bad Gateway' })],
			read: conversation(1, asked('Book the room')),
		});
		const result = await askAssistant(ctx, call({ input: 'Book the room', conversation_id: 'c1' }));
		expect(result).toMatchObject({ output: 'Answer to Book the room', recovered: true });
		expect(sent().filter((line) => line.startsWith('POST'))).toHaveLength(1);
	});

	it('a new conversation whose id the failed response carries (a proxy passing the header on)', async () => {
		const { ctx } = scripted({
			ask: [
				() => ({
					statusCode: 504,
					body: 'Gateway Time-out',
					headers: { 'x-conversation-id': 'c1' },
				}),
			],
			read: conversation(0, asked('Book the room')),
		});
		const result = await askAssistant(ctx, call({ input: 'Book the room' }));
		expect(result).toEqual(recoveredFromC1('Book the room'));
	});

	it('the conversation shows the ask was never taken: sent again', async () => {
		const { ctx, sent } = scripted({
			ask: [
				() => ({
					statusCode: 503,
					body: 'upstream connect error',
					headers: { 'retry-after': '0' },
				}),
				() => ({ statusCode: 200, body: { output: 'Booked.', conversation_id: 'c1' } }),
			],
			read: conversation(0, asked('Something earlier')),
		});
		const result = await askAssistant(ctx, call({ input: 'Book the room', conversation_id: 'c1' }));
		expect(result).toEqual({ output: 'Booked.', conversationId: 'c1' });
		// "Never taken" is confirmed by a second read before the ask goes again.
		expect(sent()).toEqual([
			'POST /api/assistant/ask',
			'GET /api/conversations/c1',
			'GET /api/conversations/c1',
			'POST /api/assistant/ask',
		]);
	});

	it('no conversation endpoint (404): retried as before, and the last error says what was not checked', async () => {
		const { ctx } = scripted({
			ask: [
				() => ({
					statusCode: 500,
					body: { detail: 'Internal error' },
					headers: { 'retry-after': '0' },
				}),
			],
		});
		await expect(
			askAssistant(ctx, { ...call({ input: 'Book', conversation_id: 'c1' }), retries: 1 }),
		).rejects.toMatchObject({
			message: 'The assistant service failed (HTTP 500): Internal error',
			description: expect.stringContaining(
				'could not look for the answer in conversation c1: GET /conversations/c1 answered: Not found (HTTP 404)',
			),
		});
	});
});

describe('a 409 on its own conversation', () => {
	it('waits until the conversation is idle, then asks again at once', async () => {
		const { ctx, sent } = scripted({
			ask: [
				() => ({ statusCode: 409, body: { detail: 'Conversation is busy' } }),
				() => ({ statusCode: 200, body: { output: 'Done.', conversation_id: 'c1' } }),
			],
			read: conversation(2, asked('An earlier ask')),
		});
		const pauses = jest.spyOn(RequestLifetime.prototype, 'pause');
		const result = await askAssistant(ctx, call({ input: 'Go on', conversation_id: 'c1' }));
		const pausedMs = pauses.mock.calls.reduce((sum, [ms]) => sum + ms, 0);
		pauses.mockRestore();
		expect(result).toEqual({ output: 'Done.', conversationId: 'c1' });
		expect(sent()).toEqual([
			'POST /api/assistant/ask',
			'GET /api/conversations/c1',
			'GET /api/conversations/c1',
			'GET /api/conversations/c1',
			'POST /api/assistant/ask',
		]);
		// Not the 2.5 s pause of a blind retry: what it paused was the reads' own short pauses.
		expect(pausedMs).toBeLessThan(1_000);
	});
});
