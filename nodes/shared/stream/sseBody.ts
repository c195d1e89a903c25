import { asBuffer, HeldBytes } from '../heldBytes';
import { messageLimitBytes } from '../limits';
import { createSseDecoder, SseLimitError, type EventNames, type SseMessage } from './decode';

/** A response body: Node's Readable as n8n's helper gives it, or any byte iterable. */
export type SseBody = AsyncIterable<Uint8Array | string>;

export interface SseBodyReader {
	/** Each chunk as it arrives: the stream is alive. */
	onChunk?: () => void;
	/** Each message, in order; false stops the reading (the answer has ended). */
	onMessage: (message: SseMessage) => boolean;
	/** What a broken body or a bound passed (SseLimitError) becomes; what onMessage throws stays. */
	failureOf: (error: unknown) => unknown;
	/**
	 * Whether a body that failed so (failureOf's failure) was cut off from the other side (a reset,
	 * a hang-up), not stopped by the reader: nothing more of it can come, and a last event without
	 * its blank line is read as at the body's own end (decode.ts's finish); the failure stands
	 * unless that event ends the answer. Without it, or false, that event is not read.
	 */
	cutOff?: (failure: unknown) => boolean;
	/** The events the reader knows, and those it does not read (decode.ts). */
	names?: EventNames;
	/** Called once when the body opens as a JSON answer (bodyOpening): it is read whole from here. */
	onJson?: () => void;
	/**
	 * Called once when `onMessage` has had the answer's end, with `stop`. The body is then read on
	 * to its own end, its bytes dropped, so that its connection ends as the server ends it (a
	 * body given up mid-way costs more to tear down than the few bytes left cost to read), until
	 * `stop` is called or AFTER_ANSWER_BYTES more arrive. Without it, reading stops at the
	 * answer's end.
	 */
	afterAnswer?: (stop: () => void) => void;
}

/** Past the answer's end, at most this many bytes are read (and dropped) waiting for the body's. */
const AFTER_ANSWER_BYTES = 64 * 1024;

/** The white space (and byte order mark) a body may open with before what it is shows. */
const LEADING_BYTES: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf]);
const OPEN_BRACE = 0x7b;

/**
 * What a body is, by its first byte that is no white space: `{` opens a JSON answer, anything else
 * an event stream (the service opens none of its event-stream lines with `{`, and the format reads
 * no field from such a line); undefined while only white space has come. Where that byte is.
 */
export function bodyOpening(bytes: Uint8Array): { json: boolean; at: number } | undefined {
	const at = bytes.findIndex((byte) => !LEADING_BYTES.has(byte));
	return at < 0 ? undefined : { json: bytes[at] === OPEN_BRACE, at };
}

/** The part of Node's Readable that reading by events needs. */
interface EventedBody {
	on(event: string, listener: (...args: never[]) => void): unknown;
	off(event: string, listener: (...args: never[]) => void): unknown;
	pause(): unknown;
	readonly errored?: unknown;
	readonly readableEnded?: boolean;
	readonly destroyed?: boolean;
}

/** What reading a body does with what the body gives: a chunk, its end, its failure. */
interface BodyHandlers {
	chunk(chunk: Uint8Array | string): void;
	end(): void;
	fail(error: unknown): void;
	/** Settled: the reader has had its end, or the reading failed (readSseBody's result). */
	readonly done: Promise<string | undefined>;
	readonly settled: boolean;
}

/**
 * Reads an event-stream body to its end, or until the answer's (see `afterAnswer`): each chunk
 * decoded and its messages handed on the moment it arrives, with no promise per chunk or per
 * message (a few words of a 2026 answer come in some twenty chunks, and layers of async iteration
 * cost more than reading them). Stops listening when done; the body itself is the caller's to
 * release. A body that opens as a JSON document (bodyOpening), whatever it was declared, is no
 * stream: it is read whole instead (onJson is told), within `limitBytes` (beyond it, an SseLimitError
 * for failureOf), no message handed on, and its text is what the reading resolves with
 * (docs/api.md#how-a-stream-ends); an event stream's reading resolves with undefined.
 */
export function readSseBody(
	body: SseBody,
	limitBytes: number | undefined,
	reader: SseBodyReader,
): Promise<string | undefined> {
	const handlers = bodyHandlers(limitBytes, reader);
	return isEvented(body) ? readByEvents(body, handlers) : readIterable(body, handlers);
}

/** Any other iterable (the bench's, a test's): the same handlers, one chunk at a time. */
async function readIterable(body: SseBody, handlers: BodyHandlers): Promise<string | undefined> {
	try {
		for await (const chunk of body) {
			handlers.chunk(chunk);
			if (handlers.settled) break;
		}
		handlers.end();
	} catch (error) {
		handlers.fail(error);
	}
	return await handlers.done;
}

