import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { headerValue, type ResponseHeaders } from './request';

/**
 * Failures -> errors a person can act on (docs/api.md#errors). The message carries the meaning,
 * the HTTP status and the server's own words; the description only what to do, in full
 * sentences. Errors are built from the status and the server's words only, never from the
 * request, whose headers hold the token.
 */

export interface ErrorText {
	message: string;
	description: string;
}

/**
 * The node that asks, as an ask's request says it (AskCall.asker): advice names only options
 * that node has (Concurrency is the Assistant node's alone). A request that names none (a list,
 * the catalog, a picker's: no ask, no conversation, no session) gets the Assistant node's wording,
 * and its 404 names the base URL alone.
 */
export interface Asker {
	node: 'assistant' | 'chat-model';
	/**
	 * Where the conversation the ask continues came from: Options > Conversation ID, or the mark
	 * of an earlier answer in the chat model's history (a chat memory's, across executions), or
	 * the answer the same call got a moment before (the chat model's correction of a reply it
	 * could not use).
	 */
	conversation?: ConversationSource;
}

export type ConversationSource = 'option' | 'mark' | 'just-answered';

/** How to put fewer asks at the service at once, in the terms of the node that asks. */
function fewerAtOnce(asker: Asker | undefined): string {
	return asker?.node === 'chat-model'
		? 'Run fewer executions that use this model at the same time (agent runs, chats)'
		: 'Run fewer asks at the same time (lower Options > Concurrency, or spread the items over time)';
}

/** `meaning (HTTP status): server's words`, without empty parts. */
export function headline(meaning: string, status: number | undefined, said: string): string {
	const withStatus = status === undefined ? meaning : `${meaning} (HTTP ${status})`;
	return said ? `${withStatus}: ${said}` : withStatus;
}

/** A message with what to do after it, as its last sentence. */
function withAdvice(message: string, advice: string): string {
	return `${message}${/[.!?]$/.test(message) ? '' : '.'} ${advice}`;
}

/**
 * What a failed status means; `said` is the server's message, already redacted. Of the request:
 * `authenticated`, it carried the token (the public catalog's does not); `asker`, the node that
 * asked and where its conversation came from (none: a request of no ask).
 */
export function describeStatus(
	status: number,
	headers: ResponseHeaders,
	said: string,
	{ authenticated = true, asker }: { authenticated?: boolean; asker?: Asker } = {},
): ErrorText {
	const text = (meaning: string, description: string): ErrorText => ({
		message: headline(meaning, status, said),
		description,
	});
	switch (status) {
		case 401:
		case 403:
			if (!authenticated) {
				// No token went with it: the token cannot be what was refused.
				return text(
					'The service refused a request that needs no access token',
					"The catalog is public, so this request carries no token. Something in front of the Assistant API asks for a sign-in, or the credential's base URL is not the API's: check the base URL.",
				);
			}
			return text(
				'The access token was rejected',
				'Check the Assistant API credential: its access token (created in Settings > Advanced of the assistant app, shown once) and its base URL.',
			);
		case 404:
			return text(...notFound(said, asker));
		case 408:
			// The service's own cut (`stream-idle-timeout`: its model sent nothing for about 120 s)
			// or a proxy's: the node's Timeout has no say in either.
			return text(
				'The assistant timed out',
				"The service, or a proxy in front of it, stopped waiting for the model. Run the item again, or try another model; raising the node's Timeout does not change this limit.",
			);
		case 409:
			return text(
				'The conversation is busy answering an earlier request',
				'Wait until the earlier answer has finished before continuing the same conversation, and send the asks of one conversation one after another.',
			);
		case 422:
			return text(
				'The assistant rejected the request',
				'Check the parameters the message names (a model or persona ID, the JSON Schema).',
			);
		case 429: {
			const retryAfter = headerValue(headers, 'retry-after');
			const wait = retryAfter
				? `The server asked to wait ${retryAfter}${/^\d+$/.test(retryAfter) ? ' s' : ''} before retrying. `
				: '';
			return text('Too many requests', `${wait}Slow the workflow down or try again later.`);
		}
		default:
			if (status >= 500) {
				return text(
					'The assistant service failed',
					"This is a problem on the service's side. Try again later.",
				);
			}
			return text('The request failed', "Check the node's parameters and the credential.");
	}
}

