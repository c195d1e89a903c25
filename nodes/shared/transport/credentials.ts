import type { AssistantContext } from './request';

export const CREDENTIAL_TYPE = 'assistantApi';

export interface AssistantCredentials {
	baseUrl: string;
	accessToken: string;
}

/** Per node run: the credential does not change between items, and reading it decrypts it. */
const credentialsOfRun = new WeakMap<AssistantContext, Promise<AssistantCredentials>>();

export async function getCredentials(ctx: AssistantContext): Promise<AssistantCredentials> {
	let credentials = credentialsOfRun.get(ctx);
	if (!credentials) {
		credentials = readCredentials(ctx);
		credentialsOfRun.set(ctx, credentials);
		credentials.catch(() => credentialsOfRun.delete(ctx));
	}
	return await credentials;
}

async function readCredentials(ctx: AssistantContext): Promise<AssistantCredentials> {
	const credentials = await ctx.getCredentials<{ baseUrl?: unknown; accessToken?: unknown }>(
		CREDENTIAL_TYPE,
	);
	return {
		baseUrl: typeof credentials.baseUrl === 'string' ? credentials.baseUrl : '',
		accessToken: typeof credentials.accessToken === 'string' ? credentials.accessToken : '',
	};
}

/** `https://host/api/` and `https://host/api` both work. */
export function joinUrl(baseUrl: string, path: string): string {
	return `${baseUrl.trim().replace(/\/+$/, '')}${path}`;
}
