/**
 * Part deltas read by the shape of the ones before them (nodes/shared/stream/deltaShape.ts): a
 * delta read so is always the delta JSON.parse reads, whatever the stream holds; the captures'
 * deltas are mostly read so; and a stream read so gives the answer every event parsed gives.
 */
import { isDeepStrictEqual } from 'node:util';

import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { DeltaShapes } from '../../../nodes/shared/stream/deltaShape';
import { toStreamEvents } from '../../../nodes/shared/stream/events';
import { readCapture } from '../../emulator/replay';
import { draw, type Draw } from '../../fuzz/prng';

const delta = (kind: string, text: string, extra: Record<string, unknown> = {}) =>
	JSON.stringify({
		delta: { content_delta: text, part_delta_kind: kind, provider_details: null },
		event_kind: 'part_delta',
		index: 0,
		metadata: { zmid: 'm1', runner_id: 'r1' },
		...extra,
	});

/** Each data text read as a PartDeltaEvent with shapes, and parsed alone: the reference. */
function readBoth(texts: string[]) {
	const shapes = new DeltaShapes();
	const byShape = texts.map((data) =>
		toStreamEvents({ event: 'PartDeltaEvent', data }, false, shapes),
	);
	const parsed = texts.map((data) => toStreamEvents({ event: 'PartDeltaEvent', data }));
	return { byShape, parsed, shapes };
}

describe('DeltaShapes', () => {
	it('learns the shape from two deltas of one part and reads the next without parsing it', () => {
		const shapes = new DeltaShapes();
		expect(shapes.read(delta('thinking', 'a'))).toBeUndefined();
		shapes.parsed(delta('thinking', 'a'), {
			index: 0,
			kind: 'thinking',
			text: 'a',
			response: 'm1',
		});
		expect(shapes.read(delta('thinking', 'b'))).toBeUndefined();
		shapes.parsed(delta('thinking', 'b'), {
			index: 0,
			kind: 'thinking',
			text: 'b',
			response: 'm1',
		});
		expect(shapes.read(delta('thinking', 'é "quoted" \\ \n 😀'))).toEqual({
			index: 0,
			kind: 'thinking',
			text: 'é "quoted" \\ \n 😀',
			response: 'm1',
		});
	});

	it.each([
		['another kind', delta('text', 'x')],
		['another index', delta('thinking', 'x', { index: 1 })],
		[
			'another model response',
			delta('thinking', 'x', { metadata: { zmid: 'm2', runner_id: 'r1' } }),
		],
		[
			'a text that is two tokens',
			delta('thinking', 'SPLIT').replace('"SPLIT"', '"a","content_delta":"b"'),
		],
		['a raw control character', delta('thinking', 'a\u0001b').replace('\\u0001', '\u0001')],
		['a bad escape', delta('thinking', 'RAW').replace('"RAW"', '"\\x"')],
		['a number instead of text', delta('thinking', 'N').replace('"N"', '7')],
	])('leaves %s to be parsed', (_name, data) => {
		const shapes = new DeltaShapes();
		for (const text of ['a', 'b']) {
			shapes.parsed(delta('thinking', text), { index: 0, kind: 'thinking', text, response: 'm1' });
		}
		expect(shapes.read(data)).toBeUndefined();
	});

	// JSON.parse takes the last of a repeated field: the first content_delta is not the text.
	const twice = (first: string, last: string) =>
		`{"delta":{"content_delta":${JSON.stringify(first)},"part_delta_kind":"text","content_delta":${JSON.stringify(last)}},"index":0}`;

	it('learns nothing from deltas whose first content_delta is not the one JSON.parse takes', () => {
		const { byShape, parsed } = readBoth([
			twice('a', 'last'),
			twice('b', 'last'),
			twice('c', 'last'),
		]);
		expect(byShape).toEqual(parsed);
		expect(parsed[2]).toEqual([
			{ type: 'partDelta', index: 0, kind: 'text', text: 'last', response: undefined },
		]);
	});

	it('learns nothing from two deltas alike: nothing shows which field their text is', () => {
		const { byShape, parsed } = readBoth([twice('v', 'v'), twice('v', 'v'), twice('w', 'v')]);
		expect(byShape).toEqual(parsed);
		expect(parsed[2]).toEqual([
			{ type: 'partDelta', index: 0, kind: 'text', text: 'v', response: undefined },
		]);
	});

	it('reads 5,000 random streams of deltas, shaped, reshaped and broken, as parsing each gives', () => {
		let byShape = 0;
		for (let seed = 1; seed <= 5000; seed++) {
			const d = draw(seed);
			const texts = Array.from({ length: d.int(2, 12) }, () => randomDelta(d));
			const shapes = new DeltaShapes();
			for (const data of texts) {
				const read = shapes.read(data);
				if (read) byShape += 1;
				const events = toStreamEvents({ event: 'PartDeltaEvent', data }, false, shapes);
				const parsed = toStreamEvents({ event: 'PartDeltaEvent', data });
				if (!isDeepStrictEqual(events, parsed)) {
					throw new Error(
						`seed ${seed}: ${data}: ${JSON.stringify(events)} vs ${JSON.stringify(parsed)}`,
					);
				}
			}
		}
		// Most of them were read by their shape, not parsed.
		expect(byShape).toBeGreaterThan(3000);
	});
});

