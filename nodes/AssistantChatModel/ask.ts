import type { ISupplyDataFunctions } from 'n8n-workflow';

import type { AskRequest } from '../shared/api';
import type { RequestSettings } from '../shared/parameters/requestOptions';
import type { RunContext } from '../shared/runContext';
import { askAssistant, type AskResult } from '../shared/askAssistant';
import type { TextObjectRule } from '../shared/outputFormat/structuredText';
import { isHeldAnswer, type PlannedAsk } from './askPlan';

/** The chat model's asks, through the one ask call both nodes share (auth, deadlines, retries). */

export type { AskResult } from '../shared/askAssistant';

/** The steps of each ask go in the AI message's metadata; thinking texts stay out (they are long). */
const STEPS = { thinking: false };

/** The chat model's settings an ask needs: its request options and its run (runContext.ts). */
type AskSettings = RequestSettings & { run: RunContext<ISupplyDataFunctions> };

/**
 * What the plan of an ask (askPlan.ts) tells it: the answer the history holds from the
 * conversation, and where the conversation came from. A correction sent back to the answer's
 * conversation is no turn of the history: it holds no answer, and its conversation is the one
 * that just answered (toolCalling.ts).
 */
export type AskTurn = Pick<PlannedAsk, 'heldAnswer' | 'conversationFrom'>;

/**
 * What of the run an ask takes: its credential, its watch over the calls' time, its notices, its
 * record of each conversation's last answered message; and who asks, for the advice of its errors
 * (this node has no Concurrency; a lost conversation may be the chat memory's).
 */
function ofRun({ run }: AskSettings, turn: AskTurn | undefined) {
	return {
		asker: { node: 'chat-model', conversation: turn?.conversationFrom } as const,
		notices: run.notices,
		credentials: run.credentials,
		watch: run.watch,
		turns: run.turns,
	};
}

/**
 * The whole answer at once (not streamed): for tool calls, structured output and `generate`.
 * `textObject`: where a structured answer that came as text may have its object; `turn`: what
 * the plan says of the ask.
 */
export async function askWhole(
	ctx: ISupplyDataFunctions,
	request: AskRequest,
	settings: AskSettings,
	textObject?: TextObjectRule,
	turn?: AskTurn,
): Promise<AskResult> {
	return await askAssistant(ctx, {
		request,
		stream: false,
		...settings,
		...ofRun(settings, turn),
		steps: STEPS,
		textObject,
		isHeldAnswer: heldAnswerCheck(turn?.heldAnswer),
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
	turn?: AskTurn,
): AsyncGenerator<string, AskResult> {
	const pending: string[] = [];
	let wake: (() => void) | undefined;
	let settled = false;
	const answer = askAssistant(ctx, {
		request,
		stream: true,
		...settings,
		...ofRun(settings, turn),
		steps: STEPS,
		isHeldAnswer: heldAnswerCheck(turn?.heldAnswer),
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
