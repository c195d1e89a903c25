/**
 * Tokens as users paste them (docs/api.md#authentication): stored with its `Bearer ` prefix, in
 * another case, or with spaces around it, the token is sent once-prefixed by every node (Ask,
 * List Models, List Personas; the agent tool in tool.test.ts, the chat model in its suite) and by
 * the credential test. The header comes from
 * the credential's generic `authenticate` expression, resolved by n8n-workflow's own expression
 * engine through the harness's credentials helper, as n8n's CredentialsHelper resolves it (the
 * same suite runs against n8n 1.x with `npm run test:n8n1`). The emulator answers 401 to
 * `Bearer Bearer …` and records whether the header was exactly `Bearer <token>`.
 */
import { emulatorCredential } from '../helpers/assistant';
import { useEmulator } from '../helpers/emulatorFixture';
import { testCredential } from '../helpers/engine';

const TOKEN = 'zo_sk_token-forms-test-41';

/** How users store it: as given, with the prefix (any case), with spaces and a line break. */
const PASTED = [
	`Bearer ${TOKEN}`,
	`bearer ${TOKEN}`,
	`BEARER   ${TOKEN}`,
	`  ${TOKEN}  `,
	`${TOKEN}\n`,
	` Bearer ${TOKEN} `,
];

const assistant = useEmulator({ token: TOKEN, answerDelayMs: 0, chunkDelayMs: 0 });

function sentOncePrefixed() {
	expect(assistant.emulator.stats.requests.length).toBeGreaterThan(0);
	for (const request of assistant.emulator.stats.requests) {
		expect(request.authorizationForm).toBe('Bearer <token>');
		expect(request.status).toBe(200);
	}
}

describe.each(PASTED)('a token stored as %j', (stored) => {
	const credential = () => emulatorCredential(assistant.emulator.baseUrl, stored);

	test.each([
		['Ask', { operation: 'ask', input: 'Hello' }],
		['List Models', { operation: 'listModels' }],
		['List Personas', { operation: 'listPersonas' }],
	])('%s sends it once-prefixed and succeeds', async (_name, parameters) => {
		const run = await assistant.run(parameters, {
			name: 'Assistant',
			credentials: [credential()],
		});
		expect(run.error()).toBeUndefined();
		expect(run.outputs('Assistant').length).toBeGreaterThan(0);
		sentOncePrefixed();
	});

	test('the credential test passes with it', async () => {
		const { pkg } = assistant;
		const result = await testCredential(pkg, 'assistantApi', {
			baseUrl: assistant.emulator.baseUrl,
			accessToken: stored,
		});
		expect(result.status).toBe('OK');
		sentOncePrefixed();
	});
});

test('a token that is only the prefix is an empty token to the credential test, not "Bearer Bearer"', async () => {
	const { pkg } = assistant;
	const result = await testCredential(pkg, 'assistantApi', {
		baseUrl: assistant.emulator.baseUrl,
		accessToken: ' Bearer ',
	});
	expect(result).toEqual({
		status: 'Error',
		message: expect.stringMatching(/^The access token is empty/),
	});
	expect(assistant.emulator.stats.requests).toHaveLength(0);
});