function bodyHandlers(limitBytes: number | undefined, reader: SseBodyReader): BodyHandlers {
	let pending: SseMessage[] = [];
	const decoder = createSseDecoder((message) => pending.push(message), limitBytes, reader.names);
	let settled = false;
	/** Bytes read past the answer's end; -1 before it. */
	let afterAnswer = -1;
	/** A JSON document's bytes, once the body opened as one (bodyOpening); undefined: events. */
	let json: HeldBytes | undefined;
	/** Only white space has come so far: what the body is does not show yet. */
	let opening = true;
	let resolve!: (json: string | undefined) => void;
	let reject!: (error: unknown) => void;
	const done = new Promise<string | undefined>((onResolve, onReject) => {
		resolve = onResolve;
		reject = onReject;
	});
	const settle = (failure?: { error: unknown }) => {
		if (settled) return;
		settled = true;
		if (failure) reject(failure.error);
		else resolve(json?.bytes().toString('utf8'));
	};
	/** The JSON document's next bytes, within the bound. */
	const jsonChunk = (bytes: Uint8Array) => {
		const held = json!;
		const most = limitBytes ?? messageLimitBytes();
		if (held.length + bytes.length > most) {
			settle({ error: reader.failureOf(new SseLimitError('JSON answer', most)) });
		} else held.append(bytes);
	};
	/**
	 * The decoded messages, handed on; false when the reader has had its end, or threw. At the
	 * reader's end the reading is done, unless the body is read on past it (`bodyLeft`: the body
	 * has not ended; afterAnswer).
	 */
	const handOn = (bodyLeft: boolean): boolean => {
		const batch = pending;
		pending = [];
		try {
			for (const message of batch) {
				if (!reader.onMessage(message)) {
					if (reader.afterAnswer && bodyLeft) {
						afterAnswer = 0;
						reader.afterAnswer(() => settle());
					} else settle();
					return false;
				}
			}
		} catch (error) {
			settle({ error });
			return false;
		}
		return true;
	};
	const decoded = (decode: () => void): boolean => {
		try {
			decode();
			return true;
		} catch (error) {
			settle({ error: reader.failureOf(error) });
			return false;
		}
	};
	return {
		chunk(chunk) {
			if (settled) return;
			if (afterAnswer >= 0) {
				afterAnswer += chunk.length;
				if (afterAnswer > AFTER_ANSWER_BYTES) settle();
				return;
			}
			reader.onChunk?.();
			if (opening) {
				// Only the first byte that is no white space is looked at, once.
				const bytes = asBuffer(chunk);
				const opened = bodyOpening(bytes);
				if (opened) opening = false;
				if (opened?.json) {
					json = new HeldBytes(limitBytes);
					reader.onJson?.();
					jsonChunk(bytes.subarray(opened.at));
					return;
				}
			}
			if (json) jsonChunk(asBuffer(chunk));
			else if (decoded(() => decoder.push(chunk))) handOn(true);
		},
		end() {
			if (settled) return;
			if (json || afterAnswer >= 0) settle();
			else if (decoded(() => decoder.finish()) && handOn(false)) settle();
		},
		fail(error) {
			if (settled) return;
			// Past the answer's end, the body's failure takes nothing away from the answer.
			if (afterAnswer >= 0) {
				settle();
				return;
			}
			const failure = reader.failureOf(error);
			if (!json && reader.cutOff?.(failure)) {
				// The last event, as the body's end reads it: one that ends the answer ends it here
				// too (settled then); any other leaves the failure as it is.
				try {
					decoder.finish();
				} catch {
					// A last line past the bound: no event to read, the failure stands.
				}
				handOn(false);
			}
			settle({ error: failure });
		},
		done,
		get settled() {
			return settled;
		},
	};
}

function isEvented(body: SseBody): body is SseBody & EventedBody {
	const candidate = body as Partial<EventedBody>;
	return (
		typeof candidate.on === 'function' &&
		typeof candidate.off === 'function' &&
		typeof candidate.pause === 'function'
	);
}

/** Node's Readable, read by its events ('data' in flowing mode): no promise per chunk. */
async function readByEvents(
	body: EventedBody,
	handlers: BodyHandlers,
): Promise<string | undefined> {
	const onData = (chunk: Uint8Array | string) => handlers.chunk(chunk);
	const onEnd = () => handlers.end();
	const onError = (error: unknown) => handlers.fail(error);
	// Closed without its end (and without an error): the connection went away.
	const onClose = () =>
		handlers.fail(
			Object.assign(new Error('The response closed before its end'), {
				code: 'ERR_STREAM_PREMATURE_CLOSE',
			}),
		);
	if (body.errored) onError(body.errored);
	else if (body.readableEnded) onEnd();
	else if (body.destroyed) onClose();
	else {
		body.on('data', onData);
		body.on('end', onEnd);
		body.on('error', onError);
		body.on('close', onClose);
	}
	try {
		return await handlers.done;
	} finally {
		body.off('data', onData);
		body.off('end', onEnd);
		body.off('error', onError);
		body.off('close', onClose);
		// Nothing more is read into memory once the answer is in.
		body.pause();
	}
}
