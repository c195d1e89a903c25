/**
 * Requests that do not depend on the item are made once per node run (RunCache), and the
 * public catalog once per execution, whichever node or item needs it (docs/api.md#catalog).
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import { catalogOfExecution } from '../../../nodes/Assistant/actions/executionCatalog';
import { RunCache } from '../../../nodes/Assistant/actions/runCache';
import { fakeExecuteContext } from '../../helpers/execute-context';

const CATALOG = { models: [{ id: 'm1' }], deprecation_map: {} };

describe('a request shared by every item is made once per node run', () => {
	it('every caller of a key gets the one answer, loaded once', async () => {
		const cache = new RunCache();
		let loads = 0;
		const load = async () => ({ loaded: ++loads });
		const answers = await Promise.all([cache.once('models', load), cache.once('models', load)]);
		expect(answers).toEqual([{ loaded: 1 }, { loaded: 1 }]);
		expect(await cache.once('personas', load)).toEqual({ loaded: 2 });
	});

	it('a failed load fails every caller of that run with the same error', async () => {
		const cache = new RunCache();
		const failure = new Error('HTTP 500');
		const load = jest.fn(async () => {
			throw failure;
		});
		await expect(cache.once('models', load)).rejects.toBe(failure);
		await expect(cache.once('models', load)).rejects.toBe(failure);
		expect(load).toHaveBeenCalledTimes(1);
	});
});

/** A node run in the given execution whose server serves the catalog (or fails). */
function catalogNode(executionId: string, answers: number[] = [200]) {
	let call = 0;
	return fakeExecuteContext({
		items: [{}, {}, {}],
		executionId,
		parameter: (name) => (name === 'options' ? { retries: 0 } : undefined),
		respond: (request: IHttpRequestOptions) => {
			expect(request.url).toBe('http://assistant.test/api/models/catalog');
			const statusCode = answers[Math.min(call++, answers.length - 1)];
			return { statusCode, body: statusCode === 200 ? CATALOG : { detail: 'catalog down' } };
		},
	});
}

describe('the public catalog is read once per execution', () => {
	it('three items and two node runs of one execution send one request', async () => {
		const first = catalogNode('exec-shared');
		const second = catalogNode('exec-shared');
		const firstRun = new RunCache();
		for (const itemIndex of [0, 1, 2]) {
			expect(await catalogOfExecution(first.ctx, itemIndex, firstRun)).toEqual(CATALOG);
		}
		expect(await catalogOfExecution(second.ctx, 0, new RunCache())).toEqual(CATALOG);
		expect(first.requests.length + second.requests.length).toBe(1);
	});

	it('another execution reads it again', async () => {
		const one = catalogNode('exec-one');
		const other = catalogNode('exec-other');
		await catalogOfExecution(one.ctx, 0, new RunCache());
		await catalogOfExecution(other.ctx, 0, new RunCache());
		expect([one.requests.length, other.requests.length]).toEqual([1, 1]);
	});

	it('a failed read is not kept: the next node run of the execution asks again', async () => {
		const failing = catalogNode('exec-retry', [503]);
		await expect(catalogOfExecution(failing.ctx, 0, new RunCache())).rejects.toThrow(/HTTP 503/);
		const next = catalogNode('exec-retry', [200]);
		expect(await catalogOfExecution(next.ctx, 0, new RunCache())).toEqual(CATALOG);
		expect(next.requests).toHaveLength(1);
	});
});
