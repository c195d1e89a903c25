/**
 * What a conversation says about one ask (docs/api.md#recovery-after-a-failure): taken or not,
 * and its answer as a public client reads it; when to read it again; which failures may have come
 * after the service accepted the ask; what of a recovered answer a streaming workflow still needs.
 */
import type { ConversationMessage } from '../../../nodes/shared/api';
import type { TextObjectRule } from '../../../nodes/shared/outputFormat/structuredText';
import { unsentRest } from '../../../nodes/shared/recovery/recoverAnswer';
import {
	LAST_READ_MS,
	MIN_POLL_PAUSE_MS,
	nextPollPauseMs,
} from '../../../nodes/shared/recovery/pollSchedule';
import { isAnswering, lastPromptIs, readTurn } from '../../../nodes/shared/recovery/turnReading';
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { answerMayBeInConversation } from '../../../nodes/shared/recovery/afterFailure';
import { AttemptFailure } from '../../../nodes/shared/transport/attemptFailure';
import { apiError } from '../../../nodes/shared/transport/errors';
import { statusFailure, type FailureScope } from '../../../nodes/shared/transport/failures';
import { networkFailure } from '../../../nodes/shared/transport/transportFailures';
import { fakeNode } from '../../helpers/fake-node';

const prompt = (content: unknown, kind = 'user-prompt'): ConversationMessage => ({
	kind: 'request',
	parts: [{ part_kind: kind, content }],
});
const response = (...parts: ConversationMessage['parts']): ConversationMessage => ({
	kind: 'response',
	parts,
});
const text = (content: string) => ({ part_kind: 'text', content });
const toolReturn: ConversationMessage = {
	kind: 'request',
	parts: [
		{ part_kind: 'tool-return', tool_name: 'final_result', content: 'Final result processed.' },
	],
};

