/** The hint the Assistant node adds after a run the service slowed (actions/concurrency.ts). */
import { paceHint } from '../../../nodes/Assistant/actions/concurrency';

describe('the hint after the run says when the service limited the pace, and to what', () => {
	it('nothing when no ask was answered busy', () => {
		expect(paceHint({ max: 16, busyAnswers: 0, lowest: 16, final: 16 })).toBeUndefined();
	});

	it('the level the pace went down to and ended at, and the Concurrency that avoids refusals', () => {
		expect(paceHint({ max: 16, busyAnswers: 14, lowest: 4, final: 4 })).toBe(
			'The service limited the pace: 14 asks were answered "busy" (a full session pool, 429 or 503), so the node lowered the asks in flight from 16 (Concurrency) to as few as 4, and ended at 4. Setting Options &gt; Concurrency to 4 avoids most of these refusals.',
		);
	});

	it('one item at a time: the asks waited and were asked again', () => {
		expect(paceHint({ max: 1, busyAnswers: 1, lowest: 1, final: 1 })).toBe(
			'The service was busy: 1 ask was answered "busy" (a full session pool, 429 or 503); each waited and was asked again.',
		);
	});
});
