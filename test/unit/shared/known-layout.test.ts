/**
 * The 2026 events in the service's own layout, read without parsing them
 * (nodes/shared/stream/knownLayout.ts): every event read so is the event parsing gives, for the
 * captures, for random events in and near that layout, and for broken ones; most of the captures'
 * events are read so; and a stream read so gives the answer every event parsed gives.
 */
import { isDeepStrictEqual } from 'node:util';

import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { toStreamEvents, type StreamEvent } from '../../../nodes/shared/stream/events';
import {
	isKnownSucceeded,
	knownContentEvents,
	KnownLayout,
	knownPartEvents,
	unescaped,
} from '../../../nodes/shared/stream/knownLayout';
import { readCapture } from '../../emulator/replay';
import { draw, type Draw } from '../../fuzz/prng';

/**
 * The event read as it comes is the event parsing gives: for JSON, the same JSON laid out with
 * tabs (which no expression admits) is parsed; a text that is not JSON is never read in the
 * layout (so it is parsed as it comes, as before).
 */
function expectSameAsParsed(event: string, data: string, layout?: KnownLayout) {
	const relaid = relaidJson(data);
	if (relaid === undefined) {
		expect({ event, data, inLayout: inLayout(event, data) }).toEqual({
			event,
			data,
			inLayout: false,
		});
		return;
	}
	const read = toStreamEvents({ event, data }, false, layout);
	const parsed = toStreamEvents({ event, data: relaid });
	// The relaid JSON writes an index of -0 as 0 (the same Map key, the same part).
	if (!isDeepStrictEqual(read.map(zeroed), parsed)) {
		throw new Error(
			`${event} ${data}\nread ${JSON.stringify(read)}\nparsed ${JSON.stringify(parsed)}`,
		);
	}
}

function zeroed(event: StreamEvent): StreamEvent {
	return 'index' in event && Object.is(event.index, -0) ? { ...event, index: 0 } : event;
}

/** The same JSON laid out with tabs; undefined when the text is not JSON. */
function relaidJson(data: string): string | undefined {
	try {
		return JSON.stringify(JSON.parse(data), null, '\t');
	} catch {
		return undefined;
	}
}

/** Whether the event is read in the layout, not parsed. */
function inLayout(event: string, data: string): boolean {
	if (event === 'PartDeltaEvent') return new KnownLayout().deltaEvents(data) !== undefined;
	if (event === 'FrontendModelResponse') return knownContentEvents(data) !== undefined;
	if (event === 'PartStartEvent' || event === 'PartEndEvent') {
		return knownPartEvents(event, data) !== undefined;
	}
	return event === 'completed' && isKnownSucceeded(data);
}

const CAPTURES = ['2026-08-09-summarize', '2026-08-09-research'];

