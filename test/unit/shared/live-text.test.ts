/**
 * The pieces a streaming workflow is given (nodes/shared/liveText.ts): never the token, also when
 * it is split between pieces; the rest of the answer whole, what cannot be part of the token at
 * once, and `sent` as the service gave it (the recovery's rest is reckoned from it).
 */
import { LiveText } from '../../../nodes/shared/liveText';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ';

function live() {
	const out: string[] = [];
	const text = new LiveText((piece) => out.push(piece));
	text.redactWith(redactionOf(TOKEN));
	return { text, out };
}

test('a token split anywhere between pieces never goes out', () => {
	const answer = `Hello ${TOKEN} and ${TOKEN.toLowerCase()}, bye`;
	for (let cut = 1; cut < answer.length; cut++) {
		for (let second = cut + 1; second < answer.length; second += 7) {
			const { text, out } = live();
			text.passOn(answer.slice(0, cut));
			text.passOn(answer.slice(cut, second));
			text.passOn(answer.slice(second));
			text.finish();
			expect(out.join('')).toBe('Hello [redacted] and [redacted], bye');
			expect(text.sent).toBe(answer);
		}
	}
});

test('text that cannot be part of the token goes out at once; what may be waits', () => {
	const { text, out } = live();
	text.passOn('Hello world!');
	expect(out).toEqual(['Hello world!']);
	text.passOn(' and Z');
	expect(out).toEqual(['Hello world!', ' and ']);
	// Its `a` may be the token's, which the token's end would take with it:
	text.passOn('ebra');
	expect(out).toEqual(['Hello world!', ' and ', 'Zebr']);
	text.passOn('.');
	expect(out).toEqual(['Hello world!', ' and ', 'Zebr', 'a.']);
});

test("the token's middle, followed by its end, is taken with it however it was cut", () => {
	const answer = `Hello ${TOKEN.slice(7)} bye`;
	for (let cut = 1; cut < answer.length; cut++) {
		const { text, out } = live();
		text.passOn(answer.slice(0, cut));
		text.passOn(answer.slice(cut));
		text.finish();
		expect(out.join('')).toBe('Hello [redacted] bye');
	}
});

test('a token in four layers of escapes, a character a piece: held back, then redacted', () => {
	const percent = (text: string) =>
		[...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
	// Each layer writes every character of the one before as %XX: thousands of characters that
	// may be the token's, looked at again only each time they have doubled.
	const written = percent(percent(percent(percent(TOKEN))));
	expect(written.length).toBeGreaterThan(1024);
	const after = ' and then some more.'.repeat(100);
	const answer = `Key: ${written} ok${after}`;
	const { text, out } = live();
	for (const piece of `Key: ${written} ok`) text.passOn(piece);
	expect(out.join('')).toBe('Key: ');
	// Once what is held has doubled, it is looked at, and what cannot be the token goes out.
	for (const piece of after) text.passOn(piece);
	expect(out.join('')).toMatch(/^Key: \[redacted\] ok and then some more\./);
	text.finish();
	expect(out.join('')).toBe(`Key: [redacted] ok${after}`);
	expect(text.sent).toBe(answer);
});

test("an answer's end goes out in one piece, with what was held back", () => {
	const { text, out } = live();
	text.passOnEnd('a whole answer');
	expect(out).toEqual(['a whole answer']);
	text.passOn(' Hello there');
	expect(out).toEqual(['a whole answer', ' Hello ther']);
	text.passOnEnd(`, ${TOKEN.slice(0, 10)}`);
	expect(out).toEqual(['a whole answer', ' Hello ther', 'e, [redacted]']);
	expect(text.sent).toBe(`a whole answer Hello there, ${TOKEN.slice(0, 10)}`);
});

test('without a token known, pieces go out as they are', () => {
	const out: string[] = [];
	const text = new LiveText((piece) => out.push(piece));
	text.passOn(`a ${TOKEN}`);
	expect(out).toEqual([`a ${TOKEN}`]);
});

test('with nobody taking pieces, nothing is passed on', () => {
	const text = new LiveText(undefined);
	expect(text.forward).toBeUndefined();
	text.passOn('x');
	expect(text.sent).toBe('');
});
