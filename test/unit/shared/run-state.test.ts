/**
 * What a run reads once and passes down (nodes/shared/runContext.ts): the credential, the
 * parameters no item can change (found through n8n's rawExpressions read), what was told once.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../../nodes/shared/transport';
import { RunContext } from '../../../nodes/shared/runContext';
import { fakeExecuteContext } from '../../helpers/execute-context';

/** A node run whose server answers every request, counting the credential's reads. */
function countingRun(failFirstRead = false) {
	const fake = fakeExecuteContext({
		items: [{}, {}, {}],
		parameter: () => undefined,
		respond: () => ({ statusCode: 200, body: { models: [] } }),
	});
	let reads = 0;
	const ctx = Object.assign(fake.ctx, {
		getCredentials: async () => {
			reads++;
			if (failFirstRead && reads === 1) throw new Error('credential not found');
			return { baseUrl: 'http://assistant.test/api', accessToken: 'unit-token' };
		},
	}) as IExecuteFunctions;
	return { run: new RunContext(ctx), requests: fake.requests, reads: () => reads };
}

const listModels = (run: RunContext<IExecuteFunctions>) =>
	apiRequest(run.ctx, {
		method: 'GET',
		path: '/models/available',
		authenticated: true,
		retries: 0,
		credentials: run.credentials,
	});

describe('a run reads its credential once', () => {
	it('three requests of one run read it once', async () => {
		const { run, requests, reads } = countingRun();
		for (let item = 0; item < 3; item++) await listModels(run);
		expect(requests).toHaveLength(3);
		expect(reads()).toBe(1);
	});

	it('a failed read is not kept: the next request of the run reads it again', async () => {
		const { run, requests, reads } = countingRun(true);
		await expect(listModels(run)).rejects.toThrow('credential not found');
		await listModels(run);
		expect([reads(), requests.length]).toEqual([2, 1]);
	});

	it('another run reads it afresh', async () => {
		const first = countingRun();
		await listModels(first.run);
		const second = new RunContext(first.run.ctx);
		await listModels(second);
		expect(first.reads()).toBe(2);
	});
});

describe('a run tells a notice once', () => {
	it('the first time a key is asked about, and never again in that run', () => {
		const { run } = countingRun();
		expect([run.notices.first('hint'), run.notices.first('hint')]).toEqual([true, false]);
		expect(run.notices.first('other hint')).toBe(true);
		expect(new RunContext(run.ctx).notices.first('hint')).toBe(true);
	});
});

describe('which parameters are the same for every item: n8n says how they are stored', () => {
	/** n8n's answer: `raw` for a rawExpressions read (the node as stored), else per item. */
	function storedAs(raw: Record<string, unknown>) {
		const resolved: string[] = [];
		const ctx = {
			getNode: () => ({ parameters: {} }),
			getNodeParameter: (
				name: string,
				itemIndex: number,
				fallback: unknown,
				how?: { rawExpressions?: boolean },
			) => {
				if (how?.rawExpressions) return name in raw ? raw[name] : fallback;
				resolved.push(`${name}#${itemIndex}`);
				return `${name} of item ${itemIndex}`;
			},
		} as unknown as IExecuteFunctions;
		return { run: new RunContext(ctx), resolved };
	}

	it('a value stored without an expression is resolved once, for the first item', () => {
		const { run, resolved } = storedAs({ persona: 'persona_pirate' });
		const values = [0, 1, 2].map((item) => run.getNodeParameter('persona', item, ''));
		expect(values).toEqual(['persona of item 0', 'persona of item 0', 'persona of item 0']);
		expect(resolved).toEqual(['persona#0']);
	});

	it('an expression, or nothing stored, is resolved for every item', () => {
		const { run, resolved } = storedAs({ input: '={{ $json.q }}' });
		for (const item of [0, 1]) {
			run.getNodeParameter('input', item, '');
			run.getNodeParameter('conversationId', item, '');
		}
		expect(resolved).toEqual(['input#0', 'conversationId#0', 'input#1', 'conversationId#1']);
	});
});
