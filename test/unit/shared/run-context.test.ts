/**
 * Requests that do not depend on the item are made once per node run (RunContext), and the
 * public catalog once per execution, whichever node or item needs it (docs/api.md#catalog).
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { readRequestSettings } from '../../../nodes/shared/parameters/requestOptions';
import { AskedTurns, RunContext } from '../../../nodes/shared/runContext';
import { fakeExecuteContext } from '../../helpers/execute-context';

/** A run of a node that needs nothing of n8n but what `once` is given. */
function newRun(ctx = {} as IExecuteFunctions): RunContext<IExecuteFunctions> {
	return new RunContext(ctx);
}

/** The catalog as an Assistant node's operations read it: with the item's request settings. */
async function catalogOfExecution(run: RunContext<IExecuteFunctions>, itemIndex: number) {
	return await run.catalog(readRequestSettings(run, itemIndex));
}

const CATALOG = { models: [{ id: 'm1' }], deprecation_map: {} };

describe('a request shared by every item is made once per node run', () => {
	it('every caller of a key gets the one answer, loaded once', async () => {
		const cache = newRun();
		let loads = 0;
		const load = async () => ({ loaded: ++loads });
		const answers = await Promise.all([cache.once('models', load), cache.once('models', load)]);
		expect(answers).toEqual([{ loaded: 1 }, { loaded: 1 }]);
		expect(await cache.once('personas', load)).toEqual({ loaded: 2 });
	});

	it('a failed load fails every caller of that run with the same error', async () => {
		const cache = newRun();
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
		const firstRun = newRun(first.ctx);
		for (const itemIndex of [0, 1, 2]) {
			expect(await catalogOfExecution(firstRun, itemIndex)).toEqual(CATALOG);
		}
		expect(await catalogOfExecution(newRun(second.ctx), 0)).toEqual(CATALOG);
		expect(first.requests.length + second.requests.length).toBe(1);
	});

	it('another execution reads it again', async () => {
		const one = catalogNode('exec-one');
		const other = catalogNode('exec-other');
		await catalogOfExecution(newRun(one.ctx), 0);
		await catalogOfExecution(newRun(other.ctx), 0);
		expect([one.requests.length, other.requests.length]).toEqual([1, 1]);
	});

	it('a failed read is not kept: the next node run of the execution asks again', async () => {
		const failing = catalogNode('exec-retry', [503]);
		await expect(catalogOfExecution(newRun(failing.ctx), 0)).rejects.toThrow(/HTTP 503/);
		const next = catalogNode('exec-retry', [200]);
		expect(await catalogOfExecution(newRun(next.ctx), 0)).toEqual(CATALOG);
		expect(next.requests).toHaveLength(1);
	});
});

