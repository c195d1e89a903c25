/**
 * The Assistant node inside the real n8n-core engine, against the emulator over real HTTP.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PREFIXED_MODEL_IDS } from '../emulator/data';
import { emulatorCredential, jsonOf, rl } from '../helpers/assistant';
import { callListSearch, testCredential } from '../helpers/engine';
import { serveRequests } from '../helpers/scripted-server';
import { useEmulator, type AssistantRun } from '../helpers/emulatorFixture';

const TOKEN = 'secret-token-for-engine-tests-42';
const DEFAULT_MODEL = 'anthropic:claude-haiku-4-5-20251001';
const DEFAULT_PERSONA = 'persona_general';
/** Response Format: JSON Schema, an object with one string field. */
const stringFieldFormat = (field: string) => ({
	responseFormat: 'jsonSchema',
	jsonSchema: JSON.stringify({
		type: 'object',
		properties: { [field]: { type: 'string' } },
		required: [field],
	}),
});
const SUMMARY_FORMAT = stringFieldFormat('summary');

// A trailing slash must work as well as none.
const assistant = useEmulator({ token: TOKEN, trailingSlash: true, dialect: 'live' });

function hintsOf(run: AssistantRun, nodeName: string): string[] {
	const taskData = run.data.data.resultData.runData[nodeName]?.[0] as unknown as {
		hints?: Array<{ message: string }>;
	};
	return (taskData?.hints ?? []).map((hint) => hint.message);
}

function expectNoToken(value: unknown) {
	expect(JSON.stringify(value)).not.toContain(TOKEN);
}

