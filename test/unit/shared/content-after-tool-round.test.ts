/**
 * docs/api.md#assembling-the-answer, rule 3: "`content` deltas carry no message boundary"; once
 * the current message's last part is a tool call, "Text that arrives only as `content` after the
 * tool call is held until then, and belongs to that next message" (until Part events or a
 * snapshot open it, or until `End`), and "Every piece of answer text counts exactly once." (field notes:
 * "every piece counts exactly once"; the three sources may come "in any mix").
 *
 * A turn whose first model response (text, then a tool call) is told by 2026 Part events and whose
 * answer after the tool round comes only as `FrontendModelResponse.content`: the answer after the
 * round was lost (the item's output and the streamed pieces stopped at "Let me check."), and
 * then, after a first fix, an answer that began with the same words as the text before the round.
 */
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const metadata = (zmid: string) => ({ zmid, runner_id: 'r-1' });
const call = {
	args: '',
	id: 'fc_1',
	part_kind: 'tool-call',
	tool_call_id: 'call_1',
	tool_name: 'bash',
};
const FIRST_RESPONSE = [
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { content: 'Let me check.', id: null, part_kind: 'text' },
		previous_part_kind: null,
		metadata: metadata('z1'),
	}),
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 1,
		part: call,
		previous_part_kind: 'text',
		metadata: metadata('z1'),
	}),
];
const ROUND = [
	sse('FunctionToolCallEvent', {
		args_valid: true,
		event_kind: 'function_tool_call',
		part: { ...call, args: '{"cmd": "ls"}' },
	}),
	sse('FunctionToolResultEvent', {
		content: null,
		event_kind: 'function_tool_result',
		result: {
			content: 'a.txt',
			outcome: 'success',
			part_kind: 'tool-return',
			tool_call_id: 'call_1',
			tool_name: 'bash',
		},
	}),
];
const ENDS: Array<[string, string]> = [
	[
		'completed',
		sse('completed', {
			status: 'succeeded',
			error: null,
			runner_id: null,
			error_type: null,
			failure_owner: null,
			failure_kind: null,
		}),
	],
	['End', sse('End', {})],
	['End nested', sse('End', { data: { conversation_id: 'con_abc' } })],
];

describe.each([undefined, { thinking: true }])('steps %p', (steps) => {
	test.each(ENDS)(
		'the answer after the round told only as content, then %s: that answer counts',
		(_name, end) => {
			const pieces: string[] = [];
			const got = readAnswerFromChunks(
				[
					...FIRST_RESPONSE,
					...ROUND,
					sse('FrontendModelResponse', { content: 'There is ' }),
					sse('FrontendModelResponse', { content: 'one file: a.txt.' }),
					end,
				],
				{ structured: false, steps, onText: (piece) => pieces.push(piece) },
			);
			expect(got.output).toBe('Let me check.\n\nThere is one file: a.txt.');
			expect(pieces.join('')).toBe('Let me check.\n\nThere is one file: a.txt.');
		},
	);
});

/**
 * The answer after the round may begin as the text before it did: content deltas carry no
 * message boundary, so a first delta that agrees with the turn's start could be that text told
 * again or the next message's. Review of ad87067: read as the first, the answer was lost ("I"
 * then " found…") or lost its start ("Let me check. " then "Found a.txt.").
 */
const firstResponse = (text: string) => [
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { content: text, id: null, part_kind: 'text' },
		previous_part_kind: null,
		metadata: metadata('z1'),
	}),
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 1,
		part: call,
		previous_part_kind: 'text',
		metadata: metadata('z1'),
	}),
];

test.each([
	['same first word', 'I will check.', ['I', ' found one file: a.txt.']],
	['repeats the first message', 'Let me check.', ['Let me check. ', 'Found a.txt.']],
])('answer after the round told only as content, %s: it counts whole', (_n, first, deltas) => {
	const pieces: string[] = [];
	const got = readAnswerFromChunks(
		[
			...firstResponse(first),
			...ROUND,
			...deltas.map((content) => sse('FrontendModelResponse', { content })),
			ENDS[0][1],
		],
		{ structured: false, onText: (piece) => pieces.push(piece) },
	);
	const expected = `${first}\n\n${deltas.join('')}`;
	expect(got.output).toBe(expected);
	expect(pieces.join('')).toBe(expected);
});

