/**
 * The stream's meaning (docs/api.md#streams): every shape of both dialects, alone and mixed, as
 * readAnswerFromChunks reads them.
 */
import { readAnswerFromChunks, StreamAnswer } from '../../../nodes/shared/stream/answer';
import { NO_ANSWER_MESSAGE, StreamAnswerError } from '../../../nodes/shared/stream/answerFailure';
import type { OutputFormatSchema } from '../../../nodes/shared/api';

const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const text = (content: string) => ({ part_kind: 'text', content });
const thinking = (content: string) => ({ part_kind: 'thinking', content });
const start = (index: number, part: object) => sse('PartStartEvent', { index, part });
const delta = (index: number, content: string, kind?: string) =>
	sse('PartDeltaEvent', {
		index,
		delta: kind ? { part_delta_kind: kind, content_delta: content } : { content_delta: content },
	});
const partEnd = (index: number, part: object) => sse('PartEndEvent', { index, part });
const snapshot = (...parts: object[]) => sse('FrontendModelResponse', { parts });
const content = (piece: string) => sse('FrontendModelResponse', { content: piece });
const COMPLETED = {
	status: 'succeeded',
	error: null,
	runner_id: null,
	error_type: null,
	failure_owner: null,
	failure_kind: null,
};

function read(events: string[], structured = false) {
	const deltas: string[] = [];
	const result = readAnswerFromChunks([events.join('')], {
		structured,
		onText: (piece) => deltas.push(piece),
	});
	return { ...result, deltas };
}

