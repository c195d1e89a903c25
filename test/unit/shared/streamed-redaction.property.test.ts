/**
 * The pieces a streaming workflow or an AI Agent is given (nodes/shared/liveText.ts) are redacted
 * as the whole answer is (docs/security.md), wherever the stream was cut: for texts that hold the
 * token in each form the redaction reads (whole, cut short, in any letter case, percent-encoded,
 * some or all of its characters written as escapes, %XX, \uXXXX or HTML's character
 * references, and those escapes escaped again, up to four layers in all, or an escape one of
 * whose characters is another escape, `%6%35`), cut at random, the
 * pieces joined are the whole text's redaction, and hold no 8-character run of the token,
 * plainly or decoded any number of times.
 */
import { LiveText } from '../../../nodes/shared/liveText';
import { redactionOf } from '../../../nodes/shared/transport/redaction';
import { tokenRunIn } from '../../helpers/token-spellings';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ-LongMiddlePart-xyz12345';
/** One whose percent-encoded form differs from it (encodeURIComponent writes +, / and =). */
const ODD = 'Zo_Sk_Echo+Tok/en=7Fq2Lm9X-Middle~Part';

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const next = random(20260617);
const below = (n: number) => Math.floor(next() * n);
const pick = <T>(list: readonly T[]): T => list[below(list.length)];

