/** A body's chunk as bytes: text as UTF-8, a Uint8Array as a Buffer over the same memory. */
export function asBuffer(chunk: Uint8Array | string): Buffer {
	if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
	if (Buffer.isBuffer(chunk)) return chunk;
	return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

const EMPTY = Buffer.alloc(0);
const MIN_CAPACITY = 1024;
/** Up to this, an emptied buffer is kept for the next bytes; a larger one is let go. */
const REUSED_CAPACITY = 16 * 1024;

/**
 * Bytes kept across the chunks a body arrives in (a line not ended yet, a body read whole), copied
 * into one buffer whose capacity doubles as it fills (docs/api.md#memory-bounds): what is kept
 * costs at most about twice its bytes however small the chunks, in amortized linear time, and it
 * never keeps a chunk alive. A Buffer kept per chunk cost a hundred bytes and more for each
 * one-byte chunk, and each kept slice its socket's whole read buffer.
 */
export class HeldBytes {
	private buffer = EMPTY;
	private size = 0;

	/** `most`: the capacity grows no further than that unless an append needs it (the bound). */
	constructor(private readonly most = Infinity) {}

	get length(): number {
		return this.size;
	}

	/** Copies in `bytes` from `from` to `to`. */
	append(bytes: Uint8Array, from = 0, to = bytes.length): void {
		const size = this.size + to - from;
		if (size > this.buffer.length) this.grow(size);
		this.buffer.set(bytes.subarray(from, to), this.size);
		this.size = size;
	}

	/** The bytes held: a view of them, valid until the next append. */
	bytes(): Buffer {
		return this.buffer.subarray(0, this.size);
	}

	/** Holds nothing; a small buffer is kept for the next bytes (a line split across two chunks). */
	clear(): void {
		this.size = 0;
		if (this.buffer.length > REUSED_CAPACITY) this.buffer = EMPTY;
	}

	private grow(size: number): void {
		const doubled = Math.min(this.most, Math.max(MIN_CAPACITY, 2 * this.buffer.length));
		// Not from Node's shared pool: a small held buffer would keep a pool's 8 KiB alive.
		const grown = Buffer.allocUnsafeSlow(Math.max(size, doubled));
		this.buffer.copy(grown, 0, 0, this.size);
		this.buffer = grown;
	}
}
