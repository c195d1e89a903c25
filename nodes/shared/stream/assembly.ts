import { HELD_ENTRY_CHARS } from '../limits';
import type { JsonObject as Json } from '../json';
import type { StreamEvent } from './events';
import { freshView, segmented, type Part, type View } from './messageViews';
import { RanCalls } from './ranCalls';
import { SegmentedText } from './segmentedText';

export type TextEvent = Extract<StreamEvent, { type: 'content' | 'snapshot' | `part${string}` }>;
export type PartEvent = Extract<StreamEvent, { type: `part${string}` | 'toolDelta' }>;

/**
 * Part kinds after which a message goes on with more text: text, thinking, and pydantic-ai's
 * `file` (a file or image the model made). Any other kind (a tool call, a tool's return) may end
 * the message (docs/api.md#assembling-the-answer).
 */
const WITHIN_MESSAGE_KINDS: ReadonlySet<string> = new Set(['text', 'thinking', 'file']);

/** A part of this kind may end its model message: the next response may come after it. */
export function mayEndMessage(kind: string): boolean {
	return !WITHIN_MESSAGE_KINDS.has(kind);
}

/** Between messages of one turn (docs/api.md#assembling-the-answer). */
export const MESSAGE_SEPARATOR = '\n\n';

/**
 * A model message's text parts, run on as the views compare them (docs/api.md#assembling-the-answer,
 * 1, 2 and 4), and where in that text a blank line goes: before a text part that another part
 * (thinking, a built-in tool's call or return, a file) separates from the text before it.
 * pydantic-ai reads a response's text so (ModelResponse.text): adjacent text parts run on,
 * separated ones are paragraphs. Thinking, tool and file parts are never text.
 */
export function messageTextParts(
	parts: ReadonlyArray<{ part_kind?: unknown; content?: unknown }>,
): { text: string; breaks: number[] } {
	let text = '';
	const breaks: number[] = [];
	let separated = false;
	for (const { part_kind: kind, content } of parts) {
		if (kind !== 'text') {
			separated ||= separatesText(kind);
			continue;
		}
		if (typeof content !== 'string' || !content) continue;
		if (separated && text) breaks.push(text.length);
		separated = false;
		text += content;
	}
	return { text, breaks };
}

/** A model message's answer text: its text parts, a blank line where messageTextParts puts one. */
export function messageText(
	parts: ReadonlyArray<{ part_kind?: unknown; content?: unknown }>,
): string {
	const { text, breaks } = messageTextParts(parts);
	return withBreaks((from, to) => text.slice(from, to), 0, text.length, breaks);
}

/**
 * A part of this kind between two text parts makes them two paragraphs. A part of no kind (or
 * `unknown`) does not: no capture shows one, and running the text on is what was read before.
 */
function separatesText(kind: unknown): boolean {
	return typeof kind === 'string' && kind !== 'text' && kind !== 'unknown';
}

/**
 * A text from `from` to `to` (`slice` gives it), with a blank line at each place of `breaks`
 * (ascending) below `to`, from its index `next` on.
 */
function withBreaks(
	slice: (from: number, to: number) => string,
	from: number,
	to: number,
	breaks: readonly number[],
	next = 0,
): string {
	let text = '';
	for (let i = next; i < breaks.length && breaks[i] < to; i++) {
		text += slice(from, breaks[i]) + MESSAGE_SEPARATOR;
		from = breaks[i];
	}
	return text + slice(from, to);
}

/**
 * A turn's answer text from its model messages' texts, in order (docs/api.md#assembling-the-answer,
 * 4): a blank line between two messages that wrote text; a message without text adds none. The
 * streamed answer and one read from the conversation after a failure are joined here alone, so
 * that the item's output does not depend on whether the stream broke.
 */
export function turnText(messageTexts: Iterable<string>): string {
	let text = '';
	for (const message of messageTexts) {
		if (!message) continue;
		text += text ? MESSAGE_SEPARATOR + message : message;
	}
	return text;
}

/**
 * The answer text of a stream, every piece exactly once, whichever sources carry it
 * (docs/api.md#assembling-the-answer). Per model message, the text already taken; the Part
 * events and the `parts` snapshots each offer a view of it, and only what a view adds beyond the
 * text taken is taken. The `content` deltas know no messages: they are read against the turn's
 * text without separators, from where they began (the turn's start, or a later message's), and
 * wait while the current message has ended in a tool call (what they carry then belongs to the
 * next message, which the other sources have yet to open). After such a tool call, content that
 * had told nothing of the message yet and agrees with the turn's text may be that text told again
 * or the next message's beginning as it did: both readings are kept (the second is the turn's text since `nextFrom`, no copy) until a
 * delta tells them apart or the next message opens.
 * Each newly taken piece goes to `onText` as it is taken.
 */
