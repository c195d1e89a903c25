import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	AdaptivePace,
	type AttemptPace,
	type PaceSummary,
} from '../../shared/transport/adaptivePace';

/**
 * How the items of one node run are run: one after another, or several at once, at the pace the
 * service allows (docs/api.md#full-session-pool), one at a time per conversation
 * (docs/api.md#busy-conversation-409). Output order is input order whatever finishes first.
 */

/** Runs one item; its requests go through `pace` when the run is paced. */
export type RunItem = (
	itemIndex: number,
	pace: AttemptPace | undefined,
) => Promise<INodeExecutionData[]>;

export interface RunPlan {
	/** The most items at once: Options > Concurrency (1: one after another). */
	concurrency: number;
	/** Whether the items' requests share an adaptive pace of at most `concurrency` at once. */
	paced: boolean;
	/** The conversation an item continues: items of one conversation run one after another. */
	conversationOf?: (itemIndex: number) => string | undefined;
}

/** Every item's outputs, by item index; a hint when the service limited the pace. */
export async function runItems(
	ctx: IExecuteFunctions,
	count: number,
	plan: RunPlan,
	runItem: RunItem,
): Promise<INodeExecutionData[][]> {
	const pace = plan.paced ? new AdaptivePace(plan.concurrency) : undefined;
	const run = (itemIndex: number) => runItem(itemIndex, pace?.lane(itemIndex));
	const perItem =
		plan.concurrency > 1
			? await runConcurrently(count, plan.concurrency, run, plan.conversationOf, (itemIndex) =>
					pace?.stopAfter(itemIndex),
				)
			: await runInOrder(count, run);
	if (pace) addPaceHint(ctx, pace.summary());
	return perItem;
}

async function runInOrder(
	count: number,
	runItem: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[][]> {
	const perItem: INodeExecutionData[][] = [];
	for (let itemIndex = 0; itemIndex < count; itemIndex++) perItem.push(await runItem(itemIndex));
	return perItem;
}

/**
 * Up to `concurrency` items at once, taken in input order; results are placed by item index,
 * so output order is input order. Items of one conversation wait for the one before them
 * (the service answers 409 to a second request on a busy conversation). After a failure
 * (without Continue On Fail) no new item starts, `onFailure` stops the later items' attempts
 * still to come (the pace's stopAfter: a retry of one waiting its turn is not sent), and the
 * failure of the lowest item is thrown, as it would have been one at a time.
 */
async function runConcurrently(
	count: number,
	concurrency: number,
	runItem: (itemIndex: number) => Promise<INodeExecutionData[]>,
	conversationOf: (itemIndex: number) => string | undefined = () => undefined,
	onFailure: (itemIndex: number) => void = () => undefined,
): Promise<INodeExecutionData[][]> {
	const perItem: INodeExecutionData[][] = new Array(count);
	const conversationTails = new Map<string, Promise<unknown>>();
	const failures = new Map<number, unknown>();
	let next = 0;

	const worker = async () => {
		while (next < count && failures.size === 0) {
			const itemIndex = next++;
			const conversation = conversationOf(itemIndex);
			const previous = conversation ? conversationTails.get(conversation) : undefined;
			const run = (async () => {
				if (previous) await previous.catch(() => undefined);
				// The run failed while this item waited for its conversation: it is not sent.
				if (failures.size > 0) return;
				perItem[itemIndex] = await runItem(itemIndex);
			})();
			if (conversation) conversationTails.set(conversation, run);
			try {
				await run;
			} catch (error) {
				failures.set(itemIndex, error);
				onFailure(itemIndex);
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
	return perItem;
}

/** Says on the output pane that the service limited the pace, and to what; nothing otherwise. */
function addPaceHint(ctx: IExecuteFunctions, summary: PaceSummary): void {
	const message = paceHint(summary);
	if (message) ctx.addExecutionHints({ message, type: 'info', location: 'outputPane' });
}

export function paceHint({ max, busyAnswers, lowest, final }: PaceSummary): string | undefined {
	if (busyAnswers === 0) return undefined;
	const answers = `${busyAnswers} ${busyAnswers === 1 ? 'ask was' : 'asks were'} answered "busy" (a full session pool, 429 or 503)`;
	if (max === 1 || lowest === max) {
		return `The service was busy: ${answers}; each waited and was asked again.`;
	}
	const advice =
		final < max
			? ` Setting Options &gt; Concurrency to ${final} avoids most of these refusals.`
			: '';
	return `The service limited the pace: ${answers}, so the node lowered the asks in flight from ${max} (Concurrency) to as few as ${lowest}, and ended at ${final}.${advice}`;
}
