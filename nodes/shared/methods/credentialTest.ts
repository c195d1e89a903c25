import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { parseJson } from '../json';
import { ERROR_BODY_LIMIT_BYTES, LIST_LIMIT_BYTES } from '../limits';
import { bareToken } from '../transport/credentials';
import {
	MAX_REDIRECTS,
	originOf,
	redirectOf,
	shownTarget,
	suggestedBaseUrl,
} from '../transport/redirects';
import { BodyTooLarge, discard, readAll } from '../transport/send';
import { redacted, redactionOf } from '../transport/redaction';
import { inBandErrorOf, serverMessage } from '../transport/serverMessage';

/**
 * The credential test: passes only when the Base URL answers as the Assistant API does
 * (docs/api.md#models: JSON with a `models` list, for this token), and otherwise says in one
 * sentence what answered instead: a web page, a rejected token, nothing at that path, or no
 * answer at all. A plain "any 200 passes" test turns green for the assistant's web app or
 * n8n's own address.
 */

/** Someone is waiting in the credential dialog. */
const TEST_TIMEOUT_MS = 15_000;

interface TestResponse {
	statusCode: number;
	statusMessage?: string;
	headers?: Record<string, unknown>;
	body?: unknown;
}

export async function assistantApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const base = baseUrlOf(data.baseUrl);
	if (!base) return failed(INVALID_URL);
	const token = bareToken(data.accessToken);
	if (!token)
		return failed(
			'The access token is empty: paste the token you created in the assistant app under Settings > Advanced.',
		);

	const result = await testAt(this.helpers, base, token);
	// The one place the test's words leave: a server may echo the token in anything it sends.
	return { ...result, message: redacted(result.message, redactionOf(token)) };
}

/**
 * The verdict within the test's time: the request, its redirects and the body together, so that
 * a server that trickles its answer cannot keep the credential dialog waiting.
 */
async function testAt(
	helpers: ICredentialTestFunctions['helpers'],
	base: BaseUrl,
	token: string,
): Promise<INodeCredentialTestResult> {
	const opened = new OpenedBodies();
	const deadline = AbortSignal.timeout(TEST_TIMEOUT_MS);
	const timedOut = new Promise<string>((resolve) => {
		deadline.addEventListener('abort', () => resolve(noAnswerWithin(base)), { once: true });
	});
	try {
		const response = await Promise.race([
			requestModelList(helpers, base, token, opened).catch((error: unknown) =>
				unreachable(base, error),
			),
			timedOut,
		]);
		return typeof response === 'string' ? failed(response) : verdict(base, response);
	} finally {
		// Read whole by now, or still trickling when time ran out: either way done with.
		opened.closeAll();
	}
}

/** The bodies a test opened: closed when it has its verdict, and any that opens after then. */
class OpenedBodies {
	private readonly bodies: unknown[] = [];
	private closed = false;

	add(body: unknown): void {
		if (this.closed) discard(body);
		else this.bodies.push(body);
	}

	closeAll(): void {
		this.closed = true;
		for (const body of this.bodies) discard(body);
	}
}

/**
 * GET /models/available with the token, whatever the status: the response, or why there is
 * none to judge (a redirect away from the Base URL's origin, a loop, a body too large). A
 * credential test's context offers only `request` (n8n-workflow's ICredentialTestFunctions has
 * no httpRequest), so it is used here. It follows no redirect: the node follows those within the
 * Base URL's origin itself, so the token never goes elsewhere (docs/api.md#redirects).
 */
async function requestModelList(
	helpers: ICredentialTestFunctions['helpers'],
	base: BaseUrl,
	token: string,
	opened: OpenedBodies,
): Promise<TestResponse | string> {
	const path = '/models/available';
	let url = `${base.address}${path}`;
	const origin = originOf(url);
	for (let redirects = 0; ; redirects++) {
		const response = (await helpers.request({
			method: 'GET',
			uri: url,
			headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
			followAllRedirects: false,
			maxRedirects: 0,
			sendCredentialsOnCrossOriginRedirect: false,
			useStream: true,
			timeout: TEST_TIMEOUT_MS,
		})) as TestResponse;
		opened.add(response.body);
		const location = response.headers?.location;
		const redirect = redirectOf(
			response.statusCode,
			typeof location === 'string' ? location : undefined,
			url,
			'GET',
			origin,
		);
		if (redirect.kind === 'none') return await withBody(base, response);
		discard(response.body);
		const status = response.statusCode;
		if (redirect.kind === 'elsewhere') {
			return `${base.host} redirected the request (HTTP ${status}) to another address, ${shownTarget(redirect.url)}; the token was not sent there. If that address is the Assistant API's, put ${suggestedBaseUrl(redirect.url, path)} in the Base URL.`;
		}
		if (redirects >= MAX_REDIRECTS) {
			return `${base.host} redirected the request more than ${MAX_REDIRECTS} times (the last, HTTP ${status}, to ${shownTarget(redirect.url)}): put the API's final address in the Base URL.`;
		}
		url = redirect.url;
	}
}