export class AnswerAssembler {
	/** The turn's text taken so far, without separators: every message's, in order. */
	private readonly turn = new SegmentedText();
	/** Where in `turn` the current message begins. */
	private messageStart = 0;
	/** Where in `turn` a separator goes: each message after the first that added text. */
	private readonly separators: number[] = [];
	/**
	 * Where in `turn` a blank line goes within a message: a text part that another part separated
	 * from the text before it (messageTextParts). Ascending, none at a separator's position.
	 */
	private readonly breaks: number[] = [];
	/**
	 * Such places the Part events or a snapshot told in the current message, past the text taken
	 * (offsets in the message's text): each goes into `breaks` when the text there is taken. One
	 * told where the text is taken already is left out: what went out is not changed.
	 */
	private pendingBreaks: number[] = [];
	private parts = new Map<number, Part>();
	/**
	 * Characters held in `parts`, their texts and their kinds, and in `snapshotKinds` (for the
	 * bound: `heldLength`). A kind is the stream's text like any other: a server may send one of
	 * any length, and it is held while its message lasts.
	 */
	private partsLength = 0;
	private highestIndex = -1;
	/** The highest index of a text part with text in the message (-1: none), kept as parts change. */
	private lastTextIndex = -1;
	private partsView: View = freshView();
	private snapshotView: View = freshView();
	/** The part kinds of the message's latest snapshot: a snapshot of the same message only grows. */
	private snapshotKinds: string[] = [];
	/**
	 * The kinds of the message's text, thinking and file parts in index order, as the Part events
	 * told them (undefined: to be gathered from `parts` again), and the highest index noted.
	 */
	private withinKinds: string[] | undefined = [];
	private keptKindsUpTo = -1;
	/** The kind of the message's last part, as the latest Part event or snapshot showed it. */
	private lastPartKind: string | undefined;
	/** A Part event or snapshot showed a part of the message that may end it (a tool call, …). */
	private toolPartTold = false;
	/** The content deltas: how long they are, what they carry beyond the turn's text taken. */
	private contentLength = 0;
	private contentAhead = '';
	private contentAgrees = true;
	/**
	 * After the current message's tool call, while the content deltas could be the turn told again
	 * or the next message's text: where (along the turn's text) the next message's would begin.
	 */
	private nextFrom: number | undefined;
	/** Which of the two readings holds is known for the current message's tool call. */
	private contentSettled = false;

	/** The id of the model response the current message is, when the Part events name it. */
	private responseId: string | undefined;
	/** One of the assistant's tools ran since the last Part event: the next one opens a message. */
	private toolRoundSince = false;
	/** The calls the round after the current message ran, whole (retellsMessage). */
	private readonly ranCalls = new RanCalls();
	/** Which model message of the turn the latest event belongs to, from 0 (for the steps). */
	messageNumber = 0;
	/**
	 * The latest snapshot began a message, and it grows the message's snapshot before it (its
	 * parts' kinds begin with that one's, its text goes on from that one's): for the steps, which
	 * may have read that one as a message of its own already (StepCollector.snapshot).
	 */
	snapshotGrewLast = false;

	constructor(private onText?: (delta: string) => void) {}

	/** No later piece goes to `onText` (stream/answer.ts: after an event it could not read). */
	stopPassingOn(): void {
		this.onText = undefined;
	}

	/**
	 * The bound's measure: the longest text held, the answer (as text() gives it, separators
	 * included) or a source's copy beside it (the Part events' texts with the part kinds, content
	 * deltas ahead). An honest answer is held about twice.
	 */
	get heldLength(): number {
		return Math.max(
			this.turn.length + (this.separators.length + this.breaks.length) * MESSAGE_SEPARATOR.length,
			this.partsLength + this.parts.size * HELD_ENTRY_CHARS,
			this.contentAhead.length,
			this.ranCalls.heldLength,
		);
	}

	get hasText(): boolean {
		return this.turn.length > 0;
	}

	/**
	 * The Part events told the current message more text than was taken of it, in a view that no
	 * longer agrees with it (a text part grew while a later one had text, or was told again
	 * otherwise): text the answer cannot place, so it would lack it
	 * (docs/api.md#assembling-the-answer, 2).
	 */
	get partTextOutOfPlace(): boolean {
		const view = this.partsView;
		return !view.agrees && view.length > this.messageLength;
	}

