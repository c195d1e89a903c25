/**
 * The escapes a server's text may write a character in, one grammar for the nodes: `%XX` (a
 * URL's), `\uXXXX` (JSON's) and HTML's character references. An HTML page's text is shown with
 * its references decoded once, as a browser shows it (serverMessage.ts's stripHtml); the
 * redaction reads every escape, layer by layer (redaction.ts), and maps what it finds back to
 * the text as it was written.
 */

/**
 * How many digits a numeric reference is read with after its leading zeros, which are read
 * however many (as browsers read them): a code point has at most seven (decimal or hexadecimal).
 * Further digits are text; a number past U+10FFFF is the replacement character, as in HTML.
 */
const MAX_SIGNIFICANT_DIGITS = 7;

/**
 * The named references whose character is ASCII, as the WHATWG list has them (names are case
 * sensitive): a token's characters are ASCII, so these are the ones that can spell it. Others
 * write characters no token holds, and are left as they are.
 */
const NAMED_REFERENCES: Record<string, string> = {
	Tab: '\t',
	NewLine: '\n',
	excl: '!',
	quot: '"',
	QUOT: '"',
	num: '#',
	dollar: '$',
	percnt: '%',
	amp: '&',
	AMP: '&',
	apos: "'",
	lpar: '(',
	rpar: ')',
	ast: '*',
	midast: '*',
	plus: '+',
	comma: ',',
	period: '.',
	sol: '/',
	colon: ':',
	semi: ';',
	lt: '<',
	LT: '<',
	equals: '=',
	gt: '>',
	GT: '>',
	quest: '?',
	commat: '@',
	lbrack: '[',
	lsqb: '[',
	bsol: '\\',
	rbrack: ']',
	rsqb: ']',
	Hat: '^',
	lowbar: '_',
	UnderBar: '_',
	grave: '`',
	DiacriticalGrave: '`',
	lbrace: '{',
	lcub: '{',
	verbar: '|',
	vert: '|',
	VerticalLine: '|',
	rbrace: '}',
	rcub: '}',
};

/** Those a browser reads without their `;` too (HTML's legacy names; `&amp#90;` is `&#90;`). */
const LEGACY_NAMES = ['amp', 'AMP', 'lt', 'LT', 'gt', 'GT', 'quot', 'QUOT'];

const NAMES = Object.keys(NAMED_REFERENCES);

const SIGNIFICANT = `{1,${MAX_SIGNIFICANT_DIGITS}}`;

/**
 * A numeric reference (its `;` may be left out, as browsers allow), or a named one whose
 * character is ASCII (a legacy name's `;` may be left out). Its groups: the hexadecimal digits,
 * the decimal ones, the name, the legacy name without `;`.
 */
export const CHARACTER_REFERENCE = new RegExp(
	String.raw`&(?:#[xX]0*([0-9a-fA-F]${SIGNIFICANT});?|#0*([0-9]${SIGNIFICANT});?|(${NAMES.join('|')});|(${LEGACY_NAMES.join('|')}))`,
	'g',
);

/** The character a reference writes (CHARACTER_REFERENCE's groups). */
export function decodedReference(
	_written: string,
	hex?: string,
	decimal?: string,
	name?: string,
	legacyName?: string,
): string {
	const named = name ?? legacyName;
	if (named) return NAMED_REFERENCES[named];
	const code = hex ? parseInt(hex, 16) : Number(decimal);
	// What no character can be is shown as HTML does: the replacement character.
	return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
}

/** Any escape: `%XX`, `\uXXXX`, or a character reference (its groups follow). */
const ESCAPE = new RegExp(
	String.raw`%([0-9a-fA-F]{2})|\\[uU]([0-9a-fA-F]{4})|${CHARACTER_REFERENCE.source}`,
	'g',
);

/** The character an escape writes (ESCAPE's groups): one, or two halves beyond U+FFFF. */
function decodedEscape(
	written: string,
	percent: string | undefined,
	unicode: string | undefined,
	hex: string | undefined,
	decimal: string | undefined,
	name: string | undefined,
	legacyName: string | undefined,
): string {
	const code = percent ?? unicode;
	return code
		? String.fromCharCode(parseInt(code, 16))
		: decodedReference(written, hex, decimal, name, legacyName);
}

/** How long what the escape `match` writes is: 1, or 2 beyond U+FFFF. */
function decodedWidth(match: RegExpExecArray): number {
	const [, , , hex, decimal] = match;
	if (hex === undefined && decimal === undefined) return 1;
	const code = hex === undefined ? Number(decimal) : parseInt(hex, 16);
	return code > 0xffff && code <= 0x10ffff ? 2 : 1;
}

/**
 * Whether the text may hold an escape (a `%`, a backslash or `&` in it), which most texts answer
 * no: three searches for one character each, several times faster over a long answer than one
 * search for a class of them.
 */
export function mayHoldEscape(text: string): boolean {
	return text.includes('%') || text.includes('\\') || text.includes('&');
}

/**
 * The text with every escape in it decoded, once, from left to right (`%2541` gives `%41`;
 * undefined when it holds none; never longer than the text), with where in it what the escapes
 * wrote stands: [begin, end) pairs, one after the other (`changed[2i]`, `changed[2i + 1]`), in
 * order, those that touch joined. What lies outside them is the text's own characters, as they
 * were.
 */