describe('Ask: the request the service receives and the answer it gives (docs/api.md#ask-request)', () => {
	test('text answer with a new conversation id, paired to its item', async () => {
		const run = await assistant.run({ input: 'Hello there' });
		const [item] = run.outputs('Ask');
		expect(item.json).toEqual({
			output: `[model=${DEFAULT_MODEL} persona=${DEFAULT_PERSONA}] You said: "Hello there".`,
			conversation_id: expect.stringMatching(/\S+/),
		});
		expect(item.pairedItem).toEqual({ item: 0 });
		const [request] = assistant.emulator.stats.requests;
		expect(request).toMatchObject({ method: 'POST', path: '/assistant/ask', authorization: true });
		// Empty optional fields are not sent at all; every ask goes in streamed form
		// (docs/api.md#exactly-once).
		expect(request.body).toEqual({ input: 'Hello there', stream: true });
	});

	test.each(PREFIXED_MODEL_IDS)(
		'a model id with the prefix public clients meet (%s) is sent as typed',
		async (modelId) => {
			const run = await assistant.run({ input: 'Hi', model: rl(modelId) });
			expect(run.error()).toBeUndefined();
			expect(run.outputs('Ask')[0].json.output).toContain(`[model=${modelId} `);
			expect((assistant.emulator.stats.requests.at(-1)?.body as IDataObject).model_name).toBe(
				modelId,
			);
		},
	);

	test('model and persona overrides, from list mode and id mode, reach the service', async () => {
		const run = await assistant.run({
			input: 'Which model?',
			model: rl('openai:gpt-5-mini', 'list'),
			persona: rl('persona_pirate', 'id'),
		});
		expect(run.outputs('Ask')[0].json.output).toMatch(
			/^\[model=openai:gpt-5-mini persona=persona_pirate\]/,
		);
	});

	test('input from an expression, one answer per item, in order', async () => {
		const questions = ['one', 'two', 'three'];
		const run = await assistant.run(
			{ input: '={{ $json.q }}' },
			{ items: questions.map((q) => ({ q })) },
		);
		const outputs = run.outputs('Ask');
		expect(outputs.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		outputs.forEach((item, index) =>
			expect(item.json.output).toContain(`You said: "${questions[index]}"`),
		);
	});

	test('JSON Schema output: an object matching the schema, sent as output_format', async () => {
		const schema = {
			type: 'object',
			properties: {
				summary: { type: 'string' },
				sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'] },
				score: { type: 'number' },
				topics: { type: 'array', items: { type: 'string' } },
			},
			required: ['summary', 'sentiment'],
		};
		const run = await assistant.run({
			input: 'Summarize: all good',
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(schema),
		});
		const { output, conversation_id } = run.outputs('Ask')[0].json as {
			output: IDataObject;
			conversation_id: string;
		};
		expect(conversation_id).toEqual(expect.any(String));
		expect(output).toEqual({
			summary: expect.any(String),
			sentiment: 'positive',
			score: expect.any(Number),
			topics: [expect.any(String)],
		});
		expect((assistant.emulator.stats.requests[0].body as IDataObject).output_format).toEqual(
			schema,
		);
	});

	test('a JSON example gives the object: its schema is derived inside the service subset and shown', async () => {
		const example = { summary: 'One sentence', score: 0.5, done: true, topics: ['release'] };
		const run = await assistant.run({
			input: 'Summarize: all good',
			responseFormat: 'jsonExample',
			jsonExample: JSON.stringify(example),
		});
		expect(run.outputs('Ask')[0].json.output).toEqual({
			summary: expect.any(String),
			score: expect.any(Number),
			done: expect.any(Boolean),
			topics: [expect.any(String)],
		});
		const derived = {
			type: 'object',
			properties: {
				summary: { type: 'string' },
				score: { type: 'number' },
				done: { type: 'boolean' },
				topics: { type: 'array', items: { type: 'string' } },
			},
			required: ['summary', 'score', 'done', 'topics'],
		};
		expect((assistant.emulator.stats.requests[0].body as IDataObject).output_format).toEqual(
			derived,
		);
		expect(hintsOf(run, 'Ask')).toContainEqual(
			expect.stringContaining(
				`Schema derived from the JSON Example: <code>${JSON.stringify(derived)}`,
			),
		);
	});
});

describe('Ask: memory and conversations (docs/api.md#memory-mode, docs/api.md#ask-answer)', () => {
	test('Memory off sends memory_mode "off"; by default nothing is sent (docs/api.md#memory-mode)', async () => {
		await assistant.run({ input: 'Without memory', options: { memory: false } });
		await assistant.run({ input: 'With memory', options: { memory: true } });
		const [off, on] = assistant.emulator.stats.requests.map(
			(request) => request.body as IDataObject,
		);
		expect(off).toEqual({ input: 'Without memory', memory_mode: 'off', stream: true });
		expect(on).toEqual({ input: 'With memory', stream: true });
	});

	test('after an answer, a hint says how to continue the conversation; after a failure, none', async () => {
		const answered = await assistant.run({ input: 'Hello' });
		expect(hintsOf(answered, 'Ask')).toContainEqual(
			expect.stringContaining('To continue this conversation'),
		);
		const failed = await assistant.run({ input: 'x #fault=500', options: { retries: 0 } });
		expect(failed.error()).toBeDefined();
		expect(hintsOf(failed, 'Ask')).toEqual([]);
	});

	test('a second Ask continues the first one’s conversation through {{ $json.conversation_id }}', async () => {
		const run = await assistant.run(
			{ input: 'Hi! My name is Ada.' },
			{
				name: 'Introduce',
				then: [
					assistant.node('Follow Up', {
						operation: 'ask',
						input: 'What is my name?',
						conversationId: '={{ $json.conversation_id }}',
					}),
				],
			},
		);
		const first = run.outputs('Introduce')[0].json;
		const second = run.outputs('Follow Up')[0].json;
		expect(second.conversation_id).toBe(first.conversation_id);
		expect(second.output).toContain('Your name is Ada.');
		expect(second.output).toContain('Earlier you said: "Hi! My name is Ada."');
	});
});

describe('Ask, streamed: the same answer, assembled from the stream (docs/api.md#streams)', () => {
	const input = 'Tell me about café culture — briefly 😀';

	async function plainAnswer(text: string): Promise<string> {
		const run = await assistant.run({ input: text });
		return run.outputs('Ask')[0].json.output as string;
	}

	test('the same output shape and text as without streaming; id from x-conversation-id', async () => {
		const expected = await plainAnswer(input);
		const run = await assistant.run({ input, options: { stream: true } });
		const json = run.outputs('Ask')[0].json;
		expect(json).toEqual({ output: expected, conversation_id: expect.any(String) });
		expect((assistant.emulator.stats.requests.at(-1)?.body as IDataObject).stream).toBe(true);
	});

	// The stream variants of test/emulator/faults.js that leave the answer whole, named here (not
	// filtered from that list) so the test says what it covers.
	test.each(
		'crlf end-extra end-empty no-header-id unknown-events split-bytes all-variants'.split(' '),
	)('stream variant %s gives the whole answer, thinking parts left out', async (variant) => {
		const text = `${input} #fault=${variant}`;
		const run = await assistant.run({ input: text, options: { stream: true } });
		const json = run.outputs('Ask')[0].json;
		expect(json.output).toMatch(/^\[model=.*You said: ".*#fault=/);
		expect(json.output).not.toContain('Let me think');
		expect(json.conversation_id).toEqual(expect.stringMatching(/\S+/));
		// The streamed text equals what the same conversation-less ask answers without streaming.
		assistant.emulator.reset();
		const nonStreamed = await plainAnswer(text);
		expect(json.output).toBe(nonStreamed);
	});

	test('structured output arrives in End', async () => {
		const run = await assistant.run({
			input: 'Summarize streamed',
			...SUMMARY_FORMAT,
			options: { stream: true },
		});
		expect(run.outputs('Ask')[0].json.output).toEqual({ summary: expect.any(String) });
	});

	test('an Error event fails the item with the server message', async () => {
		const run = await assistant.run({ input: 'x #fault=error-event', options: { stream: true } });
		expect(String(run.error()?.message)).toContain('Model provider overloaded');
	});

	test('a stream that ends without End is never a partial answer: the whole one comes from its conversation', async () => {
		const run = await assistant.run({ input: 'x #fault=no-end', options: { stream: true } });
		// docs/api.md#recovery-after-a-failure
		expect(run.outputs('Ask')[0].json).toMatchObject({
			output: expect.stringMatching(/You said: "x #fault=no-end"\.$/),
			recovered: true,
		});
	});
});

describe('models, personas and the catalog (docs/api.md#models, docs/api.md#personas, docs/api.md#catalog)', () => {
	test('List Models: one item per model, every field of the spec, BYOK included', async () => {
		const run = await assistant.run({ operation: 'listModels' });
		const models = jsonOf(run.outputs('Ask'));
		expect(models.length).toBeGreaterThanOrEqual(6);
		// The same fields as emulator.test.ts checks the emulator serves: here the rule is that the
		// node passes every field of docs/api.md#models through, so the list is spelled out again.
		for (const model of models) {
			const fields = 'context_window description is_byok label model_name type vendor';
			expect(Object.keys(model).sort()).toEqual(fields.split(' '));
		}
		const byok = models.filter((model) => model.is_byok);
		expect(byok.length).toBeGreaterThanOrEqual(1);
		expect(byok[0].model_name).toMatch(/^byok:/);
	});

	test('List Personas: one item per persona', async () => {
		const run = await assistant.run({ operation: 'listPersonas' });
		const personas = jsonOf(run.outputs('Ask'));
		expect(personas.map((p) => p.id)).toContain(DEFAULT_PERSONA);
		for (const persona of personas) {
			expect(Object.keys(persona).sort()).toEqual(['id', 'image', 'model', 'name', 'prompt']);
		}
	});

	test('Get Catalog: one item per model by default, like List Models; paired; sent without the token', async () => {
		const served = (await (await fetch(`${assistant.emulator.baseUrl}/models/catalog`)).json()) as {
			models: IDataObject[];
		};
		assistant.emulator.reset();
		const run = await assistant.run({ operation: 'getCatalog' }, { items: [{ a: 1 }] });
		expect(jsonOf(run.outputs('Ask'))).toEqual(served.models);
		for (const item of run.outputs('Ask')) expect(item.pairedItem).toEqual({ item: 0 });
		expect(assistant.emulator.stats.requests.map((r) => [r.path, r.authorization])).toEqual([
			['/models/catalog', false],
		]);
	});

	test('Get Catalog as The Whole Catalog: as served, one per item, fetched once', async () => {
		const served = await (await fetch(`${assistant.emulator.baseUrl}/models/catalog`)).json();
		assistant.emulator.reset();
		const run = await assistant.run(
			{ operation: 'getCatalog', catalogOutput: 'catalog' },
			{ items: [{ a: 1 }, { a: 2 }, { a: 3 }] },
		);
		const items = run.outputs('Ask');
		expect(items).toHaveLength(3);
		items.forEach((item, index) => {
			expect(item.json).toEqual(served);
			expect(item.pairedItem).toEqual({ item: index });
		});
		const catalogRequests = assistant.emulator.stats.requests.filter(
			(r) => r.path === '/models/catalog',
		);
		expect(catalogRequests).toHaveLength(1);
		expect(catalogRequests[0].authorization).toBe(false);
	});
});

describe('pickers (listSearch through n8n-core’s load-options context)', () => {
	test('models: every entry labelled with vendor and traits, BYOK marked; search filters', async () => {
		const { pkg } = assistant;
		const all = await callListSearch(pkg, pkg.nodeType('assistant'), 'searchModels', {
			credentials: [assistant.credential],
			path: 'parameters.model',
		});
		expect(all.results.length).toBeGreaterThanOrEqual(6);
		const haiku = all.results.find((r) => r.value === DEFAULT_MODEL);
		expect(haiku?.name).toMatch(/Anthropic/);
		expect(all.results.filter((r) => /BYOK/.test(r.name)).length).toBeGreaterThanOrEqual(1);

		const filtered = await callListSearch(pkg, pkg.nodeType('assistant'), 'searchModels', {
			credentials: [assistant.credential],
			filter: 'openai',
		});
		expect(filtered.results.length).toBeGreaterThan(0);
		expect(filtered.results.length).toBeLessThan(all.results.length);
		for (const result of filtered.results)
			expect(`${result.name} ${result.value}`.toLowerCase()).toContain('openai');
	});

	test('personas: name and model; search filters', async () => {
		const { pkg } = assistant;
		const all = await callListSearch(pkg, pkg.nodeType('assistant'), 'searchPersonas', {
			credentials: [assistant.credential],
		});
		expect(all.results.map((r) => r.value)).toEqual(
			expect.arrayContaining([DEFAULT_PERSONA, 'persona_pirate']),
		);
		const pirate = await callListSearch(pkg, pkg.nodeType('assistant'), 'searchPersonas', {
			credentials: [assistant.credential],
			filter: 'pirate',
		});
		expect(pirate.results.map((r) => r.value)).toEqual(['persona_pirate']);
	});
});

describe('a list in another shape fails in the same words wherever it is read (shared/lists.ts)', () => {
	/** A server answering every path with `bodies[path]` as JSON. */
	async function serving(bodies: Record<string, unknown>) {
		return await serveRequests((request, _text, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify(bodies[request.url ?? ''] ?? { detail: 'ok' }));
		});
	}
	const A = { model_name: 'vendor:a', label: 'A', vendor: 'Vendor' };

	test.each([
		[
			'listModels',
			'/models/available',
			{ models: [A, null] },
			'"models" list holds an entry that is no object (entry 2 is null)',
		],
		[
			'listPersonas',
			'/personas/available',
			{ personas: ['text'] },
			'"personas" list holds an entry that is no object (entry 1 is text)',
		],
		[
			'getCatalog',
			'/models/catalog',
			{ models: [null, { value: 'x' }] },
			'"models" list holds an entry that is no object (entry 1 is null)',
		],
	])(
		'%s: an entry that is no object fails the item saying so, never as junk items or a TypeError',
		async (operation, path, body, message) => {
			const server = await serving({ [path]: body });
			try {
				const run = await assistant.run(
					{ operation },
					{ credentials: [emulatorCredential(server.origin, TOKEN)] },
				);
				expect(run.failure?.message).toBe(`The assistant's ${message}`);
			} finally {
				await server.close();
			}
		},
	);

	test('the pickers: entries without an id or repeated are not offered; a list in another shape fails as List Models does', async () => {
		const { pkg } = assistant;
		const search = async (bodies: Record<string, unknown>, method: string) => {
			const server = await serving(bodies);
			try {
				return await callListSearch(pkg, pkg.nodeType('assistant'), method, {
					credentials: [emulatorCredential(server.origin, TOKEN)],
				});
			} finally {
				await server.close();
			}
		};
		const models = await search(
			{ '/models/available': { models: [A, { label: 'No id' }, { ...A, label: 'A again' }] } },
			'searchModels',
		);
		expect(models.results.map((result) => result.value)).toEqual(['vendor:a']);
		await expect(
			search({ '/models/available': { models: [null, A] } }, 'searchModels'),
		).rejects.toThrow(
			'The assistant\'s "models" list holds an entry that is no object (entry 1 is null)',
		);
		await expect(
			search({ '/personas/available': { personas: 'xy' } }, 'searchPersonas'),
		).rejects.toThrow('The assistant\'s answer has no "personas" list');
		await expect(search({}, 'searchModels')).rejects.toThrow(
			'The assistant\'s answer has no "models" list',
		);
	});
});

describe('credential test: passes only for the Assistant API, says what answered otherwise', () => {
	/** Another server at the Base URL: a web app (HTML for every path), or JSON of another API. */
	let other: http.Server;
	let otherUrl: string;
	beforeAll(async () => {
		other = http.createServer((req, res) => {
			if (req.url?.startsWith('/json/')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end('{"status": "ok"}');
				return;
			}
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
			res.end('<!doctype html><html><head><title>Assistant</title></head><body></body></html>');
		});
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
	});
	afterAll(async () => await new Promise((resolve) => other.close(resolve)));

	async function testWith(baseUrl: string, accessToken = TOKEN) {
		return await testCredential(assistant.pkg, 'assistantApi', { baseUrl, accessToken });
	}

	test('the Assistant API with the right token: OK, naming how many models it offers', async () => {
		const result = await testWith(`${assistant.emulator.baseUrl}/`);
		expect(result).toEqual({
			status: 'OK',
			message: expect.stringMatching(/^Connection tested successfully: \d+ models available\.$/),
		});
		for (const request of assistant.emulator.stats.requests)
			expect(request.path).toBe('/models/available');
	});

	test("a wrong token: rejected (HTTP 401 and the service's words), without the token in the sentence", async () => {
		const result = await testWith(assistant.emulator.baseUrl, 'wrong-token-123');
		expect(result.status).toBe('Error');
		// The service's own words beside the status, as every failure shows them.
		expect(result.message).toMatch(
			/^The access token was rejected \(HTTP 401: Invalid or missing access token\): create a new one/,
		);
		expect(result.message).not.toContain('wrong-token-123');
	});

	test('a web page at the Base URL (any token): an HTML page, not the API', async () => {
		const result = await testWith(`${otherUrl}/app`, 'wrong-token-123');
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/answered with a web page \(HTML\), not the Assistant API/),
		});
	});

	test('JSON without a models list: not the Assistant API', async () => {
		const result = await testWith(`${otherUrl}/json/v1`);
		expect(result.message).toMatch(/not with the Assistant API's list of models/);
		expect(result.status).toBe('Error');
	});

	test('a path where nothing answers (HTTP 404): not the address of the API', async () => {
		const result = await testWith(`${assistant.emulator.baseUrl}/nothing-here`);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/\(HTTP 404: Not Found\): the Base URL is not the address of the Assistant API/,
		);
	});

	test('no server at the address, or no address at all: one sentence each', async () => {
		const refused = await testWith('http://127.0.0.1:1/api');
		expect(refused).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^No answer at 127\.0\.0\.1:1: the connection was refused/),
		});
		const malformed = await testWith('assistant.example.com/api');
		expect(malformed).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^The Base URL is not a valid address: enter it in full/),
		});
	});
});