	/** Whether the text taken holds more than whitespace (docs/api.md#how-a-stream-ends). */
	get hasVisibleText(): boolean {
		return !this.turn.isBlank();
	}

	/** Every piece taken, separators (and blank lines within messages) included, in order. */
	text(): string {
		return turnText(this.messageTexts());
	}

	/** The text of each message that wrote some, in order (separators mark where each begins). */
	private *messageTexts(): Generator<string> {
		let from = 0;
		let next = 0;
		for (const at of this.separators) {
			yield this.textWithBreaks(from, at, next);
			while (next < this.breaks.length && this.breaks[next] < at) next++;
			from = at;
		}
		yield this.textWithBreaks(from, this.turn.length, next);
	}

	/**
	 * The turn's text from `from` to `to` (within one message), its blank lines from `breaks`'
	 * index `next` on put in. Each place is visited once for the whole turn.
	 */
	private textWithBreaks(from: number, to: number, next: number): string {
		return withBreaks((start, end) => this.turn.slice(start, end), from, to, this.breaks, next);
	}

	/** The index in `breaks` of the first blank line of the current message. */
	private get messageBreaksFrom(): number {
		let first = this.breaks.length;
		while (first > 0 && this.breaks[first - 1] > this.messageStart) first--;
		return first;
	}

	/**
	 * The text of the last model message: what a framework's text output is (the final response's
	 * text), without what earlier messages wrote before their tool calls; empty when the last
	 * message wrote none (text beside a tool call is no answer, docs/api.md#how-a-stream-ends).
	 */
	lastMessageText(): string {
		return this.textWithBreaks(this.messageStart, this.turn.length, this.messageBreaksFrom);
	}

	/**
	 * How much of the turn's text (the end of it) the message still open wrote, which an answer
	 * read from its conversation after the stream broke off may go on from; undefined when that
	 * message has ended in a tool call or a tool round: such an answer is a later message's
	 * (docs/api.md#recovery-after-a-failure).
	 */
	get openMessageLength(): number | undefined {
		if (this.toolRoundSince || this.afterToolCall) return undefined;
		const blankLines = this.breaks.length - this.messageBreaksFrom;
		return this.turn.length - this.messageStart + blankLines * MESSAGE_SEPARATOR.length;
	}

	/**
	 * One of the assistant's own tools ran after the last model message, and neither a message
	 * nor text came after it: that message's text was written before a tool round (the run
	 * stopped, or its next response was empty).
	 */
	get toolRoundLast(): boolean {
		return this.toolRoundSince;
	}

	accept(event: TextEvent): void {
		switch (event.type) {
			case 'content':
				this.contentDelta(event.text);
				break;
			case 'snapshot':
				this.snapshot(event.text, event.kinds, event.parts, event.breaks);
				break;
			case 'partStart':
				// An index again begins a new message only where no response id says which message
				// it is (enterResponse): within one response, it is that part started again.
				if (event.response === undefined && event.index <= this.highestIndex) this.beginMessage();
				if (event.index >= this.highestIndex) {
					this.highestIndex = event.index;
					this.lastPartKind = event.kind;
				}
				this.setPart(event.index, event.kind, event.text);
				break;
			case 'partDelta':
				this.partDelta(event.index, event.kind, event.text);
				break;
			case 'partEnd': {
				const known = this.parts.get(event.index);
				if (!known) this.startUnannounced(event.index, event.kind);
				// The end repeats the whole part; its kind, when it does not name one, is the start's.
				const kind = event.kind === 'unknown' && known ? known.kind : event.kind;
				this.setPart(event.index, kind, event.text);
				break;
			}
		}
		this.pumpContent(false);
	}

	/**
	 * A Part event comes, naming the model response it belongs to or not: it opens another message
	 * or goes on in this one (opensMessage).
	 */
	enterPartEvent(event: PartEvent): void {
		// A new message also ends the tool round's mark (beginMessage).
		if (this.opensMessage(event)) this.beginMessage();
		if (event.response !== undefined) this.responseId = event.response;
	}

	/**
	 * Whether a Part event begins a new message: after a tool round, or of another response than
	 * the current message's, whatever its part index (docs/api.md#2026-stream-dialect); so does the
	 * first to name one after a message of none that it cannot go on (firstNamedIsNext).
	 */
	private opensMessage(event: PartEvent): boolean {
		const response = event.response;
		if (this.toolRoundSince || response === undefined) return this.toolRoundSince;
		return this.responseId === undefined
			? this.firstNamedIsNext(event)
			: this.responseId !== response;
	}

