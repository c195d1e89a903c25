/**
 * The token redaction as a hostile server attacks it (docs/security.md): the pieces a streaming
 * workflow is given say what the whole answer says once redacted, wherever the stream was cut,
 * and never let out a spelling of the token the redaction reads; the token written in HTML
 * character references a browser reads (named ones, numeric ones with many leading zeros) is
 * redacted; a stream of tiny pieces costs about what its text costs.
 */
import { LiveText } from '../../../nodes/shared/liveText';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'Zo_Sk_Review-Redaction-Token-4f9A2c';
const redaction = redactionOf(TOKEN)!;

/** The pieces a streaming workflow is given for the text cut into `pieces`, joined. */
function streamed(pieces: readonly string[]): string {
	const out: string[] = [];
	const live = new LiveText((piece) => out.push(piece));
	live.redactWith(redaction);
	for (const piece of pieces) live.forward!(piece);
	live.finish();
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

describe('an escape the next escape completes, cut between pieces', () => {
	// The token's eighth character, `e` (%65, \u0065, &#101;), written as an escape one of whose
	// characters is another escape: `%6` is an escape only once what follows it is decoded. The
	// whole text is redacted whole; a piece that ends at `%6` must not go out.
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
		const text = `Key: Zo_Sk_R${written}view-Redaction-Token-4f9A2c done`;
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
		const text = `Key: ${TOKEN.slice(0, -1)}%6&#51; ok`;
		expect(redaction.text(text)).toBe('Key: [redacted] ok');
		expect(streamed([...text])).toBe('Key: [redacted] ok');
		expect(wrongCuts(text, 'Key: [redacted] ok')).toEqual([]);
	});
});

describe('HTML character references a browser reads', () => {
	/** One of the project's tokens whose `_`, `+`, `/` and `=` have named references. */
	const ODD = 'Zo_Sk_Echo+Tok/en=7Fq2Lm9X-Middle~Part';
	/** One whose first and last eight characters each hold a `_`. */
	const UNDERSCORED = 'Zo_Sk_Review_Named_Token_4f9A_2c';
	const named = (token: string) =>
		token
			.replace(/_/g, '&lowbar;')
			.replace(/\+/g, '&plus;')
			.replace(/\//g, '&sol;')
			.replace(/=/g, '&equals;');
	const code = (c: string) => c.charCodeAt(0);

	test.each([
		['`_`, `+`, `/`, `=` as named references (`&lowbar;`, `&plus;`, …)', ODD, named(ODD)],
		['every `_` as `&lowbar;`', UNDERSCORED, named(UNDERSCORED)],
		['`_` as `&UnderBar;`', UNDERSCORED, UNDERSCORED.replace(/_/g, '&UnderBar;')],
		[
			'decimal references with leading zeros past ten digits (`&#000000000090;`)',
			TOKEN,
			[...TOKEN].map((c) => `&#${String(code(c)).padStart(12, '0')};`).join(''),
		],
		[
			'hexadecimal references with leading zeros past ten digits (`&#x00000000005a;`)',
			TOKEN,
			[...TOKEN].map((c) => `&#x${code(c).toString(16).padStart(12, '0')};`).join(''),
		],
		[
			'percent-encoding inside named references (`&percnt;5A`, as `&#37;5A`)',
			TOKEN,
			[...TOKEN].map((c) => `&percnt;${code(c).toString(16).toUpperCase()}`).join(''),
		],
		[
			'references whose `#` is a named reference (`&&num;90;`)',
			TOKEN,
			[...TOKEN].map((c) => `&&num;${code(c)};`).join(''),
		],
		[
			'\\u escapes whose `\\` is a named reference (`&bsol;u005a`)',
			TOKEN,
			[...TOKEN].map((c) => `&bsol;u${code(c).toString(16).padStart(4, '0')}`).join(''),
		],
		[
			'references escaped again in capitals (`&AMP;#90;`)',
			TOKEN,
			[...TOKEN].map((c) => `&AMP;#${code(c)};`).join(''),
		],
		[
			'references escaped again without the `;` browsers let go (`&amp#90;`)',
			TOKEN,
			[...TOKEN].map((c) => `&amp#${code(c)};`).join(''),
		],
	])('%s: the token is redacted', (_, token, written) => {
		expect(redactionOf(token)!.text(`Bad key "${written}" & more.`)).toBe(
			'Bad key "[redacted]" & more.',
		);
	});
});

describe('what a stream of tiny pieces costs', () => {
	test('the token spelled in three layers again and again, a character a piece: 256 KB within 5 s', () => {
		// Each character as a decimal reference, percent-encoded three times (`%252526%252523090%25253B`):
		// what is held (up to 1024 characters, the token's possible beginning) is read again, in
		// five readings, with every piece. Plain text in such pieces takes well under a second.
		const layered = (c: string) =>
			encodeURIComponent(
				encodeURIComponent(encodeURIComponent(`&#${String(c.charCodeAt(0)).padStart(3, '0')};`)),
			);
		const spelled = [...TOKEN].map(layered).join('');
		const text = `${spelled} `.repeat(Math.ceil((256 * 1024) / (spelled.length + 1)));
		const out: string[] = [];
		const live = new LiveText((piece) => out.push(piece));
		live.redactWith(redaction);
		const bound = 5000;
		const started = Date.now();
		let passed = 0;
		for (; passed < text.length && Date.now() - started < bound; passed += 256) {
			for (const piece of text.slice(passed, passed + 256)) live.forward!(piece);
		}
		live.finish();
		const elapsed = Date.now() - started;
		expect({ passed: Math.min(passed, text.length), inTime: elapsed < bound }).toEqual({
			passed: text.length,
			inTime: true,
		});
		expect(out.join('')).toBe('[redacted] '.repeat(text.length / (spelled.length + 1)));
	});
});
