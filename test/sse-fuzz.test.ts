import { assemble, makeCase, runFuzz } from './fuzz/sseFraming';

describe('SSE framing fuzz (npm run fuzz runs 10,000+)', () => {
	test('400 random re-framings of recorded-style streams assemble to the same answer', () => {
		expect(runFuzz(400, 1)).toEqual([]);
	});

	test('the generator really produces hard cases (multi-byte splits, CRLF, noise)', () => {
		let splitInsideCharacter = 0;
		let crlf = 0;
		let comments = 0;
		for (let seed = 1; seed <= 200; seed++) {
			const framed = makeCase(seed);
			const text = framed.bytes.toString('utf8');
			if (text.includes('\r\n')) crlf++;
			if (/^: keep-alive/m.test(text)) comments++;
			let offset = 0;
			for (const size of framed.chunkSizes) {
				offset += size;
				// A continuation byte (10xxxxxx) right after a cut means a character was split.
				if (offset < framed.bytes.length && (framed.bytes[offset] & 0xc0) === 0x80)
					splitInsideCharacter++;
			}
			expect(assemble(framed)).toBe(framed.expected);
		}
		expect(splitInsideCharacter).toBeGreaterThan(50);
		expect(crlf).toBeGreaterThan(100);
		expect(comments).toBeGreaterThan(20);
	});
});
