/**
 * A `failed` with session-pool words is retried only when the turn had not begun
 * (docs/api.md#how-a-stream-ends): nothing but the run's status (runtime events) came before it.
 * A tool event is a tool event whether Include Steps is on or off; the request's echo says the
 * model was asked, though its data is never read.
 */
import { streamFailure } from '../../../nodes/shared/askAttempt';
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { StreamAnswerError } from '../../../nodes/shared/stream/answerFailure';
import { type FailureScope } from '../../../nodes/shared/transport/failures';
import { fakeNode } from '../../helpers/fake-node';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const scope: FailureScope = {
	node: fakeNode({ id: '1' }),
	request: {
		method: 'POST',
		path: '/assistant/ask',
		authenticated: true,
		itemIndex: 0,
		idleTimeoutMs: 30_000,
	},
	redaction: redactionOf('sk-x'),
};
const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
/** The flat form: the event's name inside the JSON of a bare `data:` line. */
const flat = (name: string, data: Record<string, unknown>) =>
	`data: ${JSON.stringify({ type: name, ...data })}\n\n`;
const FAILED = ev('failed', {
	status: 'failed',
	error: 'All assistant sessions are busy for this account',
	runner_id: null,
	error_type: null,
	failure_owner: null,
	failure_kind: null,
});
const BUILTIN_CALL = ev('BuiltinToolCallEvent', {
	event_kind: 'builtin_tool_call',
	part: {
		part_kind: 'builtin-tool-call',
		tool_name: 'mcp_server:mail',
		args: '{"to":"a@b.c"}',
		tool_call_id: 'call_1',
	},
});
const BUILTIN_RESULT = ev('BuiltinToolResultEvent', {
	event_kind: 'builtin_tool_result',
	result: {
		part_kind: 'builtin-tool-return',
		tool_name: 'mcp_server:mail',
		content: 'sent',
		tool_call_id: 'call_1',
	},
});

/** What the attempt's failure says of the stream: whether the ask was taken, and retried. */
function failureOf(stream: string, steps: boolean) {
	let thrown: unknown;
	try {
		readAnswerFromChunks([stream], {
			structured: false,
			steps: steps ? { thinking: false } : undefined,
		});
	} catch (error) {
		thrown = error;
	}
	expect(thrown).toBeInstanceOf(StreamAnswerError);
	const failure = streamFailure(scope, thrown as StreamAnswerError, {});
	return { accepted: failure.accepted, retry: failure.retry };
}

describe.each([true, false])('Include Steps %s', (steps) => {
	test('a builtin tool ran (call and result told), then `failed` with pool words: the assistant was at work, never sent again', () => {
		const stream = BUILTIN_CALL + BUILTIN_RESULT + FAILED;
		expect(failureOf(stream, steps)).toEqual({ accepted: 'yes', retry: undefined });
	});
});

test('nothing before the `failed` but the run’s status: a full pool, waited out', () => {
	expect(failureOf(FAILED, false)).toEqual({ accepted: 'no', retry: 'session-pool' });
	const status =
		ev('AgentRuntimeStreamChunk', { type: 'status', status: 'dispatching' }) +
		`id: 1\n: a comment\n` +
		ev('AgentRuntimeStreamChunk', { type: 'persisted', data: { message_id: 'm1' } });
	expect(failureOf(status + FAILED, false)).toEqual({ accepted: 'no', retry: 'session-pool' });
});

test('an event this node does not know, then `failed` with pool words: never sent again', () => {
	const stream = ev('ModelRequestStartEvent', { index: 0 }) + FAILED;
	expect(failureOf(stream, false)).toEqual({ accepted: 'yes', retry: undefined });
});

test('a runtime chunk of a type this node does not know, then `failed` with pool words: never sent again', () => {
	const stream = ev('AgentRuntimeStreamChunk', { type: 'tool_call', tool_name: 'gmail' }) + FAILED;
	expect(failureOf(stream, false)).toEqual({ accepted: 'yes', retry: undefined });
});

test('the request echo (the model was given the ask: a session ran it), then `failed` with pool words: never sent again', () => {
	const stream =
		ev('AgentRuntimeStreamChunk', { type: 'status', status: 'dispatching' }) +
		ev('FrontendModelRequest', {
			parts: [{ part_kind: 'user-prompt', content: 'send the mail' }],
		}) +
		FAILED;
	expect(failureOf(stream, false)).toEqual({ accepted: 'yes', retry: undefined });
});

test.each([true, false])(
	'a thinking Part event (a delta carrying only its signature, its start not seen), then `failed` with pool words: a part came, never sent again (steps %p)',
	(steps) => {
		const stream =
			ev('PartDeltaEvent', {
				delta: {
					content_delta: '',
					part_delta_kind: 'thinking',
					provider_name: 'openai',
					signature_delta: 'sig-abc',
				},
				event_kind: 'part_delta',
				index: 0,
				metadata: { zmid: 'z1', runner_id: 'r-1' },
			}) + FAILED;
		expect(failureOf(stream, steps)).toEqual({ accepted: 'yes', retry: undefined });
	},
);

const FLAT_CASES: Array<[string, string]> = [
	[
		'the request echo',
		flat('FrontendModelRequest', {
			parts: [{ part_kind: 'user-prompt', content: 'send the mail' }],
		}),
	],
	['an unknown event', flat('ModelRequestStartEvent', { index: 0 })],
	[
		'a builtin tool call',
		flat('BuiltinToolCallEvent', {
			part: {
				part_kind: 'builtin-tool-call',
				tool_name: 'mcp_server:mail',
				args: '{}',
				tool_call_id: 'c1',
			},
		}),
	],
	[
		'a thinking delta without text',
		`data: ${JSON.stringify({
			event_kind: 'part_delta',
			index: 0,
			delta: { content_delta: '', part_delta_kind: 'thinking', signature_delta: 'sig' },
			metadata: { zmid: 'z1' },
		})}\n\n`,
	],
];

describe.each([false, true])('the flat form (docs/api.md#flat-stream-form), steps %p', (steps) => {
	test.each(FLAT_CASES)(
		'%s, then `failed` with pool words: never sent again, as named',
		(_name, first) => {
			expect(failureOf(first + FAILED, steps)).toEqual({ accepted: 'yes', retry: undefined });
		},
	);
});
