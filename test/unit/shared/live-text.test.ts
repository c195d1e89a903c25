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

describe('an escape the next escape completes, cut between pieces', () => {
	/** Its eighth character is `e` (%65, \u0065, &#101;), its last `c` (%63). */
	const ESCAPED = 'Zo_Sk_Reach-Escape-Token-4f9A2c';
	const redaction = redactionOf(ESCAPED)!;

	/** The pieces a streaming workflow is given for the text cut into `pieces`, joined. */
	function streamed(pieces: readonly string[]): string {
		const out: string[] = [];
		const text = new LiveText((piece) => out.push(piece));
		text.redactWith(redaction);
		for (const piece of pieces) text.forward!(piece);
		text.finish();
		return out.join('');
	}

	/** What the pieces said, for each cut of the text into two, where it is not `expected`. */
	function wrongCuts(text: string, expected: string): string[] {
		const wrong: string[] = [];
		for (let cut = 1; cut < text.length; cut++) {
			const shown = streamed([text.slice(0, cut), text.slice(cut)]);
			if (shown !== expected) wrong.push(`cut at ${cut}: ${shown}`);
		}
		return wrong;
	}

	// The token's eighth character written as an escape one of whose characters is another
	// escape: `%6` is an escape only once what follows it is decoded. The whole text is redacted
	// whole; a piece that ends at `%6` must not go out, nor the token's first seven before it.
	test.each([
		['its second digit percent-encoded', '%6%35'],
		['its second digit a reference', '%6&#53;'],
		['its second digit a hexadecimal reference', '%6&#x35;'],
		['its second digit a reference escaped again', '%6&amp;#53;'],
		['its second digit a \\u escape', '%6\\u0035'],
		['its first digit a reference', '%&#54;5'],
		['a \\u escape, its last digit a reference', '\\u006&#53;'],
		['a \\u escape, its third digit a reference', '\\u00&#54;5'],
		['a reference whose `#` is percent-encoded', '&%23101;'],
		['a layer deeper: %6%35 percent-encoded', '%256%2535'],
	])('%s: the head of the token never goes out before what completes it', (_, written) => {
		const text = `Key: Zo_Sk_R${written}${ESCAPED.slice(8)} done`;
		expect(redaction.text(text)).toBe('Key: [redacted] done');
		// A character a piece, as a server may stream it.
		const each = streamed([...text]);
		expect(each).toBe('Key: [redacted] done');
		// Joined, the pieces hold no spelling of the token the redaction reads.
		expect(redaction.text(each)).toBe(each);
		expect(wrongCuts(text, 'Key: [redacted] done')).toEqual([]);
	});

	test("the token's last character so written: the pieces say what the whole text says", () => {
		// `c` (%63), its second digit a reference: the pieces showed the escape after [redacted].
		const text = `Key: ${ESCAPED.slice(0, -1)}%6&#51; ok`;
		expect(redaction.text(text)).toBe('Key: [redacted] ok');
		expect(streamed([...text])).toBe('Key: [redacted] ok');
		expect(wrongCuts(text, 'Key: [redacted] ok')).toEqual([]);
	});
});

test('a token spelled in three layers again and again, a character a piece: 256 KB within 5 s', () => {
	// Each character as a decimal reference, percent-encoded three times
	// (`%252526%252523090%25253B`): what is held, the token's possible beginning, is read again in
	// five readings with every piece, as long as it is held looked at once. Plain text in such
	// pieces takes well under a second; at 1024 characters held looked at once, this took 20 s.
	const layered = (c: string) =>
		encodeURIComponent(
			encodeURIComponent(encodeURIComponent(`&#${String(c.charCodeAt(0)).padStart(3, '0')};`)),
		);
	const spelled = [...TOKEN].map(layered).join('');
	const text = `${spelled} `.repeat(Math.ceil((256 * 1024) / (spelled.length + 1)));
	const { text: pieces, out } = live();
	const bound = 5000;
	const started = Date.now();
	let passed = 0;
	for (; passed < text.length && Date.now() - started < bound; passed += 256) {
		for (const piece of text.slice(passed, passed + 256)) pieces.forward!(piece);
	}
	pieces.finish();
	const elapsed = Date.now() - started;
	expect({ passed: Math.min(passed, text.length), inTime: elapsed < bound }).toEqual({
		passed: text.length,
		inTime: true,
	});
	expect(out.join('')).toBe('[redacted] '.repeat(text.length / (spelled.length + 1)));
});

test.each(['&', '\\', '%', '%6'])(
	'a long run of %j, 512 KB in pieces of 1024: within 5 s, as at 6dce1cc (well under a second)',
	(unit) => {
		// Each of them is an escape the next may complete, so the whole run is held, and each look
		// at what is held walks back through it escape by escape, each step searching the held
		// text back to its beginning for the escape characters it does not hold: 1 MB of `&` took
		// over 60 s; 6dce1cc took 18 ms.
		const text = `Intro. ${unit.repeat((512 * 1024) / unit.length)} end.`;
		const { text: pieces, out } = live();
		const bound = 5000;
		const started = Date.now();
		let passed = 0;
		for (; passed < text.length && Date.now() - started < bound; passed += 1024) {
			pieces.forward!(text.slice(passed, passed + 1024));
		}
		pieces.finish();
		const elapsed = Date.now() - started;
		expect({ passed: Math.min(passed, text.length), inTime: elapsed < bound }).toEqual({
			passed: text.length,
			inTime: true,
		});
		expect(out.join('')).toBe(text.slice(0, passed));
	},
);