const hex = (char: string) => char.charCodeAt(0).toString(16).padStart(2, '0');
const randomCase = (text: string) =>
	[...text].map((c) => (next() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
/**
 * One character as an escape the redaction reads, in either letter case: %XX, \uXXXX, or a
 * decimal or hexadecimal character reference (`&amp;` too, for `&`).
 */
const escape = (char: string) => {
	const code = char.charCodeAt(0);
	const written = pick([
		`%${hex(char)}`,
		`\\u00${hex(char)}`,
		`&#${code};`,
		`&#x${code.toString(16)};`,
		...(char === '&' ? ['&amp;'] : []),
	]);
	return next() < 0.5
		? written.toUpperCase().replace('\\U', '\\u').replace('&AMP;', '&amp;')
		: written;
};
/**
 * The text escaped once more: each character that begins an escape (`%`, `\`, `&`), which
 * would otherwise be read one layer sooner, and now and then another, written as escapes.
 */
const escapedAgain = (text: string) =>
	[...text].map((c) => ('%\\&'.includes(c) || next() < 0.1 ? escape(c) : c)).join('');
/** A character written in `layers` layers of escapes. */
const layered = (char: string, layers: number) => {
	let written = escape(char);
	for (let layer = 1; layer < layers; layer++) written = escapedAgain(written);
	return written;
};
/**
 * A character as an escape one of whose characters after the first is written as an escape
 * itself (`%6%35`, `\u006&#53;`, `&%23101;`): it is an escape only once that one is decoded, so a
 * piece that ends inside it holds an escape that what follows completes a layer later.
 */
const escapeInside = (char: string) => {
	const written = escape(char);
	// Not a reference's digit nor its `;`: what comes before it is a reference already (`&#1`,
	// `&#101`, as a browser reads it too), the rest other characters.
	const at = pick(
		[...[...written].keys()].filter(
			(i) =>
				i > 0 && !(written.startsWith('&') && (written[i] === ';' || /[0-9a-f]/i.test(written[i]))),
		),
	);
	return written.slice(0, at) + escape(written[at]) + written.slice(at + 1);
};
/** The token with the characters at the given indexes written as escapes. */
const escapedAt = (token: string, at: (i: number) => boolean) =>
	[...token].map((c, i) => (at(i) ? escape(c) : c)).join('');
/** The token with each character in as many layers of escapes as `layers` says (0: plain). */
const layeredAt = (token: string, layers: (i: number) => number) =>
	[...token].map((c, i) => (layers(i) === 0 ? c : layered(c, layers(i)))).join('');

/** The forms a token is written in. */
function forms(token: string): Record<string, () => string> {
	const length = token.length;
	return {
		whole: () => token,
		'lower case': () => token.toLowerCase(),
		'upper case': () => token.toUpperCase(),
		'any case': () => randomCase(token),
		'cut short, its beginning': () => token.slice(0, 8 + below(length - 8)),
		'cut short, its end': () => token.slice(-(8 + below(length - 8))),
		'percent-encoded': () => encodeURIComponent(token),
		'its 9th character escaped': () => escapedAt(token, (i) => i === 8),
		'escapes after its first eight': () => escapedAt(token, (i) => i >= 8 && next() < 0.3),
		'escapes before its last eight': () => escapedAt(token, (i) => i < length - 8 && next() < 0.3),
		'cut short, its end, escapes in it': () => {
			const end = token.slice(-(8 + below(length - 8)));
			return escapedAt(end, (i) => i < end.length - 8 && next() < 0.5);
		},
		'every character escaped': () => escapedAt(token, () => true),
		'its 8th character an escape with an escape inside': () =>
			[...token].map((c, i) => (i === 7 ? escapeInside(c) : c)).join(''),
		'escapes with an escape inside, here and there': () =>
			[...token].map((c) => (next() < 0.3 ? escapeInside(c) : c)).join(''),
		'one escape among its first eight and one among its last': () =>
			escapedAt(token, (i) => i === 3 || i === length - 3),
		'its middle and end escaped, its beginning missing': () =>
			escapedAt(token.slice(12), () => true),
		'\\u escapes written with %XX': () => [...token].map((c) => `%5Cu00${hex(c)}`).join(''),
		'the whole token percent-encoded, then escaped again': () =>
			escapedAgain(encodeURIComponent(token)),
	};
}

/** Forms in layers of escapes: long texts, so fewer of them. */
function layeredForms(token: string): Record<string, () => string> {
	const length = token.length;
	return {
		'every character in two layers of escapes': () => layeredAt(token, () => 2),
		'every character in three layers': () => layeredAt(token, () => 3),
		'every character in four layers': () => layeredAt(token, () => 4),
		'each character plain or in one to four layers': () => layeredAt(token, () => below(5)),
		'its beginning plain, the rest in two or three layers': () =>
			layeredAt(token, (i) => (i < 8 ? 0 : 2 + below(2))),
		'its 8th character an escape with an escape inside, escaped again once or twice': () =>
			[...token]
				.map((c, i) => {
					if (i !== 7) return c;
					const once = escapedAgain(escapeInside(c));
					return next() < 0.5 ? once : escapedAgain(once);
				})
				.join(''),
		'cut short, its end, in two layers': () =>
			layeredAt(token.slice(-(8 + below(length - 8))), () => 2),
	};
}

const BEFORE = ['', 'Key: ', 'said "', 'GET /conversations/', '%41', 'Hello there, ', 'x', 'Q&A: '];
const AFTER = [
	'',
	' ok',
	'" and more.',
	'/x 100%25 sure \\u0041nswer',
	'%',
	'e',
	' &amp; more',
	'&',
	'&#3',
];

/** The text given piece by piece, cut at `cuts`: what the pieces were, joined. */
function streamed(token: string, text: string, cuts: number[]): string {
	const out: string[] = [];
	const live = new LiveText((piece) => out.push(piece));
	live.redactWith(redactionOf(token));
	let from = 0;
	for (const cut of [...cuts, text.length]) {
		live.forward!(text.slice(from, cut));
		from = cut;
	}
	live.finish();
	return out.join('');
}

function randomCuts(length: number): number[] {
	const count = 1 + below(6);
	const cuts = Array.from({ length: count }, () => below(length + 1));
	return cuts.sort((a, b) => a - b);
}

/**
 * Texts per form, random cuts per text, and single cuts per text (every one in a short text, as
 * many spread over a long one).
 */
const BUDGET = { texts: 12, cuts: 60, singleCuts: 300 };
const LAYERED_BUDGET = { texts: 4, cuts: 30, singleCuts: 150 };

/** Texts holding the token as `form` writes it: the pieces joined, however cut, are the whole. */
function checkForm(token: string, form: () => string, budget: typeof BUDGET): void {
	const redaction = redactionOf(token)!;
	for (let t = 0; t < budget.texts; t++) {
		const twice = next() < 0.3;
		const text = `${pick(BEFORE)}${form()}${pick(AFTER)}${twice ? ` and ${form()}.` : ''}`;
		const whole = redaction.text(text);
		expect(tokenRunIn(token, whole)).toBeUndefined();
		for (let c = 0; c < budget.cuts; c++) {
			const cuts = randomCuts(text.length);
			const shown = streamed(token, text, cuts);
			if (shown !== whole) throw new Error(`${JSON.stringify(text)} cut at ${cuts}: ${shown}`);
			expect(tokenRunIn(token, shown)).toBeUndefined();
		}
		const step = Math.ceil((text.length + 1) / budget.singleCuts);
		for (let cut = below(step); cut <= text.length; cut += step) {
			expect(streamed(token, text, [cut])).toBe(whole);
		}
	}
}

describe.each([TOKEN, ODD])('the token %s', (token) => {
	test.each(Object.entries(forms(token)))(
		'%s: the pieces joined are the whole text redacted, wherever it is cut',
		(_, form) => checkForm(token, form, BUDGET),
	);

	test.each(Object.entries(layeredForms(token)))(
		'%s: the pieces joined are the whole text redacted, wherever it is cut',
		(_, form) => checkForm(token, form, LAYERED_BUDGET),
	);
});