describe("each conversation's last answered message, and the failed asks after it (docs/api.md#recovery-after-a-failure)", () => {
	test('an ask repeats it when its message is the same, line endings, whitespace and images aside', () => {
		const turns = new AskedTurns();
		expect(turns.repeats('c1', 'Status?')).toBe(false);
		turns.answered('c1', 'Status?\r\n');
		expect(turns.repeats('c1', ' Status?')).toBe(true);
		expect(turns.repeats('c1', 'Status now?')).toBe(false);
		expect(turns.repeats('c2', 'Status?')).toBe(false);
		turns.answered('c1', 'Status now?');
		expect(turns.repeats('c1', 'Status?')).toBe(false);
	});

	test('an ask that failed after it may have been taken is kept beside the last answered one, until the next answer', () => {
		const turns = new AskedTurns();
		turns.answered('c1', 'Status?');
		turns.mayHaveTaken('c1', 'Send the report');
		// The conversation's last turn may be either: both are kept.
		expect(turns.repeats('c1', 'Status?')).toBe(true);
		expect(turns.repeats('c1', 'Send the report')).toBe(true);
		expect(turns.repeats('c1', 'Something else')).toBe(false);
		turns.mayHaveTaken('c2', 'Send the report');
		expect(turns.repeats('c2', 'Send the report')).toBe(true);
		// An answer is the conversation's last turn: it alone is kept.
		turns.answered('c1', 'Done?');
		expect(turns.repeats('c1', 'Status?')).toBe(false);
		expect(turns.repeats('c1', 'Send the report')).toBe(false);
		expect(turns.repeats('c1', 'Done?')).toBe(true);
		// A run of failures keeps the latest 16 messages, as fingerprints.
		const kept: Record<string, string> = {};
		const many = new AskedTurns(kept);
		for (let i = 1; i <= 17; i++) many.mayHaveTaken('c3', `Private ask ${i}`);
		expect(many.repeats('c3', 'Private ask 1')).toBe(false);
		expect(new AskedTurns(kept).repeats('c3', 'Private ask 2')).toBe(true);
		expect(new AskedTurns(kept).repeats('c3', 'Private ask 17')).toBe(true);
		expect(JSON.stringify(kept)).not.toMatch(/Private|c3/);
	});

	test('kept where it is given (the node’s context of the execution), as fingerprints, for the latest 1,000 conversations', () => {
		const kept: Record<string, string> = {};
		new AskedTurns(kept).answered('con_PrivateConversation', 'Send the private report to Bob');
		expect(
			new AskedTurns(kept).repeats('con_PrivateConversation', 'Send the private report to Bob'),
		).toBe(true);
		// Neither the message nor the conversation's id (a server may echo the token as one).
		expect(JSON.stringify(kept)).not.toMatch(/report|Private/);
		const turns = new AskedTurns(kept);
		for (let i = 2; i <= 1001; i++) turns.answered(`c${i}`, 'ok');
		expect(Object.keys(kept)).toHaveLength(1000);
		expect(turns.repeats('con_PrivateConversation', 'Send the private report to Bob')).toBe(false);
		expect(turns.repeats('c1001', 'ok')).toBe(true);
	});

	test('held for a run (the router holds it), the answered asks are recorded at its end in the order answered, and before any read of the record', () => {
		const kept: Record<string, string> = {};
		const turns = new AskedTurns(kept);
		const release = turns.hold();
		turns.answered('c1', 'Status?');
		turns.answered('c2', 'Status?');
		expect(Object.keys(kept)).toHaveLength(0);
		// A read records them first.
		expect(turns.repeats('c1', 'Status?')).toBe(true);
		expect(Object.keys(kept)).toHaveLength(2);
		turns.answered('c1', 'Done?');
		// A failure after an answer held back: the answer first, as if recorded at once.
		turns.mayHaveTaken('c1', 'Send the report');
		expect(turns.repeats('c1', 'Status?')).toBe(false);
		expect(turns.repeats('c1', 'Done?')).toBe(true);
		expect(turns.repeats('c1', 'Send the report')).toBe(true);
		for (let i = 3; i <= 1001; i++) turns.answered(`c${i}`, 'ok');
		release();
		release();
		// In the order recorded: c2, the oldest (c1 was recorded again after it), gave way.
		const later = new AskedTurns(kept);
		expect(Object.keys(kept)).toHaveLength(1000);
		expect(later.repeats('c2', 'Status?')).toBe(false);
		expect(later.repeats('c1', 'Done?')).toBe(true);
		expect(later.repeats('c3', 'ok')).toBe(true);
		expect(later.repeats('c1001', 'ok')).toBe(true);
	});

	test('held back, the messages are recorded once they pass a million characters: the record holds no run’s every message', () => {
		const kept: Record<string, string> = {};
		const turns = new AskedTurns(kept);
		turns.hold();
		const long = 'x'.repeat(600_000);
		turns.answered('c1', long);
		expect(Object.keys(kept)).toHaveLength(0);
		turns.answered('c2', long);
		expect(Object.keys(kept)).toHaveLength(2);
	});
});
