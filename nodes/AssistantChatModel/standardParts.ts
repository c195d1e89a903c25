/**
 * n8n's AI Agent hands images (and PDFs) on in LangChain's older forms (an `image_url` part, a
 * `file` part with `source_type`), which the AI node SDK's LangChain adapter does not convert: the
 * node would get an empty message and could not say what was in it. LangChain's own
 * `contentBlocks` gives such a message's parts in the standard form that the adapter converts (an
 * image or a file, with its media type and name), so the note that replaces them can name them
 * (attachments.ts). sdkAdapter.ts hands the adapter's calls their messages through this; a
 * message without such parts passes as it is.
 */

import { isObject } from '../shared/json';

/** The messages, each with older parts given in the standard form (the others as they are). */
export function standardMessages(messages: unknown): unknown {
	return Array.isArray(messages) ? messages.map(standardMessage) : messages;
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
