import type { IExecuteFunctions, ISupplyDataFunctions } from 'n8n-workflow';

import type { CatalogResponse } from './api';
import { readCatalog } from './catalog';
import { RunParameters } from './parameters/nodeParameter';
import { normalized } from './recovery/turnReading';
import { RunNotices } from './runNotices';
import {
	CallWatch,
	cancelSignalOf,
	readCredentials,
	type ApiRequest,
	type AssistantCredentials,
} from './transport';

/**
 * The message of each conversation's last answered ask, and of the asks after it that the service
 * took, or may have taken, and that then failed (docs/api.md#recovery-after-a-failure): when an
 * ask that continues a conversation with one of these very messages fails, the conversation
 * cannot tell whether it took this one or holds only the earlier one (an agent's tool giving the
 * same result twice, say), so its answer is not taken from there. Kept in the node's context of
 * the execution, so that the node's later runs in it know them too: an AI Agent runs its tool,
 * and asks its chat model again, in a run of their own each time. Only a fingerprint of each
 * message is kept, under a fingerprint of its conversation's id (a server may echo anything as
 * an id, the token too: the execution's data keeps neither), for the latest MAX_TURNS_KEPT
 * conversations, at most MAX_MESSAGES_KEPT messages each.
 */
export class AskedTurns {
	/**
	 * The record's keys, least recently kept first: listing the record's keys at every answer
	 * cost tens of microseconds an ask once it held hundreds, so they are listed once per run.
	 */
	private readonly order: Map<string, true>;
	/** Answered asks not recorded yet, while the record is held (hold()), in their order. */
	private unrecorded: Array<{ conversationId: string; input: string }> = [];
	/** The characters of their messages, which they keep from being collected. */
	private unrecordedChars = 0;
	private holds = 0;

	constructor(private readonly lastMessages: Record<string, string> = {}) {
		this.order = new Map(Object.keys(lastMessages).map((key) => [key, true]));
	}

	/**
	 * Holds the record of answered asks from now until the returned release, which records them
	 * (as does any read of the record before it, and MAX_UNRECORDED_CHARS of their messages).
	 * Recorded one at a time, between two asks, where n8n's engine leaves the caches cold, each
	 * cost some 20 µs (bench row 1); recorded together, a fraction of it. The Assistant node's
	 * router holds it for its run; the chat model's calls, which no run's end follows, record each
	 * answer at once.
	 */
	hold(): () => void {
		this.holds += 1;
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.holds -= 1;
			if (this.holds === 0) this.recordHeld();
		};
	}

	/** The conversation's last ask, with this message, was answered: the one message it keeps. */
	answered(conversationId: string, input: string): void {
		if (this.holds === 0) {
			this.keepAnswered(conversationId, input);
			return;
		}
		this.unrecorded.push({ conversationId, input });
		this.unrecordedChars += input.length;
		if (this.unrecordedChars > MAX_UNRECORDED_CHARS) this.recordHeld();
	}

	/**
	 * An ask with this message failed after the service took it, or may have taken it: the
	 * conversation's last turn may be its, or still the one before (whose message is kept too).
	 */
	mayHaveTaken(conversationId: string, input: string): void {
		this.recordHeld();
		const message = fingerprint(normalized(input));
		const earlier = messagesOf(this.lastMessages[fingerprint(conversationId)]);
		const messages = [...earlier.filter((kept) => kept !== message), message];
		this.keep(conversationId, messages.slice(-MAX_MESSAGES_KEPT));
	}

	/** Whether the conversation's last ask, answered or failed after it may have been taken, had this very message. */
	repeats(conversationId: string, input: string): boolean {
		this.recordHeld();
		const kept = messagesOf(this.lastMessages[fingerprint(conversationId)]);
		return kept.includes(fingerprint(normalized(input)));
	}

	/** Records the answered asks held back, in the order they were answered. */
	private recordHeld(): void {
		const unrecorded = this.unrecorded;
		if (unrecorded.length === 0) return;
		this.unrecorded = [];
		this.unrecordedChars = 0;
		for (const { conversationId, input } of unrecorded) this.keepAnswered(conversationId, input);
	}

	/** An answer is the conversation's last turn: its message alone is kept. */
	private keepAnswered(conversationId: string, input: string): void {
		this.keep(conversationId, [fingerprint(normalized(input))]);
	}

	private keep(conversationId: string, messages: string[]): void {
		const kept = this.lastMessages;
		const key = fingerprint(conversationId);
		// Asked again: the latest, in the record too (a later run lists it in this order).
		delete kept[key];
		this.order.delete(key);
		kept[key] = messages.join(MESSAGE_SEPARATOR);
		this.order.set(key, true);
		for (const oldest of this.order.keys()) {
			if (this.order.size <= MAX_TURNS_KEPT) break;
			this.order.delete(oldest);
			delete kept[oldest];
		}
	}
}

/** Between a conversation's kept messages: no fingerprint holds it. */
const MESSAGE_SEPARATOR = ' ';

function messagesOf(kept: string | undefined): string[] {
	return kept ? kept.split(MESSAGE_SEPARATOR) : [];
}

