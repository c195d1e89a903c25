/**
 * What a run tells once (nodes/shared/runNotices.ts): an event the node does not know is warned
 * of by name once per run, for a bounded number of names, then once that more came.
 */
import { MAX_UNKNOWN_EVENT_WARNINGS, RunNotices } from '../../../nodes/shared/runNotices';

test('an unknown event name: warned of the first time in a run only', () => {
	const notices = new RunNotices();
	expect(notices.unknownEvent('RunUsageEvent')).toBe('name');
	expect(notices.unknownEvent('RunUsageEvent')).toBeUndefined();
	expect(new RunNotices().unknownEvent('RunUsageEvent')).toBe('name');
});

test('past the bound of names, one last warning that more came, then nothing', () => {
	const notices = new RunNotices();
	const told = Array.from({ length: 300 }, (_, i) => notices.unknownEvent(`Evt${i}`));
	expect(told.filter((tell) => tell === 'name')).toHaveLength(MAX_UNKNOWN_EVENT_WARNINGS);
	expect(told[MAX_UNKNOWN_EVENT_WARNINGS]).toBe('more');
	expect(told.filter((tell) => tell !== undefined)).toHaveLength(MAX_UNKNOWN_EVENT_WARNINGS + 1);
	// A name already told stays told; other notices are not bounded by it.
	expect(notices.unknownEvent('Evt0')).toBeUndefined();
	expect(notices.first('conversation hint')).toBe(true);
});
