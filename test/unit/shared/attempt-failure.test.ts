/**
 * What an attempt on the wire came to, as its one AttemptFailure: whether the service accepted
 * the ask, whether it may be retried and why, how a response was lost, and what the user reads,
 * for each way a failure comes (docs/api.md#errors, #exactly-once).
 */
import { streamFailure } from '../../../nodes/shared/askAttempt';
import {
	acceptedNotShown,
	noAnswerInConversation,
	notTakenAfterText,
	repeatedTurn,
} from '../../../nodes/shared/recovery/recoveryErrors';
import { StreamAnswerError } from '../../../nodes/shared/stream/answerFailure';
import type { AttemptFailure, LostHow } from '../../../nodes/shared/transport/attemptFailure';
import {
	inBandFailure,
	serviceFailure,
	statusFailure,
	type FailureScope,
} from '../../../nodes/shared/transport/failures';
import {
	brokenResponseFailure,
	networkFailure,
	stalledStreamFailure,
	stoppedFailure,
} from '../../../nodes/shared/transport/transportFailures';
import { fakeNode } from '../../helpers/fake-node';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'sk-classify-secret';
const scope: FailureScope = {
	node: fakeNode({ id: '1' }),
	request: {
		method: 'POST',
		path: '/assistant/ask',
		authenticated: true,
		itemIndex: 2,
		idleTimeoutMs: 30_000,
	},
	redaction: redactionOf(TOKEN),
};
const POOL = 'All assistant sessions are busy for this account';

/** The facts the retry loop and the recovery decide on, and the sentence the user reads. */
function facts(failure: AttemptFailure) {
	return {
		accepted: failure.accepted,
		retry: failure.retry,
		lost: failure.lost,
		shown: failure.shown.message,
	};
}

