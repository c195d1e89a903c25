/**
 * The output tool's calls a structured ask holds (docs/api.md#memory-bounds): only the calls at
 * an index of the current model message can be the answer, and only they are held, counted
 * toward the answer's bound. A call whose part is started again as text, or whose message is
 * over, is dropped: a server that keeps doing either makes the node hold no more than one call.
 */
import { StreamAnswer } from '../../../nodes/shared/stream/answer';
import { bytesInUse } from '../../helpers/heap';

const LIMIT = 1_000_000; // Ask's smallest Max Answer Length (1 million characters)
const ROUNDS = 300;
const ARGS = 500_000; // characters of arguments per call: 150 MB in all, against a 1 M bound

const event = (name: string, data: unknown) => ({ event: name, data: JSON.stringify(data) });

/** Feeds ROUNDS rounds of `events(i)`, then `completed`: what grew while `answer` was alive. */
function held(events: (i: number) => Array<{ event: string; data: string }>) {
	const before = bytesInUse();
	const answer = new StreamAnswer({ structured: true, answerLimitChars: LIMIT });
	let open = true;
	for (let i = 0; i < ROUNDS && open; i++) {
		for (const message of events(i)) open &&= answer.accept(message);
	}
	if (open) answer.accept(event('completed', { status: 'succeeded' }));
	const grown = bytesInUse() - before;
	let output: unknown;
	let failure: string | undefined;
	try {
		output = answer.result().output;
	} catch (error) {
		failure = (error as { failure?: string }).failure;
	}
	return { grown, output, failure };
}

const call = (i: number, zmid: string, name = 'final_result') => [
	event('PartStartEvent', {
		index: 0,
		part: { part_kind: 'tool-call', tool_name: name, args: '', tool_call_id: `c${i}` },
		metadata: { zmid },
	}),
	event('PartDeltaEvent', {
		index: 0,
		delta: {
			part_delta_kind: 'tool_call',
			args_delta: JSON.stringify({ summary: `${i}-`.padEnd(ARGS, 'x') }),
		},
		metadata: { zmid },
	}),
];

test('a call started again as text, again and again in one response: each dropped', () => {
	const { grown, output, failure } = held((i) => [
		...call(i, 'z1', 'lookup'),
		event('PartStartEvent', {
			index: 0,
			part: { part_kind: 'text', content: '{"summary": "done"}' },
			metadata: { zmid: 'z1' },
		}),
	]);
	expect(failure).toBeUndefined();
	expect(output).toEqual({ summary: 'done' });
	expect(Math.round(grown / 1e6)).toBeLessThan(16);
});

test('an output tool call in each of ever new responses: those of the responses before are dropped', () => {
	const { grown, output, failure } = held((i) => call(i, `z${i}`));
	expect(failure).toBeUndefined();
	expect((output as { summary: string }).summary).toBe(`${ROUNDS - 1}-`.padEnd(ARGS, 'x'));
	expect(Math.round(grown / 1e6)).toBeLessThan(16);
});
