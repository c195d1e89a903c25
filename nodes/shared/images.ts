import type { CatalogResponse } from './api';
import type { RunContext } from './runContext';

/**
 * Images in an ask (docs/api.md#images): the service takes an image written into `input` as a
 * Markdown data URL, `![photo.png](data:image/png;base64,…)`, and hands it to a model whose
 * catalog entry has `supports_images` (a model without it gets the base64 as text). Both nodes
 * write images here, and decide here which images and which models they are for.
 */

/** The image types the models behind the service take; no other type is known to work. */
export const IMAGE_MEDIA_TYPES: readonly string[] = [
	'image/png',
	'image/jpeg',
	'image/gif',
	'image/webp',
];

export const IMAGE_TYPES_IN_WORDS = 'PNG, JPEG, GIF or WebP';

/** The largest image sent: 5 MB of image, about 6.7 MB of base64 in the ask. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGE_IN_WORDS = '5 MB';

/** The type an image's first bytes show (the declared type may be missing or wrong). */
export function sniffImageType(bytes: Uint8Array): string | undefined {
	const starts = (...signature: number[]) => signature.every((byte, at) => bytes[at] === byte);
	if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
	if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
	if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
	if (starts(0x52, 0x49, 0x46, 0x46) && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
	return undefined;
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
	return String.fromCharCode(...bytes.subarray(from, to));
}

/** The media type an image is sent as: what its bytes show, else what it was declared as. */
export function imageMediaType(bytes: Uint8Array, declared: string | undefined): string {
	return sniffImageType(bytes) ?? (declared ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * An image as the ask takes it (its Markdown), or what keeps it out; `labelOnly`: its media type
 * says it is an image, and its bytes are not one.
 */
export type WrittenImage =
	| { markdown: string }
	| { problem: 'too-large' | 'not-an-image'; mediaType: string; labelOnly?: true };

/**
 * An image's bytes checked as both nodes send images (at most MAX_IMAGE_BYTES, one of
 * IMAGE_MEDIA_TYPES by its bytes: every such file begins with its signature, so a label alone
 * lets through only what is no image) and written as Markdown; each node words the problem its
 * own way.
 */
export function writeImage(
	bytes: Uint8Array,
	declared: string | undefined,
	name: string | undefined,
): WrittenImage {
	const mediaType = imageMediaType(bytes, declared);
	if (bytes.length > MAX_IMAGE_BYTES) return { problem: 'too-large', mediaType };
	if (sniffImageType(bytes) === undefined) {
		return IMAGE_MEDIA_TYPES.includes(mediaType)
			? { problem: 'not-an-image', mediaType, labelOnly: true }
			: { problem: 'not-an-image', mediaType };
	}
	return { markdown: imageMarkdown(name, mediaType, Buffer.from(bytes).toString('base64')) };
}

/**
 * `![name](data:<type>;base64,<base64>)`. The name is the sender's text: it is made a short,
 * plain alt text that cannot end the Markdown or a line, nor need escaping in JSON (the chat
 * model writes the image into a JSON string as it is, transcript.ts).
 */
export function imageMarkdown(name: string | undefined, mediaType: string, base64: string): string {
	return `![${altText(name)}](data:${mediaType};base64,${base64})`;
}

export function altText(name: string | undefined): string {
	const plain = (name ?? '')
		.normalize('NFC')
		// Letters, marks, digits, spaces and a few harmless signs stay; anything else is a "_",
		// and so is what shows as nothing (variation selectors are marks, and hide text).
		.replace(/\p{Default_Ignorable_Code_Point}/gu, '_')
		.replace(/[^\p{L}\p{M}\p{N} ._,+&@'-]/gu, '_')
		.replace(/ +/g, ' ')
		.trim();
	const short = Array.from(plain).slice(0, 100).join('');
	return short === '' ? 'image' : short;
}

/**
 * Whether a model sees images, by its catalog entry: false only when the entry says so
 * (`supports_images` defaults to true in the service's OpenAPI document); undefined when the
 * catalog does not list it.
 */
export function modelSeesImages(catalog: CatalogResponse, modelId: string): boolean | undefined {
	const entry = (Array.isArray(catalog.models) ? catalog.models : []).find(
		(model) => model?.value === modelId,
	);
	if (!entry) return undefined;
	return entry.supports_images !== false;
}

/** Every Markdown image of a base64 data URL, as the service finds them in `input`. */
const DATA_URL_IMAGE = /!\[[^\]\n]*\]\(data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=]*\)/gi;

/**
 * A text without its images: what the conversation keeps of an ask's text, whether the service
 * stores the images apart or leaves their Markdown in it (recovery compares the two).
 */
export function withoutImages(text: string): string {
	return text.replace(DATA_URL_IMAGE, '');
}

/** The model an ask goes to: the chosen one, else the catalog's default chat model. */
export function modelOfAsk(
	catalog: CatalogResponse,
	chosen: string | undefined,
): string | undefined {
	if (chosen) return chosen;
	const fallback = catalog.default_chat_model_id;
	return typeof fallback === 'string' && fallback !== '' ? fallback : undefined;
}

/** The model an ask goes to, and whether it sees images; `sees` undefined: nobody can tell. */
export interface ImageSight {
	model: string | undefined;
	sees: boolean | undefined;
}

/**
 * The model an ask with images goes to and whether it sees them, by the run's catalog (read once
 * per run). A catalog that cannot be read tells nothing: the chosen model, `sees` undefined, and
 * `onUnread` hears why.
 */
export async function imageSightOf(
	run: RunContext,
	settings: Parameters<RunContext['catalog']>[0],
	chosen: string | undefined,
	onUnread: (error: unknown) => void,
): Promise<ImageSight> {
	try {
		const catalog = await run.catalog(settings);
		const model = modelOfAsk(catalog, chosen);
		return { model, sees: model === undefined ? undefined : modelSeesImages(catalog, model) };
	} catch (error) {
		onUnread(error);
		return { model: chosen, sees: undefined };
	}
}
