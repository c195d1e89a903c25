/**
 * Mixes of snapshots, Part events and content deltas around a tool round
 * (docs/api.md#assembling-the-answer: every piece once; successive messages joined by a blank line).
 */
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const COMPLETED = sse('completed', { status: 'succeeded', error: null });
const call = { part_kind: 'tool-call', tool_name: 'search_mail', args: '{}', tool_call_id: 'c1' };
const result = { part_kind: 'tool-return', tool_name: 'search_mail', tool_call_id: 'c1' };
const start = (index: number, part: unknown, zmid?: string) =>
	sse('PartStartEvent', zmid ? { index, part, metadata: { zmid } } : { index, part });

function read(events: string[], steps?: { thinking: boolean }) {
	const pieces: string[] = [];
	const got = readAnswerFromChunks(events, {
		structured: false,
		steps,
		onText: (piece) => pieces.push(piece),
	});
	return { output: got.output, pieces: pieces.join('') };
}

const ROUND = [
	sse('FunctionToolCallEvent', { part: call }),
	sse('FunctionToolResultEvent', { result }),
];

describe.each([undefined, { thinking: true }])('steps %p', (steps) => {
	it('Part events tell the first response (thinking, text, a tool call); after the round a snapshot tells its thinking and text again: that text once, then the next response', () => {
		const events = [
			start(0, { part_kind: 'thinking', content: 'Look.' }, 'z1'),
			start(1, { part_kind: 'text', content: 'Let me check.' }, 'z1'),
			start(2, call, 'z1'),
			...ROUND,
			sse('FrontendModelResponse', {
				parts: [
					{ part_kind: 'thinking', content: 'Look.' },
					{ part_kind: 'text', content: 'Let me check.' },
				],
			}),
			start(0, { part_kind: 'text', content: 'No new mail.' }, 'z2'),
			COMPLETED,
		];
		const got = read(events, steps);
		expect(got.output).toBe('Let me check.\n\nNo new mail.');
		expect(got.pieces).toBe('Let me check.\n\nNo new mail.');
	});

	it('content deltas carry every piece; a snapshot retells the first response after the round: the next response is its own message', () => {
		const events = [
			start(0, { part_kind: 'text', content: 'Let me check.' }, 'z1'),
			sse('FrontendModelResponse', { content: 'Let me check.' }),
			start(1, call, 'z1'),
			...ROUND,
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Let me check.' }] }),
			sse('FrontendModelResponse', { content: 'No new mail.' }),
			COMPLETED,
		];
		const got = read(events, steps);
		expect(got.output).toBe('Let me check.\n\nNo new mail.');
		expect(got.pieces).toBe('Let me check.\n\nNo new mail.');
	});

	it('the next response, told by snapshots, opens with a shorter text than the first: it is not the first told again', () => {
		const events = [
			start(0, { part_kind: 'text', content: 'Checking.' }),
			start(1, call),
			...ROUND,
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Checking' }] }),
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Checking.' }] }),
			sse('FrontendModelResponse', {
				parts: [{ part_kind: 'text', content: 'Checking. 3 new mails.' }],
			}),
			COMPLETED,
		];
		const got = read(events, steps);
		expect(got.output).toBe('Checking.\n\nChecking. 3 new mails.');
	});
});

describe.each([undefined, { thinking: true }])('snapshots only, steps %p', (steps) => {
	it('a snapshot told the first response with its tool call; after the round one tells its text again without it: that text once', () => {
		const events = [
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Let me check.' }] }),
			sse('FrontendModelResponse', {
				parts: [{ part_kind: 'text', content: 'Let me check.' }, call],
			}),
			...ROUND,
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Let me check.' }] }),
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'No new mail.' }] }),
			COMPLETED,
		];
		const got = read(events, steps);
		expect(got.output).toBe('Let me check.\n\nNo new mail.');
		expect(got.pieces).toBe('Let me check.\n\nNo new mail.');
	});

	describe('a snapshot once per message, with tool call ids that restart (bash:0 in each)', () => {
		const bash = (cmd: string) => ({
			part_kind: 'tool-call',
			tool_name: 'bash',
			args: JSON.stringify({ cmd }),
			tool_call_id: 'bash:0',
		});
		const snapshot = (text: string, cmd: string) =>
			sse('FrontendModelResponse', { parts: [{ part_kind: 'text', content: text }, bash(cmd)] });
		const round = (cmd: string) => [
			sse('FunctionToolCallEvent', { part: { ...bash(cmd), args: { cmd } } }),
			sse('FunctionToolResultEvent', {
				result: { part_kind: 'tool-return', tool_name: 'bash', tool_call_id: 'bash:0' },
			}),
		];
		const last = sse('FrontendModelResponse', {
			parts: [{ part_kind: 'text', content: 'Done.' }],
		});

		it('the next message says what the first said and calls bash:0 with other arguments: its own message, its text counts', () => {
			const events = [
				snapshot('Let me check.', 'ls'),
				...round('ls'),
				snapshot('Let me check.', 'cat notes.md'),
				...round('cat notes.md'),
				last,
				COMPLETED,
			];
			const got = read(events, steps);
			expect(got.output).toBe('Let me check.\n\nLet me check.\n\nDone.');
			expect(got.pieces).toBe(got.output);
		});

		it('a snapshot after the round that tells the call as it ran (its arguments as text, not an object) is the message told again', () => {
			const events = [
				snapshot('Let me check.', 'ls'),
				...round('ls'),
				snapshot('Let me check.', 'ls'),
				last,
				COMPLETED,
			];
			const got = read(events, steps);
			expect(got.output).toBe('Let me check.\n\nDone.');
			expect(got.pieces).toBe(got.output);
		});
	});
});
