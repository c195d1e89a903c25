// @ts-check
'use strict';

/**
 * `#replay=<capture>` (or the `replay` option): an accepted ask is answered with a stream the
 * live service sent, byte for byte, from test/fixtures/captures/: its recorded status, content
 * type and `x-conversation-id` (its `.meta.json`), its bytes cut into writes where asked, so that
 * tests run the real node against what users of the service meet.
 */

const fs = require('node:fs');
const path = require('node:path');
const { setImmediate: nextTurn } = require('node:timers/promises');
const { conversationId2026, STREAM_CONTENT_TYPE_2026 } = require('./ids2026');
const { writeHead, endResponse, wait } = require('./respond');
const { mulberry32 } = require('./writer');

const CAPTURES_DIR = path.join(__dirname, '..', 'fixtures', 'captures');

/**
 * @typedef {object} ReplaySpec
 * @property {string} capture  a file name in test/fixtures/captures/ without `.sse`
 * @property {'whole' | 'random' | number[]} split  one write; random cuts (seeded); cuts at
 *   these byte offsets
 * @property {number} seed  for `random`
 */

/**
 * @typedef {object} Capture
 * @property {Buffer} bytes
 * @property {number} status
 * @property {string} contentType
 * @property {string | null} conversationId
 */

/** The captures there are, by name. */
function captureNames() {
	return fs
		.readdirSync(CAPTURES_DIR)
		.filter((file) => file.endsWith('.sse'))
		.map((file) => file.slice(0, -'.sse'.length));
}

/**
 * Reads `<capture>[&split=random|<offset>,<offset>…][&seed=<n>]`.
 * @param {string} value
 * @returns {ReplaySpec}  throws a TypeError saying what is wrong
 */
function parseReplay(value) {
	const [capture, ...params] = value.split('&');
	if (!captureNames().includes(capture)) {
		throw new TypeError(`unknown capture '${capture}'. Known: ${captureNames().join(', ')}`);
	}
	/** @type {ReplaySpec} */
	const spec = { capture, split: 'whole', seed: 1 };
	for (const param of params) {
		const [key, text = ''] = param.split('=');
		if (key === 'seed' && /^\d+$/.test(text)) spec.seed = Number(text);
		else if (key === 'split' && text === 'random') spec.split = 'random';
		else if (key === 'split' && /^\d+(,\d+)*$/.test(text)) spec.split = text.split(',').map(Number);
		else throw new TypeError(`bad parameter '${param}' (split=random|<offset>,…; seed=<n>)`);
	}
	return spec;
}

/**
 * @param {string} name
 * @returns {Capture}
 */
function readCapture(name) {
	const bytes = fs.readFileSync(path.join(CAPTURES_DIR, `${name}.sse`));
	const metaFile = path.join(CAPTURES_DIR, `${name}.meta.json`);
	const response = fs.existsSync(metaFile)
		? JSON.parse(fs.readFileSync(metaFile, 'utf8')).response
		: {};
	return {
		bytes,
		status: response.status ?? 200,
		contentType: response.content_type ?? STREAM_CONTENT_TYPE_2026,
		conversationId: response.x_conversation_id ?? null,
	};
}

/**
 * The capture's bytes as the writes the spec asks for; joined, they are the file.
 * @param {Buffer} bytes
 * @param {ReplaySpec} spec
 * @returns {Buffer[]}
 */
function cutCapture(bytes, spec) {
	if (spec.split === 'whole') return [bytes];
	const offsets =
		spec.split === 'random' ? randomOffsets(bytes.length, spec.seed) : spec.split.slice();
	const cuts = [...new Set(offsets.filter((at) => at > 0 && at < bytes.length))].sort(
		(a, b) => a - b,
	);
	return [0, ...cuts].map((at, n) => bytes.subarray(at, cuts[n] ?? bytes.length));
}

/**
 * @param {number} length
 * @param {number} seed
 */
function randomOffsets(length, seed) {
	const random = mulberry32(seed);
	// Pieces of 1 byte up to maxSize: through every line and UTF-8 character, in writes few enough
	// to replay the largest capture in a moment.
	const maxSize = [64, 400, 4000][Math.floor(random() * 3)];
	const offsets = [];
	for (
		let at = 1 + Math.floor(random() * maxSize);
		at < length;
		at += 1 + Math.floor(random() * maxSize)
	) {
		offsets.push(at);
	}
	return offsets;
}

/**
 * Answers with the capture. The conversation is the one the capture names (created if new).
 * @param {import('./server').Context} ctx
 * @param {ReplaySpec} spec
 * @param {(id: string) => { complete: () => void }} beginTurn  starts the ask's turn on that conversation
 * @param {number} delayMs
 * @returns {Promise<boolean>} whether the whole capture was delivered
 */
async function replayCapture(ctx, spec, beginTurn, delayMs) {
	const capture = readCapture(spec.capture);
	const conversationId = capture.conversationId ?? conversationId2026();
	const turn = beginTurn(conversationId);
	writeHead(ctx.res, capture.status, {
		'content-type': capture.contentType,
		'x-conversation-id': conversationId,
	});
	ctx.res.flushHeaders();
	await wait(delayMs, ctx.signal);
	const chunks = cutCapture(capture.bytes, spec);
	for (const [n, chunk] of chunks.entries()) {
		// Each chunk its own write: yield so that they are not coalesced.
		if (n > 0) await nextTurn(undefined, { signal: ctx.signal });
		if (ctx.res.destroyed) return false;
		ctx.res.write(chunk);
	}
	turn.complete();
	return endResponse(ctx.res);
}

module.exports = {
	parseReplay,
	replayCapture,
	readCapture,
	cutCapture,
	captureNames,
	CAPTURES_DIR,
};
