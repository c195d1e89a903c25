import type { StreamEvent } from './events';

type TextEvent = Extract<StreamEvent, { type: 'content' | 'snapshot' | `part${string}` }>;

/** Between messages of one turn (docs/api.md#assembling-the-answer). */
export const MESSAGE_SEPARATOR = '\n\n';

/**
 * One source's view of the current message's text. `agrees` holds while the view and the text
 * taken so far agree on their common length; a view that went its own way adds nothing more.
 */
interface View {
	text: string;
	agrees: boolean;
}

interface Part {
	kind: string;
	text: string;
}

/**
 * The answer text of a stream, every piece exactly once, whichever sources carry it
 * (docs/api.md#assembling-the-answer): per model message, the text already taken; each source
 * (Part events, `parts` snapshots, `content` deltas) offers a view of it, and only what a view
 * adds beyond the text taken is taken. Each newly taken piece goes to `onText` as it is taken.
 */
export class AnswerAssembler {
	/** Every piece taken, separators included, in order. */
	private readonly pieces: string[] = [];
	private messageText = '';
	private parts = new Map<number, Part>();
	private highestIndex = -1;
	private partsView: View = freshView();
	private snapshotView: View = freshView();
	private contentView: View = freshView();

	constructor(private readonly onText?: (delta: string) => void) {}

	get hasText(): boolean {
		return this.pieces.length > 0;
	}

	text(): string {
		return this.pieces.join('');
	}

	accept(event: TextEvent): void {
		switch (event.type) {
			case 'content':
				this.append(this.contentView, event.text);
				return;
			case 'snapshot':
				if (!continues(event.text, this.messageText)) this.beginMessage();
				this.replace(this.snapshotView, event.text);
				return;
			case 'partStart':
				if (event.index <= this.highestIndex) this.beginMessage();
				this.highestIndex = event.index;
				this.parts.delete(event.index);
				this.setPart(event.index, event.kind, event.text);
				return;
			case 'partDelta':
				this.partDelta(event.index, event.kind, event.text);
				return;
			case 'partEnd': {
				const known = this.parts.get(event.index);
				if (!known) this.startUnannounced(event.index);
				// The end repeats the whole part; its kind, when it does not name one, is the start's.
				const kind = event.kind === 'unknown' && known ? known.kind : event.kind;
				this.setPart(event.index, kind, event.text);
				return;
			}
		}
	}

	private partDelta(index: number, kind: string | undefined, text: string): void {
		const part = this.parts.get(index);
		if (!part) this.startUnannounced(index);
		// A delta that does not name its kind is of its part's kind (text, when it never started).
		if ((kind ?? part?.kind ?? 'text') !== 'text') return;
		if (part?.kind !== 'text') {
			this.setPart(index, 'text', text);
			return;
		}
		// The common case, one growing part: only the new piece is compared, never the whole text.
		part.text += text;
		if (this.isLastTextPart(index)) this.append(this.partsView, text);
		else this.replace(this.partsView, this.partsText());
	}

	/** A part seen first in a delta or its end: the same rule as for its start. */
	private startUnannounced(index: number): void {
		if (index <= this.highestIndex) this.beginMessage();
		this.highestIndex = index;
	}

	/** Part `index` now reads `text`: the Part events' view is its text parts in index order. */
	private setPart(index: number, kind: string, text: string): void {
		const old = this.parts.get(index);
		const before = old?.kind === 'text' ? old.text : '';
		const after = kind === 'text' ? text : '';
		this.parts.set(index, { kind, text: after });
		if (after === before) return;
		if (this.isLastTextPart(index) && after.startsWith(before)) {
			this.append(this.partsView, after.slice(before.length));
		} else {
			this.replace(this.partsView, this.partsText());
		}
	}

	private isLastTextPart(index: number): boolean {
		for (const [other, part] of this.parts) {
			if (other > index && part.kind === 'text' && part.text) return false;
		}
		return true;
	}

	private partsText(): string {
		return [...this.parts.entries()]
			.filter(([, part]) => part.kind === 'text')
			.sort(([a], [b]) => a - b)
			.map(([, part]) => part.text)
			.join('');
	}

	/** The view grew by `added` at its end; whatever goes beyond the text taken is taken. */
	private append(view: View, added: string): void {
		const start = view.text.length;
		view.text += added;
		if (!view.agrees || !added) return;
		const overlap = Math.min(added.length, Math.max(0, this.messageText.length - start));
		if (overlap > 0 && this.messageText.slice(start, start + overlap) !== added.slice(0, overlap)) {
			view.agrees = false;
			return;
		}
		if (overlap < added.length) this.take(added.slice(overlap));
	}

	/** The view now reads `text`, as a whole. */
	private replace(view: View, text: string): void {
		if (view.agrees && text.length > view.text.length && text.startsWith(view.text)) {
			this.append(view, text.slice(view.text.length));
			return;
		}
		view.text = text;
		view.agrees = continues(text, this.messageText);
		if (view.agrees && text.length > this.messageText.length) {
			this.take(text.slice(this.messageText.length));
		}
	}

	private take(piece: string): void {
		if (!this.messageText && this.pieces.length > 0) this.emit(MESSAGE_SEPARATOR);
		this.messageText += piece;
		this.emit(piece);
	}

	private emit(piece: string): void {
		this.pieces.push(piece);
		this.onText?.(piece);
	}

	/** Part indexes start again at 0 in each model message: every view starts afresh. */
	private beginMessage(): void {
		this.messageText = '';
		this.parts = new Map();
		this.highestIndex = -1;
		this.partsView = freshView();
		this.snapshotView = freshView();
		this.contentView = freshView();
	}
}

function freshView(): View {
	return { text: '', agrees: true };
}

/** Either text is a beginning of the other: the same message, one of them ahead. */
function continues(text: string, messageText: string): boolean {
	return text.length >= messageText.length
		? text.startsWith(messageText)
		: messageText.startsWith(text);
}
