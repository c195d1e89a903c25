import type { Message, MessageContent } from '@n8n/ai-node-sdk';
import type { ISupplyDataFunctions } from 'n8n-workflow';

import {
	IMAGE_TYPES_IN_WORDS,
	MAX_IMAGE_IN_WORDS,
	imageSightOf,
	writeImage,
} from '../shared/images';
import type { RequestSettings } from '../shared/parameters/requestOptions';
import type { RunContext } from '../shared/runContext';

/**
 * The images n8n hands the chat model (the AI Agent's Passthrough Binary Images, image parts of
 * messages, tools' image results) go into the ask where they stood, as Markdown data URLs
 * (docs/api.md#images), when the model sees images. Otherwise each stays a note that says why
 * (attachments.ts).
 */

type ContentFile = Extract<MessageContent, { type: 'file' }>;

/** Whether the ask's images go with it, and why not. */
export type ImagePolicy = { send: true } | { send: false; reason: string };

/** An image written into the ask, or why it could not be. */
export type ImageOutcome = { markdown: string } | { reason: string };

/** Whether a file block is an image (by its declared type or its data URL's). */
export function isImageFile(file: ContentFile): boolean {
	return declaredType(file).startsWith('image/');
}

/** The file as a Markdown data URL; a reason instead when it cannot be sent. */
export function imageOfFile(file: ContentFile, name: string | undefined): ImageOutcome {
	const bytes = bytesOf(file);
	if (!bytes) {
		return { reason: 'only an image with its data can be sent, not a link to it' };
	}
	const written = writeImage(bytes, declaredType(file), name);
	if ('markdown' in written) return written;
	return {
		reason:
			written.problem === 'too-large'
				? `it is larger than ${MAX_IMAGE_IN_WORDS}, the most sent per image`
				: written.labelOnly
					? `it is labelled ${written.mediaType}, but its content is not an image`
					: `only ${IMAGE_TYPES_IN_WORDS} images can be sent`,
	};
}

/**
 * Whether the images go: only when the messages hold one is the catalog read (once per
 * execution). A model the catalog says cannot see images gets notes; one it does not list, or
 * a catalog that cannot be read, gets the images, and the log says it could not be checked.
 */
export async function imagePolicyFor(
	ctx: ISupplyDataFunctions,
	settings: RequestSettings & { modelName?: string; run: RunContext },
	messages: Message[],
): Promise<ImagePolicy | undefined> {
	if (!messages.some(holdsImage)) return undefined;
	const { model, sees } = await imageSightOf(settings.run, settings, settings.modelName, (error) =>
		ctx.logger.debug(
			`Assistant Chat Model: catalog not available for the image check: ${(error as Error).message}`,
		),
	);
	if (sees === false) return { send: false, reason: `the model ${model} cannot see images` };
	if (sees === true) return { send: true };
	ctx.logger.warn(
		`Assistant Chat Model: images were sent, but the catalog could not tell whether ${model ? `the model ${model}` : "the account's default model"} sees images; a model that does not gets them as text`,
	);
	return { send: true };
}

function holdsImage(message: Message): boolean {
	return message.content.some(
		(block) =>
			(block.type === 'file' && isImageFile(block)) ||
			(block.type === 'tool-result' &&
				Array.isArray(block.result) &&
				(block.result as unknown[]).some(
					(part) =>
						typeof part === 'object' &&
						part !== null &&
						(part as { type?: unknown }).type === 'file' &&
						isImageFile(part as ContentFile),
				)),
	);
}

function declaredType(file: ContentFile): string {
	const url = dataUrlOf(file);
	return (file.mediaType ?? (url ? /^data:([^;,]+)/i.exec(url)?.[1] : undefined) ?? '')
		.trim()
		.toLowerCase();
}

/** The image's bytes: raw, base64 text, or a base64 data URL (in the data or the block's url). */
function bytesOf(file: ContentFile): Uint8Array | undefined {
	if (file.data instanceof Uint8Array) return file.data.length > 0 ? file.data : undefined;
	const url = dataUrlOf(file);
	const base64 = url ? /^data:[^,]*;base64,(.*)$/is.exec(url)?.[1] : file.data;
	if (typeof base64 !== 'string' || base64 === '' || /^[a-z]+:/i.test(base64)) return undefined;
	const bytes = Buffer.from(base64, 'base64');
	return bytes.length > 0 ? bytes : undefined;
}

function dataUrlOf(file: ContentFile): string | undefined {
	const candidates = [file.data, file.providerMetadata?.url];
	for (const candidate of candidates) {
		if (typeof candidate === 'string' && /^data:/i.test(candidate)) return candidate;
	}
	return undefined;
}