describe('events in the service’s layout', () => {
	it.each(CAPTURES)('are the events parsing gives, and are not parsed: %s', (name) => {
		const text = readCapture(name).bytes.toString('utf8');
		const events = [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map(([, event, data]) => ({
			event,
			data,
		}));
		let read = 0;
		for (const { event, data } of events) {
			expectSameAsParsed(event, data);
			if (inLayout(event, data)) read += 1;
		}
		const partEvents = events.filter(({ event }) =>
			/^(Part\w+Event|completed)$/.test(event),
		).length;
		// All but a tool call's deltas (their arguments are read whole).
		expect(read).toBeGreaterThan(partEvents * 0.95);
	});

	it.each([
		[
			'a delta',
			'{"delta":{"content_delta":"Hé \\"q\\" \\\\ \\n \\ud83d\\ude00","part_delta_kind":"text"},"event_kind":"part_delta","index":3,"metadata":{"zmid":"m1"}}',
		],
		[
			'a delta, Python-spaced',
			'{"delta": {"content_delta": "x", "part_delta_kind": "thinking", "signature_delta": null}, "event_kind": "part_delta", "index": 0, "metadata": {"zmid": "m1", "runner_id": "r"}}',
		],
		[
			'an empty text',
			'{"delta":{"content_delta":"","part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a repeated text field',
			'{"delta":{"content_delta":"a","part_delta_kind":"text","content_delta":"b"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a repeated index',
			'{"delta":{"content_delta":"a","part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"},"index":2}',
		],
		[
			'a repeated delta',
			'{"delta":{"content_delta":"a","part_delta_kind":"text"},"delta":{},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a nested value',
			'{"delta":{"content_delta":"a","part_delta_kind":"text","provider_details":{"x":1}},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'an escaped field name',
			'{"delta":{"content_delta":"a","part_delta_kind":"text","content\\u005fdelta":"b"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a raw control character',
			'{"delta":{"content_delta":"a\u0001","part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a bad escape',
			'{"delta":{"content_delta":"\\x41","part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a delta in the live dialect’s layout',
			'{"index": 2, "delta": {"part_delta_kind": "text", "content_delta": "Hé"}, "event_kind": "part_delta"}',
		],
		[
			'a live delta with a model response',
			'{"index":2,"delta":{"part_delta_kind":"text","content_delta":"a"},"metadata":{"zmid":"m1"}}',
		],
		[
			'a live delta with a repeated text field',
			'{"index":2,"delta":{"part_delta_kind":"text","content_delta":"a","content_delta":"b"}}',
		],
		[
			'an index with a leading zero',
			'{"delta":{"content_delta":"a","part_delta_kind":"text"},"index":01,"metadata":{"zmid":"m1"}}',
		],
		[
			'an index of another form',
			'{"delta":{"content_delta":"a","part_delta_kind":"text"},"index":1.0,"metadata":{"zmid":"m1"}}',
		],
		[
			'a tool call',
			'{"delta":{"args_delta":"{","part_delta_kind":"tool_call"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'two spaces',
			'{"delta":  {"content_delta":"a","part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"}}',
		],
		[
			'trailing text',
			'{"delta":{"content_delta":"a","part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"}} x',
		],
	])('PartDeltaEvent: %s', (_name, data) => {
		expectSameAsParsed('PartDeltaEvent', data);
	});

	it.each([
		[
			'a start',
			'PartStartEvent',
			'{"event_kind":"part_start","index":1,"part":{"content":"**","id":null,"part_kind":"text"},"previous_part_kind":"thinking","metadata":{"zmid":"m1","runner_id":"r"}}',
		],
		[
			'an end',
			'PartEndEvent',
			'{"event_kind": "part_end", "index": 0, "part": {"content": "all", "part_kind": "thinking"}, "next_part_kind": null, "metadata": {"zmid": "m1"}}',
		],
		[
			'a start named an end',
			'PartEndEvent',
			'{"event_kind":"part_start","index":1,"part":{"content":"x","part_kind":"text"},"metadata":{"zmid":"m1"}}',
		],
		[
			'a repeated part',
			'PartStartEvent',
			'{"event_kind":"part_start","index":1,"part":{"content":"x","part_kind":"text"},"part":{"content":"y","part_kind":"text"},"metadata":{"zmid":"m1"}}',
		],
		[
			'a repeated kind',
			'PartStartEvent',
			'{"event_kind":"part_start","index":1,"part":{"content":"x","part_kind":"text","part_kind":"tool-call"},"metadata":{"zmid":"m1"}}',
		],
		[
			'a tool call',
			'PartStartEvent',
			'{"event_kind":"part_start","index":1,"part":{"content":"x","part_kind":"tool-call"},"metadata":{"zmid":"m1"}}',
		],
		['a content piece', 'FrontendModelResponse', '{"content": "Hé \\"q\\" \\n"}'],
		['an empty content piece', 'FrontendModelResponse', '{"content":""}'],
		['a plain content piece', 'FrontendModelResponse', '{"content":"Hé, plain 😀"}'],
		['a plain content piece, Python-spaced', 'FrontendModelResponse', '{"content": "plain"}'],
		['content closed by a second field', 'FrontendModelResponse', '{"content":"a", "x": "b"}'],
		['content with a tab in it', 'FrontendModelResponse', '{"content":"a\tb"}'],
		['content with a space before its close', 'FrontendModelResponse', '{"content":"a" }'],
		['content cut short', 'FrontendModelResponse', '{"content":"}'],
		['content with two spaces after the colon', 'FrontendModelResponse', '{"content":  "a"}'],
		[
			'content and parts',
			'FrontendModelResponse',
			'{"content":"a","parts":[{"part_kind":"text","content":"a"}]}',
		],
		['a repeated content', 'FrontendModelResponse', '{"content":"a","content":"b"}'],
		['content that is not text', 'FrontendModelResponse', '{"content":7}'],
		[
			'succeeded',
			'completed',
			'{"status":"succeeded","error":null,"runner_id":null,"error_type":null,"failure_owner":null,"failure_kind":null}',
		],
		['succeeded, then failed', 'completed', '{"status":"succeeded","status":"failed","error":"x"}'],
		[
			'failed',
			'completed',
			'{"status":"failed","error":"Unknown model: x","error_type":"UserError"}',
		],
		[
			'succeeded with nested data',
			'completed',
			'{"status":"succeeded","data":{"status":"failed"}}',
		],
	])('%s', (_name, event, data) => {
		expectSameAsParsed(event, data);
	});

	it('are the events parsing gives for 5,000 random streams of events in, near and out of the layout', () => {
		for (let seed = 1; seed <= 5000; seed++) {
			const d = draw(seed);
			// One stream: its deltas read by the last one admitted.
			const layout = new KnownLayout();
			const [event, data] = randomEvent(d);
			for (let i = d.int(1, 8); i > 0; i--) {
				const next = d.chance(0.7) && event === 'PartDeltaEvent' ? sameDeltaAgain(data, d) : data;
				expectSameAsParsed(event, mutated(next, d), layout);
			}
			const [other, otherData] = randomEvent(d);
			expectSameAsParsed(other, mutated(otherData, d), layout);
		}
	});

	it('reads a delta as the last one admitted only when it is that text around a plain string', () => {
		const layout = new KnownLayout();
		const delta = (token: string) =>
			`{"delta":{"content_delta":${token},"part_delta_kind":"text"},"index":0,"metadata":{"zmid":"m1"}}`;
		const tokens = [
			'"first"',
			'"plain"',
			String.raw`"with \"quote"`,
			'"a","b"',
			String.raw`"\u0041"`,
			'7',
			String.raw`"\x"`,
			'""',
			'123',
			'"a"x',
		];
		for (const token of tokens) {
			expectSameAsParsed('PartDeltaEvent', delta(token), layout);
		}
		// The same end after another start: not the last one's text.
		expectSameAsParsed('PartDeltaEvent', `{${delta('"x"')}`, layout);
		expectSameAsParsed(
			'PartDeltaEvent',
			delta('"again"').replace('{"delta":', '{"delta": '),
			layout,
		);
	});
});

describe('a JSON string token’s text, read between its quotes', () => {
	/** What JSON.parse reads of the token: its text, or undefined when it is no string token. */
	const parsed = (body: string) => {
		try {
			return JSON.parse(`"${body}"`) as string;
		} catch {
			return undefined;
		}
	};

	it('is what JSON.parse reads, for every escape and for what is not one', () => {
		const bodies = [
			'',
			'plain words',
			String.raw`say \"hi\"`,
			String.raw`\\ \/ \b \f \n \r \t`,
			String.raw`\u0041\u00e9\u20AC\ud83d\ude00`,
			String.raw`lone \ud800 and \udc00 halves`,
			String.raw`\u0000 and \u001F`,
			'é€😀\u2028\u007f',
			String.raw`\u004`,
			String.raw`\u00G1`,
			String.raw`\U0041`,
			String.raw`\'`,
			String.raw`\x41`,
			String.raw`\a`,
			'ends in \\',
			'\\',
			'a " quote',
			'a \n raw line break',
			'\u0000',
			'\u001f',
			String.raw`\\\"`,
			String.raw`\\"`,
		];
		for (const body of bodies) expect([body, unescaped(body)]).toEqual([body, parsed(body)]);
	});

	it('is what JSON.parse reads for 20,000 random bodies of escapes and their near misses', () => {
		const pieces = [
			'\\\\',
			'\\"',
			'\\n',
			'\\u00',
			'\\u',
			'e9',
			'D8',
			'3d',
			'Fz',
			'"',
			'\\',
			'n',
			'é',
			'😀',
			'\n',
			'\t',
			'a ',
			'/',
		];
		const differing: string[] = [];
		for (let seed = 1; seed <= 20_000; seed++) {
			const d = draw(seed);
			let body = '';
			for (let i = d.int(0, 8); i > 0; i--) body += d.pick(pieces);
			if (unescaped(body) !== parsed(body)) differing.push(body);
		}
		expect(differing).toEqual([]);
	});
});

const TEXTS = [
	'a',
	'é€',
	'say "hi"',
	'back\\slash',
	'line\nbreak',
	'\u2028',
	'😀',
	'',
	' ',
	'\u0001',
];

function randomValue(d: Draw): unknown {
	return d.pick([null, true, false, 0, -1.5e3, 'x', 'é "q"', { nested: 1 }, [1], '']);
}

function randomEvent(d: Draw): [string, string] {
	const text = d.pick(TEXTS) + (d.chance(0.5) ? String(d.int(0, 99)) : '');
	const extra = () =>
		d.chance(0.3)
			? { [d.pick(['provider_name', 'id', 'x', 'index', 'part_kind', 'content'])]: randomValue(d) }
			: {};
	const metadata = d.chance(0.9)
		? { zmid: d.pick(['m1', 'm 2', '', 7, 'a\\b']), ...extra() }
		: d.pick([null, 'm1', {}]);
	const index = d.pick([0, 1, 12, -1, 1.5, '0']);
	const kind = d.pick(['text', 'thinking', 'tool_call', 'tool-call', 'file', 3]);
	const roll = d.random();
	let event: string;
	let object: Record<string, unknown>;
	if (roll < 0.5) {
		event = 'PartDeltaEvent';
		object = d.chance(0.3)
			? // The live dialect's layout: index first, no model response.
				{
					index,
					delta: { part_delta_kind: kind, content_delta: d.chance(0.9) ? text : 5, ...extra() },
					...extra(),
					...(d.chance(0.1) ? { metadata } : {}),
				}
			: {
					delta: { content_delta: d.chance(0.9) ? text : 5, part_delta_kind: kind, ...extra() },
					...extra(),
					event_kind: 'part_delta',
					index,
					metadata,
				};
	} else if (roll < 0.6) {
		event = 'FrontendModelResponse';
		object = d.chance(0.8) ? { content: d.chance(0.9) ? text : 5 } : { content: text, ...extra() };
	} else if (roll < 0.85) {
		event = d.pick(['PartStartEvent', 'PartEndEvent']);
		object = {
			event_kind: d.pick(['part_start', 'part_end']),
			index,
			part: { content: text, ...extra(), part_kind: kind, ...extra() },
			...extra(),
			metadata,
		};
	} else {
		event = 'completed';
		object = {
			status: d.pick(['succeeded', 'failed', 'cancelled', '']),
			...extra(),
			error: d.pick([null, 'boom']),
		};
	}
	return [
		event,
		JSON.stringify(object, null, d.chance(0.1) ? 1 : undefined).replace(
			/": /g,
			d.chance(0.3) ? '": ' : '":',
		),
	];
}

/** The same delta with another text: a plain one, an escaped one, or a token that is not one. */
function sameDeltaAgain(data: string, d: Draw): string {
	const text = JSON.stringify(d.pick(TEXTS) + String(d.int(0, 999)));
	const token = d.chance(0.9) ? text : d.pick(['"a"b"', '"a",', '5', '"\\q"']);
	return data.replace(/"content_delta":("(?:[^"\\]|\\.)*"|\d+)/, `"content_delta":${token}`);
}

/** Now and then one character dropped, doubled or changed, or a field repeated by hand. */
function mutated(text: string, d: Draw): string {
	const roll = d.random();
	if (roll > 0.4 || text.length === 0) return text;
	const at = d.int(0, text.length - 1);
	if (roll < 0.1) return text.slice(0, at) + text.slice(at + 1);
	if (roll < 0.2) return text.slice(0, at) + text[at] + text.slice(at);
	if (roll < 0.3)
		return (
			text.slice(0, at) +
			d.pick(['"', '\\', '{', '}', ',', ':', '0', ' ', '\t']) +
			text.slice(at + 1)
		);
	return `${text.slice(0, -1)},"${d.pick(['index', 'delta', 'metadata', 'part', 'status'])}":${JSON.stringify(randomValue(d))}}`;
}

describe('a stream whose events are read in the service’s layout', () => {
	const answerOf = (chunks: Array<string | Buffer>) =>
		readAnswerFromChunks(chunks, { structured: false }).output;
	// Include Steps parses every Part event start and end whole: the reference.
	const parsedAnswerOf = (chunks: Array<string | Buffer>) =>
		readAnswerFromChunks(chunks, { structured: false, steps: { thinking: true } }).output;

	it.each(CAPTURES)('gives the answer of every event parsed: %s', (name) => {
		const { bytes } = readCapture(name);
		expect(answerOf([bytes])).toBe(parsedAnswerOf([bytes]));
	});
});