describe('readTurn: was the ask taken, and what is its answer', () => {
	const earlier = [prompt('Hello'), response(text('Hi there.'))];

	it('taken: the text of every response after its prompt, joined as the stream joins its messages', () => {
		const messages = [
			...earlier,
			prompt('Mail the report'),
			response(text('Let me look.'), { part_kind: 'builtin-tool-call', tool_name: 'search' }),
			response({ part_kind: 'thinking', content: 'Hmm.' }, text('Sent.'), text(' Done: sent.')),
		];
		expect(readTurn(messages, 'Mail the report', false)).toEqual({
			kind: 'answered',
			output: 'Let me look.\n\nSent. Done: sent.',
		});
	});

	it('thinking and tool parts never; a response without text adds no blank line', () => {
		const call = { part_kind: 'tool-call', tool_name: 'search_mail', args: '{}' };
		const returned: ConversationMessage = {
			kind: 'request',
			parts: [{ part_kind: 'tool-return', tool_name: 'search_mail', content: 'a mail' }],
		};
		const messages = [
			prompt('Any mail?'),
			response({ part_kind: 'thinking', content: 'Look first.' }, call),
			returned,
			response(text('One mail,'), { part_kind: 'thinking', content: 'from whom?' }, call),
			returned,
			response(text(''), { part_kind: 'file', content: { kind: 'binary' } }),
			response(text(' from Ada.')),
		];
		expect(readTurn(messages, 'Any mail?', false)).toEqual({
			kind: 'answered',
			output: 'One mail,\n\n from Ada.',
		});
	});

	it('the prompt as a `text` part, or as a list of pieces, with other line endings and spaces', () => {
		expect(
			readTurn(
				[prompt('Line one\r\nline two ', 'text'), response(text('A'))],
				'Line one\nline two',
				false,
			),
		).toEqual({ kind: 'answered', output: 'A' });
		expect(
			readTurn(
				[prompt(['Part one, ', 'part two']), response(text('B'))],
				'Part one, part two',
				false,
			),
		).toEqual({ kind: 'answered', output: 'B' });
	});

	it('tool returns after the prompt are requests too, but carry no prompt', () => {
		const messages = [prompt('Rate it'), response(text('{"score": 3}')), toolReturn];
		expect(readTurn(messages, 'Rate it', false)).toEqual({
			kind: 'answered',
			output: '{"score": 3}',
		});
	});

	describe('a tool round’s request: the user-prompt parts pydantic-ai puts beside the tools’ returns', () => {
		const viewImage = response({
			part_kind: 'tool-call',
			tool_name: 'view_image',
			args: '{"path": "report.png"}',
			tool_call_id: 'call_1',
		});
		const returned = (...userParts: unknown[]): ConversationMessage => ({
			kind: 'request',
			parts: [
				{
					part_kind: 'tool-return',
					tool_name: 'view_image',
					content: 'See file 1c8a9f',
					tool_call_id: 'call_1',
				},
				...userParts.map((content) => ({ part_kind: 'user-prompt', content })),
			],
		});
		// pydantic-ai (0.1.8 to 1.68) sends a tool's file or image to the model this way.
		const fileCarrier = [
			'This is file 1c8a9f:',
			{ kind: 'binary', media_type: 'image/png', data: 'iVBORw0KGgo=' },
		];

		it('a tool’s file ("This is file <id>:", the file) is the tool’s output, not a prompt: the ask was taken', () => {
			const messages = [
				prompt('What does report.png show?'),
				viewImage,
				returned(fileCarrier),
				response(text('Sales doubled.')),
			];
			expect(readTurn(messages, 'What does report.png show?', false)).toEqual({
				kind: 'answered',
				output: 'Sales doubled.',
			});
			// Still running, the turn is this ask's (a 409's wait tells it apart from another's).
			expect(lastPromptIs(messages.slice(0, 3), 'What does report.png show?')).toBe(true);
		});

		it('a tool’s own user content (ToolReturn.content), text or pieces, and a retry prompt’s request: no prompt either', () => {
			const retried: ConversationMessage = {
				kind: 'request',
				parts: [
					{ part_kind: 'retry-prompt', tool_name: 'view_image', content: 'No such file' },
					{ part_kind: 'user-prompt', content: 'Screenshot of the page:' },
				],
			};
			const messages = [
				prompt('Look at my screen'),
				viewImage,
				returned('Screenshot of the page:', ['Page 2:', fileCarrier[1]]),
				viewImage,
				retried,
				response(text('It shows the inbox.')),
			];
			expect(readTurn(messages, 'Look at my screen', false)).toEqual({
				kind: 'answered',
				output: 'It shows the inbox.',
			});
		});

		it('a user’s prompt sent with deferred tool results (the request’s last part, after the returns) is found', () => {
			const approved = returned(fileCarrier, 'Yes, send it');
			const messages = [prompt('Draft the mail'), viewImage, approved, response(text('Sent.'))];
			expect(readTurn(messages, 'Yes, send it', false)).toEqual({
				kind: 'answered',
				output: 'Sent.',
			});
			expect(readTurn(messages.slice(0, 3), 'Yes, send it', false)).toEqual({
				kind: 'no-answer',
			});
			expect(lastPromptIs(messages.slice(0, 3), 'Yes, send it')).toBe(true);
			// Not where pydantic-ai puts it (before a tool's output), or not this ask's: no prompt.
			expect(
				readTurn(
					[prompt('Go'), viewImage, returned('Yes, send it', fileCarrier)],
					'Yes, send it',
					false,
				),
			).toEqual({
				kind: 'not-taken',
			});
		});
	});

	it('not taken: the last prompt is another input, or there is none', () => {
		expect(readTurn(earlier, 'Mail the report', false)).toEqual({ kind: 'not-taken' });
		expect(readTurn([], 'Mail the report', false)).toEqual({ kind: 'not-taken' });
		expect(readTurn([toolReturn], 'Mail the report', false)).toEqual({ kind: 'not-taken' });
		// A prefix or a part of the input is not the input.
		expect(readTurn([prompt('Mail the'), response(text('?'))], 'Mail the report', false)).toEqual({
			kind: 'not-taken',
		});
	});

	it('taken without an answer: no response after it, or one without text', () => {
		expect(readTurn([...earlier, prompt('Go')], 'Go', false)).toEqual({ kind: 'no-answer' });
		expect(
			readTurn(
				[prompt('Go'), response({ part_kind: 'builtin-tool-call', tool_name: 'x' })],
				'Go',
				false,
			),
		).toEqual({ kind: 'no-answer' });
		expect(readTurn([prompt('Go'), response(text(''))], 'Go', false)).toEqual({
			kind: 'no-answer',
		});
	});

	it('taken without an answer: the run stopped inside a tool round (a call, or a tool’s return, after the last text)', () => {
		const lookUp = { part_kind: 'tool-call', tool_name: 'search_contacts', args: '{}' };
		const looked: ConversationMessage = {
			kind: 'request',
			parts: [{ part_kind: 'tool-return', tool_name: 'search_contacts', content: 'alice@x' }],
		};
		const started = response(text('Let me look up Alice first.'), lookUp);
		expect(readTurn([prompt('Mail Alice'), started], 'Mail Alice', false)).toEqual({
			kind: 'no-answer',
		});
		expect(readTurn([prompt('Mail Alice'), started, looked], 'Mail Alice', false)).toEqual({
			kind: 'no-answer',
		});
		expect(readTurn([prompt('Mail Alice'), started, looked], 'Mail Alice', true)).toEqual({
			kind: 'object-not-whole',
		});
		// The round ended in a response: the turn's text is the answer.
		const done = response(text('Mailed Alice.'));
		expect(readTurn([prompt('Mail Alice'), started, looked, done], 'Mail Alice', false)).toEqual({
			kind: 'answered',
			output: 'Let me look up Alice first.\n\nMailed Alice.',
		});
	});

	it('the output tool called beside another tool (which then returns "not executed") is the answer', () => {
		const object = { summary: 'Fine' };
		const both = response(
			{ part_kind: 'tool-call', tool_name: 'final_result', args: object },
			{ part_kind: 'tool-call', tool_name: 'search', args: {} },
		);
		const returns: ConversationMessage = {
			kind: 'request',
			parts: [
				{ part_kind: 'tool-return', tool_name: 'final_result', content: 'Final result processed.' },
				{ part_kind: 'tool-return', tool_name: 'search', content: 'Tool not executed' },
			],
		};
		expect(readTurn([prompt('Rate'), both, returns], 'Rate', true)).toEqual({
			kind: 'answered',
			output: object,
		});
	});

	it('structured: the output tool call’s object, as an object or as JSON text, or the text as JSON', () => {
		const call = (args: unknown, name = 'final_result') =>
			response({ part_kind: 'tool-call', tool_name: name, args });
		const object = { summary: 'Fine', score: 3 };
		expect(readTurn([prompt('Rate'), call(object), toolReturn], 'Rate', true)).toEqual({
			kind: 'answered',
			output: object,
		});
		expect(
			readTurn([prompt('Rate'), call(JSON.stringify(object), 'final_result_Rating')], 'Rate', true),
		).toEqual({ kind: 'answered', output: object });
		expect(
			readTurn([prompt('Rate'), response(text(JSON.stringify(object)))], 'Rate', true),
		).toEqual({ kind: 'answered', output: object });
	});

	it('structured: of several output tool calls, the first that matches the schema, as the stream reads them', () => {
		const call = (args: unknown) => ({ part_kind: 'tool-call', tool_name: 'final_result', args });
		const schema = {
			type: 'object' as const,
			properties: { score: { type: 'number' as const } },
			required: ['score'],
		};
		const calls = response(call('{"note": 1}'), call({ score: 1 }), call({ score: 2 }));
		expect(readTurn([prompt('Rate'), calls], 'Rate', true, 'last', schema)).toEqual({
			kind: 'answered',
			output: { score: 1 },
		});
		expect(readTurn([prompt('Rate'), calls], 'Rate', true)).toEqual({
			kind: 'answered',
			output: { note: 1 },
		});
	});

	it('structured, not whole: cut JSON, another tool’s arguments, text that is no object', () => {
		const cut = response({
			part_kind: 'tool-call',
			tool_name: 'final_result',
			args: '{"summary": "Fi',
		});
		const other = response({ part_kind: 'tool-call', tool_name: 'search', args: { q: 'x' } });
		for (const answer of [cut, other, response(text('three'))]) {
			expect(readTurn([prompt('Rate'), answer], 'Rate', true)).toEqual({
				kind: 'object-not-whole',
			});
		}
	});

	it('a conversation is answering while `running` or `stopping`', () => {
		expect(['running', 'stopping', 'idle', 'done'].map(isAnswering)).toEqual([
			true,
			true,
			false,
			false,
		]);
	});
});

