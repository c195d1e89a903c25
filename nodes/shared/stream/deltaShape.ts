/**
 * Part deltas read by the shape of the ones before them, without parsing them. The deltas of one
 * part differ only in their text: the same index, kind and model response, the same fields around
 * it (`{"delta": {"content_delta": "…", "part_delta_kind": …}, "index": …, "metadata": …}`), and
 * a 2026 answer is hundreds of them, thinking and text, each a few hundred bytes of JSON around a
 * few words. Two deltas parsed in a row that are the same text around a different
 * `content_delta` string fix the shape; a later text that is that shape around another JSON
 * string is that delta, exactly as JSON.parse would read it (docs/api.md#2026-stream-dialect).
 * Anything else (another part, a tool call's delta, another layout) is parsed as before.
 *
 * Why the shape is safe: the string found after the first `"content_delta":` of a valid JSON text
 * is a whole string token. Two valid texts that differ only in that token, and whose parsed
 * `delta.content_delta` differ as the two tokens do, show that the token is the value JSON.parse
 * gives `delta.content_delta` (nothing else in them differs); any other string token in its place
 * keeps the text valid, and changes that value alone.
 */

/** What a Part delta tells, as events.ts makes it (a delta of text or thinking, not a tool call). */
export interface TextDelta {
	index: number;
	kind: string | undefined;
	text: string;
	response: string | undefined;
}

/** A parsed delta, kept until the next shows whether they share a shape. */
interface Parsed {
	data: string;
	delta: TextDelta;
	/** Where its `content_delta` string token stands: [from, to). */
	from: number;
	to: number;
}

export class DeltaShapes {
	private last: Parsed | undefined;
	private prefix = '';
	private suffix = '';
	private shape: Omit<TextDelta, 'text'> | undefined;

	/** The delta `data` is, when it has the known shape; undefined: parse it. */
	read(data: string): TextDelta | undefined {
		const shape = this.shape;
		if (!shape) return undefined;
		const { prefix, suffix } = this;
		const end = data.length - suffix.length;
		// Compared as slices: V8's endsWith goes character by character.
		if (
			end < prefix.length + 2 ||
			data.slice(end) !== suffix ||
			data.slice(0, prefix.length) !== prefix
		) {
			return undefined;
		}
		const text = stringToken(data.slice(prefix.length, end));
		return text === undefined
			? undefined
			: { index: shape.index, kind: shape.kind, text, response: shape.response };
	}

	/** A delta parsed (`delta`: what events.ts read from `data`): maybe the shape of the next. */
	parsed(data: string, delta: TextDelta): void {
		const at = contentToken(data);
		const current = at && { data, delta, from: at.from, to: at.to };
		const last = this.last;
		this.last = current;
		if (!current || !last) return;
		const prefix = data.slice(0, current.from);
		const suffix = data.slice(current.to);
		const same =
			last.from === current.from &&
			last.data.length - last.to === suffix.length &&
			last.data.slice(0, last.from) === prefix &&
			last.data.slice(last.to) === suffix &&
			last.delta.text !== delta.text &&
			last.delta.index === delta.index &&
			last.delta.kind === delta.kind &&
			last.delta.response === delta.response &&
			stringToken(last.data.slice(last.from, last.to)) === last.delta.text &&
			stringToken(data.slice(current.from, current.to)) === delta.text;
		if (!same) return;
		this.prefix = prefix;
		this.suffix = suffix;
		this.shape = { index: delta.index, kind: delta.kind, response: delta.response };
	}
}

/** The JSON string token after the first `"content_delta":` (white space allowed), if any. */
function contentToken(data: string): { from: number; to: number } | undefined {
	const key = data.indexOf('"content_delta"');
	if (key === -1) return undefined;
	let at = skipSpace(data, key + '"content_delta"'.length);
	if (data[at] !== ':') return undefined;
	at = skipSpace(data, at + 1);
	if (data[at] !== '"') return undefined;
	for (let i = at + 1; i < data.length; i++) {
		if (data[i] === '\\') i += 1;
		else if (data[i] === '"') return { from: at, to: i + 1 };
	}
	return undefined;
}

function skipSpace(data: string, at: number): number {
	let i = at;
	while (data[i] === ' ' || data[i] === '\t' || data[i] === '\n' || data[i] === '\r') i++;
	return i;
}

// eslint-disable-next-line no-control-regex
const NOT_PLAIN = /["\\\u0000-\u001f]/;

/** The string a text that is exactly one JSON string token holds; undefined for anything else. */
function stringToken(token: string): string | undefined {
	if (token.length < 2 || token[0] !== '"' || token[token.length - 1] !== '"') return undefined;
	const inner = token.slice(1, -1);
	if (!NOT_PLAIN.test(inner)) return inner;
	try {
		const value: unknown = JSON.parse(token);
		return typeof value === 'string' ? value : undefined;
	} catch {
		return undefined;
	}
}