/** The response with its body read, within its bound; a message when it is larger. */
async function withBody(base: BaseUrl, response: TestResponse): Promise<TestResponse | string> {
	try {
		return { ...response, body: await readAll(response.body, LIST_LIMIT_BYTES) };
	} catch (error) {
		if (!(error instanceof BodyTooLarge)) return unreachable(base, error);
		return `${base.host} answered with more than ${LIST_LIMIT_BYTES / (1024 * 1024)} MiB instead of the list of models: check the Base URL.`;
	}
}

/** The verdict on what answered at the Base URL; exported for the unit tests. */
export function verdict(base: BaseUrl, response: TestResponse): INodeCredentialTestResult {
	const { statusCode } = response;
	const body = parsedBody(response.body);
	const status = (shown: string) => {
		// The server's own words beside the status, as every failure shows them (from the start
		// of its body, as for any error); a web page has none.
		const said = isHtml(response, body)
			? ''
			: serverMessage(bodyText(response.body).slice(0, ERROR_BODY_LIMIT_BYTES));
		return `HTTP ${shown}${said ? `: ${said}` : ''}`;
	};
	if (statusCode === 401 || statusCode === 403) {
		return failed(
			`The access token was rejected (${status(String(statusCode))}): create a new one in the assistant app under Settings > Advanced and paste it here.`,
		);
	}
	if (statusCode === 404) {
		return failed(
			`Nothing answers at ${base.address}/models/available (${status('404')}): the Base URL is not the address of the Assistant API.`,
		);
	}
	if (statusCode < 200 || statusCode > 299) {
		return failed(
			`${base.host} answered ${status(`${statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}`)} instead of the list of models: check the Base URL, or try again later.`,
		);
	}
	if (isHtml(response, body)) {
		return failed(
			`${base.host} answered with a web page (HTML), not the Assistant API: the Base URL must be the API's address (e.g. https://assistant.example.com/api), not the assistant's web app or n8n.`,
		);
	}
	const models = (body as { models?: unknown } | null)?.models;
	const inBand = Array.isArray(models) ? undefined : inBandErrorOf(body);
	if (inBand !== undefined) {
		// A failure inside a 200 (docs/api.md#ask-answer): the service's words, not the Base URL's fault.
		return failed(
			`${base.host} answered the list of models with an error (HTTP ${statusCode}: ${inBand}): try again later; if it keeps failing, check the access token and the Base URL.`,
		);
	}
	if (typeof body !== 'object' || body === null || !Array.isArray(models)) {
		return failed(
			`${base.host} answered, but not with the Assistant API's list of models (no "models" list in the JSON): check the Base URL.`,
		);
	}
	return {
		status: 'OK',
		message: `Connection tested successfully: ${models.length} model${models.length === 1 ? '' : 's'} available.`,
	};
}

const INVALID_URL =
	'The Base URL is not a valid address: enter it in full, starting with https://, e.g. https://assistant.example.com/api.';

interface BaseUrl {
	/** Without trailing slashes, for joining paths. */
	address: string;
	host: string;
}

/** The Base URL, or undefined when it is not an http(s) address. */
export function baseUrlOf(value: unknown): BaseUrl | undefined {
	if (typeof value !== 'string') return undefined;
	const trimmed = value.trim().replace(/\/+$/, '');
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		return undefined;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
	return { address: trimmed, host: url.host };
}

function unreachable(base: BaseUrl, error: unknown): string {
	const code = String(
		(error as { code?: unknown; cause?: { code?: unknown } })?.code ??
			(error as { cause?: { code?: unknown } })?.cause?.code ??
			'',
	);
	const where = base.host;
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		return `No answer at ${where}: that host name was not found. Check the Base URL.`;
	}
	if (code === 'ECONNREFUSED') {
		return `No answer at ${where}: the connection was refused. Check the Base URL and that the service is running.`;
	}
	if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT') {
		return noAnswerWithin(base);
	}
	if (/CERT|SSL|TLS/i.test(code)) {
		return `No secure connection to ${where}: its TLS certificate was not accepted (${code}).`;
	}
	return `No answer at ${where}${code ? ` (${code})` : ''}. Check the Base URL and the network.`;
}

function parsedBody(body: unknown): unknown {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (typeof text !== 'string') return text;
	try {
		return parseJson(text);
	} catch {
		return text;
	}
}

function bodyText(body: unknown): string {
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	if (typeof body === 'string') return body;
	return body === undefined || body === null ? '' : JSON.stringify(body);
}

function isHtml(response: TestResponse, body: unknown): boolean {
	const contentType = String(response.headers?.['content-type'] ?? '');
	if (/html/i.test(contentType)) return true;
	return typeof body === 'string' && /^\s*</.test(body);
}

function failed(message: string): INodeCredentialTestResult {
	return { status: 'Error', message };
}

function noAnswerWithin(base: BaseUrl): string {
	return `No answer at ${base.host} within ${TEST_TIMEOUT_MS / 1000} seconds. Check the Base URL and the network.`;
}
