import type {
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	ISupplyDataFunctions,
} from 'n8n-workflow';

import type { AssistantCredentials } from './credentials';
import type { Asker } from './errors';
import type { CallWatch } from './lifetime';
import type { AttemptPace } from './pace';

/** Every kind of n8n context that calls the API: a node run, a picker, a sub-node's supplyData. */
export type AssistantContext = IExecuteFunctions | ILoadOptionsFunctions | ISupplyDataFunctions;

/** Answers can take minutes while the assistant runs tools (n8n's usual 300 s is too short). */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** Silence allowed between stream chunks; the assistant can work a while between parts. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60 * 1000;

/** One request to the API, with everything that governs how it is sent. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with '/'. */
	path: string;
	body?: object;
	/** False only for the public catalog: the token grants full access, so it is not sent there. */
	authenticated: boolean;
	/** For the whole call: every attempt, the pauses between them and, for a stream, its last byte. */
	timeoutMs?: number;
	/** For streams: the longest silence allowed between two chunks. */
	idleTimeoutMs?: number;
	retries?: number;
	itemIndex?: number;
	/** For an ask and the reads of its conversation: the node that asks, which its errors advise on. */
	asker?: Asker;
	/**
	 * The ask's bound on answer text, in characters; the bounds on SSE events and JSON bodies follow
	 * from it (limits.ts). The default when not given.
	 */
	answerLimitChars?: number;
	/** A JSON body's own bound, where it is no answer (a list, the catalog: limits.ts). */
	listLimitBytes?: number;
	pace?: AttemptPace;
	/** The run's credential, read once per run (runContext.ts); read for the call when absent. */
	credentials?: () => Promise<AssistantCredentials>;
	/**
	 * What times the run's calls and stops them on cancellation (runContext.ts); the call's own
	 * when absent.
	 */
	watch?: CallWatch;
}

/** A response as the HTTP helper returns it with `returnFullResponse`. */
export interface RawResponse<TBody> {
	statusCode: number;
	headers: ResponseHeaders;
	body: TBody;
	/**
	 * Set by sendOnce when the request was answered "303 See Other" on its way here: that
	 * answer's headers. The service took the request (transportFailures.ts's afterSeeOther), and
	 * the conversation they name counts only where the answer names none of its own.
	 */
	seeOther?: ResponseHeaders;
}

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** Header value as one string, whatever the case of its name (Node gives arrays for repeats). */
export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
	const wanted = name.toLowerCase();
	// Node gives every name in lower case: the loop is for other sources.
	const direct = headers[wanted];
	if (direct !== undefined) return Array.isArray(direct) ? direct[0] : direct;
	for (const key of Object.keys(headers)) {
		if (key.toLowerCase() !== wanted) continue;
		const value = headers[key];
		return Array.isArray(value) ? value[0] : value;
	}
	return undefined;
}

/**
 * The conversation a response names in `x-conversation-id` (a stream's, or a failed response a
 * proxy passed the service's headers on for), trimmed; undefined when it names none.
 */
export function conversationIdOf(headers: ResponseHeaders): string | undefined {
	return headerValue(headers, 'x-conversation-id')?.trim() || undefined;
}

export function cancelSignalOf(ctx: AssistantContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in ctx ? ctx.getExecutionCancelSignal() : undefined;
}
