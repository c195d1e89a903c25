import type { StreamAnswer } from './stream/answer';
import type { Redaction } from './transport/redaction';

/**
 * The answer text passed on to a streaming workflow so far, across an ask's attempts and its
 * recovery, so that none of it is passed on twice. The stream being read knows what it passed
 * on: no second copy of a long answer is kept while it streams. What goes out is redacted
 * (RedactedPieces): `sent` is the answer's text as the service gave it, for the recovery's rest.
 */
export class LiveText {
	/** What was passed on before the stream being read. */
	private earlier = '';
	private reading: StreamAnswer | undefined;
	private readonly pieces: RedactedPieces | undefined;
	/** Where the stream being read passes each new piece; undefined: nobody takes them. */
	readonly forward: ((delta: string) => void) | undefined;

	constructor(sink: ((delta: string) => void) | undefined) {
		const pieces = sink && new RedactedPieces(sink);
		this.pieces = pieces;
		this.forward = pieces && ((delta: string) => pieces.add(delta));
	}

	/** The token to keep out of the pieces, known once the call has read its credential. */
	redactWith(redaction: Redaction | undefined): void {
		this.pieces?.redactWith(redaction);
	}

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

	/**
	 * Passes on the rest of an answer that ends it (a whole answer, or a recovered answer's
	 * rest): nothing follows that could make a part of it the token's, so it goes out in one
	 * piece with what was held back.
	 */
	passOnEnd(rest: string): void {
		if (!this.forward) return;
		this.settle();
		this.earlier += rest;
		this.pieces?.end(rest);
	}

	/** The answer is whole: what was held back goes out. */
	finish(): void {
		this.pieces?.flush();
	}

	get sent(): string {
		return this.earlier + (this.reading?.passedOn() ?? '');
	}

	private settle(): void {
		if (this.reading) this.earlier += this.reading.passedOn();
		this.reading = undefined;
	}
}

/**
 * Characters held back that are looked at again with every piece; past them, held text is looked
 * at again once it has doubled. A look reads all that is held, in each of its readings, so this
 * is what a held character may cost each piece: at 1024, a token spelled in three layers of
 * escapes (held near that long) streamed a character a piece cost about 90 µs a character, at 64
 * about what plain text costs. Held text longer than 64 is a spelling in escapes or the
 * beginning of a token longer than most: it waits for more before it is looked at again, which
 * may hold more back a while, never lets more out.
 */
const HELD_LOOKED_AT_ONCE = 64;

/**
 * Pieces going out without the token (docs/security.md), redacted as the whole answer would be,
 * wherever they were cut: a piece's end that may be part of the token, in any form the
 * redaction reads (its characters, some or all written in escapes, however often escaped), is
 * held back until the next piece shows whether it is (or the answer ends), and what goes out is
 * redacted by itself only where nothing that follows can change that (Redaction.readyPart).
 * Text that cannot be part of the token goes out at once.
 */
class RedactedPieces {
	private held = '';
	private redaction: Redaction | undefined;
	/** How long the held text must grow before the next piece has it looked at again. */
	private lookAt = 0;

	constructor(private readonly sink: (delta: string) => void) {}

	redactWith(redaction: Redaction | undefined): void {
		this.redaction = redaction;
	}

	add(piece: string): void {
		const { redaction } = this;
		if (!redaction) {
			this.sink(piece);
			return;
		}
		const joined = this.held ? this.held + piece : piece;
		if (joined.length < this.lookAt) {
			this.held = joined;
			return;
		}
		const { ready, out } = redaction.readyPart(joined);
		this.held = joined.slice(ready);
		// Each look reads all that is held. Only a text in layers of escapes stays the token's
		// possible beginning for long; past HELD_LOOKED_AT_ONCE, it is looked at again once it has
		// doubled, so that tiny pieces cost each character a few looks, not one each.
		this.lookAt = this.held.length > HELD_LOOKED_AT_ONCE ? 2 * this.held.length : 0;
		if (ready > 0) this.sink(out);
	}

	/** The last piece: out whole, with what was held back. */
	end(piece: string): void {
		const joined = this.held + piece;
		this.held = '';
		this.lookAt = 0;
		if (joined) this.sink(this.redaction ? this.redaction.text(joined) : joined);
	}

	flush(): void {
		this.end('');
	}
}