describe('nextPollPauseMs: the public client’s schedule, within the deadline', () => {
	it('5, 10, 15, 20, then every 30 s', () => {
		const pauses = Array.from({ length: 7 }, (_, made) => nextPollPauseMs(made, 3_600_000));
		expect(pauses).toEqual([5_000, 10_000, 15_000, 20_000, 30_000, 30_000, 30_000]);
	});

	it('the last read comes shortly before the deadline; none when too little time is left', () => {
		expect(nextPollPauseMs(4, 12_000)).toBe(12_000 - LAST_READ_MS);
		expect(nextPollPauseMs(0, LAST_READ_MS)).toBeUndefined();
	});

	it('a server that says when to look again is followed, within bounds', () => {
		expect(nextPollPauseMs(0, 60_000, 250)).toBe(250);
		expect(nextPollPauseMs(0, 60_000, 0)).toBe(MIN_POLL_PAUSE_MS);
		expect(nextPollPauseMs(0, 600_000, 3_600_000)).toBe(60_000);
	});
});

describe('which failures send the recovery to the conversation', () => {
	const scope: FailureScope = {
		node: fakeNode({ id: '1' }),
		request: { method: 'POST', path: '/assistant/ask', authenticated: true },
		redaction: undefined,
	};
	const network = (code?: string) =>
		networkFailure(scope, 'http://service', Object.assign(new Error('failed'), { code }));
	const status = (code: number, body = '') => statusFailure(scope, code, {}, body);

	it('a connection lost after sending, a 408, a 5xx: maybe accepted, read before sending again', () => {
		for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', undefined]) {
			expect(network(code).accepted).toBe('maybe');
			expect(answerMayBeInConversation(network(code))).toBe(true);
		}
		for (const code of [408, 500, 502, 503, 504]) {
			expect(status(code).accepted).toBe('maybe');
			expect(answerMayBeInConversation(status(code))).toBe(true);
		}
	});

	it('no connection, no address, no TLS, 429, a full pool, a busy conversation: never', () => {
		for (const code of [
			'ECONNREFUSED',
			'ENOTFOUND',
			'EAI_AGAIN',
			'CERT_HAS_EXPIRED',
			'ERR_TLS_CERT_ALTNAME_INVALID',
			'DEPTH_ZERO_SELF_SIGNED_CERT',
		]) {
			expect(network(code).accepted).toBe('no');
			expect(answerMayBeInConversation(network(code))).toBe(false);
		}
		const pool = status(503, JSON.stringify({ detail: 'All sessions are busy' }));
		for (const refused of [status(429), pool, status(409)]) {
			expect(refused.accepted).toBe('no');
			expect(answerMayBeInConversation(refused)).toBe(false);
		}
	});

	it('a lost response is read; a failure that is not retried is not, accepted or not', () => {
		const shown = apiError(scope.node, { message: 'x' }, 0);
		const lost = new AttemptFailure({ shown, accepted: 'yes', lost: 'incomplete' });
		expect(answerMayBeInConversation(lost)).toBe(true);
		const stopped = new AttemptFailure({ shown, accepted: 'maybe' });
		expect(answerMayBeInConversation(stopped)).toBe(false);
		const failedRun = new AttemptFailure({ shown, accepted: 'yes' });
		expect(answerMayBeInConversation(failedRun)).toBe(false);
	});
});

