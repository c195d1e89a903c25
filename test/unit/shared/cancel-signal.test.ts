/**
 * n8n's authenticated helper sets a request's abort signal to what its `this` answers to
 * `getExecutionCancelSignal()` (n8n 1.x and 2.x alike). The node calls it on a view of its
 * context that answers with the call's own signal, which fires at the deadline as well as on
 * cancellation (nodes/shared/transport/send.ts); every other member is the context's own.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { apiRequest } from '../../../nodes/shared/transport';
import { FAKE_NODE, fakeExecuteContext } from '../../helpers/execute-context';

/** What n8n's helper found on its `this`, as n8n reads it. */
interface Seen {
	hasSignal: boolean;
	signal: AbortSignal | undefined;
	node: unknown;
	helpersAreTheContexts: boolean;
	own: string;
}

/**
 * A context as n8n makes one (a class instance, a private field read by a method), whose helper
 * reads `this` as n8n's does, then waits for the request's signal as a server that never answers
 * would have it wait.
 */
function contextWatchingItsHelper() {
	const execution = new AbortController();
	const fake = fakeExecuteContext({
		items: [{}],
		parameter: () => undefined,
		respond: () => ({ statusCode: 200, body: {} }),
	});
	let seen: Seen | undefined;
	class Context {
		readonly #own = 'the context itself';
		own() {
			return this.#own;
		}
	}
	const ctx = Object.assign(new Context(), fake.ctx, {
		getExecutionCancelSignal: () => execution.signal,
	});
	ctx.helpers = {
		...fake.ctx.helpers,
		async httpRequestWithAuthentication(
			this: IExecuteFunctions & Context,
			_type: string,
			request: IHttpRequestOptions,
		) {
			if ('getExecutionCancelSignal' in this) request.abortSignal = this.getExecutionCancelSignal();
			seen = {
				hasSignal: 'getExecutionCancelSignal' in this,
				signal: request.abortSignal as AbortSignal | undefined,
				node: this.getNode(),
				helpersAreTheContexts: this.helpers === ctx.helpers,
				own: this.own(),
			};
			// Given up after a while, so that a signal the deadline does not abort fails the test.
			const signals = [request.abortSignal as AbortSignal, AbortSignal.timeout(2000)];
			return await new Promise((_resolve, reject) => {
				for (const signal of signals) {
					signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
				}
			});
		},
	} as IExecuteFunctions['helpers'];
	return { ctx: ctx as unknown as IExecuteFunctions, execution, seen: () => seen };
}

const slowList = (ctx: IExecuteFunctions) =>
	apiRequest(ctx, {
		method: 'GET',
		path: '/models/available',
		authenticated: true,
		retries: 0,
		timeoutMs: 200,
	});

describe("n8n's helper is handed the call's own abort signal", () => {
	it('the deadline aborts the request through it, not only a cancelled execution', async () => {
		const { ctx, execution, seen } = contextWatchingItsHelper();
		await expect(slowList(ctx)).rejects.toThrow(/within/);
		expect(seen()?.hasSignal).toBe(true);
		expect(seen()?.signal).not.toBe(execution.signal);
		expect(seen()?.signal?.aborted).toBe(true);
		expect(execution.signal.aborted).toBe(false);
	});

	it("every other member is the context's own, its methods run on the context itself", async () => {
		const { ctx, seen } = contextWatchingItsHelper();
		await expect(slowList(ctx)).rejects.toThrow();
		expect(seen()).toMatchObject({
			node: FAKE_NODE,
			helpersAreTheContexts: true,
			own: 'the context itself',
		});
	});
});
