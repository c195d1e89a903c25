/**
 * The only place that does HTTP: credentials and base URL, one attempt on the wire, the retry
 * loop and its policy, failures -> errors. One job per file; this file only gathers them.
 */
export {
	CREDENTIAL_TYPE,
	getCredentials,
	joinUrl,
	readCredentials,
	type AssistantCredentials,
} from './credentials';
export { apiRequest, type JsonAnswer } from './jsonCall';
export { CallWatch } from './lifetime';
export type { AttemptPace } from './pace';
export {
	DEFAULT_IDLE_TIMEOUT_MS,
	DEFAULT_TIMEOUT_MS,
	cancelSignalOf,
	headerValue,
	type ApiRequest,
	type AssistantContext,
} from './request';
export { DEFAULT_RETRIES, MAX_RETRIES } from './retryPolicy';
