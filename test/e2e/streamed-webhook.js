// @ts-check
'use strict';

/**
 * POSTs JSON to a webhook that streams and reads the answer as it arrives: every line of the
 * body (n8n streams one JSON object a line) with the time it arrived, in ms since the request
 * was sent, and what `probe` (if given) said at that moment.
 * @template P
 * @param {string} url
 * @param {unknown} body
 * @param {{probe?: () => P, timeoutMs?: number}} [options]
 * @returns {Promise<{status: number, contentType: string, lines: {json: any, atMs: number, probe: P}[], endMs: number}>}
 */
async function readStreamedWebhook(url, body, { probe, timeoutMs = 90_000 } = {}) {
	const started = Date.now();
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
		signal: AbortSignal.timeout(timeoutMs),
	});
	/** @type {{json: any, atMs: number, probe: P}[]} */
	const lines = [];
	const decoder = new TextDecoder();
	let buffer = '';
	const take = (/** @type {boolean} */ final) => {
		const parts = buffer.split('\n');
		buffer = final ? '' : /** @type {string} */ (parts.pop());
		for (const part of parts) {
			if (part.trim() === '') continue;
			/** @type {any} */
			let json;
			try {
				json = JSON.parse(part);
			} catch {
				throw new Error(`HTTP ${response.status}: not a JSON line: ${part.slice(0, 300)}`);
			}
			lines.push({ json, atMs: Date.now() - started, probe: /** @type {P} */ (probe?.()) });
		}
	};
	if (response.body) {
		// Read with a reader: @types/node 20 does not declare web streams async-iterable.
		const reader = response.body.getReader();
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			buffer += decoder.decode(value, { stream: true });
			take(false);
		}
	}
	buffer += decoder.decode();
	take(true);
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		lines,
		endMs: Date.now() - started,
	};
}

module.exports = { readStreamedWebhook };
