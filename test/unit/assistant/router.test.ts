/**
 * The router's item accounting (docs/api.md#busy-conversation-409 for why one conversation is
 * asked one item at a time): every input item yields exactly one output item, paired to it,
 * in input order, whatever the concurrency.
 */
import { NodeApiError, NodeOperationError, type IHttpRequestOptions } from 'n8n-workflow';
import { setTimeout as sleep } from 'node:timers/promises';

import { router } from '../../../nodes/Assistant/actions/router';
import { fakeExecuteContext, type FakeAnswer } from '../../helpers/execute-context';

interface Question {
	input: string;
	conversationId?: string;
}

/** The JSON body the node sent. */
function bodyOf(request: IHttpRequestOptions): { input: string; conversation_id?: string } {
	const body = request.body as unknown;
	return typeof body === 'string' ? JSON.parse(body) : (body as { input: string });
}

/** Ask items with the given inputs; the server's answer for each input is up to `answer`. */
function askNode(
	questions: Question[],
	answer: (body: { input: string; conversation_id?: string }) => Promise<FakeAnswer>,
	options: { concurrency?: number; continueOnFail?: boolean } = {},
) {
	return fakeExecuteContext({
		items: questions.map((question) => ({ ...question })),
		continueOnFail: options.continueOnFail,
		parameter: (name, itemIndex) => {
			if (name === 'operation') return 'ask';
			if (name === 'input') return questions[itemIndex].input;
			if (name === 'conversationId') return questions[itemIndex].conversationId;
			if (name === 'options') return { concurrency: options.concurrency ?? 1, retries: 0 };
			return undefined;
		},
		respond: async (request: IHttpRequestOptions) => await answer(bodyOf(request)),
	});
}

/** Answers after `ms` of the input's number (e.g. "q3" waits 3 x 10 ms), echoing the input. */
const echoAfter =
	(msPerStep: number) => async (body: { input: string; conversation_id?: string }) => {
		await sleep(Number(body.input.replace(/\D/g, '') || 0) * msPerStep);
		return {
			statusCode: 200,
			body: {
				output: `echo ${body.input}`,
				conversation_id: body.conversation_id ?? `c-${body.input}`,
			},
		};
	};

describe('every input item yields exactly one output item, paired to it', () => {
	it('answers come back in input order, paired, even when later items finish first', async () => {
		const questions = [5, 1, 4, 2, 3].map((n) => ({ input: `q${n}` }));
		const { ctx } = askNode(questions, echoAfter(10), { concurrency: 5 });
		const [output] = await router.call(ctx);
		expect(output.map((item) => item.json.output)).toEqual(questions.map((q) => `echo ${q.input}`));
		expect(output.map((item) => item.pairedItem)).toEqual(questions.map((_, item) => ({ item })));
	});

	it('under Continue On Fail a failed item becomes one error item with the HTTP status and the server message; the others go on', async () => {
		const questions = ['q1', 'bad', 'q2'].map((input) => ({ input }));
		const { ctx } = askNode(
			questions,
			async (body) =>
				body.input === 'bad'
					? { statusCode: 422, body: { detail: 'input: not a question' } }
					: await echoAfter(1)(body),
			{ concurrency: 2, continueOnFail: true },
		);
		const [output] = await router.call(ctx);
		expect(output).toHaveLength(3);
		expect(output[1]).toEqual({
			json: expect.objectContaining({
				error: expect.stringContaining('input: not a question'),
				httpCode: '422',
			}),
			pairedItem: { item: 1 },
		});
		expect([output[0].json.output, output[2].json.output]).toEqual(['echo q1', 'echo q2']);
	});

	it('without Continue On Fail the first failing item by position stops the node, and no later item starts', async () => {
		const questions = ['q9', 'fail1', 'fail2', 'q1', 'q2', 'q3'].map((input) => ({ input }));
		const { ctx, requests } = askNode(
			questions,
			async (body) => {
				// fail2 fails before fail1: the error thrown is still item 1's.
				if (body.input.startsWith('fail')) {
					await sleep(body.input === 'fail1' ? 40 : 5);
					return { statusCode: 422, body: { detail: `${body.input} refused` } };
				}
				return await echoAfter(10)(body);
			},
			{ concurrency: 3 },
		);
		const failure = await router.call(ctx).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(NodeApiError);
		expect((failure as NodeApiError).message).toContain('fail1 refused');
		expect((failure as NodeApiError).context.itemIndex).toBe(1);
		const asked = requests.map((request) => bodyOf(request).input);
		expect(asked).toEqual(['q9', 'fail1', 'fail2']);
	});
});

describe('one conversation is asked one item at a time (a busy conversation answers 409)', () => {
	it('items of the same conversation wait for each other; other conversations run side by side', async () => {
		const busy = new Set<string>();
		let overlappedInConversation = false;
		let mostAtOnce = 0;
		let atOnce = 0;
		const questions: Question[] = [
			{ input: 'a1', conversationId: 'conv-a' },
			{ input: 'a2', conversationId: 'conv-a' },
			{ input: 'b1', conversationId: 'conv-b' },
			{ input: 'a3', conversationId: 'conv-a' },
			{ input: 'c1' },
		];
		const { ctx } = askNode(
			questions,
			async (body) => {
				const conversation = body.conversation_id;
				if (conversation && busy.has(conversation)) overlappedInConversation = true;
				if (conversation) busy.add(conversation);
				mostAtOnce = Math.max(mostAtOnce, ++atOnce);
				await sleep(20);
				atOnce--;
				if (conversation) busy.delete(conversation);
				return {
					statusCode: 200,
					body: { output: body.input, conversation_id: conversation ?? 'new' },
				};
			},
			{ concurrency: 4 },
		);
		const [output] = await router.call(ctx);
		expect(output.map((item) => item.json.output)).toEqual(questions.map((q) => q.input));
		expect(overlappedInConversation).toBe(false);
		expect(mostAtOnce).toBeGreaterThan(1);
	});
});

describe('bad parameters fail before any request, naming the parameter', () => {
	it.each([0, 21, 2.5, 'three', ''])('a Concurrency of %p is refused', async (concurrency) => {
		const { ctx, requests } = askNode([{ input: 'q1' }], echoAfter(0), {
			concurrency: concurrency as number,
		});
		const failure = await router.call(ctx).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(NodeOperationError);
		expect((failure as Error).message).toMatch(/^Concurrency must be a whole number from 1 to 20/);
		expect(requests).toHaveLength(0);
	});

	it('an unknown operation is refused, naming the operations there are', async () => {
		const { ctx, requests } = fakeExecuteContext({
			items: [{}],
			parameter: (name) => (name === 'operation' ? 'deleteEverything' : undefined),
			respond: () => ({ statusCode: 200, body: {} }),
		});
		const failure = await router.call(ctx).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(NodeOperationError);
		expect((failure as NodeOperationError).description).toContain('Ask, List Models');
		expect(requests).toHaveLength(0);
	});
});
