/**
 * A stream's answer gathered in flat segments (nodes/shared/stream/segmentedText.ts): the text
 * is every piece, in order, whatever their number and sizes, and any slice of it reads as the
 * same slice of the joined pieces.
 */
import { SegmentedText } from '../../../nodes/shared/stream/segmentedText';

describe('text gathered in segments', () => {
	test('nothing appended is empty', () => {
		const text = new SegmentedText();
		expect(text.length).toBe(0);
		expect(text.toString()).toBe('');
	});

	test('pieces across several segments read back exactly, with their length', () => {
		const text = new SegmentedText();
		const pieces: string[] = [];
		// About 3.5 MB in pieces of 1 to 299 characters, non-ASCII included.
		for (let i = 0; pieces.length < 24_000; i++) {
			const piece = `${i}:${'é✓x'.repeat(i % 100)}|`;
			pieces.push(piece);
			text.append(piece);
		}
		const expected = pieces.join('');
		expect(expected.length).toBeGreaterThan(3 << 20);
		expect(text.length).toBe(expected.length);
		expect(text.toString()).toBe(expected);
		// Read again, and read after more was appended.
		expect(text.toString()).toBe(expected);
		text.append('end');
		expect(text.toString()).toBe(`${expected}end`);
	});

	test('empty pieces add nothing', () => {
		const text = new SegmentedText();
		text.append('');
		text.append('a');
		text.append('');
		expect(text.length).toBe(1);
		expect(text.toString()).toBe('a');
	});

	test('every kind of slice reads as String#slice of the joined pieces', () => {
		const text = new SegmentedText();
		const pieces: string[] = [];
		// About 2.5 MB: many folded segments and pieces still pending after them.
		for (let i = 0; i < 26_000; i++) {
			const piece = `<${i}>${'ab✓'.repeat(i % 50)}`;
			pieces.push(piece);
			text.append(piece);
		}
		const joined = pieces.join('');
		const edges = [0, 1, 1 << 16, (1 << 16) + 7, 1 << 20, joined.length - 5, joined.length];
		let seed = 7;
		const random = (below: number) => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed % below;
		};
		const starts = [...edges, ...Array.from({ length: 40 }, () => random(joined.length))];
		for (const start of starts) {
			for (const end of [start, start + 1, start + 300, start + 1_500_000, joined.length + 10]) {
				expect(text.slice(start, end)).toBe(joined.slice(start, end));
			}
			expect(text.slice(start)).toBe(joined.slice(start));
		}
		expect(text.slice(10, 5)).toBe('');
	});

	test('holdsAt: the text stands there whole, or not', () => {
		const text = new SegmentedText();
		for (const piece of ['Hello', ', ', 'world', '!']) text.append(piece);
		expect(text.holdsAt(0, 'Hello, world!')).toBe(true);
		expect(text.holdsAt(4, 'o, w')).toBe(true);
		expect(text.holdsAt(7, 'world!')).toBe(true);
		expect(text.holdsAt(13, '')).toBe(true);
		expect(text.holdsAt(7, 'world!!')).toBe(false);
		expect(text.holdsAt(7, 'World')).toBe(false);
		expect(text.holdsAt(-1, 'H')).toBe(false);
	});

	test('isBlank: empty or whitespace alone, across segments and pieces', () => {
		const text = new SegmentedText();
		expect(text.isBlank()).toBe(true);
		text.append(' \n'.repeat(1 << 16));
		text.append('\t');
		expect(text.isBlank()).toBe(true);
		text.append('x');
		expect(text.isBlank()).toBe(false);
	});
});
