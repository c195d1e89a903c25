/**
 * n8n's AI Agent hands images (and PDFs) on in LangChain's older forms (an `image_url` part, a
 * `file` part with `source_type`), which the AI node SDK's LangChain adapter does not convert: the
 * node would get an empty message and could not say what was in it. LangChain's own
 * `contentBlocks` gives such a message's parts in the standard form that the adapter converts (an
 * image or a file, with its media type and name), so the note that replaces them can name them
 * (attachments.ts). The adapter's calls are wrapped, and so is the model `bindTools` returns;
 * a message without such parts, or an adapter without these methods, passes as it is.
 */

import { isObject } from '../shared/json';

type Call = (...args: unknown[]) => unknown;

export function withStandardParts<T>(model: T): T {
	if (typeof model !== 'object' || model === null) return model;
	const adapter = model as unknown as Record<string, unknown>;
	for (const method of ['_generate', '_streamResponseChunks']) {
		const original = adapter[method];
		if (typeof original !== 'function') continue;
		adapter[method] = function (this: unknown, messages: unknown, ...rest: unknown[]) {
			const standard = Array.isArray(messages) ? messages.map(standardMessage) : messages;
			return (original as Call).call(this, standard, ...rest);
		};
	}
	const bindTools = adapter.bindTools;
	if (typeof bindTools === 'function') {
		adapter.bindTools = function (this: unknown, ...args: unknown[]) {
			return withStandardParts((bindTools as Call).apply(this, args));
		};
	}
	return model;
}

/** A copy of the message with its parts in the standard form, when it has older ones. */
function standardMessage(message: unknown): unknown {
	if (!isObject(message) || !Array.isArray(message.content)) return message;
	if (!message.content.some(isOlderPart)) return message;
	let parts: unknown;
	try {
		parts = message.contentBlocks;
	} catch {
		return message;
	}
	if (!Array.isArray(parts)) return message;
	const copy = Object.assign(Object.create(Object.getPrototypeOf(message) as object), message) as {
		content: unknown;
	};
	copy.content = parts;
	return copy;
}

/** OpenAI's chat forms and LangChain's first data parts (with `source_type`). */
function isOlderPart(part: unknown): boolean {
	return (
		isObject(part) &&
		(part.type === 'image_url' || part.type === 'input_audio' || 'source_type' in part)
	);
}