describe('an API failure shows the HTTP status and the server’s own message (docs/api.md#errors)', () => {
	test('a wrong token: HTTP 401, says to check the credential, never shows the token', async () => {
		const run = await assistant.run(
			{ input: 'hi' },
			{ credentials: [emulatorCredential(assistant.emulator.baseUrl, 'wrong-token-123456')] },
		);
		const error = run.error() as unknown as {
			message: string;
			description: string;
			httpCode: string;
		};
		expect(error.httpCode).toBe('401');
		expect(error.message).toMatch(/access token was rejected/);
		expect(error.description).toMatch(/credential/);
		expect(JSON.stringify(run.data)).not.toContain('wrong-token-123456');
	});

	test.each([
		['404', '404', /Not found \(HTTP 404\)/],
		['409', '409', /conversation is busy/],
		['422', '422', /HTTP 422\): body\./],
		['429', '429', /Too many requests \(HTTP 429\)/],
		['500', '500', /service failed \(HTTP 500\): Internal server error/],
		['503', '503', /service failed \(HTTP 503\)/],
		['error200', '200', /could not answer: The assistant could not complete the request/],
		['garbage', '200', /not JSON/],
	])('#fault=%s: HTTP %s with the server’s message', async (fault, status, message) => {
		const run = await assistant.run({ input: `x #fault=${fault}`, options: { retries: 0 } });
		const error = run.error() as unknown as {
			message: string;
			httpCode: string;
			description?: string;
		};
		expect(error.message).toMatch(message);
		expect(error.httpCode).toBe(status);
		expectNoToken([error.message, error.description, run.logs]);
	});
});