test.each([
	[
		'the text before the round told again, to its end, then the answer',
		[...firstResponse('Let me check.'), ...ROUND, c('Let me check.'), c('Found a.txt.')],
		'Let me check.\n\nFound a.txt.',
	],
	[
		'after two rounds, beginning as the first message did',
		[
			...firstResponse('I will check.'),
			...ROUND,
			...secondResponse('I looked.'),
			...ROUND,
			c('I'),
			c(' found it.'),
		],
		'I will check.\n\nI looked.\n\nI found it.',
	],
	[
		'after two rounds, the first message told again before it',
		[
			...firstResponse('I will check.'),
			...ROUND,
			...secondResponse('I looked.'),
			...ROUND,
			c('I will check.'),
			c('I'),
			c(' found it.'),
		],
		'I will check.\n\nI looked.\n\nI found it.',
	],
	[
		'the first message told live, then the answer beginning as it did',
		[c('I will check.'), ...firstResponse('I will check.'), ...ROUND, c('I'), c(' found it.')],
		'I will check.\n\nI found it.',
	],
])('content after a tool round, %s: every piece once', (_n, chunks, expected) => {
	const pieces: string[] = [];
	const got = readAnswerFromChunks([...chunks, ENDS[0][1]], {
		structured: false,
		onText: (piece) => pieces.push(piece),
	});
	expect(got.output).toBe(expected);
	expect(pieces.join('')).toBe(expected);
});

function c(content: string): string {
	return sse('FrontendModelResponse', { content });
}

function secondResponse(text: string): string[] {
	return firstResponse(text).map((chunk) => chunk.replace(/"zmid":"z1"/g, '"zmid":"z2"'));
}

describe('content that tells the open message from its start, after Part events that told it (review of the both-readings fix)', () => {
	const metadata = (zmid: string) => ({ zmid, runner_id: 'r-1' });
	const call = {
		args: '',
		id: 'fc_1',
		part_kind: 'tool-call',
		tool_call_id: 'call_1',
		tool_name: 'bash',
	};
	const text = (zmid: string, content: string, index = 0) =>
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index,
			part: { content, id: null, part_kind: 'text' },
			metadata: metadata(zmid),
		});
	const ROUND = [
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index: 1,
			part: call,
			metadata: metadata('z1'),
		}),
		sse('FunctionToolCallEvent', {
			args_valid: true,
			event_kind: 'function_tool_call',
			part: { ...call, args: '{}' },
		}),
		sse('FunctionToolResultEvent', {
			event_kind: 'function_tool_result',
			result: {
				content: 'a.txt',
				outcome: 'success',
				part_kind: 'tool-return',
				tool_call_id: 'call_1',
				tool_name: 'bash',
			},
		}),
	];
	const c = (content: string) => sse('FrontendModelResponse', { content });
	const END = sse('completed', { status: 'succeeded' });

	test('content that begins with the open message, which begins as the message before the round did: its end beyond the Part events counts', () => {
		const pieces: string[] = [];
		const got = readAnswerFromChunks(
			[
				text('z1', 'Let me check.'),
				...ROUND,
				text('z2', 'Let me check.'),
				c('Let me check. Found a.txt.'),
				END,
			],
			{ structured: false, onText: (piece) => pieces.push(piece) },
		);
		const expected = 'Let me check.\n\nLet me check. Found a.txt.';
		expect(got.output).toBe(expected);
		expect(pieces.join('')).toBe(expected);
	});
});

describe('content that told part of the response before its tool call, lagging behind the Part events: it goes on where it stood, never the next response', () => {
	// The Part events tell "Let me check." and the tool call; the content deltas tell the same
	// text one piece behind: " check." comes after the tool-call part started.
	const metadata = (zmid: string) => ({ zmid, runner_id: 'r-1' });
	const call = { args: '', part_kind: 'tool-call', tool_call_id: 'call_1', tool_name: 'bash' };
	const FIRST = [
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index: 0,
			part: { content: 'Let me', part_kind: 'text' },
			metadata: metadata('z1'),
		}),
		c('Let me'),
		sse('PartDeltaEvent', {
			delta: { content_delta: ' check.', part_delta_kind: 'text' },
			event_kind: 'part_delta',
			index: 0,
			metadata: metadata('z1'),
		}),
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index: 1,
			part: call,
			metadata: metadata('z1'),
		}),
		c(' check.'),
		sse('FunctionToolCallEvent', {
			args_valid: true,
			part: { ...call, args: '{}' },
			metadata: metadata('z1'),
		}),
		sse('FunctionToolResultEvent', {
			content: null,
			result: {
				content: 'ok',
				outcome: 'success',
				part_kind: 'tool-return',
				tool_call_id: 'call_1',
				tool_name: 'bash',
			},
			metadata: metadata('z1'),
		}),
	];
	const THINKING = sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { content: 'hm', part_kind: 'thinking' },
		metadata: metadata('z2'),
	});

	test.each([
		['the run completes right after the round', [...FIRST], 'Let me check.'],
		['the response after the round only thinks', [...FIRST, THINKING], 'Let me check.'],
		[
			'the response after the round thinks, then writes "Done." as content',
			[...FIRST, THINKING, c('Done.')],
			'Let me check.\n\nDone.',
		],
	])('%s: every piece once', (_n, chunks, expected) => {
		const pieces: string[] = [];
		const got = readAnswerFromChunks([...chunks, ENDS[0][1]], {
			structured: false,
			onText: (piece) => pieces.push(piece),
		});
		expect(got.output).toBe(expected);
		expect(pieces.join('')).toBe(expected);
	});
});
