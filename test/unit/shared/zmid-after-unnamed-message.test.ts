/**
 * docs/api.md#assembling-the-answer: "Every piece of answer text counts exactly once."
 * and rule 3 (a message of another model response begins a new message; "part indexes start again
 * at 0 in each message"); field notes: the sources come "in any mix", "every piece counts exactly
 * once".
 *
 * A first model response told in the live dialect (no `metadata.zmid`: Part events, or its
 * snapshot) that ended in a builtin tool call, then the next response in the 2026 dialect
 * (`metadata.zmid`, part indexes from 0 again). The next response's text was lost: the output
 * and the streamed pieces stopped at the first response's.
 */
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const COMPLETED = sse('completed', { status: 'succeeded', error: null });
const metadata = { zmid: 'ya78zk76dv1h', runner_id: 'r-1' };
const builtinCall = {
	part_kind: 'builtin-tool-call',
	tool_name: 'web_search',
	args: { q: 'weather' },
	tool_call_id: 'b1',
};
const NEXT_RESPONSE = [
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { content: 'It is', id: null, part_kind: 'text' },
		previous_part_kind: null,
		metadata,
	}),
	sse('PartDeltaEvent', {
		delta: { content_delta: ' sunny.', part_delta_kind: 'text' },
		event_kind: 'part_delta',
		index: 0,
		metadata,
	}),
	COMPLETED,
];

const FIRST: Array<[string, string[]]> = [
	[
		'live Part events',
		[
			sse('PartStartEvent', {
				index: 0,
				part: { part_kind: 'text', content: 'Let me look that up.' },
			}),
			sse('PartStartEvent', { index: 1, part: builtinCall }),
		],
	],
	[
		'a live snapshot',
		[
			sse('FrontendModelResponse', {
				parts: [{ part_kind: 'text', content: 'Let me look that up.' }, builtinCall],
			}),
		],
	],
];

describe.each([undefined, { thinking: true }])('steps %p', (steps) => {
	test.each(FIRST)(
		'first response told by %s, the next by 2026 Part events: both texts count',
		(_name, first) => {
			const pieces: string[] = [];
			const got = readAnswerFromChunks([...first, ...NEXT_RESPONSE], {
				structured: false,
				steps,
				onText: (piece) => pieces.push(piece),
			});
			expect(got.output).toBe('Let me look that up.\n\nIt is sunny.');
			expect(pieces.join('')).toBe('Let me look that up.\n\nIt is sunny.');
		},
	);
});

describe('the first zmid after a message that named none', () => {
	const read = (events: string[]) => {
		const pieces: string[] = [];
		const got = readAnswerFromChunks(events, {
			structured: false,
			onText: (piece) => pieces.push(piece),
		});
		expect(pieces.join('')).toBe(got.output);
		return got.output;
	};
	const thinking = sse('PartStartEvent', {
		index: 0,
		part: { part_kind: 'thinking', content: 'Sunny, says the search.' },
		metadata,
	});
	const text = (index: number, content: string) =>
		sse('PartStartEvent', { index, part: { part_kind: 'text', content }, metadata });

	test('after a snapshot with a tool call, a next response that opens with thinking is a new message', () => {
		const snapshot = sse('FrontendModelResponse', {
			parts: [{ part_kind: 'text', content: 'Let me look that up.' }, builtinCall],
		});
		expect(read([snapshot, thinking, text(1, 'It is sunny.'), COMPLETED])).toBe(
			'Let me look that up.\n\nIt is sunny.',
		);
	});

	test('after a snapshot without a tool call, text that would replace its text is a new message', () => {
		const snapshot = sse('FrontendModelResponse', {
			parts: [{ part_kind: 'text', content: 'Let me look that up.' }],
		});
		expect(read([snapshot, text(0, 'It is sunny.'), COMPLETED])).toBe(
			'Let me look that up.\n\nIt is sunny.',
		);
	});

	test('a snapshot, then the same response named by its Part events: one message, each piece once', () => {
		const snapshot = sse('FrontendModelResponse', {
			parts: [
				{ part_kind: 'thinking', content: 'Sunny' },
				{ part_kind: 'text', content: 'It is' },
			],
		});
		expect(read([snapshot, thinking, text(1, 'It is sunny.'), COMPLETED])).toBe('It is sunny.');
	});

	test('after live Part events without a tool call, a part at a new index goes on in the message', () => {
		const live = sse('PartStartEvent', { index: 0, part: { part_kind: 'text', content: 'It is' } });
		expect(read([live, text(1, ' sunny.'), COMPLETED])).toBe('It is sunny.');
	});
});