describe('List Models, List Personas and Get Catalog: a refusal advises only on what they have (docs/api.md#errors)', () => {
	// None of them names a conversation, a model or a persona: their advice is the credential's.
	const ASK_ONLY = /conversation|model|persona|input|schema/i;

	test.each([
		['List Models', 'listModels', '/models/available'],
		['List Personas', 'listPersonas', '/personas/available'],
		['Get Catalog', 'getCatalog', '/models/catalog'],
	])(
		"%s, HTTP 404: the credential's base URL, no conversation ID",
		async (_name, operation, path) => {
			assistant.emulator.queueFault({ name: '404', path });
			const run = await assistant.run({ operation, options: { retries: 0 } });
			expect(run.failure?.message).toBe('Not found (HTTP 404): Not Found');
			expect(run.failure?.httpCode).toBe('404');
			expect(run.failure?.description).toBe("Check the credential's base URL.");
		},
	);

	test.each([
		['List Models', 'listModels', '/models/available', 401],
		['List Models', 'listModels', '/models/available', 403],
		['List Personas', 'listPersonas', '/personas/available', 401],
		['List Personas', 'listPersonas', '/personas/available', 403],
	])(
		'%s, HTTP %s: the token was rejected, check the credential',
		async (_name, operation, path, status) => {
			assistant.emulator.queueFault({ name: 'status', status, path });
			const run = await assistant.run({ operation, options: { retries: 0 } });
			expect(run.failure?.message).toMatch(
				new RegExp(`^The access token was rejected \\(HTTP ${status}\\)`),
			);
			expect(run.failure?.description).toMatch(/^Check the Assistant API credential/);
			expect(run.failure?.description).not.toMatch(ASK_ONLY);
		},
	);

	test.each([401, 403])(
		'Get Catalog, HTTP %s: no token went with it, check the base URL',
		async (status) => {
			assistant.emulator.queueFault({ name: 'status', status, path: '/models/catalog' });
			const run = await assistant.run({ operation: 'getCatalog', options: { retries: 0 } });
			expect(run.failure?.message).toMatch(
				new RegExp(
					`^The service refused a request that needs no access token \\(HTTP ${status}\\)`,
				),
			);
			expect(run.failure?.description).toMatch(/check the base URL\.$/);
			expect(run.failure?.description).not.toMatch(ASK_ONLY);
		},
	);
});

