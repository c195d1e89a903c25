/**
 * The node's event-stream decoder (nodes/shared/stream/decode.ts) reads every stream as
 * eventsource-parser does (the reference reading of the format, kept as a development dependency
 * for this test and the bench's baseline): random streams of every kind of line, every line end,
 * multi-byte characters, a byte order mark, cut into random pieces. Only what the node adds
 * differs, and is checked here too: the request echo is never passed on, and a last event without
 * its blank line is read only when its data is whole JSON.
 */
import { createParser } from 'eventsource-parser';

import {
	createSseDecoder,
	EventNames,
	OPENING_BYTES,
	type SseMessage,
} from '../../../nodes/shared/stream/decode';
import { draw, type Draw } from '../../fuzz/prng';

const DATA_TEXTS = [
	'{"index":0,"delta":{"content_delta":"é€ 😀"}}',
	'',
	' leading space kept',
	'data: inside',
	'a:b:c',
	'中文 ✓',
	'[DONE]',
	'{"status":"succeeded"}',
];
const EVENT_NAMES = ['PartDeltaEvent', 'End', 'completed', '', 'message', 'événement'];
const OTHER_LINES = [
	'id: 7',
	'id',
	'retry: 100',
	'retry: soon',
	': a comment',
	':',
	'foo: bar',
	'datum: x',
	'eventful: y',
	'dat',
	'Data: upper case is another field',
];
const LINE_ENDS = ['\n', '\r\n', '\r'];

function randomLine(d: Draw): string {
	const roll = d.random();
	if (roll < 0.45) {
		const text = d.pick(DATA_TEXTS);
		return d.pick([`data: ${text}`, `data:${text}`, 'data', 'data:']);
	}
	if (roll < 0.65) return d.pick([`event: ${d.pick(EVENT_NAMES)}`, 'event', 'event:']);
	if (roll < 0.8) return d.pick(OTHER_LINES);
	return '';
}

function randomStream(d: Draw): string {
	let text = d.chance(0.1) ? '\ufeff' : '';
	const lines = d.int(0, 40);
	for (let i = 0; i < lines; i++) {
		const lineEnd = d.pick(LINE_ENDS);
		text += randomLine(d) + lineEnd;
		// A CR ending a line before a blank LF line is one CRLF line end, in both readings.
		if (d.chance(0.25)) text += lineEnd;
	}
	// Sometimes the body ends within a line or an event.
	if (d.chance(0.3)) text += randomLine(d);
	return text;
}

function cutAnywhere(bytes: Buffer, d: Draw): Buffer[] {
	const pieces: Buffer[] = [];
	let from = 0;
	while (from < bytes.length) {
		const to = d.chance(0.2) ? bytes.length : Math.min(bytes.length, from + d.int(1, 12));
		pieces.push(bytes.subarray(from, to));
		from = to;
	}
	return pieces;
}

function isWholeJson(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
	}
}

/** eventsource-parser over the decoded text; at the end, a last event only if its data is whole JSON. */
function referenceReading(bytes: Buffer): SseMessage[] {
	const messages: SseMessage[] = [];
	let ended = false;
	const parser = createParser({
		onEvent: ({ event, data }) => {
			if (ended && !isWholeJson(data)) return;
			messages.push({ event: event ?? 'message', data });
		},
	});
	// TextDecoder drops the byte order mark, as the format asks.
	const text = new TextDecoder('utf-8').decode(bytes);
	parser.feed(text);
	// eventsource-parser holds a last CR until it sees whether an LF follows; it ended a line.
	if (text.endsWith('\r')) parser.feed('\n');
	ended = true;
	parser.feed('\n\n');
	return messages;
}

function nodeReading(pieces: Buffer[], known: readonly string[] = []): SseMessage[] {
	const messages: SseMessage[] = [];
	const decoder = createSseDecoder(
		(message) => messages.push(message),
		undefined,
		new EventNames(known, new Set()),
	);
	for (const piece of pieces) decoder.push(piece);
	decoder.finish();
	return messages;
}

test('the decoder reads 3,000 random streams, cut anywhere, as eventsource-parser reads them whole', () => {
	for (let seed = 1; seed <= 3000; seed++) {
		const d = draw(seed);
		const bytes = Buffer.from(randomStream(d), 'utf8');
		const expected = referenceReading(bytes);
		// Half the time with names known: they come out as the same names.
		const known = seed % 2 === 0 ? EVENT_NAMES : [];
		const read = nodeReading(cutAnywhere(bytes, d), known);
		if (JSON.stringify(read) !== JSON.stringify(expected)) {
			throw new Error(
				`seed ${seed}: ${JSON.stringify(bytes.toString('utf8'))}\nread ${JSON.stringify(read)}\nexpected ${JSON.stringify(expected)}`,
			);
		}
	}
});