/**
 * How many messages a conversation keeps: its last answered ask's and those of the failed asks
 * after it (a run of failures in one conversation is short; the oldest goes first).
 */
const MAX_MESSAGES_KEPT = 16;

/** How many conversations' last messages a node keeps in an execution. */
const MAX_TURNS_KEPT = 1000;

/**
 * Characters of answered messages held back at most: past them the held ones are recorded, so
 * that holding them keeps little alive that the run would let go (messages with images, say).
 */
const MAX_UNRECORDED_CHARS = 1_000_000;

/** Where the node's runs in this execution keep them: its context there, when n8n gives one. */
function turnsKept(ctx: RunStart): Record<string, string> | undefined {
	// The chat model's supplyData context has it too, though its type does not say so.
	const withContext = ctx as Partial<Pick<IExecuteFunctions, 'getContext'>>;
	if (typeof withContext.getContext !== 'function') return undefined;
	const context = withContext.getContext('node') as { assistantTurns?: Record<string, string> };
	context.assistantTurns ??= {};
	return context.assistantTurns;
}

/**
 * A text's fingerprint: its length and a 53-bit hash (cyrb53), so that the execution's data
 * never holds the text itself. Two messages that share it are taken for the same: the safe side
 * (the item fails instead of taking an answer).
 */
function fingerprint(text: string): string {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return `${text.length}:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

/** Where a run starts: the Assistant node's execute, the chat model's supplyData. */
export type RunStart = IExecuteFunctions | ISupplyDataFunctions;

/** A run of the Assistant node (its execute). */
export type ExecuteRun = RunContext<IExecuteFunctions>;

/**
 * What one run of a node reads once and shares between its items (or, for the chat model, its
 * calls): made where the run starts (the Assistant node's router, the chat model's supplyData)
 * and passed down, so that nothing of it outlives the run.
 *
 * - its parameters, as the parameter readers take them: one that no item can change is read once
 *   (parameters/nodeParameter.ts);
 * - the credential, read once (it does not change between items, and reading it decrypts it);
 * - requests whose answer does not depend on the item (models, personas), made once: N items
 *   cost one request, not N; the catalog among them (and once per execution, catalog.ts);
 * - what the run has told once: hints in the editor, notices in n8n's log (runNotices.ts);
 * - what times its calls and stops them when the execution is cancelled: one timer and one
 *   listener for all of them (transport/lifetime.ts's CallWatch);
 * - the message of each conversation's last answered ask, and of the failed asks after it that
 *   the service took or may have taken (AskedTurns): a failed ask that repeats one of them cannot
 *   be told apart from it in the conversation. This alone outlives the run, in the
 *   node's context of the execution, as a fingerprint per conversation.
 *
 * The n8n context itself is `ctx`.
 */
export class RunContext<C extends RunStart = RunStart> extends RunParameters<C> {
	/** What this run has told once: a hint or a notice every item would repeat. */
	readonly notices = new RunNotices();
	/** What times the run's calls, and stops them when the execution is cancelled. */
	readonly watch = new CallWatch(cancelSignalOf(this.ctx));
	/**
	 * The message of each conversation's last answered ask, and of the failed asks after it that
	 * may have been taken, in this run and the node's earlier ones.
	 */
	readonly turns = new AskedTurns(turnsKept(this.ctx));
	private readonly shared = new Map<string, Promise<unknown>>();
	private credentialsRead?: Promise<AssistantCredentials>;

	/**
	 * The run's credential, read at the first call. A failed read is not kept: the next call
	 * reads again. An arrow, so that a request can carry it as it is (ApiRequest.credentials).
	 */
	readonly credentials = (): Promise<AssistantCredentials> => {
		if (!this.credentialsRead) {
			const read = readCredentials(this.ctx);
			this.credentialsRead = read;
			read.catch(() => {
				if (this.credentialsRead === read) this.credentialsRead = undefined;
			});
		}
		return this.credentialsRead;
	};

	/**
	 * The answer of `load`, loaded at the first call with `key` and shared by every later one; a
	 * failure too, so that the run's other items fail alike without asking again.
	 */
	once<T>(key: string, load: () => Promise<T>): Promise<T> {
		let entry = this.shared.get(key) as Promise<T> | undefined;
		if (!entry) {
			entry = load();
			this.shared.set(key, entry);
		}
		return entry;
	}

	/**
	 * The public catalog, read at most once per run with the first caller's request settings, and
	 * shared with the execution's other runs (catalog.ts); every time when n8n gives no execution
	 * id (the run keeps it then).
	 */
	catalog(
		settings: Pick<ApiRequest, 'timeoutMs' | 'retries' | 'itemIndex'>,
	): Promise<CatalogResponse> {
		return this.once('catalog', () => {
			const executionId = this.ctx.getExecutionId();
			return readCatalog(this.ctx, executionId ? { executionId } : 'uncached', {
				timeoutMs: settings.timeoutMs,
				retries: settings.retries,
				itemIndex: settings.itemIndex,
				credentials: this.credentials,
			});
		});
	}
}