describe('bad input fails before any request, naming the parameter (docs/api.md#ask-request)', () => {
	test('an unknown model: the 422 names the field and the server’s words', async () => {
		const run = await assistant.run({ input: 'hi', model: rl('nope:model') });
		expect(run.error()?.message).toMatch(/HTTP 422\): body\.model_name: .*nope:model/);
	});

	test.each([
		['empty input', { input: '   ' }, /Input is empty/],
		[
			'schema not JSON',
			{ input: 'x', responseFormat: 'jsonSchema', jsonSchema: '{"type": "object",' },
			/not valid JSON/,
		],
		[
			'schema root not an object schema',
			{
				input: 'x',
				responseFormat: 'jsonSchema',
				jsonSchema: '{"type": "array", "items": {"type": "string"}}',
			},
			/root must have "type": "object"/,
		],
		[
			'schema without properties',
			{ input: 'x', responseFormat: 'jsonSchema', jsonSchema: '{"type": "object"}' },
			/needs "properties"/,
		],
		[
			'model id with spaces, from an expression',
			{ input: 'x', model: rl('={{ "claude haiku" }}') },
			/Model ID "claude haiku" is not valid/,
		],
		[
			'persona id with spaces, from an expression',
			{ input: 'x', persona: rl('={{ "my persona" }}') },
			/Persona ID "my persona" is not valid/,
		],
		[
			'conversation id with spaces, from an expression',
			{ input: 'x', conversationId: '={{ "con abc def" }}' },
			/^Conversation ID "con abc def" is not valid: IDs have no spaces or line breaks/,
		],
		[
			'two conversation ids joined by a line break',
			{ input: 'x', conversationId: '={{ "con_AAAAAAAAAAAAAAAA\\ncon_BBBBBBBBBBBBBBBB" }}' },
			/is not valid: IDs have no spaces or line breaks/,
		],
		[
			'model locator not text',
			{ input: 'x', model: { __rl: true, mode: 'id', value: 42 } },
			/Model must be an ID/,
		],
		[
			'unknown response format',
			{ input: 'x', responseFormat: 'xml' },
			/Response Format "xml" is not supported/,
		],
		[
			'timeout 0',
			{ input: 'x', options: { timeoutMinutes: 0 } },
			/Timeout must be a number from 0.01 to 1440/,
		],
		[
			'negative idle timeout',
			{ input: 'x', options: { stream: true, idleTimeoutSeconds: -5 } },
			/Idle Timeout must be a number from 0.01 to 86400/,
		],
		[
			'timeout 0 with a model set (no catalog read either)',
			{ input: 'x', model: rl('openai:gpt-4o-mini'), options: { timeoutMinutes: 0 } },
			/Timeout must be a number from 0.01 to 1440/,
		],
		[
			'memory not a switch',
			{ input: 'x', options: { memory: 'no' } },
			/Memory must be true or false/,
		],
		[
			'an empty JSON example',
			{ input: 'x', responseFormat: 'jsonExample', jsonExample: '' },
			/JSON Example is empty/,
		],
		[
			'a JSON example with an empty list',
			{ input: 'x', responseFormat: 'jsonExample', jsonExample: '{"tags": []}' },
			/JSON Example: "tags" is an empty list/,
		],
		[
			'a nested object without required (the whole grammar is checked, docs/api.md#ask-request)',
			{
				input: 'x',
				responseFormat: 'jsonSchema',
				jsonSchema: JSON.stringify({
					type: 'object',
					properties: {
						address: { type: 'object', properties: { city: { type: 'string' } } },
					},
					required: ['address'],
				}),
			},
			/^JSON Schema is missing properties\.address\.required: every object needs "required"/,
		],
		[
			'an integer in the schema',
			{
				input: 'x',
				responseFormat: 'jsonSchema',
				jsonSchema:
					'{"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]}',
			},
			/^JSON Schema: properties\.age\.type is "integer", which the service does not accept$/,
		],
		[
			'enum on a number, from an expression giving an object',
			{
				input: 'x',
				responseFormat: 'jsonSchema',
				jsonSchema:
					'={{ { type: "object", properties: { n: { type: "number", enum: [1, 2] } }, required: ["n"] } }}',
			},
			/^JSON Schema: properties\.n\.enum is on a number/,
		],
		[
			'additionalProperties',
			{
				input: 'x',
				responseFormat: 'jsonSchema',
				jsonSchema:
					'{"type": "object", "properties": {}, "required": [], "additionalProperties": false}',
			},
			/^JSON Schema: additionalProperties is outside what the service accepts$/,
		],
	])(
		'bad input (%s) fails before any request, naming the parameter',
		async (_name, parameters, message) => {
			const run = await assistant.run(parameters as IDataObject);
			const error = run.error() as unknown as {
				message: string;
				description?: string;
				context?: IDataObject;
			};
			expect(error.message).toMatch(message);
			expect(assistant.emulator.stats.requests).toHaveLength(0);
		},
	);

	test('a typed model ID with spaces is refused by n8n itself (the field validation) before running', async () => {
		await expect(assistant.run({ input: 'x', model: rl('claude haiku') })).rejects.toThrow(
			/A model ID has no spaces/,
		);
		expect(assistant.emulator.stats.requests).toHaveLength(0);
	});
});

