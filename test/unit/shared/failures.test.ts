/** Failed responses -> errors: one clean sentence each, the server's words once, no token. */
import {
	inBandFailure,
	statusFailure,
	type FailureScope,
} from '../../../nodes/shared/transport/failures';
import {
	isCreditMessage,
	isSessionPoolMessage,
	serverMessage,
} from '../../../nodes/shared/transport/serverMessage';
import { RequestLifetime } from '../../../nodes/shared/transport/lifetime';
import type { AssistantContext } from '../../../nodes/shared/transport/request';
import { withRetries } from '../../../nodes/shared/transport/retryLoop';
import { fakeNode } from '../../helpers/fake-node';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'sk-secret-token-1234';
const node = fakeNode({ id: '1' });
const scope: FailureScope = {
	node,
	request: { method: 'POST', path: '/assistant/ask', authenticated: true, itemIndex: 3 },
	redaction: redactionOf(TOKEN),
};

function errorOf(failure: ReturnType<typeof statusFailure>) {
	return failure.shown;
}

describe('failures -> errors (docs/api.md#errors)', () => {
	test('the message has the meaning, the status and the server words; the description what to do', () => {
		const error = errorOf(
			statusFailure(scope, 401, {}, JSON.stringify({ detail: 'Invalid or missing access token' })),
		);
		expect(error.message).toBe(
			'The access token was rejected (HTTP 401): Invalid or missing access token',
		);
		expect(error.description).toMatch(/^Check the Assistant API credential/);
		expect(error.description).toMatch(/\.$/);
		expect(error.description).not.toContain('Invalid or missing access token');
		expect(error.httpCode).toBe('401');
		expect((error.context as { itemIndex?: number }).itemIndex).toBe(3);
	});

	test('a 401 or 403 to the public catalog, which carries no token, does not blame the token', () => {
		const catalog: FailureScope = {
			...scope,
			request: { method: 'GET', path: '/models/catalog', authenticated: false },
		};
		for (const status of [401, 403]) {
			const error = errorOf(statusFailure(catalog, status, {}, 'Unauthorized'));
			expect(error.message).toBe(
				`The service refused a request that needs no access token (HTTP ${status}): Unauthorized`,
			);
			expect(error.description).toMatch(/carries no token/);
			expect(error.description).not.toMatch(/access token \(created/);
		}
	});

	describe('a 404: the advice fits the request and where its conversation came from', () => {
		const ofRequest = (request: Partial<FailureScope['request']>, body: string) =>
			errorOf(
				statusFailure({ ...scope, request: { ...scope.request, ...request } }, 404, {}, body),
			);
		const unknownConversation = '{"detail": "Conversation not found"}';

		test.each([
			['List Models', '/models/available', true],
			['List Personas', '/personas/available', true],
			['Get Catalog', '/models/catalog', false],
		])('%s (no ask, no conversation): the base URL alone', (_name, path, authenticated) => {
			const error = ofRequest(
				{ method: 'GET', path, authenticated, asker: undefined },
				'{"detail": "Not Found"}',
			);
			expect(error.message).toBe('Not found (HTTP 404): Not Found');
			expect(error.description).toBe("Check the credential's base URL.");
		});

		test.each([
			['Ask, Conversation ID', { node: 'assistant' } as const, /^Check Conversation ID/],
			[
				"the chat model, Conversation ID's option",
				{ node: 'chat-model', conversation: 'option' } as const,
				/^Check Conversation ID/,
			],
			[
				"the chat model, a chat memory's mark",
				{ node: 'chat-model', conversation: 'mark' } as const,
				/chat memory/,
			],
		])("%s: the service's Conversation not found", (_name, asker, advice) => {
			const error = ofRequest({ asker }, unknownConversation);
			expect(error.message).toBe(
				'The conversation was not found (HTTP 404): Conversation not found',
			);
			expect(error.description).toMatch(advice);
		});

		test("the chat model's correction, sent to the conversation that had just answered: the service lost it", () => {
			const error = ofRequest(
				{ asker: { node: 'chat-model', conversation: 'just-answered' } },
				unknownConversation,
			);
			expect(error.message).toBe(
				'The conversation the assistant had just answered in was not found (HTTP 404): Conversation not found',
			);
			expect(error.httpCode).toBe('404');
			expect(error.description).toMatch(/lost the conversation on its side/);
			expect(error.description).toMatch(/run the execution again/);
			expect(error.description).not.toMatch(/Conversation ID|chat memory|chat session/);
		});
	});

	test("a 408 (the service's own cut of a silent model) does not send the user to the node's Timeout", () => {
		const error = errorOf(statusFailure(scope, 408, {}, '{"detail": "stream-idle-timeout"}'));
		expect(error.message).toBe('The assistant timed out (HTTP 408): stream-idle-timeout');
		expect(error.description).toMatch(/does not change this limit/);
		expect(error.description).not.toMatch(/raise the node's Timeout option/);
	});

	test('an empty `detail` list says nothing: the words under `message` are shown', () => {
		expect(serverMessage('{"detail": [], "message": "input is too long"}')).toBe(
			'input is too long',
		);
	});

	test('a 422 names the field the service rejected, once', () => {
		const body = {
			detail: [{ loc: ['body', 'model_name'], msg: 'unknown model', type: 'value_error' }],
		};
		const error = errorOf(statusFailure(scope, 422, {}, JSON.stringify(body)));
		expect(error.message).toBe(
			'The assistant rejected the request (HTTP 422): body.model_name: unknown model',
		);
		expect(error.description).not.toContain('unknown model');
	});

	test('every description is whole sentences ending in a full stop', () => {
		for (const status of [400, 401, 403, 404, 408, 409, 422, 429, 500, 503]) {
			const error = errorOf(statusFailure(scope, status, { 'retry-after': '5' }, 'nope'));
			expect(error.message).toBe(error.message.trim());
			expect(error.message).toMatch(new RegExp(`\\(HTTP ${status}\\): nope$`));
			expect(error.description).toMatch(/^[A-Z].*\.$/);
			expect(error.description).not.toContain('nope');
		}
	});

	test('passing states are retried; a request that is wrong is not', () => {
		expect(statusFailure(scope, 503, {}, '').retry).toBe('status');
		// The account as a whole too busy: what a run's pace slows for.
		expect(statusFailure(scope, 503, {}, '').busy).toBe(true);
		expect(statusFailure(scope, 429, {}, '').busy).toBe(true);
		expect(statusFailure(scope, 500, {}, '').busy).toBe(false);
		const wrapped429 = '{"error": "The model stream was interrupted... (status_code: 429, ...)"}';
		expect(statusFailure(scope, 502, {}, wrapped429)).toMatchObject({
			retry: 'status',
			busy: true,
		});
		expect(statusFailure(scope, 409, {}, '').retry).toBe('busy-conversation');
		expect(statusFailure(scope, 400, {}, '').retry).toBeUndefined();
	});

	test('a full session pool, whatever the status, is its own retryable failure saying what to do', () => {
		for (const [status, words] of [
			[503, 'All sessions are busy'],
			[400, 'Cannot evict an idle session'],
		] as const) {
			const failure = statusFailure(scope, status, {}, JSON.stringify({ error: words }));
			expect(failure.retry).toBe('session-pool');
			const error = failure.shown;
			expect(error.message).toBe(
				`All of the account's assistant sessions are busy (HTTP ${status}): ${words}`,
			);
			expect(error.description).toMatch(/Run fewer asks at the same time/);
		}
		const inBand = inBandFailure(scope, 200, {}, 'sessions are busy, try later');
		expect(inBand.retry).toBe('session-pool');
		expect(isSessionPoolMessage('The model is busy')).toBe(false);
	});

	test('a rate limit or a full pool advises by how its retries went: none allowed, no time, or made', () => {
		const rateLimit = JSON.stringify({
			error: 'The model stream was interrupted (status_code: 429)',
		});
		const pool = JSON.stringify({ detail: 'All sessions are busy' });
		const off = { ...scope, request: { ...scope.request, retries: 0 }, retriesMade: 0 };
		const noTime = { ...scope, request: { ...scope.request, retries: 2 }, retriesMade: 0 };
		const later = { ...scope, request: { ...scope.request, retries: 2 }, retriesMade: 1 };
		const described = (at: FailureScope, status: number, body: string) =>
			String(statusFailure(at, status, {}, body).shown.description);

		expect(described(off, 502, rateLimit)).toMatch(
			/^The ask was not retried: raise Options > Retries/,
		);
		expect(described(noTime, 502, rateLimit)).toMatch(
			/^The ask was not retried: waiting such a limit out did not fit in what was left of Options > Timeout \(Minutes\)\. Raise the Timeout, or try again later\./,
		);
		expect(described(noTime, 502, rateLimit)).not.toMatch(/Retries/);
		expect(described(later, 502, rateLimit)).toMatch(
			/^The retries waited for it and it did not clear\./,
		);

		expect(described(off, 503, pool)).toMatch(/it was not waited for: raise Options > Retries/);
		expect(described(noTime, 503, pool)).toMatch(
			/waiting for one did not fit in what was left of Options > Timeout \(Minutes\): raise the Timeout\./,
		);
		expect(described(noTime, 503, pool)).not.toMatch(/Retries/);
		for (const at of [off, noTime]) expect(described(at, 503, pool)).not.toMatch(/after waiting/);
		expect(described(later, 503, pool)).toMatch(/also after waiting/);
	});

	test.each([
		[
			"a provider's rate limit inside a 502",
			502,
			{ error: 'The model stream was interrupted (status_code: 429, body: rate limit)' },
		],
		['a full session pool', 503, { detail: 'All sessions are busy' }],
	])(
		'%s whose wait does not fit in the Timeout (Retries 2): not retried, and the advice is the Timeout, not Retries',
		async (_name, status, body) => {
			const request = { ...scope.request, retries: 2 };
			const call: FailureScope = { ...scope, request };
			const ctx = { logger: { debug: () => undefined } } as unknown as AssistantContext;
			const lifetime = new RequestLifetime(2_000);
			let attempts = 0;
			const error = await withRetries({ ctx, scope: call, lifetime }, async () => {
				attempts += 1;
				throw statusFailure(call, status, { 'retry-after': '60' }, JSON.stringify(body));
			}).catch((e: unknown) => e);
			lifetime.dispose();
			expect(attempts).toBe(1);
			const description = String((error as { description?: string }).description);
			expect(description).not.toMatch(/Options > Retries/);
			expect(description).toMatch(/Options > Timeout \(Minutes\)/);
		},
	);

	test('an in-band error is a failure with the server words', () => {
		const failure = inBandFailure(scope, 200, {}, 'Model overloaded');
		expect(failure.retry).toBeUndefined();
		expect(failure.shown.message).toBe('The assistant could not answer: Model overloaded');
	});

	test('the access token never appears, even when the server echoes it', () => {
		const echoed = JSON.stringify({ message: `token ${TOKEN} is not valid` });
		const error = errorOf(statusFailure(scope, 401, {}, echoed));
		const everything = JSON.stringify({ ...error, message: error.message, stack: error.stack });
		expect(everything).not.toContain(TOKEN);
		expect(error.message).toContain('[redacted]');
		expect(inBandFailure(scope, 200, {}, `bad ${TOKEN}`).shown.message).not.toContain(TOKEN);
	});

	test('the server words come from detail, error, message or msg, or the body text', () => {
		expect(serverMessage('{"error": {"message": "bad token"}}')).toBe('bad token');
		expect(serverMessage('{"msg": "m"}')).toBe('m');
		expect(serverMessage('<html><body><h1>502 Bad Gateway</h1></body></html>')).toBe(
			'502 Bad Gateway',
		);
		expect(serverMessage('  ')).toBe('');
	});

	test('a body that is an event stream is named by its events, its data never shown', () => {
		const stream =
			': hi\r\nid: 1\r\nevent: FrontendModelRequest\r\ndata: {"files": "private"}\r\n\r\n';
		expect(serverMessage(`\uFEFF${stream}event: Bad\u0007Name\ndata: x\n\n`)).toBe(
			'an event stream (its events: Bad?Name; their data is not shown)',
		);
		expect(serverMessage('data: {"files": "private"}\n\n')).toBe(
			'an event stream (its events: message; their data is not shown)',
		);
		// A first line of a field the format ignores, and the echo still hidden.
		expect(
			serverMessage('x-trace: 1\nevent: FrontendModelRequest\ndata: {"f": "private"}\n\n'),
		).toBe('an event stream (its data is not shown)');
		// Text that only starts like a field is the server's words.
		expect(serverMessage('id: must be a string')).toBe('id: must be a string');
		expect(serverMessage('data is not valid')).toBe('data is not valid');
	});

	test('only an event named an error event alone gives its words: never an echo renamed or run into it', () => {
		const echo = JSON.stringify({ message: 'Summarize PRIVATE-FILE', files: ['PRIVATE-FILE'] });
		const pool = '{"message": "All assistant sessions are busy for this account"}';
		for (const body of [
			`event: FrontendModelRequest\ndata: ${echo}\nevent: error\n\n`,
			`event: FrontendModelRequest\ndata: ${echo}\nevent: error\ndata: ${pool}\n\n`,
			`data: {"type": "FrontendModelRequest", "message": "PRIVATE-FILE"}\n\n`,
		]) {
			expect(serverMessage(body)).toMatch(
				/^an event stream \((its events: [^)]*; their|its) data is not shown\)$/,
			);
			expect(statusFailure(scope, 503, {}, body).shown.message).not.toContain('PRIVATE-FILE');
		}
		// The flat form's error event, its name inside its data.
		const flat = `data: {"type": "FrontendModelRequest", "files": "x"}\n\ndata: {"type": "Error", ${pool.slice(1)}\n\n`;
		expect(serverMessage(flat)).toBe('All assistant sessions are busy for this account');
		// Plain text with a line that only looks like a field further down is the server's words.
		expect(serverMessage('Invalid request body.\ndata: Input should be a valid dictionary')).toBe(
			'Invalid request body.\ndata: Input should be a valid dictionary',
		);
	});

	test("an event stream's error event is the server's words, which still classify the failure", () => {
		const stream = (event: string, message: string) =>
			`event: FrontendModelRequest\ndata: {"f": "private"}\n\nevent: ${event}\ndata: ${JSON.stringify({ message })}\n\n`;
		const pool = stream('error', 'All assistant sessions are busy for this account');
		expect(serverMessage(pool)).toBe('All assistant sessions are busy for this account');
		expect(statusFailure(scope, 503, { 'content-type': 'text/event-stream' }, pool).retry).toBe(
			'session-pool',
		);
		const credit = statusFailure(
			scope,
			400,
			{},
			stream('SSEErrorEvent', 'This request requires more credits'),
		);
		expect(credit.shown.message).toMatch(/out of credit/i);
		expect(credit.shown.message).toContain('requires more credits');
		expect(serverMessage('event: error\ndata: Overloaded, try later\n\n')).toBe(
			'Overloaded, try later',
		);
	});
});

describe("the server's words where public clients find them (docs/api.md#errors)", () => {
	test.each([
		['{"detail": "d"}', 'd'],
		['{"error": "e"}', 'e'],
		['{"message": "m"}', 'm'],
		['{"data": {"message": "nested m"}}', 'nested m'],
		['{"data": {"error": "nested e"}}', 'nested e'],
		['{"data": {"detail": "nested d"}}', 'nested d'],
		['{"detail": {"message": "object detail"}}', 'object detail'],
		['{"error": {"message": "provider words", "code": 402}}', 'provider words'],
	])('%s -> %j', (body, words) => {
		expect(serverMessage(body)).toBe(words);
	});
});

describe('credit failures (docs/api.md#credit-failures)', () => {
	const AFFORD = 'You requested up to 64000 tokens, but can only afford 1843.';

	test.each([
		[402, 'Payment Required'],
		[402, '{"detail": "nothing left"}'],
		[400, JSON.stringify({ error: { message: `This request requires more credits. ${AFFORD}` } })],
		[500, JSON.stringify({ data: { message: AFFORD } })],
		[
			503,
			JSON.stringify({ detail: 'Your credit balance is too low to access the Anthropic API.' }),
		],
		[429, JSON.stringify({ error: 'You exceeded your current quota, please check your plan.' })],
	])('HTTP %i %s: out of credit, never retried', (status, body) => {
		const failure = statusFailure(scope, status, {}, body);
		expect(failure.retry).toBeUndefined();
		expect(failure.accepted).toBe('no');
		expect(failure.shown.message).toMatch(
			new RegExp(`^The account or the model's provider is out of credit \\(HTTP ${status}\\)`),
		);
		expect(failure.shown.description).toMatch(/Pick another model/);
	});

	test('inside a 200: out of credit, never retried, the provider words once', () => {
		const failure = inBandFailure(scope, 200, {}, `requires more credits. ${AFFORD}`);
		expect(failure.retry).toBeUndefined();
		expect(failure.shown.message).toBe(
			`The account or the model's provider is out of credit (HTTP 200): requires more credits. ${AFFORD}`,
		);
	});

	test('other failures are not read as credit failures', () => {
		expect(statusFailure(scope, 503, {}, '{"detail": "overloaded"}').retry).toBe('status');
		expect(isCreditMessage('The model has a credits page')).toBe(false);
	});
});
