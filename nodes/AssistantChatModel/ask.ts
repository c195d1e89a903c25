import type { ISupplyDataFunctions } from 'n8n-workflow';

import type { AskRequest } from '../shared/api';
import type { RequestSettings } from '../shared/parameters/requestOptions';
import type { RunContext } from '../shared/runContext';
import { askAssistant, type AskResult } from '../shared/askAssistant';
import type { TextObjectRule } from '../shared/outputFormat/structuredText';
import { isHeldAnswer } from './askPlan';

/** The chat model's asks, through the one ask call both nodes share (auth, deadlines, retries). */

export type { AskResult } from '../shared/askAssistant';

/** The steps of each ask go in the AI message's metadata; thinking texts stay out (they are long). */
const STEPS = { thinking: false };

/** The chat model's settings an ask needs: its request options and its run (runContext.ts). */
type AskSettings = RequestSettings & { run: RunContext<ISupplyDataFunctions> };

/**
 * What of the run an ask takes: its credential, its watch over the calls' time, its notices, its
 * record of each conversation's last answered message; and who asks, for the advice of its errors
 * (this node has no Concurrency).
 */
function ofRun({ run }: AskSettings) {
	return {
		asker: { node: 'chat-model' } as const,
		notices: run.notices,
		credentials: run.credentials,
		watch: run.watch,
		turns: run.turns,
	};
}

/**
 * The whole answer at once (not streamed): for tool calls, structured output and `generate`.
 * `textObject`: where a structured answer that came as text may have its object; `heldAnswer`:
 * the answer the history holds from the conversation (askPlan.ts).
 */
export async function askWhole(
	ctx: ISupplyDataFunctions,
	request: AskRequest,
	settings: AskSettings,
	textObject?: TextObjectRule,
	heldAnswer?: string,
): Promise<AskResult> {
	return await askAssistant(ctx, {
		request,
		stream: false,
		...settings,
		...ofRun(settings),
		steps: STEPS,
		textObject,
		isHeldAnswer: heldAnswerCheck(heldAnswer),
	});
}

function heldAnswerCheck(held: string | undefined) {
	return held === undefined
		? undefined
		: (output: string | Record<string, unknown>) => isHeldAnswer(output, held);
}

/**
 * The streamed form as an async generator: yields each new piece of answer text as it arrives,
 * and returns the whole answer (docs/api.md#assembling-the-answer). A failure is thrown after
 * the pieces that came before it.
 */
export async function* askStreamed(
	ctx: ISupplyDataFunctions,
	request: AskRequest,
	settings: AskSettings,
	heldAnswer?: string,
): AsyncGenerator<string, AskResult> {
	const pending: string[] = [];
	let wake: (() => void) | undefined;
	let settled = false;
	const answer = askAssistant(ctx, {
		request,
		stream: true,
		...settings,
		...ofRun(settings),
		steps: STEPS,
		isHeldAnswer: heldAnswerCheck(heldAnswer),
		onText: (delta) => {
			pending.push(delta);
			wake?.();
		},
	}).finally(() => {
		settled = true;
		wake?.();
	});
	// Awaited below; this only keeps an early failure from counting as unhandled meanwhile.
	answer.catch(() => undefined);
	for (;;) {
		const next = pending.shift();
		if (next !== undefined) {
			yield next;
			continue;
		}
		if (settled) break;
		await new Promise<void>((resolve) => (wake = resolve));
		wake = undefined;
	}
	return await answer;
}
