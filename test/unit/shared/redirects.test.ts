/** The origin check behind every redirect the node follows (docs/api.md#redirects). */
import {
	originOf,
	redirectOf,
	shownTarget,
	suggestedBaseUrl,
} from '../../../nodes/shared/transport/redirects';

const BASE = 'https://assistant.example.com/api/models/available';
const ORIGIN = originOf(BASE);

describe('redirectOf', () => {
	test.each([301, 302, 303, 307, 308])('%i within the origin is followed', (status) => {
		expect(redirectOf(status, '/v2/models', BASE, 'GET', ORIGIN)).toEqual({
			kind: 'follow',
			url: 'https://assistant.example.com/v2/models',
			method: 'GET',
			keepsBody: true,
		});
	});

	test.each([
		['https to http on the same host', 'http://assistant.example.com/api/models/available'],
		['another port', 'https://assistant.example.com:8443/api'],
		['the default port written out is the same origin', null],
		['another host', 'https://evil.example.com/api'],
		['a subdomain', 'https://api.assistant.example.com/api'],
		['scheme-relative to another host', '//evil.example.com/api'],
		['user info on another host', 'https://assistant.example.com@evil.example.com/'],
		['a non-http scheme', 'javascript:alert(1)'],
		['a file', 'file:///etc/passwd'],
	])('%s', (_name, location) => {
		if (location === null) {
			const same = redirectOf(307, 'https://assistant.example.com:443/x', BASE, 'GET', ORIGIN);
			expect(same.kind).toBe('follow');
			return;
		}
		expect(redirectOf(307, location, BASE, 'POST', ORIGIN).kind).toBe('elsewhere');
	});

	test('http to https on the same host is another origin too', () => {
		const base = 'http://127.0.0.1:5000/api/x';
		expect(redirectOf(308, 'https://127.0.0.1:5000/api/x', base, 'GET', originOf(base)).kind).toBe(
			'elsewhere',
		);
	});

	test('303 turns a POST into a GET without body; 301, 302, 307, 308 keep both', () => {
		expect(redirectOf(303, '/y', BASE, 'POST', ORIGIN)).toMatchObject({
			method: 'GET',
			keepsBody: false,
		});
		for (const status of [301, 302, 307, 308]) {
			expect(redirectOf(status, '/y', BASE, 'POST', ORIGIN)).toMatchObject({
				method: 'POST',
				keepsBody: true,
			});
		}
	});

	test('other statuses and a missing Location are answers, not redirects', () => {
		for (const status of [200, 300, 304, 305, 404]) {
			expect(redirectOf(status, '/y', BASE, 'GET', ORIGIN).kind).toBe('none');
		}
		expect(redirectOf(302, undefined, BASE, 'GET', ORIGIN).kind).toBe('none');
		expect(redirectOf(302, '', BASE, 'GET', ORIGIN).kind).toBe('none');
	});

	test('a Base URL that is not an address has no origin: nothing is followed', () => {
		expect(originOf('not a url')).toBe('');
		expect(redirectOf(302, '/y', BASE, 'GET', '').kind).toBe('elsewhere');
	});
});

describe('what an error shows of the target', () => {
	test('no user info, query or fragment (where a server could put the token)', () => {
		expect(shownTarget('https://user:pw@evil.example.com/api/x?token=abc#t')).toBe(
			'https://evil.example.com/api/x',
		);
	});

	test('the Base URL to suggest leaves out the path the node asked for', () => {
		expect(
			suggestedBaseUrl('https://new.example.com/v2/models/available?x=1', '/models/available'),
		).toBe('https://new.example.com/v2');
	});
});