export function decodedOnceWithChanges(
	text: string,
): { decoded: string; changed: number[] } | undefined {
	ESCAPE.lastIndex = 0;
	let match = ESCAPE.exec(text);
	if (!match) return undefined;
	let decoded = '';
	const changed: number[] = [];
	let from = 0;
	for (; match; match = ESCAPE.exec(text)) {
		decoded += text.slice(from, match.index);
		const begin = decoded.length;
		decoded += decodedEscape(match[0], match[1], match[2], match[3], match[4], match[5], match[6]);
		if (changed.length > 0 && changed[changed.length - 1] === begin) {
			changed[changed.length - 1] = decoded.length;
		} else changed.push(begin, decoded.length);
		from = match.index + match[0].length;
	}
	return { decoded: decoded + text.slice(from), changed };
}

/**
 * Where `position` of `source` stands in the decoding of `source` (decodedOnceWithChanges); one inside an escape, where what
 * the escape wrote begins.
 */
export function decodedPosition(source: string, position: number): number {
	let shorter = 0;
	ESCAPE.lastIndex = 0;
	for (
		let match = ESCAPE.exec(source);
		match && match.index < position;
		match = ESCAPE.exec(source)
	) {
		if (match.index + match[0].length > position) return match.index - shorter;
		shorter += match[0].length - decodedWidth(match);
	}
	return position - shorter;
}

/** Where the escape begins that holds `position` of the text inside it; undefined for none. */
export function escapeAround(text: string, position: number): number | undefined {
	ESCAPE.lastIndex = 0;
	for (let match = ESCAPE.exec(text); match && match.index < position; match = ESCAPE.exec(text)) {
		if (match.index + match[0].length > position) return match.index;
	}
	return undefined;
}

/**
 * Where, in `source`, each range of the decoding of `source` (decodedOnceWithChanges) was written: [begin, end) of the
 * escapes and characters that wrote it. A range that begins or ends between the two halves one
 * escape wrote takes that escape. One pass over the source.
 */
export function sourceRanges(
	source: string,
	ranges: ReadonlyArray<readonly [number, number]>,
): Array<[number, number]> {
	const count = ranges.length;
	if (count === 0) return [];
	// Each range's begin (at i), then its end (at count + i), taken in the order they come.
	const point = (i: number) => (i < count ? ranges[i][0] : ranges[i - count][1]);
	const order = Array.from({ length: 2 * count }, (_, i) => i).sort((a, b) => point(a) - point(b));
	const found = new Array<number>(2 * count);
	// The same point in both texts: where the part not yet passed begins.
	let inSource = 0;
	let inDecoded = 0;
	let next = 0;
	const plainUpTo = (limit: number) => {
		for (; next < order.length && point(order[next]) <= limit; next++) {
			found[order[next]] = inSource + point(order[next]) - inDecoded;
		}
	};
	ESCAPE.lastIndex = 0;
	for (let match = ESCAPE.exec(source); match && next < order.length; match = ESCAPE.exec(source)) {
		const written = inDecoded + match.index - inSource;
		plainUpTo(written);
		const width = decodedWidth(match);
		const end = match.index + match[0].length;
		for (; next < order.length && point(order[next]) < written + width; next++) {
			found[order[next]] = order[next] < count ? match.index : end;
		}
		inSource = end;
		inDecoded = written + width;
	}
	plainUpTo(Infinity);
	return ranges.map((_, i) => [found[i], found[count + i]]);
}

/**
 * Where the escapes begin that the text's first `end` characters leave incomplete at their end,
 * so that what follows may complete them or make them longer (`%4`, `\u00`, `&am`, `&#9` and
 * `&#90`, whose digits may go on); `end` when there is none. No escape holds another's first
 * character, so only the last one's can begin one; but an incomplete escape may be completed by
 * what the one after it decodes to (`%6` then `%3`, which `5` makes `%35`, `%6` then `%65`), so
 * the one before it counts too, and the one before that, as long as each ends where the next
 * begins, up to `links` of them: each one before waits on a decoding of the one after it, so
 * past as many as the decodings still to come, an escape is never decoded in any reading (and a
 * run of `&` as long as the text would make each look walk through all of it).
 */
export function openEscapeStart(text: string, end: number, links: number): number {
	let start = end;
	for (let link = 0; link < links; link++) {
		const at = openEscapeAt(text, start);
		if (at === start) break;
		start = at;
	}
	return start;
}

/** Where the one escape begins that the text's first `end` characters leave incomplete. */
function openEscapeAt(text: string, end: number): number {
	// The nearest escape character: searching for each of the three back to the text's start cost
	// the whole text for every one it does not hold.
	let at = end - 1;
	for (; at >= 0; at--) {
		const code = text.charCodeAt(at);
		if (code === PERCENT || code === BACKSLASH || code === AMPERSAND) break;
	}
	return at >= 0 && OPEN_ESCAPE.test(text.slice(at, end)) ? at : end;
}

const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;

const NAME_BEGINNINGS = [
	...new Set(NAMES.flatMap((name) => [...name].map((_, i) => name.slice(0, i + 1)))),
];

const OPEN_DIGITS = `0*[0-9]{0,${MAX_SIGNIFICANT_DIGITS}}`;
const OPEN_HEX_DIGITS = `0*[0-9a-fA-F]{0,${MAX_SIGNIFICANT_DIGITS}}`;

/** An escape's beginning that more characters may make an escape, or a longer one. */
const OPEN_ESCAPE = new RegExp(
	`^(?:${[
		'%[0-9a-fA-F]?',
		String.raw`\\(?:[uU][0-9a-fA-F]{0,3})?`,
		`&(?:#(?:[xX]${OPEN_HEX_DIGITS}|${OPEN_DIGITS})|${NAME_BEGINNINGS.join('|')})?`,
	].join('|')})$`,
);
