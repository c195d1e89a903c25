/**
 * Names a stream sends are held, so they count toward Max Answer Length as text does
 * (docs/api.md#memory-bounds): a part's `part_kind` (Part events, a snapshot's parts) and an
 * output tool call's name grown by `tool_name_delta`. A server that sends endless long names
 * meets the bound and fails the item as too large, instead of making the node hold them all.
 */
import { StreamAnswer } from '../../../nodes/shared/stream/answer';
import { bytesInUse } from '../../helpers/heap';

const LIMIT = 1_000_000; // Ask's smallest Max Answer Length (1 million characters)
const EVENTS = 1500;
const NAME = 100_000; // characters per event: 150 MB in all, against a 1 M character bound

/** Feeds up to EVENTS messages; what grew while `answer` is alive, and how it ended. */
function held(structured: boolean, make: (i: number) => { event: string; data: string }) {
	const before = bytesInUse();
	const answer = new StreamAnswer({ structured, answerLimitChars: LIMIT });
	let open = true;
	let fed = 0;
	for (; fed < EVENTS && open; fed++) open = answer.accept(make(fed));
	const grown = bytesInUse() - before;
	let failure: unknown;
	try {
		answer.result();
	} catch (error) {
		failure = error;
	}
	return { grown, fed, failure: (failure as { failure?: string } | undefined)?.failure };
}

const filler = (i: number) => `${i}-`.padEnd(NAME, 'x');

test('parts whose part_kind is long: the answer bound stops the stream, little is held', () => {
	const { grown, fed, failure } = held(false, (i) => ({
		event: 'PartStartEvent',
		data: JSON.stringify({ index: i, part: { part_kind: filler(i), content: '' } }),
	}));
	expect(failure).toBe('too-large');
	expect(fed).toBeLessThanOrEqual(LIMIT / NAME + 1);
	expect(Math.round(grown / 1e6)).toBeLessThan(32);
});

test('a snapshot whose parts have long kinds counts them toward the bound', () => {
	const parts = Array.from({ length: 20 }, (_, i) => ({ part_kind: filler(i), content: '' }));
	const { fed, failure } = held(false, () => ({
		event: 'FrontendModelResponse',
		data: JSON.stringify({ parts }),
	}));
	expect(failure).toBe('too-large');
	expect(fed).toBe(1);
});

test("a structured ask's output tool call whose name grows by tool_name_delta meets the bound", () => {
	const { grown, fed, failure } = held(true, (i) => ({
		event: 'PartDeltaEvent',
		data: JSON.stringify({
			index: 0,
			delta: {
				part_delta_kind: 'tool_call',
				tool_name_delta: i === 0 ? 'final_result_' : filler(i),
				args_delta: i === 0 ? '{"a": 1}' : '',
			},
		}),
	}));
	expect(failure).toBe('too-large');
	expect(fed).toBeLessThanOrEqual(LIMIT / NAME + 2);
	expect(Math.round(grown / 1e6)).toBeLessThan(32);
});
