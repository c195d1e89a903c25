/**
 * Ask's Image Fields (docs/api.md#images) in the n8n-core engine against the emulator: each named
 * binary field's image goes after the Input as a Markdown data URL, byte for byte, whether n8n
 * keeps files in the items (memory mode) or on disk (filesystem mode); a model the catalog says
 * cannot see images, a missing field, a file that is not an image and an image over 5 MB fail the
 * item before any request; a model the catalog cannot vouch for gets the images, with a hint.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { rl } from '../helpers/assistant';
import {
	binaryItemsNode,
	filesystemBinaryMode,
	withBinaryItems,
	type BinaryItem,
} from '../helpers/binary-items';
import { chain, manualTrigger, runWorkflow, type RunResult } from '../helpers/engine';
import { useEmulator } from '../helpers/emulatorFixture';
import { agentWorkflow, withAiTools } from '../helpers/tool';

const TOKEN = 'secret-token-for-image-tests-30';
const TEXT_ONLY_MODEL = 'mistral:mistral-large-latest';
const SEEING_MODEL = 'openai:gpt-5-mini';

const assistant = useEmulator({ token: TOKEN, answerDelayMs: 0, chunkDelayMs: 0 });

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

/** An image of `size` bytes: the type's signature, then random bytes. */
function image(start: Buffer, size: number): Buffer {
	return Buffer.concat([start, randomBytes(size - start.length)]);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function askWithFiles(
	items: BinaryItem[],
	parameters: INodeParameters,
	extra: { onError?: 'continueRegularOutput' } = {},
) {
	const pkg = withBinaryItems(assistant.pkg);
	const ask = assistant.node('Ask', { operation: 'ask', ...parameters }, extra);
	return await runWorkflow(pkg, chain(manualTrigger(), binaryItemsNode(items), ask), {
		credentials: [assistant.credential],
	});
}

function askBodies(): IDataObject[] {
	return assistant.askRequests().map((request) => request.body as IDataObject);
}

function hintsOf(result: RunResult): Array<{ message: string }> {
	const runs = result.data.data.resultData.runData.Ask ?? [];
	return (runs[runs.length - 1] as { hints?: Array<{ message: string }> } | undefined)?.hints ?? [];
}

function catalogReads(): number {
	return assistant.emulator.stats.requests.filter((request) => request.path === '/models/catalog')
		.length;
}

describe.each(['memory', 'filesystem'] as const)('in n8n’s %s binary mode', (mode) => {
	let disk: Awaited<ReturnType<typeof filesystemBinaryMode>> | undefined;
	beforeAll(async () => {
		if (mode === 'filesystem') disk = await filesystemBinaryMode();
	});
	afterAll(() => disk?.stop());

	test('each named field’s image follows the Input as a data URL, byte for byte, in order', async () => {
		const photo = image(PNG_SIGNATURE, 300_000);
		const scan = image(JPEG_START, 40_000);
		const result = await askWithFiles(
			[
				{
					binary: {
						data: {
							base64: photo.toString('base64'),
							mimeType: 'image/png',
							fileName: 'photo.png',
						},
						scan: { base64: scan.toString('base64'), mimeType: 'image/jpeg', fileName: 'scan.jpg' },
						other: { base64: 'aGVsbG8=', mimeType: 'text/plain', fileName: 'ignored.txt' },
					},
				},
			],
			{
				input: 'What is in these pictures?',
				imageFields: ' data , scan ',
				model: rl(SEEING_MODEL),
			},
		);
		expect(result.error()).toBeUndefined();
		if (mode === 'filesystem') {
			// The files were on disk, the items held only their ids.
			const sizes = disk!.files().map((file) => file.bytes);
			expect(sizes).toEqual(expect.arrayContaining([photo.length, scan.length]));
			const stored = result.outputs('Files')[0].binary?.data;
			expect(stored?.id).toMatch(/^filesystem/);
			expect(stored?.data).not.toContain(photo.toString('base64').slice(0, 100));
		} else {
			expect(result.outputs('Files')[0].binary?.data.data).toBe(photo.toString('base64'));
		}
		const [body] = askBodies();
		expect(body.input).toBe(
			`What is in these pictures?\n\n![photo.png](data:image/png;base64,${photo.toString('base64')})` +
				`\n\n![scan.jpg](data:image/jpeg;base64,${scan.toString('base64')})`,
		);
		const [item] = result.outputs('Ask');
		expect(item.json.output).toContain(
			`Images: #1 photo.png image/png ${photo.length} bytes sha256 ${sha256(photo)}; ` +
				`#2 scan.jpg image/jpeg ${scan.length} bytes sha256 ${sha256(scan)}.`,
		);
		// The emulator's reply quotes the text without the images.
		expect(item.json.output).toContain('You said: "What is in these pictures?');
	});

	test('every item sends its own image; the catalog is read once for all', async () => {
		const images = [1, 2, 3].map(() => image(PNG_SIGNATURE, 5_000));
		const result = await askWithFiles(
			images.map((bytes, index) => ({
				json: { n: index },
				binary: { data: { base64: bytes.toString('base64'), mimeType: 'image/png' } },
			})),
			{ input: '={{ "Picture " + $json.n }}', imageFields: 'data' },
		);
		expect(result.error()).toBeUndefined();
		const outputs = result.outputs('Ask');
		expect(outputs).toHaveLength(3);
		outputs.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json.output).toContain(`sha256 ${sha256(images[index])}`);
		});
		expect(catalogReads()).toBe(1);
	});
});

