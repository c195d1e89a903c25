import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

/**
 * Turns failed responses into errors a person can act on. Errors are built from the status
 * and the server's own message only: never from the request, whose headers hold the token.
 */

export interface FailedResponse {
	status: number;
	/** The body as received (text), for the server's own message. */
	bodyText: string;
	headers: Record<string, string | string[] | undefined>;
}

const MAX_MESSAGE_LENGTH = 500;

/** The server's own words, from whichever shape it used. */
export function serverMessage(bodyText: string): string {
	const trimmed = bodyText.trim();
	if (!trimmed) return '';
	let parsed: unknown;
	try {
		parsed = JSON.parse(trimmed);
	} catch {
		return clip(stripHtml(trimmed));
	}
	return clip(messageFromJson(parsed) ?? trimmed);
}

function messageFromJson(body: unknown): string | undefined {
	if (typeof body === 'string') return body;
	if (typeof body !== 'object' || body === null) return undefined;
	const record = body as Record<string, unknown>;
	const detail = record.detail;
	if (typeof detail === 'string') return detail;
	if (Array.isArray(detail)) return validationMessages(detail).join('; ');
	for (const key of ['error', 'message', 'msg']) {
		const value = record[key];
		if (typeof value === 'string') return value;
		if (typeof value === 'object' && value !== null) {
			const nested = messageFromJson(value);
			if (nested) return nested;
		}
	}
	return undefined;
}

/** FastAPI's 422 detail: `[{loc: ['body', 'model_name'], msg: '...'}]` → `body.model_name: ...`. */
function validationMessages(detail: unknown[]): string[] {
	return detail.map((entry) => {
		if (typeof entry !== 'object' || entry === null) return String(entry);
		const { loc, msg } = entry as { loc?: unknown; msg?: unknown };
		const where = Array.isArray(loc) ? loc.map(String).join('.') : '';
		const what = typeof msg === 'string' ? msg : JSON.stringify(entry);
		return where ? `${where}: ${what}` : what;
	});
}

function stripHtml(text: string): string {
	if (!/^\s*</.test(text)) return text;
	return text
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
}

function clip(text: string): string {
	return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

/** Header value as one string (Node gives arrays for repeated headers). */
export function headerValue(
	headers: Record<string, string | string[] | undefined>,
	name: string,
): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

interface ErrorText {
	message: string;
	description: string;
}

function describeStatus(response: FailedResponse, said: string): ErrorText {
	const { status } = response;
	const server = said ? `The server said: ${said}` : 'The server gave no message.';
	switch (status) {
		case 401:
		case 403:
			return {
				message: `The access token was rejected (HTTP ${status})${said ? `: ${said}` : ''}`,
				description: `${server} Check the Assistant API credential: the access token (created in Settings > Advanced of the assistant app, shown once) and the base URL.`,
			};
		case 404:
			return {
				message: `Not found (HTTP 404)${said ? `: ${said}` : ''}`,
				description: `${server} Check the credential's base URL, and the conversation ID if one was given.`,
			};
		case 408:
			return {
				message: `The assistant timed out (HTTP 408)${said ? `: ${said}` : ''}`,
				description: `${server} Try again, or raise the node's Timeout option.`,
			};
		case 409:
			return {
				message: `The conversation is busy answering an earlier request (HTTP 409)${said ? `: ${said}` : ''}`,
				description: `${server} Wait until the earlier answer has finished before continuing the same conversation.`,
			};
		case 422:
			return {
				message: `The assistant rejected the request (HTTP 422)${said ? `: ${said}` : ''}`,
				description: `${server} Check the parameters named above (a model or persona ID, the JSON Schema).`,
			};
		case 429: {
			const retryAfter = headerValue(response.headers, 'retry-after');
			return {
				message: `Too many requests (HTTP 429)${said ? `: ${said}` : ''}`,
				description: `${server} ${retryAfter ? `The server asked to retry after ${retryAfter}${/^\d+$/.test(retryAfter) ? ' s' : ''}. ` : ''}Slow the workflow down or try again later.`,
			};
		}
		default:
			if (status >= 500) {
				return {
					message: `The assistant service failed (HTTP ${status})${said ? `: ${said}` : ''}`,
					description: `${server} This is a problem on the service's side; try again later.`,
				};
			}
			return {
				message: `The request failed (HTTP ${status})${said ? `: ${said}` : ''}`,
				description: server,
			};
	}
}

/** Removes the secret from any text that could have echoed it. */
export function redact(text: string, secret: string | undefined): string {
	if (!secret || secret.length < 4) return text;
	return text.split(secret).join('[redacted]');
}

export function httpStatusError(
	node: INode,
	response: FailedResponse,
	itemIndex: number | undefined,
	secret: string | undefined,
): NodeApiError {
	const said = redact(serverMessage(response.bodyText), secret);
	const text = describeStatus(response, said);
	return apiError(node, { ...text, httpCode: String(response.status) }, itemIndex);
}

/** Something went wrong that is not an HTTP status: the network, a malformed body, a stream. */
export function apiError(
	node: INode,
	error: { message: string; description?: string; httpCode?: string },
	itemIndex: number | undefined,
): NodeApiError {
	const response: JsonObject = { message: error.message };
	if (error.httpCode) response.httpCode = error.httpCode;
	return new NodeApiError(node, response, {
		message: error.message,
		description: error.description,
		httpCode: error.httpCode,
		itemIndex,
	});
}
