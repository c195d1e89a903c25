import type { ConversationMessage, ConversationResponse, Unchecked } from '../api';
import { parseJson } from '../json';
import { AttemptFailure } from './attemptFailure';
import { apiError } from './errors';
import { statusFailure, type FailureScope } from './failures';
import { seconds } from './transportFailures';
import type { ApiRequest, ResponseHeaders } from './request';
import { readJsonBody } from './jsonCall';
import { discard, sendOnce, type Attempt } from './send';

/** What one read of a conversation got. */
export type ConversationRead =
	| { kind: 'read'; conversation: ConversationResponse; headers: ResponseHeaders }
	/**
	 * The endpoint is not there for this token (404, 401, 403, any other refusal) or answered
	 * something else: `what` says so, in words to put in an error.
	 */
	| { kind: 'unavailable'; what: string };

/** A public client gives one read 30 s. */
const READ_TIMEOUT_MS = 30_000;

export function conversationPath(conversationId: string): string {
	return `/conversations/${encodeURIComponent(conversationId)}`;
}

/**
 * One read of `GET /conversations/{id}` (docs/api.md#reading-a-conversation), within an ask's
 * call: its credential, its deadline and cancellation. A passing failure (network, 408, 429, 5xx,
 * a full session pool) is thrown as its AttemptFailure (one with `retry`), for the caller to read
 * again later; a stopped call throws its AttemptFailure too.
 */
export async function readConversation(
	attempt: Attempt,
	conversationId: string,
): Promise<ConversationRead> {
	const request: ApiRequest = {
		method: 'GET',
		path: conversationPath(conversationId),
		authenticated: true,
		itemIndex: attempt.scope.request.itemIndex,
		asker: attempt.scope.request.asker,
	};
	const read: Attempt = { ...attempt, scope: { ...attempt.scope, request } };
	const where = `GET ${request.path}`;
	// The read's own time covers its body too: a server that trickles one would otherwise keep
	// this read going until the ask's Timeout, and the conversation would never be read again.
	const readTime = AbortSignal.timeout(READ_TIMEOUT_MS);
	const stop = new AbortController();
	const stopRead = () => stop.abort(attempt.lifetime.signal.reason ?? readTime.reason);
	attempt.lifetime.signal.addEventListener('abort', stopRead);
	readTime.addEventListener('abort', stopRead);
	if (attempt.lifetime.signal.aborted) stopRead();
	const { statusCode, headers, bodyText } = await receive(read, stop.signal)
		.catch((error: unknown) =>
			Promise.reject(
				readTime.aborted && !attempt.lifetime.reason ? slowReadFailure(read.scope, where) : error,
			),
		)
		.finally(() => {
			attempt.lifetime.signal.removeEventListener('abort', stopRead);
			readTime.removeEventListener('abort', stopRead);
		});
	if (statusCode < 200 || statusCode >= 300) {
		const failure = statusFailure(read.scope, statusCode, headers, bodyText);
		if (failure.retry) throw failure;
		return { kind: 'unavailable', what: `${where} answered: ${failure.shown.message}` };
	}
	const conversation = conversationOf(bodyText);
	if (!conversation) {
		return {
			kind: 'unavailable',
			what: `${where} answered HTTP ${statusCode}, but not with a conversation`,
		};
	}
	return { kind: 'read', conversation, headers };
}

/** The read's status, headers and body, its body dropped when `signal` aborts. */
async function receive(
	read: Attempt,
	signal: AbortSignal,
): Promise<{ statusCode: number; headers: ResponseHeaders; bodyText: string }> {
	const { statusCode, headers, body } = await sendOnce<unknown>(read, 'json', signal);
	if (signal.aborted) discard(body);
	else signal.addEventListener('abort', () => discard(body), { once: true });
	// Beyond its bound, the read fails as the item's error: a conversation is never read in part.
	return { statusCode, headers, bodyText: await readJsonBody(read, statusCode, body) };
}

/** A read that gave no whole answer within its time: read again later, as after a network failure. */
function slowReadFailure(scope: FailureScope, where: string): AttemptFailure {
	const shown = apiError(
		scope.node,
		{
			message: `${where} gave no whole answer within ${seconds(READ_TIMEOUT_MS)}`,
			description:
				'The conversation is read again on the same schedule, within Options > Timeout (Minutes).',
		},
		scope.request.itemIndex,
	);
	return new AttemptFailure({ shown, accepted: 'maybe', retry: 'network' });
}

/** `{"state": string, "messages": [...]}`, its messages the objects among them; else undefined. */
function conversationOf(bodyText: string): ConversationResponse | undefined {
	let body: unknown;
	try {
		body = parseJson(bodyText);
	} catch {
		return undefined;
	}
	if (typeof body !== 'object' || body === null) return undefined;
	const { state, messages } = body as Unchecked<ConversationResponse>;
	if (typeof state !== 'string' || !Array.isArray(messages)) return undefined;
	const kept = messages.filter(
		(message): message is ConversationMessage =>
			typeof message === 'object' && message !== null && !Array.isArray(message),
	);
	return { state, messages: kept };
}