test('a UTF-8 character cut between chunks, inside a data line, comes out whole', () => {
	const bytes = Buffer.from('data: é€😀\n\n', 'utf8');
	for (let cut = 1; cut < bytes.length; cut++) {
		expect(nodeReading([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual([
			{ event: 'message', data: 'é€😀' },
		]);
	}
});

test('the request echo is never passed on: data before its name, after it, or renamed after it', () => {
	const text = [
		'data: before-the-name\nevent: FrontendModelRequest\ndata: secret\n\n',
		'event: FrontendModelRequest\ndata: secret\nevent: PartDeltaEvent\ndata: more-secret\n\n',
		'event: End\ndata: {}\n\n',
	].join('');
	const bytes = Buffer.from(text, 'utf8');
	for (let cut = 1; cut < bytes.length; cut++) {
		const read = nodeReading([bytes.subarray(0, cut), bytes.subarray(cut)]);
		expect(read).toEqual([{ event: 'End', data: '{}' }]);
		expect(JSON.stringify(read)).not.toMatch(/secret|before-the-name/);
	}
});

test('events the reader does not read are skipped, never passed on, whatever follows their name', () => {
	const text = [
		'event: AgentRuntimeStreamChunk\ndata: {"type":"status"}\n\n',
		'event: PartDeltaEvent\ndata: {"i":1}\n\n',
		'event: AgentRuntimeStreamChunk\nevent: PartDeltaEvent\ndata: {"i":"renamed"}\n\n',
		`event: AgentRuntimeStreamChunk\ndata: ${'x'.repeat(5000)}\n\n`,
		'event: End\ndata: {}\n\n',
	].join('');
	const bytes = Buffer.from(text, 'utf8');
	for (const size of [1, 3, 7, 64, bytes.length]) {
		const messages: SseMessage[] = [];
		const decoder = createSseDecoder(
			(message) => messages.push(message),
			1024,
			new EventNames(['PartDeltaEvent'], new Set(['AgentRuntimeStreamChunk'])),
		);
		// The 5,000-byte line is never held: past the 1,024-byte bound, nothing fails.
		for (let from = 0; from < bytes.length; from += size)
			decoder.push(bytes.subarray(from, from + size));
		decoder.finish();
		expect(messages).toEqual([
			{ event: 'PartDeltaEvent', data: '{"i":1}' },
			{ event: 'End', data: '{}' },
		]);
	}
});

describe('a peeked unread event: the opening of its first data line, never more', () => {
	const names = new EventNames(
		['PartDeltaEvent'],
		new Set(['AgentRuntimeStreamChunk']),
		true,
		new Set(['AgentRuntimeStreamChunk']),
	);
	const decodeIn = (bytes: Buffer, size: number): SseMessage[] => {
		const messages: SseMessage[] = [];
		const decoder = createSseDecoder((message) => messages.push(message), 1024, names);
		for (let from = 0; from < bytes.length; from += size) {
			decoder.push(bytes.subarray(from, from + size));
		}
		decoder.finish();
		return messages;
	};

	test(`its first ${OPENING_BYTES} bytes, the line itself skipped as before (past the bound too)`, () => {
		const opening = '{"type":"delta","delta":"Hello","tool_name":null,"status":null,"';
		expect(Buffer.byteLength(opening)).toBe(OPENING_BYTES);
		const bytes = Buffer.from(
			`event: AgentRuntimeStreamChunk\ndata: ${opening}${'x'.repeat(5000)}"}\ndata: second line\n\n` +
				'event: AgentRuntimeStreamChunk\ndata:{"type":"status"}\n\nevent: End\ndata: {}\n\n',
		);
		expect(decodeIn(bytes, bytes.length)).toEqual([
			{ event: 'AgentRuntimeStreamChunk', data: opening },
			{ event: 'AgentRuntimeStreamChunk', data: '{"type":"status"}' },
			{ event: 'End', data: '{}' },
		]);
		// Split anywhere: at most what the line's first piece showed, never another line's bytes.
		for (const size of [1, 3, 7, 40, 64, 100]) {
			const [first, second] = decodeIn(bytes, size);
			expect(opening.startsWith(first.data)).toBe(true);
			expect('{"type":"status"}'.startsWith(second.data)).toBe(true);
		}
	});

	test('nothing of an event also named the echo, before or after its data; nothing in the flat form', () => {
		const text = [
			'event: AgentRuntimeStreamChunk\ndata: {"type":"secret"}\nevent: FrontendModelRequest\n\n',
			'event: FrontendModelRequest\nevent: AgentRuntimeStreamChunk\ndata: {"type":"secret"}\n\n',
			'event: AgentRuntimeStreamChunk\nevent: PartDeltaEvent\ndata: {"type":"secret"}\n\n',
			'data: {"type": "AgentRuntimeStreamChunk", "secret": 1}\n\n',
			'event: End\ndata: {}\n\n',
		].join('');
		const bytes = Buffer.from(text, 'utf8');
		for (const size of [1, 5, 64, bytes.length]) {
			const read = decodeIn(bytes, size);
			expect(read.filter(({ event }) => event !== 'End').map(({ data }) => data)).toEqual([
				'',
				'',
				'',
				'',
			]);
			expect(JSON.stringify(read)).not.toContain('secret');
		}
	});
});
