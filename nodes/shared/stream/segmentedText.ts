/**
 * Pieces are joined into one flat segment once they hold about this many characters: small
 * enough that most pieces are joined before the collector has to move them (bench row 3).
 */
const SEGMENT_CHARS = 1 << 16;

/**
 * Text gathered piece by piece (a stream's answer: hundreds of thousands of small pieces), read
 * back whole or in slices. Kept as flat segments of about 64 K characters, joined as they fill.
 * An array of every piece, or a `+=` chain of as many links, keeps every piece alive as an object
 * of its own (the collector's pauses and the memory peak grow with the answer), and V8 copies
 * such a chain whole to read any slice of it (a stream whose sources are compared piece by piece
 * would copy the answer once per piece).
 */
export class SegmentedText {
	private readonly segments: string[] = [];
	private readonly segmentStarts: number[] = [];
	/** The pieces after the last segment, and where each begins. */
	private pending: string[] = [];
	private pendingStarts: number[] = [];
	private pendingFrom = 0;
	private chars = 0;

	get length(): number {
		return this.chars;
	}

	append(piece: string): void {
		if (!piece) return;
		this.pending.push(piece);
		this.pendingStarts.push(this.chars);
		this.chars += piece.length;
		if (this.chars - this.pendingFrom >= SEGMENT_CHARS) this.fold();
	}

	/** The text from `start` to `end` (as String#slice, without negative indexes). */
	slice(start: number, end = this.chars): string {
		const from = Math.max(0, start);
		const to = Math.min(this.chars, end);
		if (to <= from) return '';
		let text = '';
		if (from < this.pendingFrom) {
			// Whole segments are linked, not copied; only the ends are sliced.
			for (let i = lastAtOrBefore(this.segmentStarts, from); i < this.segments.length; i++) {
				const segmentStart = this.segmentStarts[i];
				if (segmentStart >= to) break;
				const segment = this.segments[i];
				text += segment.slice(Math.max(0, from - segmentStart), to - segmentStart);
			}
		}
		if (to > this.pendingFrom) {
			const first = lastAtOrBefore(this.pendingStarts, from);
			const firstStart = this.pendingStarts[first];
			const firstPiece = this.pending[first];
			// The usual slice: within one recent piece (another source's copy of what was taken).
			if (!text && from >= firstStart && to <= firstStart + firstPiece.length) {
				return firstPiece.slice(from - firstStart, to - firstStart);
			}
			const parts: string[] = [];
			for (let i = first; i < this.pending.length; i++) {
				const pieceStart = this.pendingStarts[i];
				if (pieceStart >= to) break;
				parts.push(this.pending[i].slice(Math.max(0, from - pieceStart), to - pieceStart));
			}
			text += parts.join('');
		}
		return text;
	}

	/** Whether `text` stands at `start`, whole. */
	holdsAt(start: number, text: string): boolean {
		return start >= 0 && start + text.length <= this.chars
			? this.slice(start, start + text.length) === text
			: false;
	}

	toString(): string {
		return this.slice(0);
	}

	/**
	 * Whether the text is empty or whitespace alone: each flat piece is looked at in turn, up to
	 * the first character that is not a space, without joining the text into one string.
	 */
	isBlank(): boolean {
		for (const piece of this.segments) if (/\S/.test(piece)) return false;
		for (const piece of this.pending) if (/\S/.test(piece)) return false;
		return true;
	}

	private fold(): void {
		if (this.pending.length === 0) return;
		this.segments.push(this.pending.join(''));
		this.segmentStarts.push(this.pendingFrom);
		this.pending = [];
		this.pendingStarts = [];
		this.pendingFrom = this.chars;
	}
}

/** The index of the last of the ascending `starts` at or before `offset` (0 when none). */
function lastAtOrBefore(starts: number[], offset: number): number {
	let low = 0;
	let high = starts.length - 1;
	while (low < high) {
		const middle = (low + high + 1) >> 1;
		if (starts[middle] <= offset) low = middle;
		else high = middle - 1;
	}
	return low;
}