describe('unsentRest: what of a recovered answer a streaming workflow has not received', () => {
	it('the rest after the pieces already sent', () => {
		expect(unsentRest('Hello wor', 'Hello world.')).toBe('ld.');
		expect(unsentRest('', 'Hello world.')).toBe('Hello world.');
		expect(unsentRest('Hello world.', 'Hello world.')).toBe('');
	});

	it('after an earlier model message, from where the answer continues what was sent', () => {
		expect(unsentRest('Let me look that up.\n\nThe ans', 'The answer is 42.')).toBe('wer is 42.');
	});

	it('an answer that does not continue what was sent follows after a blank line, whole', () => {
		expect(unsentRest('Thinking aloud', 'The answer.')).toBe('\n\nThe answer.');
	});

	it('only the message the stream left open can go on: an earlier message’s end the answer happens to start with is no part of it', () => {
		const sent = 'Let me look that up.\n\nLet me check **your calendar**';
		// The stream broke in the tool round: the answer is a later message's, whole.
		expect(unsentRest(sent, '**Today:** 3 meetings.', false)).toBe('\n\n**Today:** 3 meetings.');
		// The open message wrote "Let me check **your calendar**": its end can go on…
		expect(unsentRest(sent, '**your calendar** is full.', 30)).toBe(' is full.');
		// …and an answer that starts like the message before it does not.
		expect(unsentRest(sent, 'Let me look again.', 30)).toBe('\n\nLet me look again.');
		// The open message wrote nothing yet: the answer comes whole.
		expect(unsentRest(sent, 'up.', 0)).toBe('\n\nup.');
	});

	it('the turn’s text, which goes on from all that was sent, wherever the stream broke', () => {
		const turn = 'Let me check.\n\nThere is one file.';
		// Mid-message before the tool call, after the call, in the tool round, in the next message.
		expect(unsentRest('Let me ch', turn, 9)).toBe('eck.\n\nThere is one file.');
		expect(unsentRest('Let me check.', turn, false)).toBe('\n\nThere is one file.');
		expect(unsentRest('Let me check.', turn, 0)).toBe('\n\nThere is one file.');
		expect(unsentRest('Let me check.\n\nThere is', turn, 8)).toBe(' one file.');
		expect(unsentRest(turn, turn, 18)).toBe('');
		// Text after the call in the same response, which the stream had not told yet.
		expect(unsentRest('Let me check.', 'Let me check. One moment.\n\nDone.', false)).toBe(
			' One moment.\n\nDone.',
		);
	});

	it('the stream told text the conversation does not hold: what it holds goes on from the messages told after it, never told twice', () => {
		// The text written before the tool call is not in the conversation.
		const sent = 'Let me look that up.\n\nThe ans';
		expect(unsentRest(sent, 'The answer is 42.', 7)).toBe('wer is 42.');
		expect(unsentRest('Let me look that up.', 'The answer is 42.', false)).toBe(
			'\n\nThe answer is 42.',
		);
		// Two tool rounds; the first one's text lacking: the second's is not told again.
		const twoRounds = 'Let me look that up.\n\nFound two mails.';
		expect(unsentRest(twoRounds, 'Found two mails.\n\nBoth from Ada.', false)).toBe(
			'\n\nBoth from Ada.',
		);
		expect(unsentRest(`${twoRounds}\n\nBoth`, 'Found two mails.\n\nBoth from Ada.', 4)).toBe(
			' from Ada.',
		);
		// The open message told otherwise: the answer whole, after a blank line.
		expect(unsentRest('Let me check.\n\nHello wor', 'Let me check.\n\nHi world.', 9)).toBe(
			'\n\nLet me check.\n\nHi world.',
		);
	});

	it('is what trying every place in what was sent gives, on many short texts', () => {
		// The reading it replaces: the longest end of `sent` the answer starts with, by trial.
		const byTrial = (sent: string, answer: string) => {
			for (let start = 0; start < sent.length; start++) {
				if (answer.startsWith(sent.slice(start))) return answer.slice(sent.length - start);
			}
			return sent ? `\n\n${answer}` : answer;
		};
		let seed = 7;
		const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
		const text = (length: number) => Array.from({ length }, () => 'ab '[next() % 3]).join('');
		for (let i = 0; i < 5000; i++) {
			const sent = text(next() % 12);
			const answer =
				next() % 2 ? sent.slice(next() % (sent.length + 1)) + text(next() % 6) : text(next() % 12);
			expect(unsentRest(sent, answer)).toBe(byTrial(sent, answer));
		}
	});

	it('takes linear time on repetitive text', () => {
		const started = Date.now();
		const sent = `${'a'.repeat(200_000)}x`;
		expect(unsentRest(sent, `${'a'.repeat(400_000)}b`)).toBe(`\n\n${'a'.repeat(400_000)}b`);
		expect(unsentRest('a'.repeat(300_000), `${'a'.repeat(400_000)}b`)).toBe(
			`${'a'.repeat(100_000)}b`,
		);
		// Wide: trying every place took about 95 s for the first.
		expect(Date.now() - started).toBeLessThan(2000);
	});
});