	/**
	 * Whether a delta with text for part `index` of model response `response` may be of the
	 * answer's text: that part of the message it goes on in is a text part, or it is not known (the
	 * delta would open another message, opensMessage's rule, or the part was never seen).
	 */
	mayBeAnswerText(index: number, response: string | undefined): boolean {
		const delta: PartEvent = { type: 'partDelta', index, text: '', response };
		const kind = this.opensMessage(delta) ? undefined : this.parts.get(index)?.kind;
		return kind === undefined || kind === 'text';
	}

	/**
	 * The first Part event to name a response, in a message that named none (live Part events, or
	 * a snapshot): it goes on in that message, as the Part events of the response a snapshot just
	 * told do (from index 0, text that continues the snapshot's), unless it cannot be that
	 * message's: the message holds a tool call already (the next response comes after it), its
	 * Part events used the index already (indexes start again at 0 in each message), or the
	 * part's text would replace the message's rather than continue it (every piece counts once).
	 */
	private firstNamedIsNext(event: PartEvent): boolean {
		if (this.toolPartTold || event.index <= this.highestIndex) return true;
		if (event.type === 'toolDelta' || (event.kind ?? 'text') !== 'text') return false;
		// The part is new (its index is above every one): its text goes on at the view's end.
		const at = this.partsView.length;
		const overlap = Math.min(event.text.length, this.messageLength - at);
		return overlap > 0 && !this.turn.holdsAt(this.messageStart + at, event.text.slice(0, overlap));
	}

	/**
	 * One of the assistant's own tools ran (a function tool: it runs between model responses):
	 * the response that called it is over, even if the next one names the same id. `ran`: the
	 * call it runs, when its event tells it.
	 */
	responseOver(ran?: Json): void {
		this.toolRoundSince = true;
		if (ran) this.ranCalls.ran(ran);
	}

	/** The stream has ended: content still waiting after a tool call is the next message's. */
	finish(): void {
		this.pumpContent(true);
	}

	private snapshot(
		text: string,
		kinds: string[],
		parts: unknown[] | undefined,
		breaks: readonly number[] | undefined,
	): void {
		if (this.toolRoundSince && this.retellsMessage(text, kinds, parts)) {
			// The message before the round, told again whole: it is still over (content that
			// follows is the next message's), and only text it had not told yet is taken.
			this.snapshotBreaks(text, breaks);
			this.replace(this.snapshotView, text);
			return;
		}
		// A snapshot tells by itself whether it is of a new message; after a tool round, one that
		// does not tell the message before it again is the next response's.
		const shrank =
			kinds.length > 0 &&
			(kinds.length < this.snapshotKinds.length ||
				this.snapshotKinds.some((kind, index) => kinds[index] !== kind));
		this.snapshotGrewLast = false;
		if (
			this.toolRoundSince ||
			shrank ||
			this.contradictsParts(kinds) ||
			!this.continuesMessage(text)
		) {
			this.snapshotGrewLast = !this.toolRoundSince && !shrank && this.continuesSnapshot(text);
			this.beginMessage();
			// The new message is of no model response named yet: the Part events that tell the same
			// response next (2026: a new zmid) go on in it, not in a message of their own.
			this.responseId = undefined;
		}
		if (kinds.length > 0) {
			this.partsLength += lengthOf(kinds) - lengthOf(this.snapshotKinds);
			this.snapshotKinds = kinds;
			this.lastPartKind = kinds[kinds.length - 1];
			if (kinds.some(mayEndMessage)) this.toolPartTold = true;
		}
		this.snapshotBreaks(text, breaks);
		this.replace(this.snapshotView, text);
	}

	/** The blank lines a snapshot tells within the message, when its text is the message's. */
	private snapshotBreaks(text: string, breaks: readonly number[] | undefined): void {
		if (!breaks || !this.continuesMessage(text)) return;
		for (const offset of breaks) this.noteBreak(offset);
	}

	/**
	 * A text part begins at `offset` of the message's text, separated from the text before it: a
	 * blank line goes there, unless the text there is taken already (then it stays as it went out).
	 */
	private noteBreak(offset: number): void {
		if (offset <= 0 || offset < this.messageLength) return;
		const pending = this.pendingBreaks;
		let at = pending.length;
		while (at > 0 && pending[at - 1] > offset) at--;
		if (pending[at - 1] !== offset) pending.splice(at, 0, offset);
	}

