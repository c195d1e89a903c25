import type { AssistantContext } from './request';
import { originOf } from './redirects';
import { redactionOf, type Redaction } from './redaction';

export const CREDENTIAL_TYPE = 'assistantApi';

export interface AssistantCredentials {
	baseUrl: string;
	accessToken: string;
	/** The Base URL's origin: the only one the token is sent to (redirects.ts), found once. */
	origin: string;
	/** What takes the token out of what the service sends back (redaction.ts), made once. */
	redaction: Redaction | undefined;
}

/**
 * The credential a call uses: the run's, read once per run (runContext.ts: it does not change
 * between items, and reading it decrypts it), or read now for a call made outside a run (a
 * picker's search, the credential test).
 */
export function getCredentials(
	ctx: AssistantContext,
	ofRun?: () => Promise<AssistantCredentials>,
): Promise<AssistantCredentials> {
	return ofRun ? ofRun() : readCredentials(ctx);
}

export async function readCredentials(ctx: AssistantContext): Promise<AssistantCredentials> {
	const credentials = await ctx.getCredentials<{ baseUrl?: unknown; accessToken?: unknown }>(
		CREDENTIAL_TYPE,
	);
	const baseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl : '';
	const accessToken = bareToken(credentials.accessToken);
	return { baseUrl, accessToken, origin: originOf(baseUrl), redaction: redactionOf(accessToken) };
}

/**
 * The token as the service knows it: without spaces around it and without a `Bearer ` prefix
 * pasted with it (docs/api.md#authentication). The credential's `authenticate` expression does the
 * same for the header n8n sends; this is the token the error messages are cleaned of.
 */
export function bareToken(value: unknown): string {
	if (typeof value !== 'string') return '';
	return value.trim().replace(/^bearer(\s+|$)/i, '');
}

/** `https://host/api/` and `https://host/api` both work. */
export function joinUrl(baseUrl: string, path: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${path}`;
}
