import type { CatalogResponse, ModelEntry } from '../../../nodes/shared/api';
import {
	altText,
	imageMarkdown,
	imageMediaType,
	modelOfAsk,
	writeImage,
	modelSeesImages,
	sniffImageType,
} from '../../../nodes/shared/images';
import { filterModels } from '../../../nodes/shared/methods/listSearch';
import { readTurn } from '../../../nodes/shared/recovery/turnReading';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('the media type an image is sent as', () => {
	test('its bytes show PNG, JPEG, GIF and WebP, whatever it was declared as', () => {
		expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1))).toBe(
			'image/png',
		);
		expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xdb))).toBe('image/jpeg');
		expect(sniffImageType(Buffer.from('GIF89a...'))).toBe('image/gif');
		expect(sniffImageType(Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 '))).toBe('image/webp');
		expect(imageMediaType(bytes(0xff, 0xd8, 0xff, 0xdb), 'application/octet-stream')).toBe(
			'image/jpeg',
		);
	});

	test('other bytes keep the declared type, without its parameters', () => {
		expect(
			sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')),
		).toBeUndefined();
		expect(imageMediaType(Buffer.from('<svg/>'), 'Image/SVG+XML; charset=utf-8')).toBe(
			'image/svg+xml',
		);
		expect(imageMediaType(Buffer.from('%PDF'), undefined)).toBe('');
	});
});

describe('what is sent as an image', () => {
	test('only bytes that are one: a file labelled image/png whose content is not an image is kept out', () => {
		const png = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1);
		expect(writeImage(png, 'application/octet-stream', 'a.png')).toEqual({
			markdown: '![a.png](data:image/png;base64,iVBORw0KGgoB)',
		});
		expect(writeImage(Buffer.from('<html>hi</html>'), 'image/png', 'photo.png')).toEqual({
			problem: 'not-an-image',
			mediaType: 'image/png',
			labelOnly: true,
		});
		expect(writeImage(Buffer.from('%PDF'), 'application/pdf', 'a.pdf')).toEqual({
			problem: 'not-an-image',
			mediaType: 'application/pdf',
		});
	});
});

describe('the Markdown of an image', () => {
	test('`![name](data:<type>;base64,<data>)`', () => {
		expect(imageMarkdown('chart.png', 'image/png', 'iVBORw0=')).toBe(
			'![chart.png](data:image/png;base64,iVBORw0=)',
		);
	});

	test('a file name cannot end the alt text, the Markdown or a line, nor need escaping in JSON', () => {
		const hostile = 'a](data:image/png;base64,AAAA)\n![b]"\\\u2028\u202e\t(c).png';
		const alt = altText(hostile);
		expect(alt).not.toMatch(/[[\]()\n"\\\u2028\u202e\t!]/u);
		expect(JSON.stringify(alt)).toBe(`"${alt}"`);
		expect(alt).toBe('a__data_image_png_base64,AAAA____b_______c_.png');
	});

	test('letters of any script stay; an empty or blank name becomes "image"; long ones are cut', () => {
		expect(altText('Rechnung März 2026.jpg')).toBe('Rechnung März 2026.jpg');
		expect(altText('写真.png')).toBe('写真.png');
		expect(altText('   ')).toBe('image');
		expect(altText(undefined)).toBe('image');
		expect(Array.from(altText('x'.repeat(500)))).toHaveLength(100);
	});
});

describe('which model sees images, by the catalog', () => {
	const catalog = {
		models: [
			{ value: 'a:sees', supports_images: true },
			{ value: 'a:text', supports_images: false },
			{ value: 'a:silent' },
		],
		default_chat_model_id: 'a:text',
	} as unknown as CatalogResponse;

	test('false only where the entry says so; absent from the entry: true; unlisted: unknown', () => {
		expect(modelSeesImages(catalog, 'a:sees')).toBe(true);
		expect(modelSeesImages(catalog, 'a:text')).toBe(false);
		expect(modelSeesImages(catalog, 'a:silent')).toBe(true);
		expect(modelSeesImages(catalog, 'zo:auto')).toBeUndefined();
		expect(modelSeesImages({} as CatalogResponse, 'a:sees')).toBeUndefined();
	});

	test('with no model chosen, the catalog’s default chat model is the one asked', () => {
		expect(modelOfAsk(catalog, undefined)).toBe('a:text');
		expect(modelOfAsk(catalog, 'a:sees')).toBe('a:sees');
		expect(modelOfAsk({} as CatalogResponse, undefined)).toBeUndefined();
	});

	test('the model picker marks what the catalog says, and finds it by "images"', () => {
		const models = ['a:sees', 'a:text', 'a:silent'].map((model_name): ModelEntry => ({
			model_name,
			label: model_name,
			vendor: 'A',
			description: null,
			type: null,
			context_window: null,
			is_byok: false,
		}));
		expect(filterModels(models, undefined, catalog).map((result) => result.name)).toEqual([
			'a:sees · A · sees images',
			'a:text · A · text only',
			'a:silent · A',
		]);
		expect(filterModels(models, 'sees images', catalog).map((result) => result.value)).toEqual([
			'a:sees',
		]);
	});
});

describe('recovery reads an ask with images as taken (docs/api.md#images)', () => {
	const input = 'What is this?\n\n![photo.png](data:image/png;base64,iVBORw0KGgo=)';
	const answered = (prompt: unknown) =>
		readTurn(
			[
				{ kind: 'request', parts: [{ part_kind: 'user-prompt', content: prompt }] },
				{ kind: 'response', parts: [{ part_kind: 'text', content: 'A photo.' }] },
			],
			input,
			false,
		);

	test('whether the conversation keeps the images apart or their Markdown in the text', () => {
		expect(answered(['What is this?\n\n', { kind: 'binary', media_type: 'image/png' }])).toEqual({
			kind: 'answered',
			output: 'A photo.',
		});
		expect(answered(input)).toEqual({ kind: 'answered', output: 'A photo.' });
	});

	test('another text is still another ask', () => {
		expect(answered(['What is that?', { kind: 'binary' }])).toEqual({ kind: 'not-taken' });
	});
});
