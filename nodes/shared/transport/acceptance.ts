import type { NodeApiError } from 'n8n-workflow';

import { RetryableFailure } from './failures';
import { conversationIdOf } from './request';

/**
 * Which failures may have come after the service accepted an ask (docs/api.md#exactly-once):
 * after them, sending the ask again may make the assistant do the work twice.
 */

/** How the response of an accepted ask failed before it gave the answer. */
export type LostHow =
	/** The connection broke off (right after the headers, or mid-answer). */
	| 'broken'
	/** The stream stayed silent longer than the idle limit. */
	| 'stalled'
	/** The stream closed without `End`. */
	| 'incomplete'
	/** A 200 whose answer is empty, or a stream that ended without one. */
	| 'empty';

/** The response of an ask the service had accepted failed before it gave the answer. */
export class LostResponse extends Error {
	constructor(
		readonly how: LostHow,
		/** What the user sees when the answer cannot be recovered. */
		readonly error: NodeApiError,
	) {
		super(error.message);
		this.name = 'LostResponse';
	}
}

/**
 * Network failures that happen before the request can have reached the service: no address, no
 * route, no connection, no TLS. Anything else (a reset, a hang-up, a timeout) may come after.
 */
const NEVER_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EAI_FAIL',
	'EAI_NONAME',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EHOSTDOWN',
	'EADDRNOTAVAIL',
	'EPROTO',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function neverSent(code: string | undefined): boolean {
	if (code === undefined) return false;
	return NEVER_SENT_CODES.has(code) || /^(ERR_TLS_|ERR_SSL_|CERT_)/.test(code);
}

/**
 * Whether a failed attempt may have been accepted: a network failure after the request may have
 * left, a 408 or a 5xx (a proxy's, or the service's). Not 429, a full session pool or a busy
 * conversation (409): those say the ask was not taken.
 */
export function mayHaveBeenAccepted(failure: RetryableFailure): boolean {
	if (failure.retryCause === 'network') return !neverSent(failure.code);
	if (failure.retryCause !== 'status') return false;
	const status = Number(failure.error.httpCode);
	return status === 408 || status >= 500;
}

/** The conversation a failed response named (a proxy may pass the service's header on). */
export function conversationOfFailure(failure: RetryableFailure): string | undefined {
	return conversationIdOf(failure.headers);
}