	/**
	 * Text part `index` gets its first text: a blank line goes before it when a part of another kind
	 * lies between it and the text part before it (messageTextParts), where the Part events'
	 * view, still agreeing, ends. `lastText`: the last text part with text before it.
	 */
	private partTextBegins(index: number, lastText: number): void {
		if (lastText < 0 || lastText >= index || !this.partsView.agrees) return;
		for (let between = lastText + 1; between < index; between++) {
			if (separatesText(this.parts.get(between)?.kind)) {
				this.noteBreak(this.partsView.length);
				return;
			}
		}
	}

	/**
	 * A snapshot is the message whole so far: one that says another kind of part than the Part
	 * events at an index both tell (text where they told a tool call) is not of the message, even
	 * when the message has no text for it to contradict; it is the next one's. A snapshot may leave
	 * out the tool parts (its text and thinking alone): it is still the message's when its parts
	 * are the message's other parts in order, and none past them after the message ended in a
	 * tool call (those would be the next message's). Costs the snapshot's length; `withinKinds`
	 * is kept as the parts come, not gathered at each snapshot.
	 */
	private contradictsParts(kinds: string[]): boolean {
		const last = Math.min(kinds.length - 1, this.highestIndex);
		let differs = false;
		for (let index = 0; index <= last && !differs; index++) {
			differs = !sameKind(this.parts.get(index)?.kind, kinds[index]);
		}
		if (!differs) return false;
		const told = this.leftOutKinds();
		if (kinds.length > told.length && this.afterToolCall) return true;
		return kinds.some(
			(kind, index) => !WITHIN_MESSAGE_KINDS.has(kind) || !sameKind(told[index], kind),
		);
	}

	/** The kinds of the message's text, thinking and file parts, in index order. */
	private leftOutKinds(): string[] {
		this.withinKinds ??= [...this.parts]
			.filter(([, part]) => WITHIN_MESSAGE_KINDS.has(part.kind))
			.sort(([a], [b]) => a - b)
			.map(([, part]) => part.kind);
		return this.withinKinds;
	}

	/**
	 * Part `index` is now of `kind` (it was of `before`): a part past every one kept goes on the
	 * end of `withinKinds`; any other change leaves it to be gathered again when asked for.
	 */
	private notePartKind(index: number, before: string | undefined, kind: string): void {
		if (before === kind) return;
		if (before === undefined && index > this.keptKindsUpTo) {
			this.keptKindsUpTo = index;
			if (WITHIN_MESSAGE_KINDS.has(kind)) this.withinKinds?.push(kind);
		} else this.withinKinds = undefined;
	}

	/**
	 * After a tool round, a snapshot is of the message before it when it tells that message's text
	 * again, whole or more (both have text: a shorter one is the next response beginning), or,
	 * where one of them has none, its parts; otherwise it is the next response's. Never when it
	 * tells a call the round ran otherwise than it ran (RanCalls): that call is whole.
	 */
	private retellsMessage(text: string, kinds: string[], parts: unknown[] | undefined): boolean {
		if (this.ranCalls.contradictedBy(parts)) return false;
		if (this.messageLength > 0 && text.length > 0) {
			return text.length >= this.messageLength && this.continuesMessage(text);
		}
		return this.tellsParts(kinds);
	}

	/**
	 * A snapshot's part kinds tell the message's parts as the Part events and the snapshots before
	 * it showed them: at least as many, each of the same kind (a snapshot without parts tells
	 * nothing against them).
	 */
	private tellsParts(kinds: string[]): boolean {
		if (kinds.length === 0) return true;
		if (kinds.length <= this.highestIndex || kinds.length < this.snapshotKinds.length) return false;
		for (const [index, part] of this.parts) if (kinds[index] !== part.kind) return false;
		return this.snapshotKinds.every((kind, index) => kinds[index] === kind);
	}

	private partDelta(index: number, kind: string | undefined, text: string): void {
		const part = this.parts.get(index);
		if (!part) this.startUnannounced(index, kind ?? 'text');
		// A delta that does not name its kind is of its part's kind (text, when it never started).
		if ((kind ?? part?.kind ?? 'text') !== 'text') return;
		if (part?.kind !== 'text') {
			this.setPart(index, 'text', text);
			return;
		}
		// The common case, one growing part: only the new piece is compared, never the whole text.
		if (text && part.text.length === 0) this.partTextBegins(index, this.lastTextIndex);
		part.text.append(text);
		this.partsLength += text.length;
		if (text && index > this.lastTextIndex) this.lastTextIndex = index;
		if (this.isLastTextPart(index)) this.append(this.partsView, text);
		else this.changedBeforeLastPart(text.length);
	}