describe('what fails the item before any request', () => {
	const png = image(PNG_SIGNATURE, 2_000).toString('base64');

	test('a model the catalog says cannot see images: named, with what to do', async () => {
		const result = await askWithFiles(
			[{ binary: { data: { base64: png, mimeType: 'image/png' } } }],
			{ input: 'Describe it', imageFields: 'data', model: rl(TEXT_ONLY_MODEL) },
		);
		expect(result.error()?.message).toBe(`The model "${TEXT_ONLY_MODEL}" cannot see images`);
		expect(result.error()?.description).toMatch(/Choose a model that sees images/);
		expect(askBodies()).toHaveLength(0);
	});

	test('a missing field names the field and the fields the item has', async () => {
		const result = await askWithFiles(
			[{ binary: { attachment_0: { base64: png, mimeType: 'image/png' } } }],
			{ input: 'Describe it', imageFields: 'data' },
		);
		expect(result.error()?.message).toBe('The item has no binary field "data" (Image Fields)');
		expect(result.error()?.description).toMatch(/attachment_0/);
		expect(assistant.emulator.stats.requests).toHaveLength(0);
	});

	test('a file that is not an image names its media type', async () => {
		const pdf = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj').toString('base64');
		const result = await askWithFiles(
			[{ binary: { data: { base64: pdf, mimeType: 'application/pdf', fileName: 'invoice.pdf' } } }],
			{ input: 'Describe it', imageFields: 'data' },
		);
		expect(result.error()?.message).toBe(
			'The binary field "data" is not an image the assistant can take (application/pdf)',
		);
		expect(assistant.emulator.stats.requests).toHaveLength(0);
	});

	test('an image over 5 MB names the field; one of exactly 5 MB is sent', async () => {
		const limit = 5 * 1024 * 1024;
		const over = image(PNG_SIGNATURE, limit + 1).toString('base64');
		const failed = await askWithFiles(
			[{ binary: { big: { base64: over, mimeType: 'image/png' } } }],
			{ input: 'Describe it', imageFields: 'big' },
		);
		expect(failed.error()?.message).toBe('The image in "big" is too large (5.0 MB)');
		expect(assistant.emulator.stats.requests).toHaveLength(0);

		const exact = image(PNG_SIGNATURE, limit);
		const sent = await askWithFiles(
			[{ binary: { big: { base64: exact.toString('base64'), mimeType: 'image/png' } } }],
			{ input: 'Describe it', imageFields: 'big' },
		);
		expect(sent.error()).toBeUndefined();
		expect(sent.outputs('Ask')[0].json.output).toContain(`sha256 ${sha256(exact)}`);
	});

	test('under Continue On Fail, the bad item is an error item and the others are answered', async () => {
		const result = await askWithFiles(
			[
				{ binary: { data: { base64: png, mimeType: 'image/png' } } },
				{ binary: {} },
				{ binary: { data: { base64: png, mimeType: 'image/png' } } },
			],
			{ input: 'Describe it', imageFields: 'data' },
			{ onError: 'continueRegularOutput' },
		);
		const outputs = result.outputs('Ask');
		expect(outputs).toHaveLength(3);
		expect(outputs[1].json.error).toMatch(/no binary field "data"/);
		expect(outputs[1].pairedItem).toEqual({ item: 1 });
		expect(askBodies()).toHaveLength(2);
	});
});

