import { baseUrlOf, verdict } from '../../../nodes/shared/methods/credentialTest';
import { bareToken } from '../../../nodes/shared/transport/credentials';

const base = baseUrlOf('https://assistant.example.com/api/')!;

describe('the credential test passes only for the Assistant API', () => {
	test('JSON with a models list passes, naming how many', () => {
		expect(verdict(base, { statusCode: 200, body: { models: [{}, {}] } })).toEqual({
			status: 'OK',
			message: 'Connection tested successfully: 2 models available.',
		});
		expect(verdict(base, { statusCode: 200, body: '{"models": [{}]}' }).message).toMatch(
			/1 model available/,
		);
	});

	test.each([
		[
			'a web page (HTML) with status 200',
			{ statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html>' },
			/^assistant\.example\.com answered with a web page \(HTML\), not the Assistant API/,
		],
		[
			'HTML sent without a content type',
			{ statusCode: 200, body: '  <html></html>' },
			/answered with a web page \(HTML\)/,
		],
		[
			'a rejected token',
			{ statusCode: 401, body: { detail: 'Invalid token' } },
			/^The access token was rejected \(HTTP 401: Invalid token\)/,
		],
		[
			'a forbidden token',
			{ statusCode: 403, body: 'Forbidden' },
			/^The access token was rejected \(HTTP 403: Forbidden\)/,
		],
		[
			'nothing at the path',
			{ statusCode: 404, body: 'Not Found' },
			/^Nothing answers at https:\/\/assistant\.example\.com\/api\/models\/available \(HTTP 404: Not Found\)/,
		],
		[
			'a server error',
			{ statusCode: 502, statusMessage: 'Bad Gateway', body: '' },
			/^assistant\.example\.com answered HTTP 502 Bad Gateway instead of the list of models/,
		],
		[
			'JSON of another API',
			{ statusCode: 200, body: { status: 'ok' } },
			/not with the Assistant API's list of models/,
		],
		[
			'an error inside a 200 (docs/api.md#ask-answer)',
			{ statusCode: 200, body: '{"error": "All assistant sessions are busy; try again"}' },
			/^assistant\.example\.com answered the list of models with an error \(HTTP 200: All assistant sessions are busy; try again\): try again later/,
		],
		[
			'an error object inside a 200, under data',
			{ statusCode: 200, body: { data: { error: { message: 'Invalid access token' } } } },
			/with an error \(HTTP 200: Invalid access token\)/,
		],
	])(
		"%s fails with one sentence saying what answered, with the server's words",
		(_name, response, message) => {
			const result = verdict(base, response);
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(message);
			expect(result.message.split(/[.:] [A-Z]/).length).toBeLessThanOrEqual(2);
		},
	);
});

describe('the Base URL', () => {
	test('a trailing slash or none give the same address', () => {
		expect(baseUrlOf('https://assistant.example.com/api/')).toEqual(
			baseUrlOf(' https://assistant.example.com/api'),
		);
		expect(baseUrlOf('http://127.0.0.1:8080/')).toEqual({
			address: 'http://127.0.0.1:8080',
			host: '127.0.0.1:8080',
		});
	});

	test('an address without http(s), or no address, is not a Base URL', () => {
		for (const value of ['assistant.example.com/api', 'ftp://example.com', '', 42, undefined]) {
			expect(baseUrlOf(value)).toBeUndefined();
		}
	});
});

describe('the token as users paste it (docs/api.md#authentication)', () => {
	test.each([
		['zo_sk_1', 'zo_sk_1'],
		['Bearer zo_sk_1', 'zo_sk_1'],
		['bearer   zo_sk_1', 'zo_sk_1'],
		['  BEARER\tzo_sk_1 \n', 'zo_sk_1'],
		[' zo_sk_1 ', 'zo_sk_1'],
		['Bearerzo', 'Bearerzo'],
		['Bearer', ''],
		[' bearer ', ''],
		[undefined, ''],
	])('%j is the token %j', (stored, token) => {
		expect(bareToken(stored)).toBe(token);
	});
});