	/**
	 * A part seen first in a delta or its end: the same rule as for its start, and the part is
	 * known from then on, so that its next delta (a thinking part's too) goes on in it.
	 */
	private startUnannounced(index: number, kind: string): void {
		if (index <= this.highestIndex) this.beginMessage();
		this.highestIndex = index;
		this.lastPartKind = kind;
		if (!WITHIN_MESSAGE_KINDS.has(kind)) this.toolPartTold = true;
		this.notePartKind(index, undefined, kind);
		this.parts.set(index, { kind, text: segmented('') });
		this.partsLength += kind.length;
	}

	/** Part `index` now reads `text`: the Part events' view is its text parts in index order. */
	private setPart(index: number, kind: string, text: string): void {
		const old = this.parts.get(index);
		const before = old?.kind === 'text' ? old.text : new SegmentedText();
		const after = kind === 'text' ? text : '';
		if (!WITHIN_MESSAGE_KINDS.has(kind)) this.toolPartTold = true;
		this.notePartKind(index, old?.kind, kind);
		this.parts.set(index, { kind, text: segmented(after) });
		this.partsLength += after.length + kind.length - (old ? old.text.length + old.kind.length : 0);
		if (after && before.length === 0) this.partTextBegins(index, this.lastTextIndex);
		if (after && index > this.lastTextIndex) this.lastTextIndex = index;
		else if (!after && index === this.lastTextIndex) this.lastTextIndex = this.scanLastTextIndex();
		const grows = after.length >= before.length && before.holdsAt(0, after.slice(0, before.length));
		if (grows && after.length === before.length) return;
		if (!this.isLastTextPart(index)) this.changedBeforeLastPart(after.length - before.length);
		else if (grows) this.append(this.partsView, after.slice(before.length));
		else this.lastPartRetold(before.length, after);
	}

	/**
	 * The last text part of the Part events' view now reads `after` (it read `before` characters):
	 * only that part is compared, where it stands; the view's text before it has not changed.
	 */
	private lastPartRetold(before: number, after: string): void {
		const view = this.partsView;
		const at = view.length - before;
		view.length = at + after.length;
		if (!view.agrees && view.differsFrom < at) return;
		const overlap = Math.min(after.length, Math.max(0, this.messageLength - at));
		view.agrees = this.turn.holdsAt(this.messageStart + at, after.slice(0, overlap));
		if (!view.agrees) view.differsFrom = at;
		else if (overlap < after.length) this.take(after.slice(overlap));
	}

	/**
	 * A text part before the Part events' last text part changed, by `lengthChange` characters.
	 * The text taken already holds what the view said there before, so the view no longer agrees
	 * (only repetitive text could make it agree by chance, and looking for that would compare
	 * the whole view at each such event: a server could make every small event cost millions of
	 * characters). Where it first differs is not looked for: from the start, for all that is kept.
	 */
	private changedBeforeLastPart(lengthChange: number): void {
		const view = this.partsView;
		view.length += lengthChange;
		view.agrees = false;
		view.differsFrom = 0;
	}

	private get messageLength(): number {
		return this.turn.length - this.messageStart;
	}

	/**
	 * Either `text` or the message's latest snapshot's text is a beginning of the other (that
	 * snapshot's text is the message's up to its length, when it agreed with it).
	 */
	private continuesSnapshot(text: string): boolean {
		const view = this.snapshotView;
		if (!view.agrees) return false;
		return this.turn.holdsAt(this.messageStart, text.slice(0, Math.min(text.length, view.length)));
	}

	/** Either `text` or the current message's text is a beginning of the other: one is ahead. */
	private continuesMessage(text: string): boolean {
		const common = Math.min(text.length, this.messageLength);
		return this.turn.holdsAt(this.messageStart, text.slice(0, common));
	}

	/**
	 * No text part after `index` has text. Kept as a number, not looked up among the parts: a
	 * stream of many parts would cost the scan once per part.
	 */
	private isLastTextPart(index: number): boolean {
		return this.lastTextIndex <= index;
	}

	/** Only when the last text part lost its text (a part restarted as another kind). */
	private scanLastTextIndex(): number {
		let last = -1;
		for (const [index, part] of this.parts) {
			if (index > last && part.kind === 'text' && part.text.length > 0) last = index;
		}
		return last;
	}

