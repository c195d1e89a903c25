/**
 * A thinking delta told from its text, without parsing it. Most events of a 2026 answer are the
 * model's thinking, which no answer reads (steps aside), and parsing them was most of what reading
 * the stream cost. Only an unambiguous text qualifies: exactly one `"part_delta_kind"` key, its
 * value `thinking`; exactly one `"index"`, a whole number; at most one `"zmid"`, a plain string.
 * A key inside a JSON string is escaped (`\"`) and never matches. Anything else is parsed as usual
 * (events.ts), and reading it so gives the same answer: a delta of a part known to be thinking
 * that names no other kind changes nothing (assembly.ts, `isThinkingPart`).
 */
export interface ThinkingDelta {
	index: number;
	/** The model response it names (`metadata.zmid`), if any. */
	response: string | undefined;
}

const KIND_KEY = '"part_delta_kind"';
const THINKING = /^"part_delta_kind"\s*:\s*"thinking"/;
const INDEX_KEY = '"index"';
const INDEX = /^"index"\s*:\s*(\d{1,9})\s*[,}]/;
const ZMID_KEY = '"zmid"';
const ZMID = /^"zmid"\s*:\s*"([^"\\]*)"/;

export function thinkingDeltaOf(data: string): ThinkingDelta | undefined {
	const kindAt = onlyAt(data, KIND_KEY);
	if (kindAt === undefined || !THINKING.test(data.slice(kindAt, kindAt + 48))) return undefined;
	const indexAt = onlyAt(data, INDEX_KEY);
	if (indexAt === undefined) return undefined;
	const index = INDEX.exec(data.slice(indexAt, indexAt + 32));
	if (!index) return undefined;
	const zmidAt = data.indexOf(ZMID_KEY);
	if (zmidAt === -1) return { index: Number(index[1]), response: undefined };
	if (data.indexOf(ZMID_KEY, zmidAt + 1) !== -1) return undefined;
	const zmid = ZMID.exec(data.slice(zmidAt, zmidAt + 200));
	return zmid && zmid[1] ? { index: Number(index[1]), response: zmid[1] } : undefined;
}

/** Where `key` stands in `data` when it stands there exactly once. */
function onlyAt(data: string, key: string): number | undefined {
	const at = data.indexOf(key);
	if (at === -1 || data.indexOf(key, at + 1) !== -1) return undefined;
	return at;
}
