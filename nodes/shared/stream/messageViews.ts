import { SegmentedText } from './segmentedText';

/**
 * What the assembler (assembly.ts) keeps of the current model message, per source.
 *
 * One source's view of the current message's text. `agrees` holds while the view and the text
 * taken so far agree on their common length; a view that went its own way adds nothing more
 * until what it holds from `differsFrom` on is told again. A view that agrees reads as the
 * message's text up to its length (what it had beyond that was taken), so only its length is
 * kept.
 */
export interface View {
	length: number;
	agrees: boolean;
	/**
	 * While the view does not agree: a place at or before its first difference from the text
	 * taken (the view's text before it agrees).
	 */
	differsFrom: number;
}

/** A part of the message as its Part events told it. */
export interface Part {
	kind: string;
	text: SegmentedText;
}

export function freshView(): View {
	return { length: 0, agrees: true, differsFrom: 0 };
}

export function segmented(text: string): SegmentedText {
	const kept = new SegmentedText();
	kept.append(text);
	return kept;
}
