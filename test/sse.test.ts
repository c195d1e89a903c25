import {
	createAssistantStreamDecoder,
	parseAssistantStream,
	StreamAnswerAssembler,
	type AssistantStreamEvent,
} from '../nodes/Assistant/sse';

function sse(event: string, data: unknown): string {
	return `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** A stream with every shape from the field notes: parts, comments, unknown events, emoji. */
const RECORDED = [
	': keep-alive\n\n',
	sse('PartStartEvent', { index: 0 }),
	sse('FrontendModelResponse', { content: 'Bonjour, ' }),
	sse('FrontendModelResponse', {
		parts: [
			{ part_kind: 'thinking', content: 'hmm' },
			{ part_kind: 'text', content: 'café — ' },
		],
	}),
	sse('PartDeltaEvent', { delta: 'x' }),
	sse('FrontendModelResponse', { content: 'voilà 😀' }),
	sse('PartEndEvent', {}),
	sse('End', { conversation_id: 'conv_1' }),
].join('');

const EXPECTED: AssistantStreamEvent[] = [
	{ type: 'text', content: 'Bonjour, ' },
	{ type: 'text', content: 'café — ' },
	{ type: 'text', content: 'voilà 😀' },
	{ type: 'end', conversationId: 'conv_1' },
];

function decodeAll(chunks: Array<Uint8Array | string>): AssistantStreamEvent[] {
	const events: AssistantStreamEvent[] = [];
	const decoder = createAssistantStreamDecoder((event) => events.push(event));
	for (const chunk of chunks) decoder.push(chunk);
	decoder.finish();
	return events;
}

describe('SSE decoding', () => {
	for (const [name, text] of [
		['\\n', RECORDED],
		['\\r\\n', RECORDED.replace(/\n/g, '\r\n')],
	] as const) {
		test(`the same events whatever byte the stream is split at (${name} line endings)`, () => {
			const bytes = Buffer.from(text, 'utf8');
			expect(decodeAll([bytes])).toEqual(EXPECTED);
			for (let cut = 1; cut < bytes.length; cut++) {
				expect(decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(EXPECTED);
			}
		});
	}

	test('byte by byte, multi-byte characters split across every chunk', () => {
		const bytes = Buffer.from(RECORDED, 'utf8');
		const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
		expect(decodeAll(chunks)).toEqual(EXPECTED);
	});

	test('Error events carry the server message; non-JSON error data is used as is', () => {
		expect(decodeAll([sse('Error', { message: 'Model provider overloaded' })])).toEqual([
			{ type: 'error', message: 'Model provider overloaded' },
		]);
		expect(decodeAll([sse('Error', 'plain words')])).toEqual([
			{ type: 'error', message: 'plain words' },
		]);
	});

	test('End with output (structured) and End as {}', () => {
		expect(decodeAll([sse('End', { output: { a: 1 } }), sse('End', {})])).toEqual([
			{ type: 'end', output: { a: 1 } },
			{ type: 'end' },
		]);
	});

	test('a FrontendModelResponse whose data is not JSON is reported, not swallowed', () => {
		const [event] = decodeAll([sse('FrontendModelResponse', '<html>')]);
		expect(event).toEqual({
			type: 'error',
			message: expect.stringContaining('Malformed FrontendModelResponse'),
		});
	});

	test('an event cut off without its blank line is dropped', () => {
		expect(decodeAll(['event: FrontendModelResponse\ndata: {"content":"x"}'])).toEqual([]);
	});

	test('parseAssistantStream over an async byte source', async () => {
		async function* source() {
			const bytes = Buffer.from(RECORDED, 'utf8');
			for (let at = 0; at < bytes.length; at += 7) yield bytes.subarray(at, at + 7);
		}
		const events: AssistantStreamEvent[] = [];
		for await (const event of parseAssistantStream(source())) events.push(event);
		expect(events).toEqual(EXPECTED);
	});
});

describe('assembling the answer', () => {
	function assemble(events: AssistantStreamEvent[], structured = false) {
		const assembler = new StreamAnswerAssembler(structured);
		for (const event of events) if (!assembler.accept(event)) break;
		return assembler;
	}

	test('text chunks join in order; the End conversation id is kept', () => {
		const assembler = assemble(EXPECTED);
		expect(assembler.complete).toBe(true);
		expect(assembler.result()).toEqual({
			output: 'Bonjour, café — voilà 😀',
			conversationId: 'conv_1',
		});
	});

	test('End.output that repeats the text (seen in the wild) does not double it', () => {
		const assembler = assemble([
			{ type: 'text', content: 'Hi' },
			{ type: 'end', output: 'Hi' },
		]);
		expect(assembler.result().output).toBe('Hi');
	});

	test('End.output is the answer when only it carries text', () => {
		expect(assemble([{ type: 'end', output: 'whole answer' }]).result().output).toBe(
			'whole answer',
		);
	});

	test('structured output comes from End.output', () => {
		const assembler = assemble([{ type: 'end', output: { summary: 'ok' } }], true);
		expect(assembler.result().output).toEqual({ summary: 'ok' });
	});

	test('structured output missing from End is an error', () => {
		expect(() => assemble([{ type: 'end' }], true).result()).toThrow(/structured output/);
	});

	test('a stream without End is not complete; an Error event stops it', () => {
		expect(assemble([{ type: 'text', content: 'partial' }]).complete).toBe(false);
		const failed = assemble([
			{ type: 'text', content: 'partial' },
			{ type: 'error', message: 'boom' },
			{ type: 'end' },
		]);
		expect(failed.complete).toBe(false);
		expect(failed.errorMessage).toBe('boom');
	});
});
