import type { IExecuteFunctions } from 'n8n-workflow';

import { isToolVariant } from './toolVariant';

/**
 * The answer as a streaming execution's response (a Webhook or Chat Trigger that streams) receives
 * it (docs/api.md#assembling-the-answer). Piece by piece (Options > Stream on, a text answer):
 * each new piece of text once, as it arrives. Otherwise (Stream off, or a structured answer, only
 * useful whole): the whole answer in one chunk once it is complete, so that such a response is
 * never empty. Outside a streaming execution, and in the AI Agent's tool (whose answer is the
 * agent's to read, not the caller's), this does nothing.
 */
export class LiveChunks {
	private readonly enabled: boolean;
	private readonly piecewise: boolean;
	private begun = false;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
		options: { stream: boolean; structured: boolean },
	) {
		this.enabled =
			typeof ctx.isStreaming === 'function' && ctx.isStreaming() && !isToolVariant(ctx);
		this.piecewise = options.stream && !options.structured;
	}

	/** Each new piece of text of the answer, as it arrives. */
	text(delta: string): void {
		if (!this.enabled || !this.piecewise || !delta) return;
		this.begin();
		this.ctx.sendChunk('item', this.itemIndex, delta);
	}

	finish(output: string | Record<string, unknown>): void {
		if (!this.enabled) return;
		this.begin();
		if (!this.piecewise) {
			this.ctx.sendChunk(
				'item',
				this.itemIndex,
				typeof output === 'string' ? output : JSON.stringify(output),
			);
		}
		this.ctx.sendChunk('end', this.itemIndex);
	}

	/**
	 * The item failed. Pieces of it went out already: under Continue On Fail (where n8n says
	 * nothing, the run goes on) the caller is told the answer was cut, with the failure's message.
	 * Otherwise n8n itself sends the node's error.
	 */
	fail(error: unknown): void {
		if (!this.enabled || !this.begun || !this.ctx.continueOnFail()) return;
		this.ctx.sendChunk(
			'error',
			this.itemIndex,
			error instanceof Error ? error.message : String(error),
		);
	}

	private begin(): void {
		if (this.begun) return;
		this.begun = true;
		this.ctx.sendChunk('begin', this.itemIndex);
	}
}
