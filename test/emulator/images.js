// @ts-check
'use strict';

const { createHash } = require('node:crypto');

/**
 * Images in an ask's input (docs/api.md#images), as the service takes them: each Markdown image
 * of a base64 data URL, `![alt](data:<type>;base64,<data>)`, is taken out of the text and handed
 * to the model when the model's catalog entry has `supports_images` (true when absent); a model
 * without it gets the base64 as text. The emulator's model describes what it was given, so tests
 * can check each image arrived byte for byte: its media type, size and SHA-256.
 */

const IMAGE_RE = /!\[([^\]\n]*)\]\(data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=]*)\)/g;

/**
 * @typedef {object} InputImage
 * @property {string} alt
 * @property {string} mediaType
 * @property {number} bytes
 * @property {string} sha256  hex
 */

/**
 * The images of an input, in order, and its text without them.
 * @param {string} input
 * @returns {{ images: InputImage[], text: string }}
 */
function takeImages(input) {
	/** @type {InputImage[]} */
	const images = [];
	const text = input.replace(IMAGE_RE, (_match, alt, mediaType, base64) => {
		const bytes = Buffer.from(base64, 'base64');
		images.push({
			alt,
			mediaType,
			bytes: bytes.length,
			sha256: createHash('sha256').update(bytes).digest('hex'),
		});
		return '';
	});
	// Ask writes its images after the text, a blank line before each.
	return { images, text: images.length > 0 ? text.trimEnd() : text };
}

/**
 * Whether a model sees images, by the catalog (absent from it or without the field: yes).
 * @param {{ models: Array<{ value: string, supports_images?: boolean }> }} catalog
 * @param {string} modelId
 */
function seesImages(catalog, modelId) {
	return catalog.models.find((model) => model.value === modelId)?.supports_images !== false;
}

/**
 * What the model says about the images it was given, after its reply: each image it saw, or,
 * for a model that cannot see images, that it got base64 text.
 * `Images: #1 photo.png image/png 68 bytes sha256 <hex>.` / `I cannot see images: …`
 * @param {InputImage[]} images
 * @param {boolean} sees
 */
function describeImages(images, sees) {
	if (images.length === 0) return '';
	if (!sees) {
		const characters = images.reduce((sum, image) => sum + Math.ceil(image.bytes / 3) * 4, 0);
		return ` I cannot see images: your message held ${characters} characters of base64 text.`;
	}
	const each = images.map(
		(image, index) =>
			`#${index + 1} ${image.alt} ${image.mediaType} ${image.bytes} bytes sha256 ${image.sha256}`,
	);
	return ` Images: ${each.join('; ')}.`;
}

/**
 * A tool-envelope reply (scripted.js) whose final answer is text, with what the model says
 * about the images after it.
 * @template {Record<string, unknown> | null} T
 * @param {T} reply
 * @param {string} aboutImages
 * @returns {T}
 */
function withImages(reply, aboutImages) {
	if (!reply || aboutImages === '' || reply.action !== 'final_answer') return reply;
	if (typeof reply.final_answer !== 'string') return reply;
	return { ...reply, final_answer: reply.final_answer + aboutImages };
}

module.exports = { takeImages, seesImages, describeImages, withImages };
