/**
 * An HTML error page that writes the access token in character references (docs/security.md):
 * decimal or hexadecimal, with or without their `;`, alone or among plain letters, with any number
 * of leading zeros, named (`&lowbar;`), or escaped again as a browser still reads them
 * (`&AMP;#90;`, `&amp#90;`). With the built package in n8n-core's engine: the page's text is the
 * error's words, and the token, in any of those forms, is in no output item, error or log line.
 */
import { emulatorCredential, everythingShown, askOnceContinuing } from '../helpers/assistant';
import { serveRequests, type ServedRequests } from '../helpers/scripted-server';

const TOKEN = 'Zo_Sk_Html-Token-Q8w3Er7T';

const decimal = (text: string) => [...text].map((c) => `&#${c.charCodeAt(0)};`).join('');
const hex = (text: string) => [...text].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');

/** The token as each page writes it, by what it is. */
const PAGES: Record<string, string> = {
	'decimal references': decimal(TOKEN),
	'hexadecimal references in capitals': [...TOKEN]
		.map((c) => `&#X${c.charCodeAt(0).toString(16).toUpperCase()};`)
		.join(''),
	'hexadecimal references among plain letters': [...TOKEN]
		.map((c, i) => (i % 2 ? c : hex(c)))
		.join(''),
	'decimal references without their semicolons': [...TOKEN]
		.map((c) => `&#${c.charCodeAt(0)}`)
		.join(''),
	'decimal references with leading zeros': [...TOKEN]
		.map((c) => `&#000${c.charCodeAt(0)};`)
		.join(''),
	'decimal references with leading zeros past ten digits': [...TOKEN]
		.map((c) => `&#${String(c.charCodeAt(0)).padStart(12, '0')};`)
		.join(''),
	'named references for its `_` (`&lowbar;`, `&UnderBar;`)': TOKEN.replace('_', '&lowbar;').replace(
		'_',
		'&UnderBar;',
	),
	'references escaped again, in capitals and without the `;` (`&AMP;#90;`, `&amp#90;`)': [...TOKEN]
		.map((c, i) => `${i % 2 ? '&AMP;' : '&amp'}#${c.charCodeAt(0)};`)
		.join(''),
};

let server: ServedRequests;

beforeAll(async () => {
	server = await serveRequests((_request, body, response) => {
		const { input } = JSON.parse(body || '{}') as { input?: string };
		const written = PAGES[input ?? ''] ?? '';
		response.writeHead(502, { 'Content-Type': 'text/html' });
		response.end(
			`<html><body><h1>Bad gateway</h1><p>Token &quot;${written}&quot; &amp; more</p></body></html>`,
		);
	});
});

afterAll(async () => await server.close());

test.each(Object.keys(PAGES))(
	'the token in %s in an HTML error page: redacted from the page’s text',
	async (form) => {
		const run = await askOnceContinuing(emulatorCredential(`${server.origin}/api`, TOKEN), form);
		const error = run.outputs('Assistant')[0].json.error as { message?: string } | string;
		expect(typeof error === 'string' ? error : error.message).toContain(
			'(HTTP 502): Bad gateway Token "[redacted]" & more',
		);
		const shown = everythingShown(run).toLowerCase();
		expect(shown).not.toContain(TOKEN.toLowerCase().slice(0, 8));
		expect(shown).not.toContain(TOKEN.toLowerCase().slice(-8));
		expect(shown).not.toContain(PAGES[form].toLowerCase().slice(0, 40));
	},
);
