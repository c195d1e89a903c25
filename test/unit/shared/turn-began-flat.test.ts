/**
 * The flat stream form (docs/api.md#flat-stream-form: "The nodes read such a line as the
 * named event") must say the turn had begun exactly as the named form does
 * (docs/api.md#how-a-stream-ends): an echo, an unknown event, a builtin tool event, a thinking
 * delta without text before a `failed` with pool words => the ask was taken, never sent again.
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
const flat = (name: string, data: Record<string, unknown>) =>
	`data: ${JSON.stringify({ type: name, ...data })}\n\n`;
const FAILED_DATA = {
	status: 'failed',
	error: 'All assistant sessions are busy for this account',
	runner_id: null,
	error_type: null,
	failure_owner: null,
	failure_kind: null,
};
const FAILED = ev('failed', FAILED_DATA);

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

const cases: Array<[string, string]> = [
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

describe.each([false, true])('steps %p', (steps) => {
	test.each(cases)('flat %s, then `failed` with pool words: never sent again', (_name, first) => {
		expect(failureOf(first + FAILED, steps)).toEqual({ accepted: 'yes', retry: undefined });
	});
});