const TEXTS = ['a', 'b', 'é€', 'say "hi"', 'back\\slash', 'line\nbreak', '\u2028', '😀', '', ' '];

function randomDelta(d: Draw): string {
	const kind = d.chance(0.8) ? 'thinking' : d.pick(['text', 'tool_call']);
	const index = d.chance(0.85) ? 0 : d.int(1, 2);
	const zmid = d.chance(0.9) ? 'm1' : 'm2';
	const text = d.pick(TEXTS) + (d.chance(0.5) ? String(d.int(0, 99)) : '');
	const spaced = d.chance(0.1);
	let data = JSON.stringify(
		{
			delta: { content_delta: text, part_delta_kind: kind, provider_details: null },
			event_kind: 'part_delta',
			index,
			metadata: { zmid, runner_id: 'r1' },
		},
		null,
		spaced ? 1 : undefined,
	);
	const roll = d.random();
	// Now and then: the text as a token that is not one string, or a cut, or escapes written out.
	if (roll < 0.05) data = data.replace(JSON.stringify(text), `${JSON.stringify(text)},"x":1`);
	else if (roll < 0.1) data = data.replace(JSON.stringify(text), '"a"b"');
	else if (roll < 0.15) data = data.slice(0, d.int(0, data.length));
	else if (roll < 0.2)
		data = data.replace(JSON.stringify(text), JSON.stringify(text).replace(/a/g, '\\u0061'));
	else if (roll < 0.25) data = data.replace(JSON.stringify(text), '7');
	else if (roll < 0.3)
		data = data.replace('"content_delta"', '"content_delta":"x","content_delta"');
	return data;
}

const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const start = (index: number, kind: string, content: string, zmid = 'm1') =>
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index,
		part: { part_kind: kind, content },
		metadata: { zmid },
	});

describe('a stream whose deltas are read by their shape', () => {
	const answerOf = (chunks: Array<string | Buffer>) =>
		readAnswerFromChunks(chunks, { structured: false }).output;
	// Include Steps reads every Part event start and end whole: the reference.
	const parsedAnswerOf = (chunks: Array<string | Buffer>) =>
		readAnswerFromChunks(chunks, { structured: false, steps: { thinking: true } }).output;

	it.each(['2026-08-09-summarize', '2026-08-09-research'])(
		'gives the answer of every event parsed, with most deltas not parsed: %s',
		(name) => {
			const { bytes } = readCapture(name);
			const parse = jest.spyOn(JSON, 'parse');
			try {
				expect(answerOf([bytes])).toBe(parsedAnswerOf([bytes]));
				const deltas = (bytes.toString('utf8').match(/^event: PartDeltaEvent$/gm) ?? []).length;
				parse.mockClear();
				answerOf([bytes]);
				expect(parse.mock.calls.length).toBeLessThan(deltas / 3);
			} finally {
				parse.mockRestore();
			}
		},
	);

	it('reads a delta that turns a thinking part into text, and one of another response', () => {
		const stream = [
			start(0, 'thinking', 'Hmm '),
			sse('PartDeltaEvent', delta('thinking', 'still ')),
			sse('PartDeltaEvent', delta('thinking', 'thinking')),
			sse('PartDeltaEvent', delta('thinking', '...')),
			// The same index, now text: read.
			sse('PartDeltaEvent', delta('text', 'Answer.')),
			// Index 0 of another model response, thinking, unannounced: a new message.
			sse('PartDeltaEvent', delta('thinking', 'again', { metadata: { zmid: 'm2' } })),
			start(1, 'text', 'Second.', 'm2'),
			sse('completed', { status: 'succeeded' }),
		];
		expect(answerOf(stream)).toBe('Answer.\n\nSecond.');
		expect(answerOf(stream)).toBe(parsedAnswerOf(stream));
	});

	it('keeps a text delta whose nested field names thinking', () => {
		const stream = [
			start(0, 'thinking', 'Hmm'),
			start(1, 'text', 'A'),
			sse(
				'PartDeltaEvent',
				delta('text', 'B', { index: 1, extra: { part_delta_kind: 'thinking' } }),
			),
			sse('completed', { status: 'succeeded' }),
		];
		expect(answerOf(stream)).toBe('AB');
	});
});