describe('a non-2xx answer', () => {
	test.each([
		[
			402,
			'Insufficient Balance',
			'no',
			undefined,
			/^The account or the model's provider is out of credit \(HTTP 402\)/,
		],
		[
			409,
			'busy',
			'no',
			'busy-conversation',
			/^The conversation is busy answering an earlier request \(HTTP 409\)/,
		],
		[429, 'slow down', 'no', 'status', /^Too many requests \(HTTP 429\): slow down$/],
		[500, 'boom', 'maybe', 'status', /^The assistant service failed \(HTTP 500\): boom$/],
		[503, 'overloaded', 'maybe', 'status', /^The assistant service failed \(HTTP 503\)/],
		[503, 'model_not_found', 'no', undefined, /^The account's default model is not available/],
		[
			503,
			{ error: { message: 'The model `openai/gpt-5.2` does not exist', code: 'model_not_found' } },
			'no',
			undefined,
			/^The account's default model is not available \(HTTP 503\): The model `openai\/gpt-5\.2` does not exist \(model_not_found\)\. Choose a model in Model\.$/,
		],
		[
			503,
			POOL,
			'no',
			'session-pool',
			/^All of the account's assistant sessions are busy \(HTTP 503\)/,
		],
		[422, 'bad field', 'no', undefined, /^The assistant rejected the request \(HTTP 422\)/],
	] as const)('HTTP %i %s: accepted %s, retry %s', (status, said, accepted, retry, shown) => {
		const body = typeof said === 'string' ? { detail: said } : said;
		const failure = statusFailure(scope, status, {}, JSON.stringify(body));
		expect(facts(failure)).toEqual({
			accepted,
			retry,
			lost: undefined,
			shown: expect.stringMatching(shown),
		});
		expect(failure.status).toBe(status);
		expect(failure.shown.httpCode).toBe(String(status));
		expect((failure.shown.context as { itemIndex?: number }).itemIndex).toBe(2);
	});

	test('the headers the retry policy needs, and the conversation the response named, are kept', () => {
		const headers = { 'retry-after': '7', 'x-conversation-id': 'con_named' };
		const failure = statusFailure(scope, 429, headers, '');
		expect(failure.headers).toEqual(headers);
		expect(failure.conversationId).toBe('con_named');
	});

	test('the token the service echoes reaches neither the failure nor what it shows', () => {
		const failure = statusFailure(scope, 500, {}, JSON.stringify({ detail: `bad ${TOKEN}` }));
		expect(failure.message).not.toContain(TOKEN);
		expect(failure.shown.message).not.toContain(TOKEN);
		expect(failure.shown.message).toContain('[redacted]');
	});
});

describe('words inside a 2xx: the service had accepted the ask', () => {
	test('in-band: not retried, the service words shown', () => {
		expect(facts(inBandFailure(scope, 200, {}, 'Model overloaded'))).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: undefined,
			shown: 'The assistant could not answer: Model overloaded',
		});
		// A full session pool says no session took the ask: waited out.
		expect(inBandFailure(scope, 200, {}, POOL)).toMatchObject({
			accepted: 'no',
			retry: 'session-pool',
		});
	});

	test('an error event before any answer text: a full pool is waited out, other words are not', () => {
		const event = (said: string, turnBegan: boolean) =>
			streamFailure(scope, new StreamAnswerError('error-event', said, said, turnBegan), {
				'retry-after': '3',
			});
		expect(facts(event(POOL, false))).toMatchObject({ accepted: 'no', retry: 'session-pool' });
		expect(event(POOL, false).headers).toEqual({ 'retry-after': '3' });
		expect(facts(event('Model crashed', false))).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: undefined,
			shown: 'The assistant reported an error: Model crashed',
		});
	});

	test('an error event after answer text: never retried, whatever its words', () => {
		const failure = streamFailure(
			scope,
			new StreamAnswerError('error-event', POOL, POOL, true),
			{},
		);
		expect(facts(failure)).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: undefined,
			shown: `The assistant reported an error: ${POOL}`,
		});
	});

	test('a failed run: accepted, never sent again, never read elsewhere', () => {
		const run = { status: 'failed', errorType: 'UserError', failureKind: 'unknown_model' };
		const failure = streamFailure(
			scope,
			new StreamAnswerError('run-failed', 'x', 'Unknown model: m', false, run),
			{},
		);
		expect(facts(failure)).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: undefined,
			shown: "The assistant's run failed: Unknown model: m",
		});
		expect(failure.shown.description).toMatch(/does not know the model/);
		// The same through serviceFailure directly.
		expect(
			serviceFailure(scope, 'gone', { via: 'failed-run', headers: {}, turnBegan: false }).accepted,
		).toBe('yes');
	});

	test("a failed run whose words tell a provider's rate limit: never sent again, the advice is to wait", () => {
		const said =
			"The model stream was interrupted (status_code: 429, model_name: m, body: You've exceeded your subscription rate limits)";
		const run = { status: 'failed', errorType: 'ProviderError' };
		const failure = streamFailure(
			scope,
			new StreamAnswerError('run-failed', 'x', said, true, run),
			{},
		);
		expect(facts(failure)).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: undefined,
			shown: `The assistant's run failed: ${said}`,
		});
		expect(failure.shown.description).toMatch(/provider was rate limiting the account/);
		expect(failure.shown.description).toMatch(/not sent again/);
		expect(failure.shown.description).toMatch(/a little later/);
		expect(failure.shown.description).toMatch(/Concurrency/);
	});

	test('a failed run for want of a session, before the turn began: a full pool, waited out (as an error event)', () => {
		const run = { status: 'failed' };
		const failed = (turnBegan: boolean) =>
			streamFailure(scope, new StreamAnswerError('run-failed', 'x', POOL, turnBegan, run), {
				'retry-after': '3',
			});
		expect(facts(failed(false))).toMatchObject({ accepted: 'no', retry: 'session-pool' });
		expect(failed(false).headers).toEqual({ 'retry-after': '3' });
		// After a part or a tool event the assistant was at work on the ask: never sent again.
		expect(facts(failed(true))).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: undefined,
			shown: `The assistant's run failed: ${POOL}`,
		});
	});
});