describe('every item yields one output item, and the token appears nowhere', () => {
	test('Continue On Fail: good and bad items mixed, each yields one item with its pairedItem', async () => {
		const items = [{ q: 'good one' }, { q: 'boom #fault=500' }, { q: '' }, { q: 'good two' }];
		const run = await assistant.run(
			{ input: '={{ $json.q }}', options: { retries: 0 } },
			{ items, node: { onError: 'continueRegularOutput' } },
		);
		expect(run.error()).toBeUndefined();
		const outputs = run.outputs('Ask');
		expect(outputs.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(outputs[0].json.output).toContain('good one');
		expect(outputs[1].json).toEqual({
			error: expect.stringMatching(/HTTP 500/),
			description: expect.any(String),
			httpCode: '500',
		});
		expect(outputs[2].json).toEqual({ error: 'Input is empty', description: expect.any(String) });
		expect(outputs[3].json.output).toContain('good two');
		expectNoToken(run.data);
	});

	test('Continue (using error output): failed items go to the error output, answers to the success output, each paired', async () => {
		const run = await assistant.run(
			{ input: '={{ $json.q }}', options: { retries: 0 } },
			{
				items: [{ q: 'good' }, { q: '' }, { q: 'bad #fault=500' }, { q: 'fine' }],
				node: { onError: 'continueErrorOutput' },
			},
		);
		expect(run.error()).toBeUndefined();
		const [success, failed] = run.data.data.resultData.runData.Ask[0].data?.main ?? [];
		expect((success ?? []).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 3 }]);
		expect((failed ?? []).map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
		expect((failed ?? []).map((item) => item.json.error)).toEqual([
			'Input is empty',
			expect.stringMatching(/HTTP 500/),
		]);
		expectNoToken(run.data);
	});

	test('a Concurrency out of range under Continue On Fail: an error item for every item, none sent', async () => {
		const run = await assistant.run(
			{ input: '={{ $json.q }}', options: { concurrency: 0 } },
			{ items: [{ q: 'a' }, { q: 'b' }], node: { onError: 'continueRegularOutput' } },
		);
		expect(run.error()).toBeUndefined();
		const outputs = run.outputs('Ask');
		expect(outputs.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of outputs) expect(String(item.json.error)).toMatch(/Concurrency/);
		expect(assistant.askRequests()).toHaveLength(0);
	});

	describe('an error shared by the items (a list read once, a bad Concurrency) names each item in its error item', () => {
		const errorIndexes = (run: AssistantRun) =>
			(run.data.data.resultData.runData.Ask[0].data?.main?.[1] ?? []).map((item) => ({
				pairedItem: item.pairedItem,
				itemIndex: (item.error as unknown as { context: { itemIndex?: number } }).context.itemIndex,
			}));
		const each = (count: number) =>
			Array.from({ length: count }, (_, index) => ({
				pairedItem: { item: index },
				itemIndex: index,
			}));

		test.each([
			['List Models', 'listModels', '/models/available'],
			['Get Catalog', 'getCatalog', '/models/catalog'],
		])('%s failing', async (_name, operation, path) => {
			assistant.emulator.queueFault({ name: '500', path }, 5);
			const run = await assistant.run(
				{ operation, options: { retries: 0 } },
				{ items: [{ a: 1 }, { a: 2 }, { a: 3 }], node: { onError: 'continueErrorOutput' } },
			);
			expect(run.error()).toBeUndefined();
			expect(errorIndexes(run)).toEqual(each(3));
		});

		test('a Concurrency out of range', async () => {
			const run = await assistant.run(
				{ input: '={{ $json.q }}', options: { concurrency: 0 } },
				{ items: [{ q: 'a' }, { q: 'b' }], node: { onError: 'continueErrorOutput' } },
			);
			expect(errorIndexes(run)).toEqual(each(2));
		});
	});

	test('List Models checks every item’s options, though it reads the list once', async () => {
		const run = await assistant.run(
			{ operation: 'listModels', options: { timeoutMinutes: '={{ $json.t }}' } },
			{ items: [{ t: 1 }, { t: 'soon' }], node: { onError: 'continueRegularOutput' } },
		);
		expect(run.error()).toBeUndefined();
		const ofItem = (index: number) =>
			run.outputs('Ask').filter((item) => (item.pairedItem as { item: number }).item === index);
		expect(ofItem(0).length).toBeGreaterThan(1);
		expect(ofItem(1)).toHaveLength(1);
		expect(String(ofItem(1)[0].json.error)).toMatch(/^Timeout must be a number/);
	});

	test('without Continue On Fail the error names the failing item', async () => {
		const run = await assistant.run(
			{ input: '={{ $json.q }}', options: { retries: 0 } },
			{ items: [{ q: 'fine' }, { q: '' }] },
		);
		const error = run.error() as unknown as { message: string; context: IDataObject };
		expect(error.message).toBe('Input is empty');
		expect(error.context.itemIndex).toBe(1);
	});

	test('the token appears nowhere in a successful run or its logs', async () => {
		const run = await assistant.run({ input: 'hello', options: { stream: true } });
		expectNoToken(run.data);
		expectNoToken(run.logs);
	});
});

