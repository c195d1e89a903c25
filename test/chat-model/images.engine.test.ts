/**
 * Images handed to the Assistant Chat Model (docs/api.md#images), in the n8n-core engine with
 * n8n's AI node SDK and LangChain: an image the AI Agent passes on (an `image_url` data URL, as
 * its Passthrough Binary Images does) goes into the ask where it stood, byte for byte, for a model
 * that sees images; for one the catalog says cannot, it stays a note that says why. Text that
 * imitates an image stays text.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { readTranscript, type ReadEntry } from '../../nodes/AssistantChatModel/transcript';
import { rl } from '../helpers/assistant';
import type { ConsumerOutput, Scenario, ScriptMessage } from '../helpers/chat-model';
import { useEmulator } from '../helpers/emulatorFixture';

const TOKEN = 'secret-token-for-chat-image-tests';
const TEXT_ONLY_MODEL = 'mistral:mistral-large-latest';

const assistant = useEmulator({ token: TOKEN, answerDelayMs: 0, chunkDelayMs: 0 });

const PNG = Buffer.concat([
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	randomBytes(50_000),
]);
const BASE64 = PNG.toString('base64');
const SHA256 = createHash('sha256').update(PNG).digest('hex');

/** n8n's AI Agent hands binary images on as a user message of `image_url` blocks. */
const IMAGE: ScriptMessage = {
	role: 'user',
	content: '',
	image: { mimeType: 'image/png', base64: BASE64 },
};
const CONVERSATION: ScriptMessage[] = [
	{ role: 'system', content: 'You describe pictures.' },
	{ role: 'user', content: 'What is in this picture?' },
	IMAGE,
];

async function run(scenario: Scenario, messages: ScriptMessage[], model = '') {
	return await assistant.chat(scenario, messages, model ? { model: rl(model) } : {});
}

function asks(): string[] {
	return assistant.askRequests().map((request) => String((request.body as IDataObject).input));
}

function messagesOf(input: string): ReadEntry[] {
	const transcript = readTranscript(input);
	if (!transcript) throw new Error(`An ask is not a transcript: ${input.slice(0, 200)}`);
	return transcript.entries;
}

describe.each(['invoke', 'stream', 'agent'] as const)('%s', (scenario) => {
	test('a model that sees images gets the image where it stood, byte for byte', async () => {
		const result = await run(scenario, CONVERSATION);
		expect(result.error()).toBeUndefined();
		const [input] = asks();
		expect(messagesOf(input).slice(1)).toEqual([
			{ role: 'user', content: 'What is in this picture?' },
			{ role: 'user', content: `![image](data:image/png;base64,${BASE64})` },
		]);
		const output = result.outputs('Consumer')[0].json as ConsumerOutput;
		expect(output.text).toContain(
			`Images: #1 image image/png ${PNG.length} bytes sha256 ${SHA256}.`,
		);
		expect(output.metadata?.leftOut).toBeUndefined();
		// The catalog was read once, for the image check.
		const catalogReads = assistant.emulator.stats.requests.filter(
			(r) => r.path === '/models/catalog',
		);
		expect(catalogReads).toHaveLength(1);
	});

	test('a model that cannot see images gets the note, which says why', async () => {
		const result = await run(scenario, CONVERSATION, TEXT_ONLY_MODEL);
		expect(result.error()).toBeUndefined();
		const [input] = asks();
		const note = `[the user attached an image (image/png), which could not be passed on: the model ${TEXT_ONLY_MODEL} cannot see images]`;
		expect(messagesOf(input)[2]).toEqual({ role: 'user', content: note });
		expect(input).not.toContain(BASE64.slice(0, 100));
		const output = result.outputs('Consumer')[0].json as ConsumerOutput;
		expect(output.text).not.toContain('Images:');
		if (scenario === 'invoke') expect(output.metadata.leftOut).toEqual([note]);
		expect(result.logs.some((line) => line.includes(note))).toBe(true);
	});
});

test('text that writes an image stays text: the assistant gets no image from it', async () => {
	const forged = 'Look: ![x](data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==) and reply';
	const result = await run('invoke', [{ role: 'user', content: forged }]);
	expect(result.error()).toBeUndefined();
	const [input] = asks();
	expect(input).not.toContain('![x](data:');
	expect(messagesOf(input)).toEqual([{ role: 'user', content: forged }]);
	const output = result.outputs('Consumer')[0].json as ConsumerOutput;
	expect(output.text).not.toContain('Images:');
	// No image, so no catalog read either.
	expect(
		assistant.emulator.stats.requests.filter((r) => r.path === '/models/catalog'),
	).toHaveLength(0);
});

test('an unreadable catalog: the image is sent, and the log says it could not be checked', async () => {
	assistant.emulator.queueFault({ name: 'status', path: '/models/catalog', status: 500 }, 10);
	const result = await run('invoke', CONVERSATION);
	expect(result.error()).toBeUndefined();
	expect(asks()[0]).toContain(BASE64);
	expect(result.logs.some((line) => line.includes('the catalog could not tell whether'))).toBe(
		true,
	);
});
