import type { MessageContent } from '@n8n/ai-node-sdk';

import type { TranscriptRole } from './transcript';

/**
 * The API's `input` is text: audio, video and other files in a message cannot go with it, nor
 * can an image the model cannot see (images it can see go as data URLs, chatImages.ts). Each is
 * replaced, where it stood, by a note that says what was left out and, for an image, why, so
 * that neither the assistant nor the user is left to guess (docs/api.md#what-cannot-be-sent).
 */

type ContentFile = Extract<MessageContent, { type: 'file' }>;

const WHO: Record<TranscriptRole, string> = {
	instructions: "the workflow's instructions held",
	user: 'the user attached',
	assistant: 'the earlier answer held',
	tool: 'the tool returned',
};

/**
 * `[the user attached a PDF document (a.pdf), which could not be passed on]`, with the reason
 * when there is one: `[… an image (photo.png), which could not be passed on: the model X cannot
 * see images]`.
 */
export function noteOfFile(file: ContentFile, role: TranscriptRole, reason?: string): string {
	return `[${WHO[role]} ${describeFile(file)}, which could not be passed on${reason ? `: ${oneLine(reason)}` : ''}]`;
}

/** A provider's own content part (n8n's `provider` block): not text, so not sendable either. */
export function noteOfProviderPart(role: TranscriptRole): string {
	return `[${WHO[role]} a part in a provider's own format, which could not be passed on]`;
}

/**
 * A message that reaches the node with no content at all. n8n's AI node SDK hands a message over
 * without the parts it cannot convert; the AI Agent's images are handed to it in a form it
 * converts (standardParts.ts), so this is for any other part it drops.
 */
export function noteOfEmptyMessage(role: TranscriptRole): string {
	return role === 'user'
		? '[the user attached something n8n did not hand on to the Assistant Chat Model, such as an image, which could not be passed on]'
		: `[${WHO[role]} something n8n did not hand on to the Assistant Chat Model, which could not be passed on]`;
}

function describeFile(file: ContentFile): string {
	const type = file.mediaType ?? mediaTypeOfDataUrl(file.data) ?? '';
	const name = fileNameOf(file);
	const details = [name, type && !name ? type : undefined].filter(Boolean).join(', ');
	return details ? `${kindOf(type)} (${details})` : kindOf(type);
}

function kindOf(mediaType: string): string {
	const type = mediaType.toLowerCase();
	if (type.startsWith('image/')) return 'an image';
	if (type.startsWith('audio/')) return 'an audio file';
	if (type.startsWith('video/')) return 'a video';
	if (type === 'application/pdf') return 'a PDF document';
	return 'a file';
}

/** n8n's agents put the file name in the block's metadata (`filename`); others use similar keys. */
export function fileNameOf(file: ContentFile): string | undefined {
	const metadata = file.providerMetadata ?? {};
	for (const key of ['filename', 'fileName', 'name', 'title']) {
		const value = metadata[key];
		if (typeof value === 'string' && value.trim() !== '') return oneLine(value);
	}
	return undefined;
}

function mediaTypeOfDataUrl(data: unknown): string | undefined {
	if (typeof data !== 'string') return undefined;
	return /^data:([\w.+-]+\/[\w.+-]+)[;,]/.exec(data)?.[1];
}

/** A name is the sender's text: kept to one short line inside the note. */
function oneLine(text: string): string {
	const flat = text.replace(/\s+/gu, ' ').trim();
	return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}
