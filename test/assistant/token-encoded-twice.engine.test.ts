/**
 * A server that echoes the access token escaped more than once (docs/security.md): an HTML error
 * page whose character references were escaped again (`&amp;#90;`, `&amp;amp;#x5A;`), a JSON
 * error percent-encoded twice (`%255A`), a failed run's error in references percent-encoded
 * (`%26%2390%3B`), an answer streamed in pieces with references escaped again, and one streamed
 * a character a piece whose token has a character in an escape that another escape completes
 * (`%7%37`, `w`: `%7` is an escape once `%37` is decoded). With the built
 * package in n8n-core's engine: the error says what the server said with `[redacted]` where the
 * token was, and the token, in any spelling (decoded any number of times), is in no output item,
 * error, log line or streamed chunk.
 */
import http from 'node:http';

import { emulatorCredential, everythingShown, askOnceContinuing } from '../helpers/assistant';
import { serveNamedAsks } from '../helpers/scripted-server';
import { tokenRunIn } from '../helpers/token-spellings';

const TOKEN = 'Zo_Sk_Twice-Encoded-Token-7Hq3';

const code = (c: string) => c.charCodeAt(0);
const percent = (text: string) =>
	[...text].map((c) => `%${code(c).toString(16).toUpperCase()}`).join('');
const decimal = (text: string) => [...text].map((c) => `&#${code(c)};`).join('');
const hex = (text: string) =>
	[...text].map((c) => `&#x${code(c).toString(16).toUpperCase()};`).join('');
/** Escaped again as an HTML page escapes its text. */
const escapedAgain = (text: string) => text.replace(/&/g, '&amp;');

function event(name: string, data: unknown): string {
	return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

const stream = (response: http.ServerResponse, body: string) => {
	response.writeHead(200, { 'Content-Type': 'text/event-stream', 'x-conversation-id': 'con_t2' });
	response.end(body);
};

const page = (written: string) =>
	`<html><body><h1>Bad gateway</h1><p>Token &quot;${written}&quot; &amp; more</p></body></html>`;

/** The answer's text, in pieces; the token in it as references escaped again. */
const ANSWER = `Your key is ${escapedAgain(decimal(TOKEN))}, keep it safe.`;

/** The token with its eighth character, `w`, as `%7%37`. */
const ANSWER_ESCAPE_INSIDE = `Your key is Zo_Sk_T%7%37${TOKEN.slice(8)}, keep it safe.`;

/** The answer's text as one text part, its deltas `pieces`. */
const streamedAnswer = (response: http.ServerResponse, pieces: readonly string[]) =>
	stream(
		response,
		event('PartStartEvent', {
			event_kind: 'part_start',
			index: 0,
			part: { part_kind: 'text', content: '' },
			metadata: { zmid: 'm1' },
		}) +
			pieces
				.map((piece) =>
					event('PartDeltaEvent', {
						event_kind: 'part_delta',
						index: 0,
						delta: { part_delta_kind: 'text', content_delta: piece },
						metadata: { zmid: 'm1' },
					}),
				)
				.join('') +
			event('completed', { status: 'succeeded' }),
	);

const ASKS: Record<string, (response: http.ServerResponse) => void> = {
	pageEscapedAgain(response) {
		response.writeHead(502, { 'Content-Type': 'text/html' });
		response.end(page(escapedAgain(decimal(TOKEN))));
	},
	pageEscapedTwice(response) {
		response.writeHead(502, { 'Content-Type': 'text/html' });
		response.end(page(escapedAgain(escapedAgain(hex(TOKEN)))));
	},
	jsonPercentTwice(response) {
		response.writeHead(401, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ detail: `Invalid token ${encodeURIComponent(percent(TOKEN))}` }));
	},
	failedReferencesPercentEncoded: (response) =>
		stream(
			response,
			event('failed', {
				status: 'failed',
				error: `Unknown key ${encodeURIComponent(decimal(TOKEN))} (rejected)`,
			}),
		),
	answerInPieces: (response) => streamedAnswer(response, ANSWER.match(/[\s\S]{1,7}/g) ?? []),
	answerACharacterAPiece: (response) => streamedAnswer(response, [...ANSWER_ESCAPE_INSIDE]),
};

let server: { origin: string; close(): Promise<void> };

beforeAll(async () => {
	server = await serveNamedAsks(ASKS);
});

afterAll(async () => await server.close());

/** No 8-character run of the token, in any letter case, plainly or decoded. */
function expectNoTokenInAnySpelling(shown: string): void {
	expect(tokenRunIn(TOKEN, shown)).toBeUndefined();
}

const credential = () => emulatorCredential(`${server.origin}/api`, TOKEN);

test.each([
	[
		'an HTML page, its references escaped again',
		'pageEscapedAgain',
		'(HTTP 502): Bad gateway Token "[redacted]" & more',
	],
	[
		'an HTML page, its references escaped twice',
		'pageEscapedTwice',
		'(HTTP 502): Bad gateway Token "[redacted]" & more',
	],
	['a JSON error percent-encoded twice', 'jsonPercentTwice', 'Invalid token [redacted]'],
	[
		"a failed run's error in references, percent-encoded",
		'failedReferencesPercentEncoded',
		"The assistant's run failed: Unknown key [redacted] (rejected)",
	],
])(
	'the token in %s: the error says the rest, the token in no spelling',
	async (_what, kind, said) => {
		const run = await askOnceContinuing(credential(), `#${kind}#`);
		const error = run.outputs('Assistant')[0].json.error as { message?: string } | string;
		expect(typeof error === 'string' ? error : error.message).toContain(said);
		expectNoTokenInAnySpelling(everythingShown(run));
	},
);

test.each([
	['an answer streamed in pieces, the token in references escaped again', 'answerInPieces'],
	[
		'an answer a character a piece, a character of its token in an escape another completes',
		'answerACharacterAPiece',
	],
])('%s: in no chunk, no item', async (_what, kind) => {
	const run = await askOnceContinuing(credential(), `#${kind}#`, { stream: true });
	const streamed = run.chunks
		.filter((chunk) => chunk.type === 'item')
		.map((chunk) => String(chunk.content))
		.join('');
	expect(streamed).toBe('Your key is [redacted], keep it safe.');
	expect(run.outputs('Assistant')[0].json.output).toBe(streamed);
	expectNoTokenInAnySpelling(everythingShown(run));
});
