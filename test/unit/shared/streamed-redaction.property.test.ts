/**
 * The pieces a streaming workflow or an AI Agent is given (nodes/shared/liveText.ts) are redacted
 * as the whole answer is (docs/security.md), wherever the stream was cut: for texts that hold the
 * token in each form the redaction reads (whole, cut short, in any letter case, percent-encoded,
 * some characters written as escapes), cut at random, the pieces joined are the whole text's
 * redaction, and hold no 8-character run of the token, plainly or decoded. A text whose escapes
 * hide the token (no plain run of it left) is replaced whole when redacted whole; streamed, the
 * run of pieces that holds it is replaced, and no run of the token goes out either.
 */
import { LiveText } from '../../../nodes/shared/liveText';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ-LongMiddlePart-xyz12345';
/** One whose percent-encoded form differs from it (encodeURIComponent writes +, / and =). */
const ODD = 'Zo_Sk_Echo+Tok/en=7Fq2Lm9X-Middle~Part';
const HIDDEN = '[redacted: the text held the access token]';

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
/** One character as an escape the redaction reads: %XX or \uXXXX, in either letter case. */
const escape = (char: string) => {
	const written = next() < 0.5 ? `%${hex(char)}` : `\\u00${hex(char)}`;
	return next() < 0.5 ? written.toUpperCase().replace('\\U', '\\u') : written;
};
/** The token with the characters at the given indexes written as escapes. */
const escapedAt = (token: string, at: (i: number) => boolean) =>
	[...token].map((c, i) => (at(i) ? escape(c) : c)).join('');

/** The forms a token is written in whose plain first or last eight characters remain. */
function plainForms(token: string): Record<string, () => string> {
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
	};
}

/** Forms in which escapes hide the token: no plain run of its first or last eight characters. */
function hiddenForms(token: string): Record<string, () => string> {
	const length = token.length;
	return {
		'every character escaped': () => escapedAt(token, () => true),
		'one escape among its first eight and one among its last': () =>
			escapedAt(token, (i) => i === 3 || i === length - 3),
		'its middle and end escaped, its beginning missing': () =>
			escapedAt(token.slice(12), () => true),
		'\\u escapes written with %XX': () => [...token].map((c) => `%5Cu00${hex(c)}`).join(''),
	};
}

const BEFORE = ['', 'Key: ', 'said "', 'GET /conversations/', '%41', 'Hello there, ', 'x'];
const AFTER = ['', ' ok', '" and more.', '/x 100%25 sure \\u0041nswer', '%', 'e'];

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

/** What the redaction's escapes spell (%XX, then \uXXXX in what that gave). */
function decoded(text: string): string {
	return text
		.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
		.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** An 8-character run of the token that the text holds, plainly or decoded, in any case. */
function runOf(token: string, text: string): string | undefined {
	const plain = text.toLowerCase();
	const spelled = decoded(text).toLowerCase();
	for (let i = 0; i + 8 <= token.length; i++) {
		const run = token.slice(i, i + 8).toLowerCase();
		if (plain.includes(run) || spelled.includes(run)) return run;
	}
	return undefined;
}

const TEXTS_PER_FORM = 12;
const CUTS_PER_TEXT = 60;

describe.each([TOKEN, ODD])('the token %s', (token) => {
	const redaction = redactionOf(token)!;

	test.each(Object.entries(plainForms(token)))(
		'%s: the pieces joined are the whole text redacted, wherever it is cut',
		(_, form) => {
			for (let t = 0; t < TEXTS_PER_FORM; t++) {
				const twice = next() < 0.3;
				const text = `${pick(BEFORE)}${form()}${pick(AFTER)}${twice ? ` and ${form()}.` : ''}`;
				const whole = redaction.text(text);
				expect(runOf(token, whole)).toBeUndefined();
				for (let c = 0; c < CUTS_PER_TEXT; c++) {
					const cuts = randomCuts(text.length);
					const shown = streamed(token, text, cuts);
					if (shown !== whole) throw new Error(`${JSON.stringify(text)} cut at ${cuts}: ${shown}`);
					expect(runOf(token, shown)).toBeUndefined();
				}
				// Every single cut, too.
				for (let cut = 0; cut <= text.length; cut++) {
					expect(streamed(token, text, [cut])).toBe(whole);
				}
			}
		},
	);

	test.each(Object.entries(hiddenForms(token)))(
		'%s: the run of pieces that holds it is replaced, no run of it goes out',
		(_, form) => {
			for (let t = 0; t < TEXTS_PER_FORM; t++) {
				const text = `${pick(BEFORE)}${form()}${pick(AFTER)}`;
				expect(redaction.text(text)).toBe(HIDDEN);
				for (let c = 0; c < CUTS_PER_TEXT; c++) {
					const cuts = randomCuts(text.length);
					const shown = streamed(token, text, cuts);
					expect(shown).toContain(HIDDEN);
					if (runOf(token, shown)) {
						throw new Error(`${JSON.stringify(text)} cut at ${cuts}: ${shown}`);
					}
				}
			}
		},
	);
});