describe('a structured answer around a tool round: the stream and the conversation read the same', () => {
	type Part = Record<string, unknown>;
	const event = (name: string, data: unknown) =>
		`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
	const text = (content: string): Part => ({ part_kind: 'text', content });
	const search: Part = {
		part_kind: 'tool-call',
		tool_name: 'web_search',
		args: '{}',
		tool_call_id: 's1',
	};
	const searchReturn: Part = {
		part_kind: 'tool-return',
		tool_name: 'web_search',
		content: 'results',
		tool_call_id: 's1',
	};
	const finalResult = (args: unknown): Part => ({
		part_kind: 'tool-call',
		tool_name: 'final_result',
		args,
		tool_call_id: 'f1',
	});

	/** Two model responses around one of the assistant's own tool rounds, read both ways. */
	function bothReadings(first: Part[], last: Part[], rule: TextObjectRule) {
		const parts = (response: Part[]) =>
			response.flatMap((part, index) => [
				event('PartStartEvent', { index, part }),
				event('PartEndEvent', { index, part }),
			]);
		const stream = [
			...parts([...first, search]),
			event('FunctionToolCallEvent', { part: search }),
			event('FunctionToolResultEvent', { result: searchReturn }),
			...parts(last),
			event('End', {}),
		].join('');
		let streamed: unknown;
		try {
			streamed = readAnswerFromChunks([stream], { structured: true, textObject: rule }).output;
		} catch {
			streamed = 'no answer';
		}
		const reading = readTurn(
			[
				{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: 'Q' }] },
				{ kind: 'response', parts: [...first, search] },
				{ kind: 'request', parts: [searchReturn] },
				{ kind: 'response', parts: last },
			] as ConversationMessage[],
			'Q',
			true,
			rule,
		);
		return { streamed, read: reading.kind === 'answered' ? reading.output : 'no answer' };
	}

	const call = { action: 'call_tool', tool: 'send_mail', arguments: { to: 'x@example.com' } };

	test.each<[string, Part[], Part[], TextObjectRule, unknown]>([
		[
			'an envelope written beside the tool call, the last response only thinking',
			[text(JSON.stringify(call))],
			[{ part_kind: 'thinking', content: 'Nothing to add.' }],
			'whole',
			'no answer',
		],
		[
			'an object written beside the tool call, the next response empty (no Part event)',
			[text('{"rating": 1}')],
			[],
			'whole',
			'no answer',
		],
		[
			'an object written beside the tool call, the last response prose',
			[text('Draft: {"rating": 1}')],
			[text('I could not verify the rating.')],
			'last',
			'no answer',
		],
		[
			'the output tool called beside the tool call, the last response an object of its own',
			[finalResult(JSON.stringify({ answer: 'first' }))],
			[text(JSON.stringify({ answer: 'second' }))],
			'whole',
			{ answer: 'second' },
		],
		[
			'a sentence beside the tool call, the last response the object',
			[text('Let me search first.')],
			[text('{"rating": 4}')],
			'whole',
			{ rating: 4 },
		],
	])('%s', (_name, first, last, rule, answer) => {
		const { streamed, read } = bothReadings(first, last, rule);
		expect(streamed).toEqual(answer);
		expect(read).toEqual(answer);
	});
});

describe('a text answer around tool rounds: the stream and the conversation read the same', () => {
	type Part = Record<string, unknown>;
	const event = (name: string, data: unknown) =>
		`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
	const text = (content: string): Part => ({ part_kind: 'text', content });
	const thinking = (content: string): Part => ({ part_kind: 'thinking', content });
	const call = (id: string): Part => ({
		part_kind: 'tool-call',
		tool_name: 'search_mail',
		args: '{}',
		tool_call_id: id,
	});
	const returned = (id: string): Part => ({
		part_kind: 'tool-return',
		tool_name: 'search_mail',
		content: 'a mail',
		tool_call_id: id,
	});

	/**
	 * The turn's model responses (each but the last ends in a call of the assistant's own tool),
	 * told by 2026 Part events unbroken and read from the conversation.
	 */
	function bothReadings(responses: Part[][]) {
		const messages: ConversationMessage[] = [
			{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: 'Q' }] },
		];
		let stream = '';
		responses.forEach((parts, n) => {
			const metadata = { zmid: `z${n}` };
			for (const [index, part] of parts.entries()) {
				stream += event('PartStartEvent', { index, part, metadata });
			}
			messages.push({ kind: 'response', parts } as ConversationMessage);
			const called = parts.find((part) => part.part_kind === 'tool-call');
			if (!called) return;
			const id = String(called.tool_call_id);
			stream += event('FunctionToolCallEvent', { part: called, metadata });
			stream += event('FunctionToolResultEvent', { result: returned(id), metadata });
			messages.push({ kind: 'request', parts: [returned(id)] } as ConversationMessage);
		});
		stream += event('completed', { status: 'succeeded' });
		const streamed = readAnswerFromChunks([stream], { structured: false }).output;
		const reading = readTurn(messages, 'Q', false);
		return { streamed, read: reading.kind === 'answered' ? reading.output : reading.kind };
	}

	test.each<[string, Part[][], string]>([
		[
			'text before the tool call, then the answer',
			[[text('Let me check.'), call('c1')], [text('There is one file.')]],
			'Let me check.\n\nThere is one file.',
		],
		[
			'no text before the call: the answer alone',
			[
				[thinking('Look first.'), call('c1')],
				[thinking('Found it.'), text('One file.')],
			],
			'One file.',
		],
		[
			'two tool rounds, text parts of one response joined as they are',
			[
				[text('Let me check.'), call('c1')],
				[text('Found one.'), text(' Checking its sender.'), call('c2')],
				[text('It is from Ada.')],
			],
			'Let me check.\n\nFound one. Checking its sender.\n\nIt is from Ada.',
		],
		[
			'text parts a built-in tool or thinking separates within one response: paragraphs',
			[
				[text('Let me check.'), call('c1')],
				[
					text('Searching.'),
					{ part_kind: 'builtin-tool-call', tool_name: 'web_search', args: '{}' },
					{ part_kind: 'builtin-tool-return', tool_name: 'web_search', content: 'a page' },
					text('Found it.'),
					thinking('So:'),
					text('It is from Ada.'),
				],
			],
			'Let me check.\n\nSearching.\n\nFound it.\n\nIt is from Ada.',
		],
		[
			'the last response without text: the text written before the round',
			[[text('Let me check.'), call('c1')], [thinking('Nothing to add.')]],
			'Let me check.',
		],
		[
			'a response of whitespace: kept, as the stream keeps it',
			[[text('Let me check.'), call('c1')], [text(' ')]],
			'Let me check.\n\n ',
		],
	])('%s', (_name, responses, answer) => {
		const { streamed, read } = bothReadings(responses);
		expect(streamed).toBe(answer);
		expect(read).toBe(answer);
	});
});