function failure(events: string[], structured = false): StreamAnswerError {
	let caught: unknown;
	try {
		readAnswerFromChunks([events.join('')], { structured });
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(StreamAnswerError);
	return caught as StreamAnswerError;
}

const TWELVE_WORDS = 'one two three four five six seven eight nine ten eleven twelve';
const words = TWELVE_WORDS.split(' ').map((word, index) => (index === 0 ? word : ` ${word}`));

describe('answer text from each source (docs/api.md#assembling-the-answer)', () => {
	test('text carried only by Part events, with an empty End, is the answer', () => {
		const events = [start(0, text(words[0]))];
		for (const word of words.slice(1)) events.push(delta(0, word, 'text'));
		events.push(partEnd(0, text(TWELVE_WORDS)), sse('End', {}));
		const { output, deltas } = read(events);
		expect(output).toBe(TWELVE_WORDS);
		expect(deltas).toEqual(words);
	});

	test('growing snapshots count each word once (12 words stay 12)', () => {
		const events: string[] = [];
		let sofar = '';
		for (const word of words) events.push(snapshot(thinking('hmm'), text((sofar += word))));
		events.push(sse('End', {}));
		const { output, deltas } = read(events);
		expect(output).toBe(TWELVE_WORDS);
		expect(deltas.join('')).toBe(TWELVE_WORDS);
	});

	test('one snapshot of the complete message is the whole text', () => {
		expect(read([snapshot(text('Hello'), text(' world')), sse('End', {})]).output).toBe(
			'Hello world',
		);
	});

	test('content deltas of the documented dialect are joined', () => {
		expect(read([content('Hel'), content('lo'), sse('End', {})]).output).toBe('Hello');
	});

	test('the same text through Part events, snapshots and content counts once', () => {
		const { output, deltas } = read([
			start(0, text('Hel')),
			content('Hel'),
			snapshot(text('Hel')),
			delta(0, 'lo', 'text'),
			snapshot(text('Hello')),
			content('lo'),
			content(' there'),
			delta(0, ' there'),
			partEnd(0, text('Hello there')),
			snapshot(text('Hello there')),
			sse('End', {}),
		]);
		expect(output).toBe('Hello there');
		expect(deltas).toEqual(['Hel', 'lo', ' there']);
	});

	test('thinking and tool-call parts are never answer text', () => {
		const { output } = read([
			start(0, thinking('Let me think')),
			delta(0, ' more'),
			delta(0, ' still', 'thinking'),
			partEnd(0, thinking('Let me think more still')),
			start(1, { part_kind: 'builtin-tool-call', tool_name: 'search', args: { q: 'x' } }),
			start(2, text('Answer')),
			delta(2, '!'),
			snapshot(thinking('Let me think more still'), text('Answer!')),
			sse('End', {}),
		]);
		expect(output).toBe('Answer!');
	});

	test('a delta without its kind is of the kind its part started with', () => {
		const { output } = read([
			start(0, thinking('')),
			delta(0, 'secret'),
			start(1, text('')),
			delta(1, 'shown'),
			sse('End', {}),
		]);
		expect(output).toBe('shown');
	});
});

describe('several model messages in one turn (docs/api.md#assembling-the-answer)', () => {
	test('two model messages around a tool call are joined by a blank line; indexes restart', () => {
		const { output, deltas } = read([
			start(0, text('Let me look that up.')),
			partEnd(0, text('Let me look that up.')),
			start(1, { part_kind: 'builtin-tool-call', tool_name: 'search' }),
			start(0, text('It is ')),
			delta(0, 'sunny.'),
			sse('End', {}),
		]);
		expect(output).toBe('Let me look that up.\n\nIt is sunny.');
		expect(deltas).toEqual(['Let me look that up.', '\n\n', 'It is ', 'sunny.']);
	});

	test('content ahead of the event that opens the next message is not doubled', () => {
		const toolCall = { part_kind: 'builtin-tool-call', tool_name: 'search' };
		const { output, deltas } = read([
			content('Let me look.'),
			snapshot(text('Let me look.'), toolCall),
			content('Sunny'),
			snapshot(thinking('hmm')),
			snapshot(thinking('hmm'), text('Sunny')),
			content(' today.'),
			snapshot(thinking('hmm'), text('Sunny today.')),
			sse('End', {}),
		]);
		expect(output).toBe('Let me look.\n\nSunny today.');
		expect(deltas.join('')).toBe(output);
	});

	test('content after a tool call that no other source opens is the next message', () => {
		const { output } = read([
			start(0, text('Checking.')),
			start(1, { part_kind: 'builtin-tool-call', tool_name: 'search' }),
			content('Checking.'),
			content('Done.'),
			sse('End', {}),
		]);
		expect(output).toBe('Checking.\n\nDone.');
	});

	// Each test spells out its events in the order a stream sends them, so the tests share a shape;
	// a table would hide the sequence that is the rule.
	test('a snapshot that does not continue the message begins a new one', () => {
		const { output } = read([
			snapshot(text('First')),
			snapshot(text('First message')),
			snapshot(text('Second')),
			snapshot(text('Second message')),
			sse('End', {}),
		]);
		expect(output).toBe('First message\n\nSecond message');
	});

	describe.each([
		['End', sse('End', {})],
		['completed', sse('completed', { status: 'succeeded', error: null })],
	])(
		'a snapshot whose parts differ from those the Part events told begins the next message (ending with %s)',
		(_end, end) => {
			const call = { part_kind: 'builtin-tool-call', tool_name: 'search', tool_call_id: 'b1' };

			test('text where a message without text told its tool call: the Part events that tell that text again go on in it', () => {
				const { output, deltas } = read([
					start(0, call),
					snapshot(text('It is sunny.')),
					start(0, text('It is sunny.')),
					end,
				]);
				expect(output).toBe('It is sunny.');
				expect(deltas.join('')).toBe('It is sunny.');
			});

			test('the next response told by its snapshot, then by Part events naming it: its text once', () => {
				const zmid = { zmid: 'z2', runner_id: 'r-1' };
				const { output, deltas } = read([
					start(0, thinking('Look it up.')),
					start(1, call),
					snapshot(thinking('Found.'), text('It is sunny.')),
					sse('PartStartEvent', { index: 0, part: thinking('Found.'), metadata: zmid }),
					sse('PartStartEvent', { index: 1, part: text('It is sunny.'), metadata: zmid }),
					end,
				]);
				expect(output).toBe('It is sunny.');
				expect(deltas.join('')).toBe('It is sunny.');
			});

			test('after a message that wrote text before its tool call: both messages, each once', () => {
				const { output, deltas } = read([
					start(0, text('Let me look.')),
					start(1, call),
					snapshot(text('It is sunny.')),
					start(0, text('It is sunny.')),
					end,
				]);
				expect(output).toBe('Let me look.\n\nIt is sunny.');
				expect(deltas.join('')).toBe('Let me look.\n\nIt is sunny.');
			});
		},
	);

	test('a snapshot that lags behind the Part events adds nothing', () => {
		const { output } = read([
			start(0, text('abc')),
			delta(0, 'def'),
			snapshot(text('abc')),
			delta(0, 'ghi'),
			sse('End', {}),
		]);
		expect(output).toBe('abcdefghi');
	});

	test('comments, [DONE] and unknown events carry nothing', () => {
		const { output } = read([
			': keep-alive\n\n',
			content('ok'),
			'data: [DONE]\n\n',
			sse('SomethingNew', { content: 'no' }),
			sse('End', {}),
		]);
		expect(output).toBe('ok');
	});
});

describe('the flat form: the event name inside the JSON (docs/api.md#flat-stream-form)', () => {
	const flat = (data: object | string) =>
		`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

	test('bare data lines naming their event by `type` are read as the named events', () => {
		const { output, deltas } = read([
			flat({ type: 'PartStartEvent', index: 0, part: text('one') }),
			flat({ type: 'PartDeltaEvent', index: 0, delta: { content_delta: ' two' } }),
			flat({ type: 'FrontendModelResponse', content: 'one two' }),
			flat({ type: 'PartEndEvent', index: 0, part: text('one two'), next_part_kind: null }),
			flat({ type: 'FrontendModelResponse', parts: [text('one two')] }),
			flat('[DONE]'),
			flat({ type: 'End', data: { conversation_id: 'conv_flat' } }),
		]);
		expect(output).toBe('one two');
		expect(deltas).toEqual(['one', ' two']);
	});

	test("pydantic-ai's event_kind names a flat Part event too", () => {
		const { output } = read([
			flat({ event_kind: 'part_start', index: 0, part: text('Hello') }),
			flat({ event_kind: 'part_delta', index: 0, delta: { content_delta: ', world' } }),
			flat({ event_kind: 'part_end', index: 0, part: text('Hello, world') }),
			flat({ type: 'End' }),
		]);
		expect(output).toBe('Hello, world');
	});

	test("a flat End's output under data is the answer; its conversation id is kept", () => {
		const result = read([
			flat({ type: 'FrontendModelResponse', content: 'draft' }),
			flat({ type: 'End', data: { output: 'final', conversation_id: 'conv_9' } }),
		]);
		expect(result.output).toBe('final');
		expect(result.conversationId).toBe('conv_9');
	});

	test('a flat error event carries its text at data.data.message', () => {
		const error = failure([
			flat({ type: 'FrontendModelResponse', content: 'partial' }),
			flat({ type: 'Error', data: { message: 'Upstream model failed' } }),
		]);
		expect(error.failure).toBe('error-event');
		expect(error.serverMessage).toBe('Upstream model failed');
		expect(failure([flat({ type: 'SSEErrorEvent', message: 'top level' })]).serverMessage).toBe(
			'top level',
		);
	});

	test('other JSON on a bare data line carries nothing', () => {
		const { output } = read([
			flat({ status: 'running' }),
			flat({ type: 'RunStatusEvent', content: 'not answer text' }),
			content('ok'),
			sse('End', {}),
		]);
		expect(output).toBe('ok');
	});
});

describe("pydantic-ai's file parts and next_part_kind (docs/api.md#live-stream-dialect)", () => {
	const file = {
		part_kind: 'file',
		content: { kind: 'binary', media_type: 'image/png', data: 'iVBO' },
	};

	test('a file part is never answer text; the text around it is one message, a paragraph each side', () => {
		const { output, deltas } = read([
			start(0, text('Here is the chart:')),
			sse('PartEndEvent', { index: 0, part: text('Here is the chart:'), next_part_kind: 'file' }),
			start(1, file),
			sse('PartEndEvent', { index: 1, part: file, next_part_kind: 'text' }),
			start(2, text(' it rises.')),
			snapshot(text('Here is the chart:'), file, text(' it rises.')),
			sse('End', {}),
		]);
		// pydantic-ai's ModelResponse.text: text parts another part separates are paragraphs.
		expect(output).toBe('Here is the chart:\n\n it rises.');
		expect(deltas.join('')).toBe(output);
	});

	test('content after a file part stays in its message (a file is not a tool call)', () => {
		const { output } = read([
			start(0, text('Here is the chart:')),
			content('Here is the chart:'),
			start(1, file),
			content(' it rises.'),
			sse('End', {}),
		]);
		expect(output).toBe('Here is the chart: it rises.');
	});
});

describe("text parts another part separates are paragraphs (pydantic-ai's ModelResponse.text)", () => {
	const search = { part_kind: 'builtin-tool-call', tool_name: 'web_search', args: { q: 'x' } };
	const found = { part_kind: 'builtin-tool-return', tool_name: 'web_search', content: 'x' };
	const zmid = (event: string, data: object) => sse(event, { ...data, metadata: { zmid: 'r1' } });

	test('Part events: a blank line where a built-in tool or thinking lies between, none between adjacent parts', () => {
		const { output, deltas } = read([
			zmid('PartStartEvent', { index: 0, part: text('Let me ') }),
			zmid('PartDeltaEvent', {
				index: 0,
				delta: { part_delta_kind: 'text', content_delta: 'search.' },
			}),
			zmid('PartStartEvent', { index: 1, part: search }),
			zmid('PartStartEvent', { index: 2, part: found }),
			zmid('PartStartEvent', { index: 3, part: text('') }),
			zmid('PartDeltaEvent', {
				index: 3,
				delta: { part_delta_kind: 'text', content_delta: 'Found it.' },
			}),
			zmid('PartStartEvent', { index: 4, part: text(' Twice.') }),
			zmid('PartStartEvent', { index: 5, part: thinking('and so') }),
			zmid('PartStartEvent', { index: 6, part: text('Done.') }),
			sse('completed', COMPLETED),
		]);
		expect(output).toBe('Let me search.\n\nFound it. Twice.\n\nDone.');
		expect(deltas).toEqual(['Let me ', 'search.', '\n\n', 'Found it.', ' Twice.', '\n\n', 'Done.']);
	});

	test('snapshots with content deltas, and Part events beside them: each paragraph once', () => {
		const events = [
			sse('FrontendModelResponse', { content: 'Let me search.', parts: [text('Let me search.')] }),
			sse('FrontendModelResponse', {
				content: 'Found it.',
				parts: [text('Let me search.'), search, found, text('Found it.')],
			}),
			sse('End', {}),
		];
		for (const stream of [
			events,
			[
				start(0, text('Let me search.')),
				...events.slice(0, 1),
				start(1, search),
				start(2, found),
				start(3, text('Found')),
				...events.slice(1),
			],
		]) {
			const { output, deltas } = read(stream);
			expect(output).toBe('Let me search.\n\nFound it.');
			expect(deltas.join('')).toBe(output);
		}
	});

	test('text that went out run on stays so: content deltas ahead of the parts cannot tell the paragraphs', () => {
		const { output, deltas } = read([
			content('Let me search.Found it.'),
			snapshot(text('Let me search.'), search, text('Found it.')),
			sse('End', {}),
		]);
		expect(output).toBe('Let me search.Found it.');
		expect(deltas.join('')).toBe(output);
	});

	test('the blank lines are in the answer a structured ask reads its object from', () => {
		const { output } = read(
			[start(0, text('{"a":')), start(1, thinking('hm')), start(2, text('1}')), sse('End', {})],
			true,
		);
		expect(output).toEqual({ a: 1 });
	});
});

describe('the final answer (docs/api.md#how-a-stream-ends)', () => {
	test("End's output wins over the streamed text, at the top level or under data", () => {
		const streamed = [start(0, text('Let me look that up.')), start(0, text('Sunny.'))];
		expect(read([...streamed, sse('End', { output: 'Sunny.' })]).output).toBe('Sunny.');
		const nested = read([
			...streamed,
			sse('End', { data: { output: 'Sunny.', conversation_id: 'c1' } }),
		]);
		expect(nested.output).toBe('Sunny.');
		expect(nested.conversationId).toBe('c1');
		// The live caller still got each streamed piece once.
		expect(nested.deltas.join('')).toBe('Let me look that up.\n\nSunny.');
	});

	test('End with only an output answers; End with neither text nor output does not', () => {
		expect(read([sse('End', { data: { output: 'Only here' } })]).output).toBe('Only here');
		const error = failure([start(0, thinking('hmm')), sse('End', {})]);
		expect(error.failure).toBe('no-answer');
		expect(error.message).toBe(NO_ANSWER_MESSAGE);
	});

	test('a structured answer: an End object, End text or streamed text that is a JSON object', () => {
		const object = { summary: 'ok', count: 2 };
		expect(read([sse('End', { data: { output: object } })], true).output).toEqual(object);
		expect(read([sse('End', { output: JSON.stringify(object) })], true).output).toEqual(object);
		const streamed = read(
			[content('{"summary": "ok",'), content(' "count": 2}'), sse('End', {})],
			true,
		);
		expect(streamed.output).toEqual(object);
		expect(streamed.deltas).toEqual([]);
		expect(failure([content('not json'), sse('End', {})], true).failure).toBe('not-an-object');
	});

	test('a structured answer cut short fails: the object nested in it, which fits the schema, is not the answer', () => {
		const schema = {
			type: 'object',
			properties: {
				name: { type: 'string' },
				children: {
					type: 'array',
					items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
				},
			},
			required: ['name', 'children'],
		} as unknown as OutputFormatSchema;
		const cut =
			'{"name": "root", "children": [{"name": "leaf", "children": []}], "note": "the model stopped here';
		let caught: unknown;
		try {
			readAnswerFromChunks([content(cut), sse('completed', COMPLETED)], {
				structured: true,
				answerSchema: schema,
			});
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(StreamAnswerError);
		expect((caught as StreamAnswerError).failure).toBe('not-an-object');
	});

	test('Error and SSEErrorEvent end the stream with the server message', () => {
		for (const name of ['Error', 'SSEErrorEvent']) {
			const error = failure([
				content('partial'),
				sse(name, { message: 'Upstream model failed', turn_status: 'error' }),
				content(' ignored'),
				sse('End', {}),
			]);
			expect(error.failure).toBe('error-event');
			expect(error.serverMessage).toBe('Upstream model failed');
			expect(error.message).toBe('The assistant reported an error: Upstream model failed');
			expect(error.turnBegan).toBe(true);
		}
		expect(failure([sse('Error', 'plain words')]).serverMessage).toBe('plain words');
	});

	test.each(['Error', 'SSEErrorEvent'])(
		"%s whose field is an object: the words in it, read as a failed run's error",
		(name) => {
			const overloaded = { message: 'Upstream model overloaded', type: 'overloaded_error' };
			for (const data of [
				{ error: overloaded },
				{ message: '', error: overloaded },
				{ detail: { error: overloaded } },
				{ data: { error: overloaded } },
			]) {
				const error = failure([content('Working'), sse(name, data)]);
				expect(error.failure).toBe('error-event');
				expect(error.serverMessage).toBe('Upstream model overloaded');
				expect(error.message).toBe('The assistant reported an error: Upstream model overloaded');
			}
			// An object without words is shown as it is, as a failed run's is.
			const wordless = failure([sse(name, { error: { type: 'overloaded_error' } })]);
			expect(wordless.serverMessage).toBe('{"type":"overloaded_error"}');
		},
	);

	test('a stream that closes without End or an error is incomplete', () => {
		const error = failure([content('cut sh')]);
		expect(error.failure).toBe('incomplete');
		expect(error.message).toBe('The stream ended before the answer was complete');
	});

	test('a stream that closes before any event says so: comments and lines that are no field are none', () => {
		for (const body of [
			'',
			': keep-alive\n\n',
			'{"error": "Model is disabled"}\n',
			'<html></html>',
		]) {
			const error = failure([body]);
			expect(error.failure).toBe('no-events');
			expect(error.message).toBe(
				'The stream ended before the answer was complete; it carried no event',
			);
		}
		// Any event is one, `[DONE]` and the run's status too: then the stream was cut short.
		for (const body of ['data: [DONE]\n\n', sse('AgentRuntimeStreamChunk', { type: 'status' })]) {
			expect(failure([body]).failure).toBe('incomplete');
		}
	});

	test('an end after no answer but events this node does not know names them: a service that renamed the events of its text', () => {
		for (const end of [sse('completed', COMPLETED), sse('End', {})]) {
			const events = [sse('TextChunk', { text: 'Hello' }), sse('TextChunk', { text: ' world' })];
			const error = failure([...events, sse('RunNote', {}), end]);
			expect(error.failure).toBe('no-answer');
			expect(error.message).toBe(
				`${NO_ANSWER_MESSAGE}; it carried events this node does not know: TextChunk, RunNote`,
			);
			expect(error.unknownEvents).toEqual(['TextChunk', 'RunNote']);
			// Names only, never what they carried.
			expect(error.message).not.toContain('Hello');
		}
		// With an answer, they are no failure (n8n's log tells them: askAttempt.ts).
		expect(read([sse('TextChunk', {}), content('Hi'), sse('End', {})]).output).toBe('Hi');
	});
});

describe('events that carry the answer and cannot be read (docs/api.md#how-a-stream-ends)', () => {
	const ends = [sse('completed', COMPLETED), sse('End', {})];

	test.each([
		['a PartDeltaEvent whose data is not JSON', 'PartDeltaEvent', '{"index": 0, "delta": {"con'],
		['a PartDeltaEvent without its index', 'PartDeltaEvent', { delta: { content_delta: 'x' } }],
		['a PartDeltaEvent whose delta is no object', 'PartDeltaEvent', { index: 0, delta: 'x' }],
		['a PartStartEvent whose data is not JSON', 'PartStartEvent', 'not json'],
		['a PartStartEvent without its part', 'PartStartEvent', { index: 1 }],
		['a PartEndEvent whose index is no number', 'PartEndEvent', { index: '0', part: text('x') }],
		['a FrontendModelResponse whose data is not JSON', 'FrontendModelResponse', '{"content": "x'],
	])('%s fails the answer as unreadable, naming it, never as whole', (_, name, data) => {
		for (const end of ends) {
			const events = [start(0, text('Hello')), sse(name, data), delta(0, ' world', 'text'), end];
			const error = failure(events);
			expect(error.failure).toBe('unreadable');
			expect(error.message).toBe(`The stream carried events this node could not read: ${name}`);
			expect(error.turnBegan).toBe(true);
		}
	});

	test('a bare `data:` line whose JSON is cut short (a flat event) is named `message`; `[DONE]` and untyped JSON carry nothing', () => {
		const flat = (line: string) => `data: ${line}\n\n`;
		const cut = failure([
			flat('{"type": "FrontendModelResponse", "content": "Hel'),
			flat('{"type": "End", "data": {}}'),
		]);
		expect(cut.failure).toBe('unreadable');
		expect(cut.message).toBe('The stream carried events this node could not read: message');
		const events = [flat('{"type": "FrontendModelResponse", "content": "Hello"}'), flat('[DONE]')];
		events.push(flat('{"note": "no type"}'), flat('{"type": "End", "data": {}}'));
		expect(read(events).output).toBe('Hello');
	});

	test('each name once, with those the node does not know, whether the stream ended or not', () => {
		const bad = sse('PartDeltaEvent', 'x');
		const events = [bad, sse('Heartbeat2027', {}), bad, sse('PartStartEvent', 'y')];
		const ended = failure([...events, sse('completed', COMPLETED)]);
		expect(ended.message).toBe(
			'The stream carried events this node could not read: PartDeltaEvent, PartStartEvent; it carried events this node does not know: Heartbeat2027',
		);
		expect(ended.unknownEvents).toEqual(['Heartbeat2027']);
		const cut = failure(events);
		expect(cut.failure).toBe('unreadable');
		expect(cut.message).toBe(
			'The stream ended before the answer was complete; it carried events this node could not read: PartDeltaEvent, PartStartEvent; it carried events this node does not know: Heartbeat2027',
		);
	});

	test('no piece is passed on after one: what follows may go on from text that is missing', () => {
		const deltas: string[] = [];
		const answer = new StreamAnswer({ structured: false, onText: (piece) => deltas.push(piece) });
		const events = [
			start(0, text('The meeting')),
			sse('PartDeltaEvent', '{"index": 0, "delta": {"content_delta": " moved to'),
			delta(0, ' Friday.', 'text'),
			sse('completed', COMPLETED),
		];
		for (const event of events) {
			const [, name, data] = /^event: (.*)\ndata: (.*)\n\n$/.exec(event) ?? [];
			answer.accept({ event: name, data });
		}
		expect(deltas).toEqual(['The meeting']);
		expect(answer.passedOn()).toBe('The meeting');
		expect(answer.openMessageLength).toBe('The meeting'.length);
		expect(() => answer.result()).toThrow('could not read: PartDeltaEvent');
	});

	test('a run that failed after one says its own failure', () => {
		const failed = { ...COMPLETED, status: 'failed', error: 'Unknown model: x' };
		const error = failure([sse('PartDeltaEvent', 'x'), sse('failed', failed)]);
		expect(error.failure).toBe('run-failed');
		expect(error.serverMessage).toBe('Unknown model: x');
	});

	test('an end whose data is no object ends the stream unread; blank data or `null` names nothing', () => {
		for (const [name, data] of [
			['completed', 'Unknown model: x'],
			['completed', '{"status": "fail'],
			['End', '{"output": "the ans'],
			['End', '"done"'],
			['End', '[]'],
		] as const) {
			const error = failure([start(0, text('Hello')), sse(name, data), content(' later')]);
			expect(error.failure).toBe('unreadable');
			expect(error.message).toBe(`The stream carried events this node could not read: ${name}`);
		}
		for (const name of ['completed', 'End']) {
			for (const data of ['', ' null ']) {
				const events = [start(0, text('Hello')), `event: ${name}\ndata: ${data}\n\n`];
				expect(read(events).output).toBe('Hello');
			}
		}
	});

	test('a Part event past the bound on values is not read, as one that is not JSON', () => {
		const values = `[${'0,'.repeat(1_000_001)}0]`;
		const data = `{"index": 0, "delta": {"content_delta": "x", "padding": ${values}}}`;
		const error = failure([start(0, text('Hello')), sse('PartDeltaEvent', data), sse('End', {})]);
		expect(error.failure).toBe('unreadable');
	});

	test("a delta without text, of a kind the node knows or not (a citation's link), carries none", () => {
		const events = [
			start(0, text('Hello')),
			sse('PartDeltaEvent', { index: 0, delta: { part_delta_kind: 'citation', url: 'x' } }),
			sse('PartDeltaEvent', { index: 0, delta: { part_delta_kind: 'text' } }),
			delta(0, ' world', 'text'),
			sse('completed', COMPLETED),
		];
		expect(read(events).output).toBe('Hello world');
	});

	/** The stream read as the node reads it, the names it noted told; its answer or failure. */
	function noted(events: string[]) {
		const unknown: string[] = [];
		const unreadable: string[] = [];
		const deltas: string[] = [];
		let output: unknown;
		let caught: StreamAnswerError | undefined;
		try {
			output = readAnswerFromChunks([events.join('')], {
				structured: false,
				onText: (piece) => deltas.push(piece),
				onUnknownEvent: (name) => unknown.push(name),
				onUnreadableEvent: (name) => unreadable.push(name),
			}).output;
		} catch (error) {
			caught = error as StreamAnswerError;
		}
		return { output, caught, unknown, unreadable, deltas };
	}

	test('text in a delta of a kind the node does not know, in a text part: the answer is not read whole from the stream, and the kind is named', () => {
		for (const zmid of [undefined, 'r1']) {
			const metadata = zmid ? { metadata: { zmid } } : {};
			const { caught, unknown, unreadable, deltas } = noted([
				sse('PartStartEvent', { index: 0, part: text('The '), ...metadata }),
				sse('PartDeltaEvent', {
					index: 0,
					delta: { part_delta_kind: 'output_text', content_delta: 'answer is 42.' },
					...metadata,
				}),
				delta(0, ' More.', 'text'),
				sse('completed', COMPLETED),
			]);
			expect(caught?.failure).toBe('unreadable');
			expect(caught?.message).toBe(
				'The stream carried events this node could not read: PartDeltaEvent (part_delta_kind output_text)',
			);
			expect(unreadable).toEqual(['PartDeltaEvent (part_delta_kind output_text)']);
			expect(unknown).toEqual([]);
			// Nothing more went out once a piece could be missing: the conversation goes on from it.
			expect(deltas).toEqual(['The ']);
		}
	});

	test('text in a delta of an unknown kind for a part never seen may be the answer too: not read whole', () => {
		const { caught } = noted([
			sse('PartStartEvent', { index: 0, part: thinking('Hmm.') }),
			sse('PartDeltaEvent', {
				index: 1,
				delta: { part_delta_kind: 'output_text', content_delta: 'Forty-two.' },
			}),
			sse('completed', COMPLETED),
		]);
		expect(caught?.failure).toBe('unreadable');
	});

	test('the same in the part of another response (a tool ran, or another zmid): not known to be no text', () => {
		const tool = sse('FunctionToolCallEvent', {
			part: { part_kind: 'tool-call', tool_name: 'bash', args: '{}', tool_call_id: 'c1' },
		});
		const unknownDelta = (zmid: string) =>
			sse('PartDeltaEvent', {
				index: 0,
				delta: { part_delta_kind: 'output_text', content_delta: 'Done.' },
				metadata: { zmid },
			});
		const thinkingStart = sse('PartStartEvent', {
			index: 0,
			part: thinking('Plan.'),
			metadata: { zmid: 'r1' },
		});
		// Parts that named no response, then a delta that names one at an index they used: the
		// first of another message, as a Part event of a known kind would be.
		const unnamedThinking = sse('PartStartEvent', { index: 0, part: thinking('Plan.') });
		for (const events of [
			[thinkingStart, tool, unknownDelta('r1')],
			[thinkingStart, unknownDelta('r2')],
			[unnamedThinking, unknownDelta('r1')],
		]) {
			expect(noted([...events, sse('completed', COMPLETED)]).caught?.failure).toBe('unreadable');
		}
	});

	test('text in a delta of an unknown kind in a thinking or tool part: named, and the answer read without it', () => {
		const { output, unknown, unreadable } = noted([
			sse('PartStartEvent', { index: 0, part: thinking('Let me see.') }),
			sse('PartDeltaEvent', {
				index: 0,
				delta: { part_delta_kind: 'reasoning', content_delta: ' Hmm.' },
			}),
			sse('PartStartEvent', { index: 1, part: text('Forty-two.') }),
			sse('PartDeltaEvent', { index: 1, delta: { part_delta_kind: 'citation', url: 'x' } }),
			sse('completed', COMPLETED),
		]);
		expect(output).toBe('Forty-two.');
		expect(unknown).toEqual([
			'PartDeltaEvent (part_delta_kind reasoning)',
			'PartDeltaEvent (part_delta_kind citation)',
		]);
		expect(unreadable).toEqual([]);
	});

	test('a part of a kind the node does not know is no answer text and is named; a service that renamed its text parts says so', () => {
		const cited = noted([
			sse('PartStartEvent', { index: 0, part: { part_kind: 'citation', content: 'a source' } }),
			sse('PartStartEvent', { index: 1, part: text('Forty-two.') }),
			snapshot({ part_kind: 'citation', content: 'a source' }, text('Forty-two.')),
			sse('PartEndEvent', { index: 2, part: { part_kind: 'annotation', content: 'x' } }),
			sse('completed', COMPLETED),
		]);
		expect(cited.output).toBe('Forty-two.');
		expect(cited.unknown).toEqual([
			'PartStartEvent (part_kind citation)',
			'FrontendModelResponse (part_kind citation)',
			'PartEndEvent (part_kind annotation)',
		]);
		// pydantic-ai's kinds, and a part that names none, are known.
		const kinds = ['thinking', 'tool-call', 'builtin-tool-call', 'builtin-tool-return', 'file'];
		const quiet = noted([
			...kinds.map((kind, index) => sse('PartStartEvent', { index, part: { part_kind: kind } })),
			sse('PartEndEvent', { index: 5, part: { content: 'Forty-two.' } }),
			sse('completed', COMPLETED),
		]);
		expect(quiet.unknown).toEqual([]);
		const renamed = noted([
			sse('PartStartEvent', { index: 0, part: { part_kind: 'output', content: 'The ' } }),
			sse('PartDeltaEvent', {
				index: 0,
				delta: { part_delta_kind: 'output', content_delta: 'answer.' },
			}),
			sse('completed', COMPLETED),
		]);
		expect(renamed.caught?.message).toBe(
			`${NO_ANSWER_MESSAGE}; it carried events this node does not know: PartStartEvent (part_kind output), PartDeltaEvent (part_delta_kind output)`,
		);
	});

	test('a kind the service names `unknown` is a kind it named: named too, as any other it does not know', () => {
		const { output, unknown } = noted([
			sse('PartStartEvent', { index: 0, part: { part_kind: 'unknown', content: 'a source' } }),
			sse('PartStartEvent', { index: 1, part: text('Forty-two.') }),
			snapshot({ part_kind: 'unknown', content: 'a source' }, text('Forty-two.')),
			sse('PartDeltaEvent', { index: 0, delta: { part_delta_kind: 'unknown' } }),
			sse('completed', COMPLETED),
		]);
		expect(output).toBe('Forty-two.');
		expect(unknown).toEqual([
			'PartStartEvent (part_kind unknown)',
			'FrontendModelResponse (part_kind unknown)',
			'PartDeltaEvent (part_delta_kind unknown)',
		]);
		// Text told as a delta of that kind in the answer's part: the answer may lack it.
		const inText = noted([
			sse('PartStartEvent', { index: 0, part: text('Forty') }),
			sse('PartDeltaEvent', {
				index: 0,
				delta: { part_delta_kind: 'unknown', content_delta: '-two.' },
			}),
			sse('completed', COMPLETED),
		]);
		expect(inText.caught?.failure).toBe('unreadable');
		expect(inText.caught?.message).toContain('PartDeltaEvent (part_delta_kind unknown)');
	});

	test('a runtime chunk of a type the node does not know is named by its type, its data never read', () => {
		const runtime = (fields: object) => sse('AgentRuntimeStreamChunk', fields);
		const known = noted([
			runtime({ type: 'status', status: 'dispatching', error: null }),
			runtime({ type: 'persisted', data: { message_id: 'm1' } }),
			sse('PartStartEvent', { index: 0, part: text('Forty-two.') }),
			sse('completed', COMPLETED),
		]);
		expect(known).toMatchObject({ output: 'Forty-two.', unknown: [] });
		const renamed = noted([
			runtime({ type: 'status', status: 'dispatching' }),
			// Python-spaced, as json.dumps writes it; its other fields are never looked at.
			sse('AgentRuntimeStreamChunk', '{"type": "delta", "delta": "PRIVATE words", "error": null}'),
			runtime({ type: 'delta', delta: 'more' }),
			runtime({ type: '<b>not a name</b>' }),
			sse('completed', COMPLETED),
		]);
		expect(renamed.caught?.message).toBe(
			`${NO_ANSWER_MESSAGE}; it carried events this node does not know: AgentRuntimeStreamChunk (type delta)`,
		);
		expect(renamed.unknown).toEqual(['AgentRuntimeStreamChunk (type delta)']);
		expect(JSON.stringify(renamed)).not.toContain('PRIVATE');
	});

	test('a kind is shown as an event name is: printable, cut', () => {
		const kind = `bad\u202ekind${'x'.repeat(200)}`;
		const { unknown } = noted([
			sse('PartStartEvent', { index: 0, part: { part_kind: kind } }),
			sse('PartStartEvent', { index: 1, part: text('Hi.') }),
			sse('completed', COMPLETED),
		]);
		expect(unknown).toHaveLength(1);
		expect(unknown[0]).toMatch(/^PartStartEvent \(part_kind bad\?kindx+…\)$/);
		expect(unknown[0].length).toBeLessThan(120);
	});
});

describe('bytes split anywhere (docs/api.md#streams)', () => {
	const wire = [
		': keep-alive\n\n',
		start(0, text('Bonjour, ')),
		delta(0, 'café — '),
		snapshot(text('Bonjour, café — ')),
		content('Bonjour, café — voilà 😀'),
		sse('End', { data: { conversation_id: 'conv_1' } }),
	].join('');

	for (const [name, body] of [
		['\\n', wire],
		['\\r\\n', wire.replace(/\n/g, '\r\n')],
	] as const) {
		test(`the same answer whatever byte the stream is cut at (${name} line endings)`, () => {
			const bytes = Buffer.from(body, 'utf8');
			for (let cut = 0; cut <= bytes.length; cut++) {
				const deltas: string[] = [];
				const result = readAnswerFromChunks([bytes.subarray(0, cut), bytes.subarray(cut)], {
					structured: false,
					onText: (piece) => deltas.push(piece),
				});
				expect(result).toEqual({ output: 'Bonjour, café — voilà 😀', conversationId: 'conv_1' });
				expect(deltas.join('')).toBe('Bonjour, café — voilà 😀');
			}
		});
	}

	test('byte by byte, multi-byte characters split across chunks', () => {
		const chunks = Array.from(Buffer.from(wire, 'utf8'), (byte) => Uint8Array.of(byte));
		expect(readAnswerFromChunks(chunks, { structured: false }).output).toBe(
			'Bonjour, café — voilà 😀',
		);
	});
});

describe('a structured answer after a tool round, in content deltas (which begin no message)', () => {
	const sseOf = (event: string, data: unknown) =>
		`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
	const toolCall = sseOf('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { part_kind: 'tool-call', tool_name: 'bash', args: '{"cmd": "ls"}', tool_call_id: 'c0' },
	});
	const round = [
		sseOf('FunctionToolCallEvent', {
			part: { part_kind: 'tool-call', tool_name: 'bash', args: '{}', tool_call_id: 'c0' },
		}),
		sseOf('FunctionToolResultEvent', {
			result: { part_kind: 'tool-return', tool_name: 'bash', content: 'ok', tool_call_id: 'c0' },
		}),
	];
	const content = (text: string) => sseOf('FrontendModelResponse', { content: text });
	const end = sseOf('End', {});

	test("the next message's object sent as `content` deltas after a tool round is the answer", () => {
		// A text ask reads the same stream's last message as the object's text.
		expect(
			readAnswerFromChunks([toolCall, ...round, content('{"rating": 1}'), end], {
				structured: false,
			}).output,
		).toBe('{"rating": 1}');
		expect(
			readAnswerFromChunks([toolCall, ...round, content('{"rating": 1}'), end], {
				structured: true,
			}).output,
		).toEqual({ rating: 1 });
		// Documented dialect alone (content only) around the tool round.
		expect(
			readAnswerFromChunks([content('Let me look. '), ...round, content('{"rating": 2}'), end], {
				structured: true,
			}).output,
		).toEqual({ rating: 2 });
	});
});