describe('a streaming execution receives the answer as it is written (docs/api.md#streams)', () => {
	/** One Ask with these parameters in an execution that streams (a Webhook that streams, say). */
	async function inStreamingExecution(parameters: IDataObject) {
		return await assistant.run(parameters as INodeParameters, { streaming: true });
	}

	test('each text chunk is forwarded as it arrives: begin, items, end; they join to the answer', async () => {
		const run = await inStreamingExecution({
			input: 'Stream this to me please',
			options: { stream: true },
		});
		const output = run.outputs('Ask')[0].json.output as string;
		const mine = run.chunks.filter((chunk) => (chunk.metadata as IDataObject)?.nodeName === 'Ask');
		expect(mine[0].type).toBe('begin');
		expect(mine.at(-1)?.type).toBe('end');
		const pieces = mine.filter((chunk) => chunk.type === 'item').map((chunk) => chunk.content);
		expect(pieces.length).toBeGreaterThan(3);
		expect(pieces.join('')).toBe(output);
	});

	test('structured output is sent once, whole, at the end', async () => {
		const run = await inStreamingExecution({
			input: 'Summarize',
			...SUMMARY_FORMAT,
			options: { stream: true },
		});
		const items = run.chunks.filter((chunk) => chunk.type === 'item');
		expect(items).toHaveLength(1);
		expect(JSON.parse(String(items[0].content))).toEqual(run.outputs('Ask')[0].json.output);
	});

	test('with Stream off the whole answer goes as one chunk once complete, never an empty response', async () => {
		const run = await inStreamingExecution({ input: 'Tell me a short story please' });
		const mine = run.chunks.filter((chunk) => (chunk.metadata as IDataObject)?.nodeName === 'Ask');
		expect(mine.map((chunk) => chunk.type)).toEqual(['begin', 'item', 'end']);
		const output = run.outputs('Ask')[0].json.output as string;
		expect(output.length).toBeGreaterThan(0);
		expect(mine[1].content).toBe(output);
	});

	test('an answer cut by a failure under Continue On Fail ends with an error chunk saying so', async () => {
		const run = await assistant.run(
			{ input: 'Tell me a story #fault=error-event', options: { stream: true, retries: 0 } },
			{ streaming: true, node: { onError: 'continueRegularOutput' } },
		);
		const item = run.outputs('Ask')[0].json;
		expect(item.error).toEqual(expect.any(String));
		const mine = run.chunks.filter((chunk) => (chunk.metadata as IDataObject)?.nodeName === 'Ask');
		const types = mine.map((chunk) => chunk.type);
		expect(types[0]).toBe('begin');
		expect(types.filter((type) => type === 'item').length).toBeGreaterThan(0);
		expect(types.at(-1)).toBe('error');
		expect(types).not.toContain('end');
		expect(mine.at(-1)?.content).toBe(item.error);
	});

	test('with Stream off a JSON Schema answer goes as one chunk, the object whole', async () => {
		const run = await inStreamingExecution({
			input: 'Summarize',
			...SUMMARY_FORMAT,
		});
		const items = run.chunks.filter((chunk) => chunk.type === 'item');
		expect(items).toHaveLength(1);
		expect(JSON.parse(String(items[0].content))).toEqual(run.outputs('Ask')[0].json.output);
	});
});

