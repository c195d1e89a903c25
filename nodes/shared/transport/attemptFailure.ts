import type { NodeApiError } from 'n8n-workflow';

import { conversationIdOf, type ResponseHeaders } from './request';
import type { RetryCause } from './retryPolicy';

/**
 * What one attempt on the wire came to when it gave no answer: the one type every failure of an
 * attempt travels as, from where it is classified (failures.ts for what the service said,
 * transportFailures.ts for the node's side of the wire, askAttempt.ts for a stream that did not
 * answer) to the retry loop, which decides on `retry` alone, and the recovery, which decides on
 * `accepted` and `lost` (docs/api.md#exactly-once). Nothing outside the transport sees it:
 * the retry loop throws `shown`.
 */

/**
 * Whether the service accepted the ask: `yes`, a 2xx response had begun (a stream, a JSON
 * answer, a run that then failed); `maybe`, the request may have reached it (a network failure
 * after it may have left, a 408 or 5xx, a stop mid-request); `no`, it was refused (429, a full
 * session pool, a busy conversation, any other 4xx, a redirect not followed) or never sent.
 */
export type Acceptance = 'no' | 'maybe' | 'yes';

/** How the response of an accepted ask failed before it gave the answer. */
export type LostHow =
	/** The connection broke off (right after the headers, or mid-answer). */
	| 'broken'
	/** The stream stayed silent longer than the idle limit. */
	| 'stalled'
	/** The stream closed without `End`. */
	| 'incomplete'
	/** The stream carried an event of the answer that could not be read. */
	| 'unreadable'
	/** A 200 whose answer is empty, or a stream that ended without one. */
	| 'empty';

export interface AttemptFailureFacts {
	/** What the user reads: the status, the service's words, the advice; never the token. */
	shown: NodeApiError;
	accepted: Acceptance;
	/** Why another attempt may help; undefined when none can. */
	retry?: RetryCause;
	/**
	 * The account as a whole was too busy (a full session pool, a 429 or 503, a provider's rate
	 * limit passed on): what a run's pace adapts to (transport/adaptivePace.ts).
	 */
	busy?: boolean;
	/** The failed response's headers: Retry-After, and the conversation it named. */
	headers?: ResponseHeaders;
	/** The HTTP status the failure came with, when it came with one. */
	status?: number;
	/** A network failure's code (ECONNRESET, …), when it has one. */
	code?: string;
	/** For an ask the service accepted: its answer may be in its conversation, lost this way. */
	lost?: LostHow;
	/**
	 * The events the failed stream carried that this node does not know, by name: every error the
	 * failure becomes names them (docs/api.md#how-a-stream-ends).
	 */
	unknownEvents?: readonly string[];
}

export class AttemptFailure extends Error {
	readonly shown: NodeApiError;
	readonly accepted: Acceptance;
	readonly retry: RetryCause | undefined;
	readonly busy: boolean;
	readonly headers: ResponseHeaders;
	readonly status: number | undefined;
	readonly code: string | undefined;
	readonly lost: LostHow | undefined;
	readonly unknownEvents: readonly string[];

	constructor(facts: AttemptFailureFacts) {
		super(facts.shown.message);
		this.name = 'AttemptFailure';
		this.shown = facts.shown;
		this.accepted = facts.accepted;
		this.retry = facts.retry;
		this.busy = facts.busy ?? false;
		this.headers = facts.headers ?? {};
		this.status = facts.status;
		this.code = facts.code;
		this.lost = facts.lost;
		this.unknownEvents = facts.unknownEvents ?? [];
	}

	/** The conversation the failed response named (a proxy may pass the service's header on). */
	get conversationId(): string | undefined {
		return conversationIdOf(this.headers);
	}

	/** The same failure with some facts changed: another text shown, a retry after all. */
	with(changes: Partial<AttemptFailureFacts>): AttemptFailure {
		const { shown, accepted, retry, busy, headers, status, code, lost, unknownEvents } = this;
		return new AttemptFailure({
			...{ shown, accepted, retry, busy, headers, status, code, lost, unknownEvents },
			...changes,
		});
	}
}

/** What an error thrown by an attempt shows the user: an AttemptFailure's `shown`, else itself. */
export function shownError(error: unknown): unknown {
	return error instanceof AttemptFailure ? error.shown : error;
}
