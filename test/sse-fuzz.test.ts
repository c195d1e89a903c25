import { makeCase, runFuzz } from './fuzz/check';
import { UNREAD_LINES } from './fuzz/wire';
import { ECHO_MARKER } from './fuzz/wire2026';
import { parseEvents } from '../scripts/live-check/signatures';

describe('stream fuzz: every piece of answer text counts exactly once (npm run fuzz runs 10,000+)', () => {
	test('600 generated streams in both dialects and mixes, split anywhere, answer and steps exactly once', () => {
		const report = runFuzz(600, 1);
		expect(report.failed).toEqual([]);
		// Tool calls, their results and thinking texts, in every shape (docs/api.md#steps).
		expect(report.steps).toBeGreaterThan(300);
		expect(report.byDialect.documented).toBeGreaterThan(100);
		expect(report.byDialect.live).toBeGreaterThan(100);
		expect(report.byDialect.mix).toBeGreaterThan(100);
		expect(report.byDialect['2026']).toBeGreaterThan(100);
		// An answer's event that cannot be read, somewhere in the stream: never an answer.
		expect(report.byOutcome.unreadable).toBeGreaterThan(5);
	});

	test('the generator really produces hard cases (multi-byte splits, CRLF, lone CR, lines no reader reads, several messages, paragraphs)', () => {
		let splitInsideCharacter = 0;
		let crlf = 0;
		let loneCr = 0;
		let unreadLines = 0;
		let severalMessages = 0;
		let paragraphs = 0;
		let failures = 0;
		for (let seed = 1; seed <= 300; seed++) {
			const fuzzCase = makeCase(seed);
			const bytes = Buffer.concat(fuzzCase.chunks);
			if (bytes.includes('\r\n')) crlf++;
			else if (bytes.includes('\r') && !bytes.includes('\n')) loneCr++;
			const lines = bytes.toString('utf8').split(/\r\n|\r|\n/);
			if (lines.some((line) => UNREAD_LINES.includes(line))) unreadLines++;
			if (fuzzCase.streamedText.includes('\n\n')) severalMessages++;
			if (fuzzCase.paragraphs > 0) paragraphs++;
			if ('failure' in fuzzCase.expected) failures++;
			let offset = 0;
			for (const chunk of fuzzCase.chunks) {
				offset += chunk.length;
				// A continuation byte (10xxxxxx) right after a cut means a character was split.
				if (offset < bytes.length && (bytes[offset] & 0xc0) === 0x80) splitInsideCharacter++;
			}
		}
		expect(splitInsideCharacter).toBeGreaterThan(100);
		expect(crlf).toBeGreaterThan(100);
		expect(loneCr).toBeGreaterThan(20);
		expect(unreadLines).toBeGreaterThan(100);
		expect(severalMessages).toBeGreaterThan(30);
		// Text parts thinking separates within a message (docs/api.md#assembling-the-answer, 4).
		expect(paragraphs).toBeGreaterThan(10);
		expect(failures).toBeGreaterThan(20);
	});

	test('2026 cases are hard too: the echo with its private marker, tool rounds, failed runs, whole and startless parts, a snapshot before the next response, the output tool in a snapshot among its deltas', () => {
		const seen = {
			echo: 0,
			restart: 0,
			runFailed: 0,
			outputTool: 0,
			outputToolSnapshot: 0,
			whole: 0,
			startless: 0,
			snapshotAfterRound: 0,
		};
		for (let seed = 1; seed <= 600; seed++) {
			const fuzzCase = makeCase(seed);
			const text = Buffer.concat(fuzzCase.chunks).toString('utf8');
			if (text.includes(ECHO_MARKER)) seen.echo++;
			if (fuzzCase.dialect !== '2026') continue;
			const events = parseEvents(text);
			const data = (e: { data: unknown }) => e.data as Record<string, Record<string, unknown>>;
			const last = events.filter((e) => e.event === 'failed' || e.event === 'completed').at(-1);
			if (last && data(last).status === ('failed' as never)) seen.runFailed++;
			if (events.some((e) => data(e).metadata?.zmid === 'zmid1')) seen.restart++;
			if (text.includes('"tool_name":"final_result"')) seen.outputTool++;
			const toldInSnapshot = (e: { event: string; data: unknown }) =>
				e.event === 'FrontendModelResponse' &&
				JSON.stringify(data(e).parts ?? []).includes('"tool_name":"final_result"');
			if (events.some(toldInSnapshot)) seen.outputToolSnapshot++;
			// Text parts by response and index: told whole in their start, or by deltas alone.
			const key = (e: { data: unknown }) => `${data(e).metadata?.zmid}/${data(e).index}`;
			const isText = (e: { event: string; data: unknown }) =>
				(e.event === 'PartStartEvent' && data(e).part?.part_kind === 'text') ||
				(e.event === 'PartDeltaEvent' && data(e).delta?.part_delta_kind === 'text');
			const textEvents = events.filter(isText);
			const started = new Set(textEvents.filter((e) => e.event === 'PartStartEvent').map(key));
			const grown = new Set(textEvents.filter((e) => e.event === 'PartDeltaEvent').map(key));
			if ([...started].some((k) => !grown.has(k))) seen.whole++;
			if ([...grown].some((k) => !started.has(k))) seen.startless++;
			// A snapshot of a response after a tool round, just before its Part events.
			const zmidFrom = (at: number) =>
				events.slice(at).find((e) => data(e).metadata?.zmid)?.data as
					{ metadata: { zmid: string } } | undefined;
			const beforeNext = (e: { event: string }, at: number) =>
				e.event === 'FrontendModelResponse' && (zmidFrom(at)?.metadata.zmid ?? 'zmid0') !== 'zmid0';
			if (events.some(beforeNext)) seen.snapshotAfterRound++;
		}
		expect(seen.echo).toBeGreaterThan(150);
		expect(seen.restart).toBeGreaterThan(30);
		expect(seen.runFailed).toBeGreaterThan(2);
		expect(seen.outputTool).toBeGreaterThan(2);
		expect(seen.outputToolSnapshot).toBeGreaterThan(0);
		expect(seen.whole).toBeGreaterThan(10);
		expect(seen.startless).toBeGreaterThan(10);
		expect(seen.snapshotAfterRound).toBeGreaterThan(10);
	});

	// A response after a tool round that opens with deltas for an index the previous response
	// used (its start not sent): only its new metadata.zmid tells it apart.
	test('2026: a response that opens with deltas for an index the previous one used, start not sent', () => {
		expect(runFuzz(600, 1, { startlessAfterRound: true }).failed).toEqual([]);
	});
});
