/**
 * A thinking delta told from its text, without parsing it. Most events of a 2026 answer are the
 * model's thinking, which no answer reads (steps aside), and parsing them was most of what reading
 * the stream cost. Only an unambiguous text qualifies: exactly one `"part_delta_kind"` key, its
 * value `thinking`; exactly one `"index"`, a whole number; at most one `"zmid"`, a plain string.
 * A key inside a JSON string is escaped (`\"`) and never matches. Anything else is parsed as usual
 * (events.ts), and reading it so gives the same answer: a delta of a part known to be thinking
 * that names no other kind changes nothing (assembly.ts, `isThinkingDelta`).
 */
export interface ThinkingDelta {
	index: number;
	/** The model response it names (`metadata.zmid`), if any. */
	response: string | undefined;
}

const KIND_KEY = '"part_delta_kind"';
const INDEX_KEY = '"index"';
const ZMID_KEY = '"zmid"';
const THINKING = '"thinking"';

/** Searched for with indexOf and read in place: cheaper than the parse it saves. */
export function thinkingDeltaOf(data: string): ThinkingDelta | undefined {
	const kindAt = onlyAt(data, KIND_KEY);
	if (kindAt === undefined) return undefined;
	const kindValue = valueAt(data, kindAt + KIND_KEY.length);
	if (kindValue === -1 || !data.startsWith(THINKING, kindValue)) return undefined;
	const indexAt = onlyAt(data, INDEX_KEY);
	if (indexAt === undefined) return undefined;
	const index = wholeNumberAt(data, valueAt(data, indexAt + INDEX_KEY.length));
	if (index === undefined) return undefined;
	const zmidAt = data.indexOf(ZMID_KEY);
	if (zmidAt === -1) return { index, response: undefined };
	if (data.indexOf(ZMID_KEY, zmidAt + 1) !== -1) return undefined;
	const response = plainStringAt(data, valueAt(data, zmidAt + ZMID_KEY.length));
	return response ? { index, response } : undefined;
}

/** Where `key` stands in `data` when it stands there exactly once. */
function onlyAt(data: string, key: string): number | undefined {
	const at = data.indexOf(key);
	if (at === -1 || data.indexOf(key, at + 1) !== -1) return undefined;
	return at;
}

/** Where the value after a key ending at `at` begins (`: ` and white space skipped), or -1. */
function valueAt(data: string, at: number): number {
	let i = skipSpace(data, at);
	if (data[i] !== ':') return -1;
	i = skipSpace(data, i + 1);
	return i < data.length ? i : -1;
}

function skipSpace(data: string, at: number): number {
	let i = at;
	while (data[i] === ' ' || data[i] === '\n' || data[i] === '\r' || data[i] === '\t') i++;
	return i;
}

/** A whole number of at most 9 digits at `at`, ending the value (`,`, `}` or white space). */
function wholeNumberAt(data: string, at: number): number | undefined {
	if (at === -1) return undefined;
	let i = at;
	let value = 0;
	while (i < data.length && i - at < 9) {
		const digit = data.charCodeAt(i) - 48;
		if (digit < 0 || digit > 9) break;
		value = value * 10 + digit;
		i++;
	}
	const after = data[skipSpace(data, i)];
	return i > at && (after === ',' || after === '}') ? value : undefined;
}

/** A string value at `at` without escapes, at most 200 characters; undefined otherwise. */
function plainStringAt(data: string, at: number): string | undefined {
	if (at === -1 || data[at] !== '"') return undefined;
	const end = data.indexOf('"', at + 1);
	if (end === -1 || end - at > 201) return undefined;
	const value = data.slice(at + 1, end);
	return value.includes('\\') ? undefined : value;
}
