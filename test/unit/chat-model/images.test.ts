import type { Message } from '@n8n/ai-node-sdk';

import { formatTranscript } from '../../../nodes/AssistantChatModel/messages';
import { readTranscript } from '../../../nodes/AssistantChatModel/transcript';
import { blocksFromTool } from './sdk-messages';

const PNG = Buffer.concat([
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	Buffer.from('pixels'),
]);
const B64 = PNG.toString('base64');
const SEES = { send: true } as const;
const BLIND = { send: false, reason: 'the model m:text cannot see images' } as const;

function contents(messages: Message[], images?: typeof SEES | typeof BLIND) {
	const { input, leftOut } = formatTranscript(messages, undefined, { images });
	return { contents: readTranscript(input)!.entries.map((entry) => entry.content), leftOut, input };
}

const photo = (data: string | Uint8Array): Message => ({
	role: 'user',
	content: [
		{ type: 'text', text: 'What is this?' },
		{ type: 'file', mediaType: 'image/png', data, providerMetadata: { filename: 'photo.png' } },
		{ type: 'text', text: 'Be brief.' },
	],
});

describe('images in the chat model’s transcript', () => {
	test('for a model that sees them: where they stood, on a line of their own, byte for byte', () => {
		for (const data of [B64, `data:image/png;base64,${B64}`, new Uint8Array(PNG)]) {
			const { contents: read, leftOut } = contents([photo(data)], SEES);
			expect(read).toEqual([
				`What is this?\n![photo.png](data:image/png;base64,${B64})\nBe brief.`,
			]);
			expect(leftOut).toEqual([]);
		}
	});

	test('for a model that cannot see them: the note says why, and nothing of the image goes', () => {
		const { contents: read, leftOut, input } = contents([photo(B64)], BLIND);
		const note =
			'[the user attached an image (photo.png), which could not be passed on: the model m:text cannot see images]';
		expect(read).toEqual([`What is this?\n${note}\nBe brief.`]);
		expect(leftOut).toEqual([note]);
		expect(input).not.toContain(B64);
	});

	test('what cannot be sent even to a model that sees images is a note that says why', () => {
		const cases: Array<[Message['content'][number], string]> = [
			[
				{
					type: 'file',
					mediaType: 'image/png',
					data: '',
					providerMetadata: { url: 'https://x.test/a.png' },
				},
				'only an image with its data can be sent, not a link to it',
			],
			[
				{
					type: 'file',
					mediaType: 'image/svg+xml',
					data: Buffer.from('<svg/>').toString('base64'),
				},
				'only PNG, JPEG, GIF or WebP images can be sent',
			],
			[
				{
					type: 'file',
					mediaType: 'image/png',
					data: Buffer.alloc(5 * 1024 * 1024 + 1).toString('base64'),
				},
				'it is larger than 5 MB, the most sent per image',
			],
		];
		for (const [block, reason] of cases) {
			const { leftOut } = contents([{ role: 'user', content: [block] }], SEES);
			expect(leftOut).toHaveLength(1);
			expect(leftOut[0]).toMatch(/^\[the user attached an image/);
			expect(leftOut[0]).toContain(`which could not be passed on: ${reason}]`);
		}
	});

	test('a file that is not an image stays the note it was', () => {
		const pdf: Message = {
			role: 'user',
			content: [{ type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=' }],
		};
		expect(contents([pdf], SEES).leftOut).toEqual([
			'[the user attached a PDF document (application/pdf), which could not be passed on]',
		]);
	});

	test('a tool’s image result follows the same rule, one block per line', () => {
		const tool = blocksFromTool('screenshot', 'c1', [
			{ type: 'text', text: 'Here it is:' },
			{ type: 'file', mediaType: 'image/png', data: B64 },
		]);
		expect(contents([tool], SEES).contents).toEqual([
			`Here it is:\n![image](data:image/png;base64,${B64})`,
		]);
		expect(contents([tool], BLIND).contents).toEqual([
			'Here it is:\n[the tool returned an image (image/png), which could not be passed on: the model m:text cannot see images]',
		]);
	});

	test('the input holds the image once as Markdown; text that writes one is escaped', () => {
		const forged: Message = {
			role: 'user',
			content: [{ type: 'text', text: '![x](data:image/png;base64,AAAA) DATA:image' }],
		};
		const { input, contents: read } = contents([photo(B64), forged], SEES);
		expect(input.match(/!\[/g)).toHaveLength(1);
		expect(input).toContain('\\u0021[x](data\\u003aimage/png;base64,AAAA) DATA\\u003aimage');
		expect(read[1]).toBe('![x](data:image/png;base64,AAAA) DATA:image');
	});
});
