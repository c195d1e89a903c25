// @ts-check
'use strict';

const { once } = require('node:events');
const { setImmediate: nextTurn } = require('node:timers/promises');

/**
 * @typedef {object} WriterOptions
 * @property {AbortSignal} signal  aborted when the client goes away or the emulator closes
 * @property {boolean} [crlf]  write `\r\n` line endings instead of `\n`
 * @property {boolean} [splitBytes]  write in 1-3 byte pieces, cutting through UTF-8 characters
 * @property {boolean} [flat]  events in the flat form: `data: {"type": <name>, ...}`, no `event:` line
 * @property {() => string} [nextId]  an `id:` line before each event (the 2026 dialect's)
 */

/**
 * Writes a response body piece by piece: Server-Sent Events framing, `\r\n` line endings and
 * tiny writes on demand, with backpressure, and stopping as soon as the request is aborted.
 */
class ResponseWriter {
	/**
	 * @param {import('node:http').ServerResponse} res
	 * @param {WriterOptions} options
	 */
	constructor(res, options) {
		this.res = res;
		this.signal = options.signal;
		this.crlf = Boolean(options.crlf);
		this.splitBytes = Boolean(options.splitBytes);
		this.flat = Boolean(options.flat);
		this.nextId = options.nextId ?? null;
		// Seeded, so a failing split-bytes run can be reproduced byte for byte.
		this.random = mulberry32(0x5eed);
		/** @type {Promise<void>} */
		this.lastWrite = Promise.resolve();
		this.piecesWritten = 0;
	}

	/**
	 * @param {string} type
	 * @param {unknown} data
	 */
	async event(type, data) {
		await this.writeEvent(type, data, false);
	}

	/**
	 * The event with its data's JSON cut in half (the `unreadable-event` fault): what it carried
	 * is lost on the wire, as a service's broken event would lose it.
	 * @param {string} type
	 * @param {unknown} data
	 */
	async cutEvent(type, data) {
		await this.writeEvent(type, data, true);
	}

	/**
	 * @param {string} type
	 * @param {unknown} data
	 * @param {boolean} cut  its JSON cut in half
	 */
	async writeEvent(type, data, cut) {
		const fields = typeof data === 'object' && data !== null ? data : { data };
		const json = this.flat ? JSON.stringify({ type, ...fields }) : JSON.stringify(data);
		const text = cut ? json.slice(0, Math.ceil(json.length / 2)) : json;
		if (this.flat) {
			await this.write(`data: ${text}\n\n`);
			return;
		}
		const id = this.nextId ? `id: ${this.nextId()}\n` : '';
		await this.write(`${id}event: ${type}\ndata: ${text}\n\n`);
	}

	/** @param {string} text  a keep-alive comment line */
	async comment(text) {
		await this.write(`: ${text}\n\n`);
	}

	/** @param {string} text */
	async write(text) {
		const body = this.crlf ? text.replace(/\n/g, '\r\n') : text;
		if (!this.splitBytes) {
			await this.writeRaw(body);
			return;
		}
		const bytes = Buffer.from(body, 'utf8');
		for (let i = 0; i < bytes.length;) {
			// Yield between pieces so each leaves as its own write instead of being coalesced; not
			// after the last one, so the caller can end the response in the same tick.
			if (this.piecesWritten > 0) await nextTurn(undefined, { signal: this.signal });
			const size = 1 + Math.floor(this.random() * 3);
			await this.writeRaw(bytes.subarray(i, i + size));
			this.piecesWritten += 1;
			i += size;
		}
	}

	/** @param {string | Buffer} chunk */
	async writeRaw(chunk) {
		this.signal.throwIfAborted();
		if (this.res.destroyed) throw new Error('response destroyed');
		/** @type {boolean} */
		let ok = true;
		this.lastWrite = new Promise((resolve) => {
			ok = this.res.write(chunk, () => resolve());
		});
		if (!ok) await once(this.res, 'drain', { signal: this.signal });
	}

	/** Resolves once everything written so far has been handed to the socket. */
	async flushed() {
		if (this.res.destroyed) return;
		// The write callback may never run if the socket dies first; 'close' ends the wait then.
		await Promise.race([this.lastWrite, once(this.res, 'close')]);
	}
}

// The fuzz (test/fuzz/prng.ts) draws from this one too.
/**
 * Small deterministic PRNG (mulberry32).
 * @param {number} seed
 * @returns {() => number} values in [0, 1)
 */
function mulberry32(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

module.exports = { ResponseWriter, mulberry32 };