describe('answers in the shapes public clients meet (docs/api.md#ask-answer)', () => {
	/** A server that answers every ask with `body` as JSON; the node's item, or its error. */
	async function askAnsweredWith(body: unknown, parameters: IDataObject = {}) {
		const server = http.createServer((request, response) => {
			request.resume();
			request.on('end', () => {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify(body));
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		try {
			return await assistant.run(
				{ input: 'hi', ...parameters },
				{ credentials: [emulatorCredential(`http://127.0.0.1:${port}`, TOKEN)] },
			);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	}
	const schema = stringFieldFormat('city');

	test('conversation_id null in a success is an answer, with conversation_id null', async () => {
		const run = await askAnsweredWith({ output: 'An answer', conversation_id: null });
		expect(run.error()).toBeUndefined();
		expect(run.outputs('Ask')[0].json).toEqual({ output: 'An answer', conversation_id: null });
	});

	test.each([
		['a JSON string', '{"city": "Oslo"}'],
		['a JSON string with trailing text', '{"city": "Oslo"}\nHope this helps.'],
		['several JSON objects: the last complete one', '{"city": "Bergen"} {"city": "Oslo"}'],
	])('a structured answer sent as %s comes out as the object', async (_name, output) => {
		const run = await askAnsweredWith({ output, conversation_id: 'conv_s' }, schema);
		expect(run.error()).toBeUndefined();
		expect(run.outputs('Ask')[0].json).toEqual({
			output: { city: 'Oslo' },
			conversation_id: 'conv_s',
		});
	});

	test('a structured answer with no object fails quoting the start of what came', async () => {
		const run = await askAnsweredWith(
			{ output: 'Sorry, I cannot fill that in.', conversation_id: 'conv_s' },
			schema,
		);
		expect(run.error()?.message).toBe(
			'The assistant did not return an object for the JSON Schema: its answer begins "Sorry, I cannot fill that in."',
		);
	});
});

describe('a service that answers a stream request with plain JSON (docs/api.md#how-a-stream-ends)', () => {
	/** An Ask with `options`, in a workflow that streams, against a server sending `body`. */
	async function askAnswered(
		contentType: string | undefined,
		body: string | string[],
		options: IDataObject,
		pauseMs = 5,
	) {
		const server = http.createServer((request, response) => {
			request.resume();
			request.on('end', () => {
				response.writeHead(200, contentType === undefined ? {} : { 'content-type': contentType });
				// Each piece written apart, flushed on its own: a body that opens with blank lines.
				const pieces = typeof body === 'string' ? [body] : body;
				const write = (index: number): void => {
					if (index === pieces.length) {
						response.end();
						return;
					}
					response.write(pieces[index]);
					setTimeout(() => write(index + 1), pauseMs);
				};
				write(0);
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		try {
			return await assistant.run(
				{ input: 'hi', options },
				{
					credentials: [emulatorCredential(`http://127.0.0.1:${port}`, TOKEN)],
					streaming: true,
				},
			);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	}
	/** The streaming workflow received the answer whole, in one piece. */
	const wholeChunks = (output: string) => [
		['begin', undefined],
		['item', output],
		['end', undefined],
	];

	test.each([true, false])(
		'the JSON answer is used as it is, in the same output shape; a streaming workflow gets it whole (Stream %s)',
		async (stream) => {
			const body = JSON.stringify({ output: 'plain JSON answer', conversation_id: 'conv_json' });
			const run = await askAnswered('application/json', body, { stream });
			expect(run.outputs('Ask')[0].json).toEqual({
				output: 'plain JSON answer',
				conversation_id: 'conv_json',
			});
			expect(run.chunks.map((chunk) => [chunk.type, chunk.content])).toEqual(
				wholeChunks('plain JSON answer'),
			);
		},
	);

	test.each([
		['no content type', undefined],
		['another content type', 'text/plain'],
	])(
		'a JSON answer sent with %s is read as JSON, by its first character',
		async (_what, contentType) => {
			const body = JSON.stringify({ output: 'undeclared JSON', conversation_id: 'con_undeclared' });
			const run = await askAnswered(contentType, ['\r\n', '  \n', body], { stream: false });
			expect(run.outputs('Ask')[0].json).toEqual({
				output: 'undeclared JSON',
				conversation_id: 'con_undeclared',
			});
		},
	);

	test.each([true, false])(
		'a JSON answer declared an event stream is read as JSON, by its first character, not as a stream without events (Stream %s)',
		async (stream) => {
			const body = JSON.stringify({ output: 'JSON in a stream', conversation_id: 'con_declared' });
			const run = await askAnswered(
				'text/event-stream; charset=utf-8',
				['\n', body.slice(0, 9), body.slice(9)],
				{ stream },
			);
			expect(run.outputs('Ask')[0].json).toEqual({
				output: 'JSON in a stream',
				conversation_id: 'con_declared',
			});
			expect(run.chunks.map((chunk) => [chunk.type, chunk.content])).toEqual(
				wholeChunks('JSON in a stream'),
			);
		},
	);

	test.each([
		['declared JSON', 'application/json'],
		['no content type', undefined],
		['declared an event stream', 'text/event-stream'],
	])(
		'a JSON answer (%s) that pauses past Idle Timeout between its pieces is read under Timeout alone, as any JSON answer',
		async (_what, contentType) => {
			const body = JSON.stringify({ output: 'slow JSON', conversation_id: 'con_slow' });
			const run = await askAnswered(
				contentType,
				[body.slice(0, 12), body.slice(12)],
				{ stream: true, idleTimeoutSeconds: 0.1 },
				400,
			);
			expect(run.error()).toBeUndefined();
			expect(run.outputs('Ask')[0].json).toEqual({
				output: 'slow JSON',
				conversation_id: 'con_slow',
			});
		},
	);

	test('an event stream sent without a content type is still read as one, as it arrives', async () => {
		const events = [
			'\n',
			'event: PartStartEvent\ndata: {"index": 0, "part": {"part_kind": "text", "content": "Still "}}\n\n',
			'event: PartDeltaEvent\ndata: {"index": 0, "delta": {"part_delta_kind": "text", "content_delta": "read."}}\n\n',
			'event: completed\ndata: {"status": "succeeded"}\n\n',
		];
		const run = await askAnswered(undefined, events, { stream: true });
		expect(run.outputs('Ask')[0].json.output).toBe('Still read.');
		expect(
			run.chunks.filter((chunk) => chunk.type === 'item').map((chunk) => chunk.content),
		).toEqual(['Still ', 'read.']);
	});

	test("a stream whose text is only in End's output: a streaming workflow gets it whole, with Stream on too", async () => {
		const body = 'event: End\ndata: {"output": "only in End", "conversation_id": "conv_e"}\n\n';
		const run = await askAnswered('text/event-stream', body, { stream: true });
		expect(run.outputs('Ask')[0].json).toEqual({
			output: 'only in End',
			conversation_id: 'conv_e',
		});
		expect(run.chunks.map((chunk) => [chunk.type, chunk.content])).toEqual(
			wholeChunks('only in End'),
		);
	});
});