describe('when the catalog cannot tell', () => {
	const png = image(PNG_SIGNATURE, 1_000);
	const items = [{ binary: { data: { base64: png.toString('base64'), mimeType: 'image/png' } } }];

	test('a model the catalog does not list gets the images, and a hint says so', async () => {
		const result = await askWithFiles(items, {
			input: 'Describe it',
			imageFields: 'data',
			model: rl('zo:auto'),
		});
		expect(result.error()).toBeUndefined();
		expect(askBodies()[0].input).toContain(png.toString('base64'));
		expect(hintsOf(result).map((hint) => hint.message)).toEqual(
			expect.arrayContaining([
				expect.stringMatching(/could not tell whether the model "zo:auto" sees images/),
			]),
		);
	});

	test('an unreadable catalog: the images are sent, and a hint says so', async () => {
		assistant.emulator.queueFault({ name: 'status', path: '/models/catalog', status: 500 }, 10);
		const result = await askWithFiles(items, { input: 'Describe it', imageFields: 'data' });
		expect(result.error()).toBeUndefined();
		expect(askBodies()[0].input).toContain(png.toString('base64'));
		expect(hintsOf(result).map((hint) => hint.message)).toEqual(
			expect.arrayContaining([expect.stringMatching(/account's default model/)]),
		);
	});

	test('no model chosen: the catalog’s default chat model decides', async () => {
		const result = await askWithFiles(items, { input: 'Describe it', imageFields: 'data' });
		expect(result.error()).toBeUndefined();
		expect(hintsOf(result)).not.toEqual(
			expect.arrayContaining([
				expect.objectContaining({ message: expect.stringMatching(/could not tell/) }),
			]),
		);
	});
});

test('without Image Fields nothing changes: no catalog read, the Input alone', async () => {
	const png = image(PNG_SIGNATURE, 1_000).toString('base64');
	const result = await askWithFiles(
		[{ binary: { data: { base64: png, mimeType: 'image/png' } } }],
		{
			input: 'Hello',
		},
	);
	expect(result.error()).toBeUndefined();
	expect(askBodies()[0].input).toBe('Hello');
	expect(catalogReads()).toBe(0);
});

describe('the Assistant Tool', () => {
	test('sends the chat’s files, given by an expression, with the question the agent wrote', async () => {
		const photo = image(PNG_SIGNATURE, 20_000);
		const pkg = withAiTools(withBinaryItems(assistant.pkg));
		const tool = assistant.node(
			'Personal Assistant',
			{
				operation: 'ask',
				input: "={{ $fromAI('question', 'The question', 'string') }}",
				// The tool's item is the agent's call: the chat's files come from the trigger's item.
				imageFields: "={{ $('Items').item.binary.data0 }}",
			},
			{ type: pkg.nodeType('assistantTool') },
		);
		const files = binaryItemsNode([
			{
				json: { chatInput: 'What is on this receipt?' },
				binary: {
					data0: {
						base64: photo.toString('base64'),
						mimeType: 'image/png',
						fileName: 'receipt.png',
					},
				},
			},
		]);
		const { nodes, connections } = agentWorkflow(
			[tool],
			[{ args: { question: 'Read the receipt' } }],
		);
		// The agent's input item comes from the files node instead of the plain items node.
		const workflow = {
			nodes: nodes.map((node) =>
				node.type === 'test.items' ? { ...files, name: node.name } : node,
			),
			connections,
		};
		const run = await runWorkflow(pkg, workflow, { credentials: [assistant.credential] });
		expect(run.error()).toBeUndefined();
		expect(askBodies()[0].input).toBe(
			`Read the receipt\n\n![receipt.png](data:image/png;base64,${photo.toString('base64')})`,
		);
	});
});

test('a failure after acceptance: the answer is read from the conversation, the ask sent once', async () => {
	const photo = image(PNG_SIGNATURE, 10_000);
	const result = await askWithFiles(
		[{ binary: { data: { base64: photo.toString('base64'), mimeType: 'image/png' } } }],
		{
			input: 'Describe it #fault=drop-after-headers&ms=150&times=1',
			imageFields: 'data',
			options: { stream: true, retries: 2 },
		},
	);
	expect(result.error()).toBeUndefined();
	const [item] = result.outputs('Ask');
	expect(item.json.recovered).toBe(true);
	expect(item.json.output).toContain(`sha256 ${sha256(photo)}`);
	expect(askBodies()).toHaveLength(1);
});
