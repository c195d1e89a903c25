/**
 * docs/api.md#assembling-the-answer, rule 3: "`content` deltas carry no message boundary:
 * once the current message's last part is a tool call, text that arrives only as `content` is
 * held until Part events or a snapshot open the next message (or until `End`), and then belongs
 * to that next message." and "Every piece of answer text counts exactly once." (field notes:
 * "every piece counts exactly once"; the three sources may come "in any mix").
 *
 * A turn whose first model response (text, then a tool call) is told by 2026 Part events and whose
 * answer after the tool round comes only as `FrontendModelResponse.content`: the answer after the
 * round is lost, the item's output and the streamed pieces stop at "Let me check.".
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
