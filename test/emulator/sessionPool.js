// @ts-check
'use strict';

/**
 * The account's pool of assistant sessions (docs/api.md#full-session-pool): the live service runs
 * a limited number of sessions per account; an ask that arrives while all of them are answering
 * is refused with a "sessions are busy" failure, which is temporary and not tied to one
 * conversation. Off unless the emulator is started with `sessionPool`.
 */

const { POOL_BUSY_MESSAGE, sessionPoolResponse } = require('./faults');

/**
 * @typedef {object} SessionPoolOptions
 * @property {number} size  sessions of the account: asks answered at once
 * @property {number | null} [retryAfterSeconds]  the refusal's Retry-After (default 1; null: none)
 * @property {number} [status]  the refusal's HTTP status (default 503)
 * @property {string} [message]  the refusal's message (default: the pool-busy fault's, which says
 *   "sessions are busy")
 */

/**
 * @typedef {object} SessionPoolStats
 * @property {number} size
 * @property {number} active  sessions answering now
 * @property {number} maxActive  most sessions answering at once
 * @property {number} admitted  asks that got a session
 * @property {number} refused  asks refused because the pool was full
 */

class SessionPool {
	/** @param {SessionPoolOptions} options */
	constructor(options) {
		if (!Number.isInteger(options.size) || options.size < 1) {
			throw new TypeError('sessionPool.size must be a whole number >= 1');
		}
		this.retryAfterSeconds =
			options.retryAfterSeconds === undefined ? 1 : options.retryAfterSeconds;
		this.status = options.status ?? 503;
		this.message = options.message ?? POOL_BUSY_MESSAGE;
		/** @type {SessionPoolStats} */
		this.stats = { size: options.size, active: 0, maxActive: 0, admitted: 0, refused: 0 };
	}

	/**
	 * Takes a session for one ask: returns the function that gives it back (call it once the
	 * answer is over, however it ends), or the refusal to send when the pool is full.
	 * @returns {{release: () => void} | {refusal: import('./faults').CannedResponse}}
	 */
	admit() {
		const { stats } = this;
		if (stats.active >= stats.size) {
			stats.refused += 1;
			const retryAfter =
				this.retryAfterSeconds === null ? undefined : String(this.retryAfterSeconds);
			return {
				refusal: sessionPoolResponse({ status: this.status, retryAfter, message: this.message }),
			};
		}
		stats.active += 1;
		stats.admitted += 1;
		stats.maxActive = Math.max(stats.maxActive, stats.active);
		let released = false;
		return {
			release: () => {
				if (released) return;
				released = true;
				stats.active -= 1;
			},
		};
	}

	/** Clears the counts; sessions still answering stay counted as active. */
	reset() {
		this.stats.maxActive = this.stats.active;
		this.stats.admitted = 0;
		this.stats.refused = 0;
	}
}

module.exports = { SessionPool };
