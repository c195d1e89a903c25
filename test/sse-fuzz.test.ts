import { makeCase, runFuzz } from './fuzz/check';

describe('stream fuzz: every piece of answer text counts exactly once (npm run fuzz runs 10,000+)', () => {
	test('600 generated streams in both dialects and mixes, split anywhere, answer and steps exactly once', () => {
		const report = runFuzz(600, 1);
		expect(report.failed).toEqual([]);
		// Tool calls, their results and thinking texts, in every shape (docs/api.md#steps).
		expect(report.steps).toBeGreaterThan(300);
		expect(report.byDialect.documented).toBeGreaterThan(100);
		expect(report.byDialect.live).toBeGreaterThan(100);
		expect(report.byDialect.mix).toBeGreaterThan(100);
	});

	test('the generator really produces hard cases (multi-byte splits, CRLF, several messages)', () => {
		let splitInsideCharacter = 0;
		let crlf = 0;
		let severalMessages = 0;
		let failures = 0;
		for (let seed = 1; seed <= 300; seed++) {
			const fuzzCase = makeCase(seed);
			const bytes = Buffer.concat(fuzzCase.chunks);
			if (bytes.includes('\r\n')) crlf++;
			if (fuzzCase.streamedText.includes('\n\n')) severalMessages++;
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
		expect(severalMessages).toBeGreaterThan(30);
		expect(failures).toBeGreaterThan(20);
	});
});
