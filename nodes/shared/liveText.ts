import type { StreamAnswer } from './stream/answer';

/**
 * The answer text passed on to a streaming workflow so far, across an ask's attempts and its
 * recovery, so that none of it is passed on twice. The stream being read knows what it passed
 * on: no second copy of a long answer is kept while it streams.
 */
export class LiveText {
	/** What was passed on before the stream being read. */
	private earlier = '';
	private reading: StreamAnswer | undefined;

	constructor(readonly forward: ((delta: string) => void) | undefined) {}

	/** From now on text is passed on from `answer` (what came before stays passed on). */
	reads(answer: StreamAnswer): void {
		this.settle();
		this.reading = answer;
	}

	/** Passes on the rest of an answer that was recovered instead of streamed. */
	passOn(rest: string): void {
		if (!this.forward || !rest) return;
		this.settle();
		this.earlier += rest;
		this.forward(rest);
	}

	get sent(): string {
		return this.earlier + (this.reading?.passedOn() ?? '');
	}

	private settle(): void {
		if (this.reading) this.earlier += this.reading.passedOn();
		this.reading = undefined;
	}
}
