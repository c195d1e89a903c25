import type { IBinaryData, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	IMAGE_TYPES_IN_WORDS,
	MAX_IMAGE_BYTES,
	MAX_IMAGE_IN_WORDS,
	imageSightOf,
	writeImage,
} from '../../../shared/images';
import {
	describeValue,
	invalidParameter,
	type ParameterContext,
} from '../../../shared/parameters/parameterErrors';
import type { RequestSettings } from '../../../shared/parameters/requestOptions';
import type { ExecuteRun } from '../../../shared/runContext';
import { isToolVariant } from '../toolVariant';

/**
 * Ask's Image Fields: the item's binary fields whose images go with the Input, each as a Markdown
 * data URL after the text (docs/api.md#images). Every field is checked, and read through n8n's
 * binary helpers (in memory, on disk or in S3 alike), before any request; then the catalog says
 * whether the model sees images.
 */

export const imageFieldsProperty: INodeProperties = {
	displayName: 'Image Fields',
	name: 'imageFields',
	type: 'string',
	default: '',
	placeholder: 'e.g. data, attachment_0',
	description: `The names of the item's binary fields whose images to send with the Input, comma-separated (${IMAGE_TYPES_IN_WORDS}, up to ${MAX_IMAGE_IN_WORDS} each), or files from an expression. The model must be one that sees images. Leave empty to send text only.`,
	displayOptions: { show: { operation: ['ask'] } },
};

/** One image of the item, ready to be written into the ask. */
export interface ItemImage {
	field: string;
	markdown: string;
}

/**
 * A binary field by its name, or a file itself: an expression can give one (or a list), e.g.
 * `{{ $('When chat message received').item.binary.data0 }}`, which the AI Agent's tool needs, as
 * its own item is the agent's call and holds no files.
 */
export type ImageField = string | IBinaryData;

/** The fields named (text, comma-separated) or given, checked; [] when empty. */
export function readImageFields(ctx: ParameterContext, itemIndex: number): ImageField[] {
	const value = ctx.getNodeParameter('imageFields', itemIndex, '');
	const values = Array.isArray(value) ? (value as unknown[]) : [value];
	const fields: ImageField[] = [];
	for (const entry of values) {
		if (entry === undefined || entry === null) continue;
		if (isBinary(entry)) {
			fields.push(entry);
			continue;
		}
		if (typeof entry !== 'string') {
			throw invalidParameter(
				ctx,
				itemIndex,
				'Image Fields must be text',
				`Got ${describeValue(entry)}. Write the names of the binary fields, comma-separated, e.g. data, attachment_0, or give files with an expression, e.g. {{ $('Form').item.binary.photo }}.`,
			);
		}
		const names = entry.split(',').map((name) => name.trim());
		fields.push(...names.filter((name) => name !== '' && !fields.includes(name)));
	}
	return fields;
}

function isBinary(value: unknown): value is IBinaryData {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as IBinaryData).mimeType === 'string' &&
		typeof (value as IBinaryData).data === 'string'
	);
}

/** Each named field's image, read and checked; the first bad one fails the item. */
export async function readItemImages(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: ImageField[],
): Promise<ItemImage[]> {
	const images: ItemImage[] = [];
	for (const given of fields) {
		const binary = typeof given === 'string' ? binaryOf(ctx, itemIndex, given) : given;
		const field = typeof given === 'string' ? given : (given.fileName ?? 'the file given');
		const declared = binary.mimeType;
		checkSize(ctx, itemIndex, field, binary.bytes);
		const bytes = await ctx.helpers.getBinaryDataBuffer(itemIndex, binary);
		const name = binary.fileName ?? (typeof given === 'string' ? given : undefined);
		const written = writeImage(bytes, declared, name);
		if ('problem' in written) {
			if (written.problem === 'too-large') throw tooLarge(ctx, itemIndex, field, bytes.length);
			throw invalidParameter(
				ctx,
				itemIndex,
				`The binary field "${field}" is not an image the assistant can take (${written.mediaType || 'no media type'}${written.labelOnly ? ', but its content is not one' : ''})`,
				`Only ${IMAGE_TYPES_IN_WORDS} images can be sent. Convert the file first, or remove "${field}" from Image Fields.`,
			);
		}
		images.push({ field, markdown: written.markdown });
	}
	return images;
}

function binaryOf(ctx: IExecuteFunctions, itemIndex: number, field: string): IBinaryData {
	try {
		return ctx.helpers.assertBinaryData(itemIndex, field);
	} catch {
		const names = Object.keys(ctx.getInputData()[itemIndex]?.binary ?? {});
		throw invalidParameter(
			ctx,
			itemIndex,
			`The item has no binary field "${field}" (Image Fields)`,
			names.length > 0
				? `Its binary fields are: ${names.join(', ')}. Name one of them in Image Fields.`
				: isToolVariant(ctx)
					? "As the AI Agent's tool, its item is the agent's call, which holds no files: give the chat's files with an expression, e.g. {{ $('When chat message received').item.binary.data0 }}, or clear Image Fields."
					: 'It has no binary data at all. Make sure the node before this one outputs the image as a binary field, or clear Image Fields.',
		);
	}
}

/** The size the binary data declares, checked before its bytes are read. */
function checkSize(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	bytes: number | undefined,
): void {
	if (typeof bytes === 'number' && bytes > MAX_IMAGE_BYTES) {
		throw tooLarge(ctx, itemIndex, field, bytes);
	}
}

function tooLarge(ctx: IExecuteFunctions, itemIndex: number, field: string, bytes: number) {
	return invalidParameter(
		ctx,
		itemIndex,
		`The image in "${field}" is too large (${(bytes / 1024 / 1024).toFixed(1)} MB)`,
		`At most ${MAX_IMAGE_IN_WORDS} per image can be sent. Make it smaller first (e.g. n8n's Edit Image node: resize), or remove "${field}" from Image Fields.`,
	);
}

/**
 * A model whose catalog entry says it cannot see images fails the item: it would get the base64
 * as text. When the catalog cannot tell (it does not list the model, or cannot be read), the
 * images are sent, and a hint says so once per run.
 */
export async function checkModelSeesImages(
	run: ExecuteRun,
	itemIndex: number,
	settings: RequestSettings,
	chosenModel: string | undefined,
): Promise<void> {
	const { ctx } = run;
	const { model, sees } = await imageSightOf(run, settings, chosenModel, (error) =>
		ctx.logger.debug(
			`Assistant: catalog not available for the image check: ${(error as Error).message}`,
		),
	);
	if (sees === false) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`The model "${model}" cannot see images`,
			'Choose a model that sees images in Model (the list marks them "sees images"), or clear Image Fields to send the text alone.',
		);
	}
	if (sees === true) return;
	const which = model ? `the model "${model}"` : "the account's default model";
	if (run.notices.first(`image hint ${model ?? ''}`)) {
		ctx.addExecutionHints({
			message: `Images were sent, but the catalog could not tell whether ${which} sees images. A model that does not gets them as text.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
}

/** The Input, then each image on a paragraph of its own. */
export function inputWithImages(input: string, images: ItemImage[]): string {
	return [input, ...images.map((image) => image.markdown)].join('\n\n');
}
