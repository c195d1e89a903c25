import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Forwards a streamed answer to n8n's streaming response (a Webhook or Chat Trigger that
 * streams): each new piece of text once, as it arrives; a structured answer, only useful whole,
 * once at the end (docs/api.md#assembling-the-answer). Outside a streaming execution this does
 * nothing.
 */
export class LiveChunks {
	private readonly enabled: boolean;
	private begun = false;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly itemIndex: number,
		private readonly structured: boolean,
	) {
		this.enabled = typeof ctx.isStreaming === 'function' && ctx.isStreaming();
	}

	text(delta: string): void {
		if (!this.enabled || this.structured || !delta) return;
		this.begin();
		this.ctx.sendChunk('item', this.itemIndex, delta);
	}

	finish(output: string | Record<string, unknown>): void {
		if (!this.enabled) return;
		this.begin();
		if (this.structured) this.ctx.sendChunk('item', this.itemIndex, JSON.stringify(output));
		this.ctx.sendChunk('end', this.itemIndex);
	}

	private begin(): void {
		if (this.begun) return;
		this.begun = true;
		this.ctx.sendChunk('begin', this.itemIndex);
	}
}
