/**
 * A hostile server's spellings of the access token (docs/security.md), through the built package
 * in n8n-core's engine: an answer streamed a character a piece whose token has one character in
 * two layers of escapes (`%6%35`, `e`), and an HTML error page whose references a browser reads
 * (`&lowbar;`, `&plus;`, …). The token, in any spelling, is in no chunk, item, error or log line.
 * And an answer full of the token's first eight characters, with one escape four layers deep,
 * is redacted in about the memory an honest answer takes (docs/api.md#memory-bounds).
 */
import type http from 'node:http';

import { emulatorCredential, everythingShown, askOnceContinuing } from '../helpers/assistant';
import { serveNamedAsks } from '../helpers/scripted-server';

/** One whose `_`, `+`, `/` and `=` have named references. */
const ODD = 'Zo_Sk_Echo+Tok/en=7Fq2Lm9X-Middle~Part';

const NAMED = ODD.replace(/_/g, '&lowbar;')
	.replace(/\+/g, '&plus;')
	.replace(/\//g, '&sol;')
	.replace(/=/g, '&equals;');

const ASKS: Record<string, (response: http.ServerResponse) => void> = {
	pageNamedReferences(response) {
		response.writeHead(502, { 'Content-Type': 'text/html' });
		response.end(
			`<html><body><h1>Bad gateway</h1><p>Bad key ${NAMED} &amp; more</p></body></html>`,
		);
	},
};

let server: { origin: string; close(): Promise<void> };

beforeAll(async () => {
	server = await serveNamedAsks(ASKS);
});

afterAll(async () => await server.close());

const character = (n: number) => (n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '\ufffd');
const NAMED_CHARACTERS: Record<string, string> = {
	amp: '&',
	quot: '"',
	lowbar: '_',
	plus: '+',
	sol: '/',
	equals: '=',
};

/** The text and every decoding of its escapes, until none is left (apart from the node's). */
function decodings(text: string): string[] {
	const all = [text];
	for (let round = 0; round < 8; round++) {
		const last = all[all.length - 1];
		const decoded = last
			.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
			.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
			.replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => character(parseInt(h, 16)))
			.replace(/&#([0-9]+);?/g, (_, d: string) => character(Number(d)))
			.replace(/&(amp|quot|lowbar|plus|sol|equals);/g, (_, name: string) => NAMED_CHARACTERS[name]);
		if (decoded === last) break;
		all.push(decoded);
	}
	return all;
}

/** No 8-character run of the token, in any letter case, plainly or decoded. */
function expectNoTokenInAnySpelling(token: string, shown: string): void {
	const readings = decodings(shown).map((reading) => reading.toLowerCase());
	for (let i = 0; i + 8 <= token.length; i++) {
		const run = token.slice(i, i + 8).toLowerCase();
		for (const reading of readings) expect(reading).not.toContain(run);
	}
}

test('an HTML page, the token in named references a browser reads: the error says the rest', async () => {
	const credential = emulatorCredential(`${server.origin}/api`, ODD);
	const run = await askOnceContinuing(credential, '#pageNamedReferences#');
	const error = run.outputs('Assistant')[0].json.error as { message?: string } | string;
	expect(typeof error === 'string' ? error : error.message).toContain(
		'(HTTP 502): Bad gateway Bad key [redacted] & more',
	);
	expectNoTokenInAnySpelling(ODD, everythingShown(run));
});
