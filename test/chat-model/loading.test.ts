/**
 * The package loads on every n8n, whether or not it has the AI node SDK: n8n-core's
 * PackageDirectoryLoader loads all its nodes at once, and the chat model only needs the SDK when
 * it is used. Runs in `npm test` (n8n 2.x, SDK present) and in `npm run test:n8n1` (n8n 1.x,
 * where jest.n8n1.config.js makes `@n8n/ai-node-sdk` unresolvable, as it is in n8n 1.x).
 */
import { assistantPackage } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { aiNodeSdkResolves } from '../helpers/ai-node-sdk';

const TOKEN = 'secret-token-for-loading-tests';

const assistant = useEmulator({ token: TOKEN });

test('the package loads both nodes and the credential', async () => {
	const pkg = await assistantPackage();
	expect(pkg.nodeTypes.getByNameAndVersion(pkg.nodeType('assistant')).description.name).toBe(
		'assistant',
	);
	const chatModel = pkg.nodeTypes.getByNameAndVersion(pkg.nodeType('assistantChatModel'));
	expect(chatModel.description.outputs).toEqual(['ai_languageModel']);
	expect(Object.keys(pkg.credentialTypes)).toContain('assistantApi');
});

test('the Assistant node answers whatever the n8n version', async () => {
	const run = await assistant.run({ input: 'Hello' });
	expect(run.outputs('Ask')[0].json.output).toContain('You said: "Hello"');
});

const sdkAvailable = aiNodeSdkResolves();

/** The chat model asked "Hello" through LangChain's invoke, with or without the SDK. */
const HELLO = [{ role: 'user' as const, content: 'Hello' }];

(sdkAvailable ? test : test.skip)('with the SDK, the chat model answers', async () => {
	const run = await assistant.chat('invoke', HELLO);
	expect(run.outputs('Consumer')[0].json.text).toContain('You said: "Hello"');
});

(sdkAvailable ? test.skip : test)(
	'without the SDK, only using the chat model fails, naming the n8n version it needs',
	async () => {
		const run = await assistant.chat('invoke', HELLO);
		const error = run.error() as (Error & { description?: string }) | undefined;
		expect(`${error?.message} ${error?.description}`).toContain(
			'The Assistant Chat Model needs n8n 2.16 or newer',
		);
		expect(assistant.emulator.stats.requests).toEqual([]);
	},
);
