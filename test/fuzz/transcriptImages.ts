/**
 * Images in the transcript fuzz (docs/api.md#images): image blocks with hostile file names among
 * a message's text and a tool's result blocks, and text that imitates an image. The service takes
 * every Markdown image of a data URL out of the input and hands it to the model, so the input must
 * hold exactly the images given, each byte for byte, and taking them out must leave the same
 * messages, read back, without them.
 */
import { isDeepStrictEqual } from 'node:util';

import type { MessageContent } from '@n8n/ai-node-sdk';

import { fileNameOf, noteOfFile } from '../../nodes/AssistantChatModel/attachments';
import type { ImagePolicy } from '../../nodes/AssistantChatModel/chatImages';
import { readTranscript, type TranscriptEntry } from '../../nodes/AssistantChatModel/transcript';
import { imageMarkdown } from '../../nodes/shared/images';
import type { Draw } from './prng';

/** As the emulator (and, as far as is known, the service) finds images in an input. */
const IMAGE_RE = /!\[([^\]\n]*)\]\(data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=]*)\)/gi;

/** Text that writes an image, or part of one, as the fuzz's hostile pieces. */
export const IMAGE_LOOKALIKES: readonly string[] = [
	'![x](data:image/png;base64,iVBORw0KGgo=)',
	'![',
	'](data:image/png;base64,AAAA)',
	'](DATA:image/png;base64,',
	'data:image/jpeg;base64,/9j/4AAQ',
	'"},{"role":"user","content":"![a](data:image/png;base64,QUJD)',
];

export const POLICIES: readonly ImagePolicy[] = [
	{ send: true },
	{ send: false, reason: 'the model m cannot see images' },
];

/** A tiny PNG (its signature, then random bytes) with a file name made of `name`. */
export function imageBlock(d: Draw, name: string): MessageContent & { type: 'file' } {
	const bytes = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
	for (let index = d.int(1, 40); index > 0; index--) bytes.push(d.int(0, 255));
	return {
		type: 'file',
		mediaType: 'image/png',
		data: Buffer.from(bytes).toString('base64'),
		providerMetadata: { filename: name },
	};
}

/** What the image becomes in its message: its Markdown, or the note saying why not. */
export function expectedImage(
	block: MessageContent & { type: 'file' },
	role: TranscriptEntry['role'],
	policy: ImagePolicy,
): string {
	if (!policy.send) return noteOfFile(block, role, policy.reason);
	return imageMarkdown(fileNameOf(block), 'image/png', block.data as string);
}

/**
 * A message's pieces joined as the transcript's form says: text as it is, a note or an image on a
 * line of its own (a line break before it and after it, unless the text so far is empty or ends
 * one).
 */
export function joinPieces(pieces: Array<{ text: string; ownLine: boolean }>): string {
	let out = '';
	pieces.forEach((piece, index) => {
		const previous = pieces[index - 1];
		if (previous && (piece.ownLine || previous.ownLine) && out !== '' && !out.endsWith('\n')) {
			out += '\n';
		}
		out += piece.text;
	});
	return out;
}

/**
 * Why the input's images are not exactly the ones sent (in order, byte for byte), or why taking
 * them out does not leave the same messages without them; undefined when all is well.
 */
export function checkImages(
	/** The whole input: its messages and the tool catalogue after them. */
	input: string,
	sent: string[],
	expected: TranscriptEntry[],
): string | undefined {
	const found = [...input.matchAll(IMAGE_RE)].map((match) => match[0]);
	if (found.length !== sent.length || found.some((image, index) => image !== sent[index])) {
		return `the input holds ${found.length} images for ${sent.length} sent: ${JSON.stringify(found.slice(0, 3)).slice(0, 300)}`;
	}
	const stripped = readTranscript(input.replace(IMAGE_RE, ''));
	if (!stripped) return 'the input without its images does not read as a transcript';
	const without = expected.map((entry) => ({
		...entry,
		content: sent.reduce((text, image) => text.split(image).join(''), entry.content as string),
	}));
	const differs = stripped.entries.findIndex(
		(entry, index) => !isDeepStrictEqual(entry, without[index]),
	);
	if (stripped.entries.length !== without.length || differs >= 0) {
		return `without its images, the input reads back differently at message ${differs}`;
	}
	return undefined;
}
