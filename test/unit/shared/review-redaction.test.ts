/**
 * The token redaction as a hostile server attacks it (docs/security.md): the pieces a streaming
 * workflow is given say what the whole answer says once redacted, wherever the stream was cut,
 * and never let out a spelling of the token the redaction reads; the token written in HTML
 * character references a browser reads (named ones, numeric ones with many leading zeros) is
 * redacted; a stream of tiny pieces costs about what its text costs.
 */
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