	/** Content deltas run along the turn's text (without separators), lagging or ahead. */
	private contentDelta(added: string): void {
		if (!this.contentAgrees) return;
		if (!this.afterToolCall) {
			this.nextFrom = undefined;
			this.contentSettled = false;
		} else if (this.nextFrom === undefined && !this.contentSettled) {
			if (this.contentLength > this.messageStart) {
				// The content had told part of this message already: it is one telling lagging
				// behind, going on where it stood, not the next message's beginning.
				this.contentSettled = true;
			} else {
				// The message has ended in a tool call: what the content tells from here may be the
				// turn told again or the next message's text (docs/api.md#assembling-the-answer).
				this.nextFrom = this.messageStart;
			}
		}
		const start = this.contentLength;
		this.contentLength += added.length;
		const lag = this.turn.length - start;
		if (lag <= 0) {
			// Past the turn's text at a delta's start: both readings say the same from here on.
			this.settleContent(false);
			this.contentAhead += added;
			return;
		}
		const overlap = Math.min(added.length, lag);
		const differs = firstDifference(this.turn.slice(start, start + overlap), added);
		if (differs < 0) {
			// A delta that runs past the end of the text it began telling again, after a tool call,
			// is the next message's (a message's text ends where a delta ends).
			const from = this.nextFrom;
			if (added.length > lag && from !== undefined && start >= from) {
				this.contentIsNext(this.turn.slice(from, start) + added);
			} else {
				if (added.length > lag) this.settleContent(false);
				this.contentAhead = added.slice(overlap);
			}
			return;
		}
		// Content that does not tell a message again from its start began later than the turn: it
		// is the current message's (the source began there), or, once that message ended in a tool
		// call, the next one's, held (docs/api.md#assembling-the-answer). Elsewhere the sources differ.
		const at = start + differs;
		const since = this.messageStartAtOrBefore(at);
		const from = this.nextFrom;
		if (since < this.messageStart) {
			this.contentLength = this.messageStart;
			this.contentAhead = '';
			this.contentDelta(
				this.turn.slice(since, Math.max(since, start)) + added.slice(Math.max(0, since - start)),
			);
		} else if (from !== undefined && at >= from) {
			this.contentIsNext(
				this.turn.slice(from, Math.max(from, start)) + added.slice(Math.max(0, from - start)),
			);
		} else if (start < this.messageStart) {
			// It stops telling the turn just where the current message begins: told from the turn's
			// start (all it told agreed), it is read again as that message's from its start.
			this.contentLength = this.messageStart;
			this.contentAhead = '';
			this.contentDelta(this.turn.slice(0, start) + added);
		} else {
			this.contentAgrees = false;
		}
	}

	/** Where the message that holds position `at` of the turn's text begins. */
	private messageStartAtOrBefore(at: number): number {
		if (at >= this.messageStart) return this.messageStart;
		const starts = this.separators;
		let low = 0;
		let high = starts.length - 1;
		let found = 0;
		while (low <= high) {
			const middle = (low + high) >> 1;
			if (starts[middle] <= at) {
				found = starts[middle];
				low = middle + 1;
			} else high = middle - 1;
		}
		return found;
	}

	/**
	 * The content deltas since the current message ended in a tool call are `text`, the next
	 * message's (held until it opens, or until the stream's end).
	 */
	private contentIsNext(text: string): void {
		this.contentLength = this.turn.length + text.length;
		this.contentAhead = text;
		this.nextFrom = undefined;
		this.contentSettled = true;
	}

	/**
	 * Which reading of the content after a tool call holds is known: the turn told again (a delta
	 * began at or past the end of its text: `now` false), or, at the stream's end or when the next
	 * message opens (`now` true), the one still open: content that told the message's text again
	 * without running past its end is the next message's text, which may begin as the one before
	 * did (docs/api.md#assembling-the-answer).
	 */
	private settleContent(now: boolean): void {
		const from = this.nextFrom;
		if (from === undefined) return;
		if (
			now &&
			this.afterToolCall &&
			this.contentLength > from &&
			this.contentLength <= this.turn.length
		) {
			this.contentIsNext(this.turn.slice(from, this.contentLength));
			return;
		}
		this.nextFrom = undefined;
		this.contentSettled = true;
	}

	/** The current message's last part is a tool call (or another kind that may end it). */
	private get afterToolCall(): boolean {
		return this.lastPartKind !== undefined && !WITHIN_MESSAGE_KINDS.has(this.lastPartKind);
	}

	/**
	 * Takes what the content deltas carry beyond the text taken, unless the current message has
	 * ended in a tool call (then it waits for the next message to open, or for the stream's end).
	 */
	private pumpContent(atEnd: boolean): void {
		if (!this.contentAgrees || (!this.contentAhead && this.nextFrom === undefined)) return;
		const afterToolCall = this.afterToolCall;
		if (afterToolCall && !atEnd) return;
		if (afterToolCall) this.settleContent(true);
		if (!this.contentAhead) return;
		if (afterToolCall) this.beginMessage();
		const ahead = this.contentAhead;
		this.contentAhead = '';
		this.take(ahead, true);
	}