/**
 * What a 404 means, and what to do, by the service's words and where the conversation the request
 * named came from: the one place that decides a 404's advice
 * (docs/api.md#errors-the-live-service-answered-in-2026).
 */
function notFound(said: string, asker: Asker | undefined): [meaning: string, advice: string] {
	// A request of no ask (a list, the catalog, a picker's) names no conversation: only the
	// credential's base URL can be wrong.
	if (!asker) return ['Not found', "Check the credential's base URL."];
	if (!/conversation not found/i.test(said)) {
		return [
			'Not found',
			"Check the credential's base URL, and the conversation ID if one was given.",
		];
	}
	switch (asker.conversation) {
		case 'just-answered':
			// The service answered in it a moment before: no setting and no chat memory named it
			// wrongly, so the advice names neither.
			return [
				'The conversation the assistant had just answered in was not found',
				"The assistant's reply could not be used, so the node sent the reason back to the conversation the service had answered in a moment before, and the service no longer had it: it lost the conversation on its side (or it was deleted meanwhile). Nothing in the node's settings is at fault: run the execution again (in a chat, send the message again).",
			];
		case 'mark':
			// A marked conversation comes back with every later execution of the same chat session:
			// only a new session ends it (starting a new conversation here would drop its context
			// without a word).
			return [
				'The conversation was not found',
				"The conversation the chat memory points to no longer exists for this credential (it was deleted, or belongs to another account). Clear the chat memory's session, or start a new chat session, so that a new conversation is started.",
			];
		default:
			return [
				'The conversation was not found',
				'Check Conversation ID: it must be the conversation_id of an earlier answer of this assistant. Leave it empty to start a new conversation.',
			];
	}
}

/**
 * The service's words tell a provider's rate limit (a 429 behind the service's 5xx, or inside its
 * failed run): waiting may clear it.
 */
export function isProviderRateLimit(said: string): boolean {
	return /status_code:?\s*429|rate limit/i.test(said);
}

/**
 * The advice for a failed run whose words tell a provider's rate limit: the service took the ask,
 * so it is not sent again, but a later run may pass.
 */
export function rateLimitedRunAdvice(asker: Asker | undefined, classed: string): string {
	return `The model's provider was rate limiting the account when the service ran the ask${classed}. It was not sent again, so that the assistant does not act twice: run the item again a little later. ${fewerAtOnce(asker)}, or try another model.`;
}

/** What an error's advice rests on, beside the status and the service's words. */
export interface FailedAsk {
	/** The ask named a model (else the account's default model answered). */
	modelNamed: boolean;
	/** The node that asked. */
	asker?: Asker;
	/** How the call's retries went, should waiting not clear this failure (WaitOutcome). */
	waited: WaitOutcome;
}

/**
 * Why a failure that waiting may clear (a rate limit, a full pool) ended the call, when it did:
 * `retries-off`, Retries 0; `no-time`, retries were left but the wait did not fit in what was left
 * of Timeout; `retried`, the call waited and asked again, and it did not clear.
 */
export type WaitOutcome = 'retries-off' | 'no-time' | 'retried';

/**
 * Failures the live service answered in 2026 whose status alone misleads (docs/api.md#errors):
 * the text to show and whether waiting may help, or undefined for any other failure.
 */
