/**
 * The token in any spelling, read apart from the node's decoder on purpose: a test that uses the
 * node's own reading would pass with the node's mistakes.
 */

const character = (code: number) =>
	code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';

/** The text and every decoding of its escapes, until none is left (at most eight). */
export function decodings(text: string): string[] {
	const all = [text];
	for (let round = 0; round < 8; round++) {
		const last = all[all.length - 1];
		const decoded = last
			.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
			.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
			.replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => character(parseInt(h, 16)))
			.replace(/&#([0-9]+);?/g, (_, d: string) => character(Number(d)))
			.replace(/&(amp|quot);/g, (_, name: string) => (name === 'amp' ? '&' : '"'));
		if (decoded === last) break;
		all.push(decoded);
	}
	return all;
}

/** An 8-character run of the token that the text holds, plainly or decoded, in any letter case. */
export function tokenRunIn(token: string, text: string): string | undefined {
	const readings = decodings(text).map((reading) => reading.toLowerCase());
	for (let i = 0; i + 8 <= token.length; i++) {
		const run = token.slice(i, i + 8).toLowerCase();
		if (readings.some((reading) => reading.includes(run))) return run;
	}
	return undefined;
}