	/** The view grew by `added` at its end; whatever goes beyond the text taken is taken. */
	private append(view: View, added: string): void {
		const start = view.length;
		view.length += added.length;
		if (!view.agrees || !added) return;
		const overlap = Math.min(added.length, Math.max(0, this.messageLength - start));
		if (overlap > 0 && !this.turn.holdsAt(this.messageStart + start, added.slice(0, overlap))) {
			view.agrees = false;
			view.differsFrom = start;
			return;
		}
		if (overlap < added.length) this.take(added.slice(overlap));
	}

	/** The view now reads `text`, as a whole. */
	private replace(view: View, text: string): void {
		view.length = text.length;
		view.agrees = this.continuesMessage(text);
		view.differsFrom = 0;
		if (view.agrees && text.length > this.messageLength) {
			this.take(text.slice(this.messageLength));
		}
	}

	private take(piece: string, fromContent = false): void {
		if (!piece) return;
		if (!fromContent && this.contentAhead) this.catchUpContent(piece);
		if (this.messageLength === 0 && this.turn.length > 0) {
			this.separators.push(this.turn.length);
			this.onText?.(MESSAGE_SEPARATOR);
		}
		if (this.pendingBreaks.length > 0) this.takeAcrossBreaks(piece);
		else {
			this.turn.append(piece);
			this.onText?.(piece);
		}
		// Text after a tool round (content deltas, which begin no message of their own): the last
		// message goes on past the round.
		this.toolRoundSince = false;
	}

	/** `piece` taken with a blank line at each place told within it (noteBreak), or at its start. */
	private takeAcrossBreaks(piece: string): void {
		const pending = this.pendingBreaks;
		let rest = piece;
		while (pending.length > 0) {
			const at = pending[0] - this.messageLength;
			if (at >= rest.length) break;
			pending.shift();
			// Passed: the text there was taken already.
			if (at < 0) continue;
			if (at > 0) {
				this.turn.append(rest.slice(0, at));
				this.onText?.(rest.slice(0, at));
				rest = rest.slice(at);
			}
			this.breaks.push(this.turn.length);
			this.onText?.(MESSAGE_SEPARATOR);
		}
		this.turn.append(rest);
		this.onText?.(rest);
	}

	/** Another source took `piece`: the content deltas that were ahead must begin with it. */
	private catchUpContent(piece: string): void {
		const common = Math.min(piece.length, this.contentAhead.length);
		if (this.contentAhead.slice(0, common) !== piece.slice(0, common)) {
			this.contentAgrees = false;
			this.contentAhead = '';
			return;
		}
		this.contentAhead = this.contentAhead.slice(common);
	}

	/** Part indexes start again at 0 in each model message: every message view starts afresh. */
	private beginMessage(): void {
		// Content held after the message's tool call is the next message's when it can be.
		this.settleContent(true);
		this.nextFrom = undefined;
		this.contentSettled = false;
		this.messageNumber++;
		// The round, if any, came before this message.
		this.toolRoundSince = false;
		this.ranCalls.clear();
		this.messageStart = this.turn.length;
		this.pendingBreaks = [];
		this.parts = new Map();
		this.partsLength = 0;
		this.highestIndex = -1;
		this.lastTextIndex = -1;
		this.partsView = freshView();
		this.snapshotView = freshView();
		this.snapshotKinds = [];
		this.withinKinds = [];
		this.keptKindsUpTo = -1;
		this.lastPartKind = undefined;
		this.toolPartTold = false;
	}
}

/**
 * Where `a` first differs from `b` (over `a`'s length), or -1. Compared as a slice, the usual
 * answer (they agree): V8's startsWith goes character by character over sliced strings.
 */
function firstDifference(a: string, b: string): number {
	if ((b.length === a.length ? b : b.slice(0, a.length)) === a) return -1;
	let at = 0;
	while (at < a.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
	return at;
}

/** Two part kinds agree unless both are named and differ (a part without a kind is `unknown`). */
function sameKind(told: string | undefined, kind: string | undefined): boolean {
	return (
		told === undefined ||
		kind === undefined ||
		told === 'unknown' ||
		kind === 'unknown' ||
		told === kind
	);
}

/** Characters of a list of names (a snapshot's part kinds). */
function lengthOf(names: readonly string[]): number {
	let length = 0;
	for (const name of names) length += name.length;
	return length;
}