export function describeServiceFailure(
	status: number,
	said: string,
	{ modelNamed, asker, waited }: FailedAsk,
): { text: ErrorText; retryable: boolean; rateLimited?: boolean } | undefined {
	const text = (meaning: string, description: string, retryable = false) => ({
		text: { message: headline(meaning, status, said), description },
		retryable,
	});
	if (/model is disabled/i.test(said)) {
		return text(
			'The model is disabled',
			'The account cannot use this model now. Pick another model (Model), or enable this one in the assistant app, then run the item again.',
		);
	}
	if (/unknown provider/i.test(said)) {
		return text(
			"The model's provider is unknown to the service",
			modelNamed
				? 'The Model ID names a provider the service does not know (the part before the colon). Pick a model from the list (Model > From List), then run the item again.'
				: "The ask named no model, and the account's default model names a provider the service does not know. Choose a model in Model (the list shows those the account can use), then run the item again.",
		);
	}
	if (/model_not_found|model not found/i.test(said)) {
		return modelNamed
			? text(
					'The model was not found',
					'The service has no model by this ID for the account. Pick a model from the list (Model > From List), then run the item again.',
				)
			: {
					// The AI Agent's tool and the error output keep the message alone: the one thing
					// to do goes there too.
					text: {
						message: withAdvice(
							headline("The account's default model is not available", status, said),
							'Choose a model in Model.',
						),
						description:
							"The ask named no model, and the service could not find the account's default model. Choose a model in Model (the list shows those the account can use), then run the item again.",
					},
					retryable: false,
				};
	}
	if (status >= 500 && isProviderRateLimit(said)) {
		// A provider's 429 wrapped in the service's 5xx: a rate limit, waited out like a 429
		// (and a run's pace slows for it as for a 429).
		return {
			...text(
				"The model's provider is rate limiting the account",
				{
					'retries-off': `The ask was not retried: raise Options > Retries, so that the node waits such a limit out and asks again. ${fewerAtOnce(asker)}, or try again later.`,
					'no-time': `The ask was not retried: waiting such a limit out did not fit in what was left of Options > Timeout (Minutes). Raise the Timeout, or try again later. ${fewerAtOnce(asker)}.`,
					retried: `The retries waited for it and it did not clear. ${fewerAtOnce(asker)}, raise Options > Retries, or try again later.`,
				}[waited],
				true,
			),
			rateLimited: true,
		};
	}
	return undefined;
}

/**
 * The account or the model's provider is out of credit (docs/api.md#credit-failures): never
 * retried; the provider's words follow the colon.
 */
export function creditText(status: number | undefined, said: string): ErrorText {
	return {
		message: headline("The account or the model's provider is out of credit", status, said),
		description:
			"The assistant could not pay the model's provider for this ask. Pick another model (Model), or top up the account or the provider (for a BYOK model, your own provider account), then run the item again.",
	};
}

/**
 * The account's session pool was full when the call ended (docs/api.md#full-session-pool):
 * after its retries, or without any (`waited`).
 */
export function sessionPoolText(
	status: number | undefined,
	said: string,
	asker: Asker | undefined,
	waited: WaitOutcome,
): ErrorText {
	const why = {
		'retries-off':
			'The service had no free session for this ask, and it was not waited for: raise Options > Retries, so that the node waits for a session and asks again.',
		'no-time':
			'The service had no free session for this ask, and waiting for one did not fit in what was left of Options > Timeout (Minutes): raise the Timeout.',
		retried: 'The service had no free session for this ask, also after waiting.',
	}[waited];
	return {
		message: headline("All of the account's assistant sessions are busy", status, said),
		description: `${why} ${fewerAtOnce(asker)}, then try again.`,
	};
}

export function apiError(
	node: INode,
	error: { message: string; description?: string; httpCode?: string },
	itemIndex: number | undefined,
): NodeApiError {
	const response: JsonObject = { message: error.message };
	if (error.httpCode) response.httpCode = error.httpCode;
	const apiFailure = new NodeApiError(node, response, {
		message: error.message,
		description: error.description,
		httpCode: error.httpCode,
		itemIndex,
	});
	// n8n swaps a message that names a network code (ECONNRESET, ...) for a generic sentence;
	// ours already says what happened, where.
	apiFailure.message = error.message;
	return apiFailure;
}
