/**
 * The one test of the request echo in what an error would show (stream/requestEcho.ts), and the
 * words of error bodies and fields that hold it (docs/api.md#errors): the echo is never shown,
 * the error says the answer held it, and the server's words beside it are kept.
 */
import { toStreamEvents } from '../../../nodes/shared/stream/events';
import { holdsRequestEcho } from '../../../nodes/shared/stream/requestEcho';
import {
	inBandErrorOf,
	messageFromJson,
	serverMessage,
} from '../../../nodes/shared/transport/serverMessage';

const PRIVATE = 'PRIVATE-WORKSPACE-FILE';
const namedEcho = {
	kind: 'request',
	parts: [{ part_kind: 'system-prompt', content: `Workspace file: ${PRIVATE}` }],
};
const flatEcho = { type: 'FrontendModelRequest', ...namedEcho };
const WITHHELD = "the service's answer held its copy of the request, which is not shown";

/** `{"a": {"a": … leaf}}`, `depth` levels. */
function nested(depth: number, leaf: unknown): unknown {
	let value = leaf;
	for (let i = 0; i < depth; i++) value = { a: value };
	return value;
}

describe('holdsRequestEcho', () => {
	test.each([
		['the flat echo', flatEcho],
		['the named form’s data', namedEcho],
		['an object that holds it', { error: { detail: [namedEcho] } }],
		['its JSON as text', JSON.stringify(flatEcho)],
		['its JSON with spaces, within words', 'ModelRequest: {"kind": "request", "parts": []}'],
		[
			'a body cut before its `kind`',
			`{"parts": [{"part_kind": "user-prompt", "content": "${PRIVATE}`,
		],
		['a value nested deeper than it looks', nested(40, 'words')],
		['a value with more entries than it looks through', { list: new Array(20_000).fill(1) }],
	])('%s: yes', (_what, value) => {
		expect(holdsRequestEcho(value)).toBe(true);
	});

	test.each([
		['words', 'Unknown model: x'],
		['an error object', { message: 'boom', code: 'model_not_found', kind: 'error' }],
		['a response, not a request', { kind: 'response', parts: [] }],
		['a kind of request without parts', { kind: 'request' }],
		['nothing', undefined],
		['a nest within the bound', nested(20, 'words')],
	])('%s: no', (_what, value) => {
		expect(holdsRequestEcho(value)).toBe(false);
	});
});

describe('error bodies and fields that hold the echo', () => {
	test.each([
		['the flat echo as JSON', JSON.stringify(flatEcho), WITHHELD],
		[
			'the echo beside a detail',
			JSON.stringify({ error: namedEcho, detail: 'Internal error' }),
			`Internal error (the service's answer also held its copy of the request, which is not shown)`,
		],
		['a detail list holding it', JSON.stringify({ detail: [flatEcho] }), WITHHELD],
		['its JSON in a text body', `upstream: ${JSON.stringify(namedEcho)}`, WITHHELD],
		[
			'an HTML page quoting it',
			`<html><body><pre>${JSON.stringify(flatEcho)}</pre></body></html>`,
			WITHHELD,
		],
	])('a body with %s says so, without it', (_what, body, said) => {
		expect(serverMessage(body)).toBe(said);
	});

	test('words are never read from inside the echo', () => {
		expect(messageFromJson({ error: { message: 'x', request: flatEcho }, msg: 'outside' })).toBe(
			'outside',
		);
		expect(messageFromJson(JSON.stringify(flatEcho))).toBeUndefined();
	});

	test('an in-band error that is the echo: the words beside it, and that it was left out', () => {
		expect(inBandErrorOf({ error: flatEcho })).toBe(WITHHELD);
		expect(inBandErrorOf({ error: flatEcho, message: 'Run failed' })).toBe(
			"Run failed (the service's answer also held its copy of the request, which is not shown)",
		);
	});
});

describe('an echo with words of its own (a `message` key inside it)', () => {
	// No words are read from inside the echo, whatever its keys (docs/api.md#errors).
	const echo = { type: 'FrontendModelRequest', message: `${PRIVATE} words` };
	const named = { kind: 'request', parts: [], message: `${PRIVATE} words` };

	test('an error body that is the echo', () => {
		expect(serverMessage(JSON.stringify(echo))).not.toContain(PRIVATE);
		expect(serverMessage(JSON.stringify(named))).not.toContain(PRIVATE);
	});

	test("an in-band error, and an Error event's error, that are the echo", () => {
		expect(inBandErrorOf({ error: named })).not.toContain(PRIVATE);
		const events = toStreamEvents(
			{ event: 'Error', data: JSON.stringify({ error: named }) },
			false,
		);
		expect(JSON.stringify(events)).not.toContain(PRIVATE);
	});
});
