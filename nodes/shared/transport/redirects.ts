import type { IHttpRequestMethods } from 'n8n-workflow';

/**
 * Redirects (docs/api.md#redirects). n8n's HTTP helper is told never to follow one: on n8n 1.x
 * and 2.x alike it would copy the `Authorization` header to whatever origin the server names.
 * The node follows a redirect itself only within the Base URL's origin (scheme, host and port),
 * a few times at most; one to another origin fails the request, and nothing that origin could
 * send is ever requested.
 */

/** Redirects one request may follow (curl's default is 50; a service needs one or two). */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** What a response means for the request that got it. */
export type Redirect =
	/** Not a redirect (or one without a usable Location): the response is the answer. */
	| { kind: 'none' }
	/** Within the Base URL's origin: send again there, with this method, with or without body. */
	| { kind: 'follow'; url: string; method: IHttpRequestMethods; keepsBody: boolean }
	/** To another origin: never followed. */
	| { kind: 'elsewhere'; url: string };

/**
 * The redirect a response asks for. `origin` is the Base URL's: every hop of a chain is held
 * to it, not to the hop before. 303 becomes a GET without body (its meaning: see the answer
 * there); 307 and 308 keep method and body. 301 and 302 keep them too: turning an ask's POST
 * into a GET (what browsers do) would drop the ask and fetch something else in its place.
 */
export function redirectOf(
	status: number,
	location: string | undefined,
	currentUrl: string,
	method: IHttpRequestMethods,
	origin: string,
): Redirect {
	if (!REDIRECT_STATUSES.has(status) || !location) return { kind: 'none' };
	let target: URL;
	try {
		target = new URL(location.trim(), currentUrl);
	} catch {
		return { kind: 'none' };
	}
	if (target.origin !== origin || !/^https?:$/.test(target.protocol)) {
		return { kind: 'elsewhere', url: target.href };
	}
	if (status === 303 && method !== 'GET' && method !== 'HEAD') {
		return { kind: 'follow', url: target.href, method: 'GET', keepsBody: false };
	}
	return { kind: 'follow', url: target.href, method, keepsBody: true };
}

/** The origin (scheme, host, port) of an address; '' when it is not one. */
export function originOf(url: string): string {
	try {
		const parsed = new URL(url);
		return /^https?:$/.test(parsed.protocol) ? parsed.origin : '';
	} catch {
		return '';
	}
}

/**
 * A redirect's target as an error may show it: scheme, host, port and path, without user info,
 * query or fragment (a server may put anything there, the token included).
 */
export function shownTarget(url: string): string {
	try {
		const parsed = new URL(url);
		const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
		return shown.length > 300 ? `${shown.slice(0, 300)}…` : shown;
	} catch {
		return '(an address that cannot be read)';
	}
}

/** The address to suggest for the Base URL: the target without the path the node asked for. */
export function suggestedBaseUrl(targetUrl: string, requestPath: string): string {
	const shown = shownTarget(targetUrl);
	const path = requestPath.split('?')[0];
	return path && path !== '/' && shown.endsWith(path) ? shown.slice(0, -path.length) : shown;
}
