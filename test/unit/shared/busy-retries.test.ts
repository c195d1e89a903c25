/**
 * Busy answers under the run's pace (docs/api.md#full-session-pool): one the run's own other asks
 * caused costs the item no retry; one with nothing else of the run in flight is a retry as any;
 * neither waits past the deadline.
 */
import { NodeApiError } from 'n8n-workflow';

import { AdaptivePace, type AttemptPace } from '../../../nodes/shared/transport/adaptivePace';
import type { AttemptFailure } from '../../../nodes/shared/transport/attemptFailure';
import { statusFailure, type FailureScope } from '../../../nodes/shared/transport/failures';
import { RequestLifetime } from '../../../nodes/shared/transport/lifetime';
import type { AssistantContext } from '../../../nodes/shared/transport/request';
import { withRetries } from '../../../nodes/shared/transport/retryLoop';
import { fakeNode } from '../../helpers/fake-node';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const node = fakeNode({ id: '1' });
const ctx = { logger: { debug: () => undefined } } as unknown as AssistantContext;
const never = new AbortController().signal;

function scopeWith(pace: AttemptPace, retries: number): FailureScope {
	return {
		node,
		request: { method: 'POST', path: '/assistant/ask', authenticated: true, retries, pace },
		redaction: redactionOf('sk-test'),
	};
}

/** A busy answer as the transport classifies it: a full session pool, answered at once. */
function poolBusy(scope: FailureScope, retryAfter = '0'): AttemptFailure {
	const failure = statusFailure(
		scope,
		503,
		{ 'retry-after': retryAfter },
		JSON.stringify({ detail: 'All assistant sessions are busy for this account' }),
	);
	if (failure.retry !== 'session-pool') throw new Error('expected a full session pool');
	return failure;
}

async function othersInFlight(pace: AdaptivePace, count: number): Promise<AttemptPace[]> {
	const lanes = Array.from({ length: count }, (_, i) => pace.lane(100 + i));
	await Promise.all(lanes.map((lane) => lane.acquire(never)));
	return lanes;
}

describe('busy answers under the pace', () => {
	it("a busy answer caused by the run's own other asks costs no retry: the item waits its turn", async () => {
		const pace = new AdaptivePace(4);
		const others = await othersInFlight(pace, 3);
		const scope = scopeWith(pace.lane(0), 0);
		const lifetime = new RequestLifetime(5_000);
		let attempts = 0;
		const answer = await withRetries({ ctx, scope, lifetime }, async () => {
			attempts += 1;
			if (attempts <= 3) {
				// Another ask of the run finishes a moment later, freeing its session.
				setTimeout(() => others.pop()?.release('ok'), 5);
				throw poolBusy(scope);
			}
			return 'answered';
		});
		lifetime.dispose();
		expect(answer).toBe('answered');
		expect(attempts).toBe(4);
		expect(pace.summary()).toMatchObject({ busyAnswers: 3 });
	});

	it.each([
		['a 429', 429, { detail: 'Too Many Requests' }],
		[
			"a provider's 429 wrapped in a 502",
			502,
			{
				error:
					"The model stream was interrupted... (status_code: 429, body: You've exceeded your subscription rate limits)",
			},
		],
	])(
		"%s caused by the run's own other asks is busy too: no retry used, the pace slows",
		async (_name, status, body) => {
			const pace = new AdaptivePace(4);
			const others = await othersInFlight(pace, 3);
			const scope = scopeWith(pace.lane(0), 0);
			const lifetime = new RequestLifetime(5_000);
			let attempts = 0;
			const answer = await withRetries({ ctx, scope, lifetime }, async () => {
				attempts += 1;
				if (attempts === 1) {
					setTimeout(() => others.pop()?.release('ok'), 5);
					throw statusFailure(scope, status, { 'retry-after': '0' }, JSON.stringify(body));
				}
				return 'answered';
			});
			lifetime.dispose();
			for (const other of others) other.release('ok');
			// Retries 0, and still asked again: the pace took the busy answer over.
			expect(answer).toBe('answered');
			expect(attempts).toBe(2);
			expect(pace.summary()).toMatchObject({ busyAnswers: 1 });
		},
	);

	it("a busy answer while none of the run's other asks is in flight counts as a retry", async () => {
		const pace = new AdaptivePace(4);
		const scope = scopeWith(pace.lane(0), 1);
		const lifetime = new RequestLifetime(5_000);
		let attempts = 0;
		const failed = withRetries({ ctx, scope, lifetime }, async () => {
			attempts += 1;
			throw poolBusy(scope);
		});
		// A full pool gets the retry policy's whole schedule when Retries is on: 4 retries.
		await expect(failed).rejects.toThrow(/sessions are busy/);
		lifetime.dispose();
		expect(attempts).toBe(5);
	});

	it('no busy retry waits past the deadline: the busy answer is the result then', async () => {
		const pace = new AdaptivePace(4);
		const others = await othersInFlight(pace, 1);
		const scope = scopeWith(pace.lane(0), 2);
		// Set up as the first test is, with a short deadline: each test states its own pace and
		// lifetime so its numbers read where they are asserted.
		const lifetime = new RequestLifetime(2_000);
		let attempts = 0;
		const pauses = jest.spyOn(lifetime, 'pause');
		const failed = withRetries({ ctx, scope, lifetime }, async () => {
			attempts += 1;
			throw poolBusy(scope, '30');
		});
		await expect(failed).rejects.toThrow(/HTTP 503/);
		// What the loop throws is what the user reads: the failure's NodeApiError.
		await expect(failed).rejects.toBeInstanceOf(NodeApiError);
		lifetime.dispose();
		others[0].release('ok');
		expect(attempts).toBe(1);
		// No pause at all: the 30 s Retry-After was not waited, even in part.
		expect(pauses).not.toHaveBeenCalled();
	});
});
