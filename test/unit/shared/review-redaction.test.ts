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