describe("the node's side of the wire", () => {
	const network = (code: string) =>
		networkFailure(scope, 'http://service/ask', Object.assign(new Error('socket'), { code }));

	test('a connection never made: not accepted, retried', () => {
		expect(facts(network('ECONNREFUSED'))).toEqual({
			accepted: 'no',
			retry: 'network',
			lost: undefined,
			shown: 'Could not reach the assistant at http://service/ask: ECONNREFUSED: socket',
		});
		expect(network('ECONNREFUSED').code).toBe('ECONNREFUSED');
	});

	test('the address shown as a redirect target is: no user info, query or fragment (a server may put the token there)', () => {
		const failure = networkFailure(
			scope,
			`http://me:pw@service/ask?next=${TOKEN}&x=1#${TOKEN}`,
			Object.assign(new Error('socket'), { code: 'ECONNRESET' }),
		);
		expect(failure.shown.message).toBe(
			'Could not reach the assistant at http://service/ask: ECONNRESET: socket',
		);
	});

	test('a connection reset after sending: maybe accepted, retried (after the conversation is read)', () => {
		expect(facts(network('ECONNRESET'))).toMatchObject({ accepted: 'maybe', retry: 'network' });
	});

	test('a 2xx response lost: accepted, not retried, how it was lost', () => {
		expect(facts(brokenResponseFailure(scope, new Error('socket hang up')))).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: 'broken',
			shown: 'The stream broke off before the answer was complete: socket hang up',
		});
		expect(facts(stalledStreamFailure(scope, 600_000))).toEqual({
			accepted: 'yes',
			retry: undefined,
			lost: 'stalled',
			shown: 'The stream stalled: no data for 30 s',
		});
		const incomplete = new StreamAnswerError(
			'incomplete',
			'The stream ended before the answer was complete',
		);
		expect(facts(streamFailure(scope, incomplete, {}))).toMatchObject({
			accepted: 'yes',
			retry: undefined,
			lost: 'incomplete',
		});
		const empty = new StreamAnswerError('no-answer', 'none');
		expect(facts(streamFailure(scope, empty, {}))).toMatchObject({
			accepted: 'yes',
			lost: 'empty',
		});
	});

	test('a stream that closed after events this node does not know: the names travel with the failure, into every error that replaces it', () => {
		const unknown = ['run_finished', 'TurnFinished'];
		const incomplete = new StreamAnswerError(
			'incomplete',
			'The stream ended before the answer was complete; it carried events this node does not know: run_finished, TurnFinished',
			undefined,
			true,
			undefined,
			unknown,
		);
		const failure = streamFailure(scope, incomplete, {});
		expect(failure.unknownEvents).toEqual(unknown);
		expect(failure.with({ accepted: 'no' }).unknownEvents).toEqual(unknown);
		// The conversation does not show the ask: the error that says so still names them.
		const names = '; the stream carried events this node does not know: run_finished, TurnFinished';
		for (const replaced of [
			acceptedNotShown(scope, 'con_1', failure),
			notTakenAfterText(scope, 'con_1', failure),
		]) {
			expect(replaced.message.endsWith(names)).toBe(true);
			expect(replaced.description).toMatch(/report these event names/);
		}
		expect(acceptedNotShown(scope, 'con_1', {}).message).not.toMatch(/carried events/);
		// An ask that repeats the last one repeats the failure's message, which names them once.
		const repeated = repeatedTurn(scope, 'con_1', failure);
		expect(repeated.message.match(/does not know/g)).toHaveLength(1);
		expect(repeated.description).toMatch(/does not know.*report these event names/);
	});

	test('a stream that carried no event: lost as an incomplete one; named by its Content-Type when it is no event stream', () => {
		const silent = new StreamAnswerError(
			'no-events',
			'The stream ended before the answer was complete; it carried no event',
		);
		const cases: Array<[Record<string, string>, string, RegExp]> = [
			[{ 'content-type': 'text/event-stream' }, '', /closed the stream before sending anything/],
			[
				{ 'content-type': 'text/html; charset=utf-8' },
				' (Content-Type text/html; charset=utf-8)',
				/check that the credential's Base URL points at the Assistant API/,
			],
			[
				{},
				' (no Content-Type)',
				/check that the credential's Base URL points at the Assistant API/,
			],
			// Shown as an event's name is: printable, cut when long.
			[
				{ 'content-type': `text/plain\u2028${'x'.repeat(100)}` },
				' (Content-Type text/plain?',
				/Base URL/,
			],
		];
		for (const [headers, named, description] of cases) {
			const failure = streamFailure(scope, silent, headers);
			expect(facts(failure)).toMatchObject({ accepted: 'yes', lost: 'incomplete' });
			expect(failure.shown.message.startsWith(`${silent.message}${named}`)).toBe(true);
			expect(failure.shown.message.length).toBeLessThan(silent.message.length + 120);
			expect(failure.shown.description).toMatch(description);
		}
	});

	test('a stream that ended without an answer after events this node does not know: each error names them once, with what to do', () => {
		const unknown = ['TextChunk'];
		const noAnswer = new StreamAnswerError(
			'no-answer',
			'The assistant finished without an answer; it carried events this node does not know: TextChunk',
			undefined,
			true,
			undefined,
			unknown,
		);
		const failure = streamFailure(scope, noAnswer, {});
		expect(facts(failure)).toMatchObject({
			accepted: 'yes',
			lost: 'empty',
			shown: noAnswer.message,
		});
		expect(failure.shown.description).toMatch(/report these event names/);
		expect(failure.unknownEvents).toEqual(unknown);
		const names = 'this node does not know: TextChunk';
		const replaced = [
			acceptedNotShown(scope, 'con_1', failure),
			notTakenAfterText(scope, 'con_1', failure),
			noAnswerInConversation(scope, 'con_1', failure.shown, failure.unknownEvents),
		];
		expect(replaced.map((error) => error.message)).toEqual([
			`The assistant finished without an answer, and conversation con_1 does not show the ask; the stream carried events ${names}`,
			`The assistant finished without an answer, and conversation con_1 does not show this ask; the stream carried events ${names}`,
			`The assistant finished without an answer (conversation con_1); it carried events ${names}`,
		]);
		for (const error of replaced) {
			expect(error.description).toMatch(/does not know.*report these event names/);
		}
		// Without such events, the plain sentence and advice.
		const plain = streamFailure(scope, new StreamAnswerError('no-answer', 'none'), {});
		expect(plain.shown.message).toBe('The assistant finished without an answer');
		expect(plain.shown.description).not.toMatch(/event names/);
	});

	test("an error that replaces a taken ask's failure says how its response ended: broke off only where it did", () => {
		const cases: Array<[LostHow | undefined, string, string]> = [
			[
				'broken',
				'The response broke off after the assistant had accepted the ask, and conversation con_1 does not show it',
				'The stream broke off, and conversation con_1 does not show this ask',
			],
			[
				'incomplete',
				'The stream ended before the answer was complete, and conversation con_1 does not show the ask',
				'The stream ended before the answer was complete, and conversation con_1 does not show this ask',
			],
			[
				'empty',
				'The assistant finished without an answer, and conversation con_1 does not show the ask',
				'The assistant finished without an answer, and conversation con_1 does not show this ask',
			],
		];
		for (const [lost, accepted, afterText] of cases) {
			expect(acceptedNotShown(scope, 'con_1', { lost }).message).toBe(accepted);
			const sentText = notTakenAfterText(scope, 'con_1', { lost });
			expect(sentText.message).toBe(afterText);
			// Part of the answer went out: the service took the ask; the advice is to look first.
			expect(sentText.description).toMatch(/look at the conversation in the assistant app before/);
		}
	});

	test('a stop: never retried, with what the attempt knew of the ask', () => {
		const deadline = stoppedFailure(scope, { reason: 'timeout', timeoutMs: 60_000 }, 'maybe');
		expect(facts(deadline)).toEqual({
			accepted: 'maybe',
			retry: undefined,
			lost: undefined,
			shown: 'The assistant did not answer within 60 s',
		});
		const cancelled = stoppedFailure(scope, { reason: 'cancelled', timeoutMs: 60_000 }, 'yes');
		expect(facts(cancelled)).toMatchObject({
			accepted: 'yes',
			retry: undefined,
			shown: 'The execution was cancelled',
		});
	});

	test('with(): another text shown, the other facts kept', () => {
		const failure = statusFailure(scope, 503, { 'retry-after': '2' }, '');
		const noted = failure.with({ shown: failure.shown });
		expect(noted).not.toBe(failure);
		expect(facts(noted)).toEqual(facts(failure));
		expect(noted.headers).toEqual({ 'retry-after': '2' });
		expect(noted.status).toBe(503);
	});
});