describe('an output-tool part started again as another kind (docs/api.md#assembling-the-answer, rule 3)', () => {
	// Once part 0 is started again as text in the same response, the message holds no output-tool
	// call: its answer is the text's object, with steps or without.
	const start = (index: number, part: object) =>
		sse('PartStartEvent', { event_kind: 'part_start', index, part, metadata: { zmid: 'z1' } });
	const call = { part_kind: 'tool-call', tool_name: 'final_result', args: '{"a": 1}' };
	const completed = sse('completed', { status: 'succeeded', error: null });
	const structured = (events: string[], steps?: { thinking: boolean }) =>
		readAnswerFromChunks([events.join('')], { structured: true, steps }).output;

	test.each([
		['without steps', undefined],
		['with steps', { thinking: true }],
	])('%s: the object is that of the text part that replaced the call', (_, steps) => {
		const events = [
			start(0, call),
			start(0, { part_kind: 'text', content: '{"a": 2}' }),
			completed,
		];
		expect(structured(events, steps)).toEqual({ a: 2 });
	});

	test('started again as thinking, the text at the next index is the answer', () => {
		const events = [
			start(0, call),
			start(0, { part_kind: 'thinking', content: 'hmm' }),
			start(1, { part_kind: 'text', content: '{"a": 2}' }),
			completed,
		];
		expect(structured(events)).toEqual({ a: 2 });
	});
});

describe('a structured answer after a prose brace (docs/api.md#structured-output-in-a-stream, 3)', () => {
	// A brace in the prose hides no object after it, a quote after the brace too; the stream's
	// text is read by the same rule as any text.
	test.each([
		'The "{" character opens an object: {"a": 1}',
		'Type {" to start a key. {"a": 1}',
		'The key {"name} is wrong. {"a": 1}',
	])('%j gives {"a": 1}', (text) => {
		const events = [
			sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: text } }),
			sse('completed', { status: 'succeeded', error: null }),
		];
		expect(readAnswerFromChunks([events.join('')], { structured: true }).output).toEqual({ a: 1 });
	});
});
