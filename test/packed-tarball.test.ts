/**
 * The package as published: `npm pack`, extracted, loaded alone into the n8n-core engine, and
 * pointed at test/independent/server.js, an Assistant API written from docs/api.md only (not the
 * emulator), which uses the other legal shapes where they differ, and streams in three dialects:
 * the documented one, the live one, and the 2026 one the live service sends today.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import type { IDataObject, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';

// The whole engine harness, as engine-harness.test.ts proves it, drives the packed package.
import * as harness from './helpers/engine';
import {
	CATALOG,
	ECHO_PRIVATE,
	FALLBACK_MODEL,
	MODELS,
	PERSONAS,
	RUN_CANCELLED,
	RUN_ERROR,
	THINKING_2026,
	TOOL_ROUND,
	conform,
	start,
} from './independent/server';

const REPO = path.resolve(__dirname, '..');
const TOKEN = 'indep-9f3c2a71-d4e8-4b6a-token-never-shown';
const WRONG_TOKEN = 'wrong-5e1d7b20-not-the-token';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Conversation ids of 2026 (docs/api.md#2026-stream-dialect). */
const CON_ID = /^con_[A-Za-z0-9]{16}$/;

const NODE_FILE = 'dist/nodes/Assistant/Assistant.node.js';
const CHAT_MODEL_FILE = 'dist/nodes/AssistantChatModel/AssistantChatModel.node.js';
const CREDENTIAL_FILE = 'dist/credentials/AssistantApi.credentials.js';
const EXPECTED_FILES = [
	NODE_FILE,
	CREDENTIAL_FILE,
	'dist/nodes/Assistant/Assistant.node.json',
	'dist/nodes/Assistant/assistant.svg',
	'dist/nodes/Assistant/assistant.dark.svg',
	CHAT_MODEL_FILE,
	'dist/nodes/AssistantChatModel/AssistantChatModel.node.json',
	'dist/nodes/AssistantChatModel/assistant.svg',
	'dist/nodes/AssistantChatModel/assistant.dark.svg',
	'package.json',
];

let workDir: string;
let tarball: string;
let tarballFiles: string[];
let packageDir: string;
type Dialect = 'documented' | 'live' | '2026';
/** The conversation ids each dialect's server gives. */
const CONVERSATION_ID: Record<Dialect, RegExp> = { documented: UUID, live: UUID, '2026': CON_ID };
type IndependentServer = Awaited<ReturnType<typeof start>>;
/** Serves every case; the stream cases run against the server of each dialect. */
let server: IndependentServer;
const servers = {} as Record<Dialect, IndependentServer>;
let pkg: harness.LoadedPackage;
let credential: harness.EngineCredential;

beforeAll(async () => {
	const built = [NODE_FILE, CREDENTIAL_FILE].every((file) => fs.existsSync(path.join(REPO, file)));
	if (!built) execFileSync('npx', ['gulp', 'build'], { cwd: REPO, stdio: 'pipe' });

	// Inside the repository, so that the extracted package finds n8n-workflow in its
	// node_modules, as an installed community package finds the one n8n provides.
	const packedRoot = path.join(REPO, '.cache', 'packed');
	fs.mkdirSync(packedRoot, { recursive: true });
	workDir = fs.mkdtempSync(path.join(packedRoot, 'run-'));
	const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', workDir], {
		cwd: REPO,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [info] = JSON.parse(packed) as Array<{ filename: string }>;
	tarball = path.join(workDir, info.filename);
	tarballFiles = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
		.split('\n')
		.filter(Boolean);
	execFileSync('tar', ['-xzf', tarball, '-C', workDir]);
	packageDir = path.join(workDir, 'package');

	servers.documented = server = await start({ token: TOKEN, dialect: 'documented' });
	servers.live = await start({ token: TOKEN, dialect: 'live' });
	servers['2026'] = await start({ token: TOKEN, dialect: '2026' });
	// A trailing slash on the base URL must work as well as none.
	credential = {
		id: 'independent',
		name: 'Assistant (independent server)',
		type: 'assistantApi',
		data: { baseUrl: `${server.baseUrl}/`, accessToken: TOKEN },
	};
	pkg = await harness.loadPackage(packageDir);
}, 180_000);

afterAll(async () => {
	await Promise.all(Object.values(servers).map((each) => each.close()));
	if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

beforeEach(() => {
	for (const each of Object.values(servers)) each.requests.length = 0;
});

// ——— helpers ———

function assistant(name: string, parameters: IDataObject, extra: Partial<INode> = {}): INode {
	return harness.workflowNode(name, pkg.nodeType('assistant'), parameters as INodeParameters, {
		credentials: {
			assistantApi: { id: credential.id ?? null, name: credential.name ?? 'Assistant' },
		},
		...extra,
	});
}

function rl(value: string, mode: 'list' | 'id' = 'id'): IDataObject {
	return { __rl: true, mode, value };
}

async function run(
	items: IDataObject[],
	nodes: INode[],
	credentials = [credential],
	options: harness.RunOptions = {},
): Promise<harness.RunResult> {
	return await harness.runWorkflow(
		pkg,
		harness.chain(harness.manualTrigger(), harness.itemsNode(items), ...nodes),
		{ ...options, credentials },
	);
}

async function ask(
	parameters: IDataObject,
	items: IDataObject[] = [{}],
	target: IndependentServer = server,
	options: harness.RunOptions = {},
): Promise<harness.RunResult> {
	// The same credential, pointed at the server of one dialect or another.
	const pointed = { ...credential, data: { ...credential.data, baseUrl: `${target.baseUrl}/` } };
	return await run(
		items,
		[assistant('Ask', { operation: 'ask', ...parameters })],
		[pointed],
		options,
	);
}

/** The node's output items, each of which must be paired to an input item. */
function outputs(result: harness.RunResult, name = 'Ask'): INodeExecutionData[] {
	const items = result.outputs(name);
	for (const item of items) expect(item.pairedItem).toEqual({ item: expect.any(Number) });
	return items;
}

function only(result: harness.RunResult, name = 'Ask'): IDataObject {
	const items = outputs(result, name);
	expect(items).toHaveLength(1);
	expect(items[0].pairedItem).toEqual({ item: 0 });
	return items[0].json;
}

function errorOf(result: harness.RunResult) {
	const error = result.error() as unknown as
		{ message: string; description?: string; httpCode?: string } | undefined;
	expect(error).toBeDefined();
	return error!;
}

function reply(input: string, model = 'default', persona = 'default', history = 0): string {
	return `echo(${input}) via ${model} as ${persona}; history=${history}`;
}

function askRequests(target: IndependentServer = server) {
	return target.requests.filter((request) => request.path === '/assistant/ask');
}

function expectNoToken(value: unknown, token = TOKEN) {
	expect(JSON.stringify(value)).not.toContain(token);
}

function listFiles(dir: string): string[] {
	return fs
		.readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile())
		.map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

const SCHEMA = {
	type: 'object',
	properties: {
		summary: { type: 'string', description: 'One sentence' },
		mood: { type: 'string', enum: ['calm', 'tense', 'joyful'] },
		score: { type: 'number' },
		urgent: { type: 'boolean' },
		tags: { type: 'array', items: { type: 'string' } },
		author: {
			type: 'object',
			properties: {
				name: { type: 'string' },
				karma: { type: 'number' },
				role: { type: 'string', enum: ['a', 'b'] },
			},
			required: ['name'],
		},
	},
	required: ['summary', 'mood'],
};
/** Ask's Response Format set to SCHEMA. */
const SCHEMA_FORMAT = { responseFormat: 'jsonSchema', jsonSchema: JSON.stringify(SCHEMA) };
const SCHEMA_ANSWER = {
	summary: 'x',
	mood: 'joyful',
	score: 1,
	urgent: false,
	tags: [],
	author: { name: 'x', karma: 1, role: 'b' },
};

// ——— the tarball ———

describe('the tarball', () => {
	test('holds the node, the credential, the icons and the codex; nothing outside dist but the docs', () => {
		const files = tarballFiles.map((file) => file.replace(/^package\//, ''));
		expect(tarballFiles.every((file) => file.startsWith('package/'))).toBe(true);
		for (const expected of EXPECTED_FILES) expect(files).toContain(expected);
		const outside = files.filter((file) => !file.startsWith('dist/'));
		for (const file of outside)
			expect(file).toMatch(/^(package\.json|(README|LICENSE|LICENCE|CHANGELOG)(\.md|\.txt)?)$/i);
		// No sources, tests, maps or type declarations shipped.
		expect(files.filter((file) => /\.(ts|map)$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
	});

	test('package.json: no runtime dependencies, n8n entries pointing at files in the tarball', () => {
		const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
		expect(manifest.name).toBe('n8n-nodes-assistant');
		expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
		expect(manifest.bundleDependencies ?? manifest.bundledDependencies ?? []).toEqual([]);
		expect(manifest.keywords).toContain('n8n-community-node-package');
		expect(manifest.n8n.nodes).toEqual([NODE_FILE, CHAT_MODEL_FILE]);
		// The two peers n8n provides; the SDK only with the AI node SDK version it speaks.
		expect(manifest.peerDependencies).toEqual({ '@n8n/ai-node-sdk': '*', 'n8n-workflow': '*' });
		expect(manifest.n8n.aiNodeSdkVersion).toBe(1);
		expect(manifest.n8n.credentials).toEqual([CREDENTIAL_FILE]);
		for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			expect(fs.existsSync(path.join(packageDir, file))).toBe(true);
		}
	});

	test('the bundled JavaScript requires only node builtins, n8n-workflow and (the chat model) the AI node SDK', () => {
		const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
		const jsFiles = listFiles(path.join(packageDir, 'dist')).filter((file) => file.endsWith('.js'));
		expect(jsFiles.sort()).toEqual([
			'credentials/AssistantApi.credentials.js',
			'nodes/Assistant/Assistant.node.js',
			'nodes/AssistantChatModel/AssistantChatModel.node.js',
		]);
		for (const file of jsFiles) {
			const provided = file.startsWith('nodes/AssistantChatModel/')
				? ['n8n-workflow', '@n8n/ai-node-sdk']
				: ['n8n-workflow'];
			const code = fs.readFileSync(path.join(packageDir, 'dist', file), 'utf8');
			const requires = [...code.matchAll(/\brequire\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g)].map(
				(match) => match[2],
			);
			const foreign = requires.filter((id) => !provided.includes(id) && !builtins.has(id));
			expect({ file, foreign }).toEqual({ file, foreign: [] });
			// No require or import of a computed name either.
			const dynamic = [...code.matchAll(/\b(?:require|import)\s*\(\s*(?!["'`])/g)].length;
			expect({ file, dynamic }).toEqual({ file, dynamic: 0 });
		}
	});
});

describe('the extracted package', () => {
	test('loads in a folder outside the repository with nothing but n8n-workflow beside it', () => {
		const isolated = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-packed-'));
		try {
			execFileSync('tar', ['-xzf', tarball, '-C', isolated]);
			fs.mkdirSync(path.join(isolated, 'node_modules'));
			fs.symlinkSync(
				fs.realpathSync(path.join(REPO, 'node_modules', 'n8n-workflow')),
				path.join(isolated, 'node_modules', 'n8n-workflow'),
				'dir',
			);
			const script = `
				const Module = require('node:module');
				const path = require('node:path');
				const root = path.join(${JSON.stringify(isolated)}, 'package');
				const seen = new Set();
				const original = Module.prototype.require;
				Module.prototype.require = function (id) {
					if (this.filename && this.filename.startsWith(root)) seen.add(id);
					return original.apply(this, arguments);
				};
				const { Assistant } = require(path.join(root, ${JSON.stringify(NODE_FILE)}));
				const { AssistantApi } = require(path.join(root, ${JSON.stringify(CREDENTIAL_FILE)}));
				const node = new Assistant();
				const credential = new AssistantApi();
				process.stdout.write(JSON.stringify({
					requires: [...seen].sort(),
					node: node.description.name,
					credentials: node.description.credentials.map((c) => c.name),
					credential: credential.name,
					outsideRepo: !Object.keys(require.cache).some((file) => file.startsWith(${JSON.stringify(REPO + path.sep)}) && !file.includes(${JSON.stringify(`${path.sep}node_modules${path.sep}`)})),
				}));
			`;
			const result = JSON.parse(
				execFileSync(process.execPath, ['-e', script], {
					cwd: isolated,
					encoding: 'utf8',
					env: { ...process.env, NODE_PATH: '' },
				}),
			);
			expect(result).toEqual({
				requires: ['n8n-workflow'],
				node: 'assistant',
				credentials: ['assistantApi'],
				credential: 'assistantApi',
				outsideRepo: true,
			});
		} finally {
			fs.rmSync(isolated, { recursive: true, force: true });
		}
	});

	test('n8n-core loads the extracted package, not the repository', () => {
		expect(pkg.dir).toBe(packageDir);
		expect(pkg.name).toBe('n8n-nodes-assistant');
		const { nodeTypes, credentialTypes } = pkg.loader;
		expect(pkg.loader.resolveSourcePath(nodeTypes.assistant.sourcePath)).toBe(
			path.join(packageDir, NODE_FILE),
		);
		expect(pkg.loader.resolveSourcePath(credentialTypes.assistantApi.sourcePath)).toBe(
			path.join(packageDir, CREDENTIAL_FILE),
		);
		// What the loader required is the extracted copy.
		expect(require.resolve(path.join(packageDir, NODE_FILE))).toBe(
			path.join(packageDir, NODE_FILE),
		);
		const { description } = pkg.loader.nodeTypes.assistant.type;
		expect(description.codex?.categories).toEqual(['Productivity']);
		// n8n serves icons/<package>/<path in the package>: both icons must be in the tarball.
		const credentialType = credentialTypes.assistantApi.type;
		for (const iconUrl of [description.iconUrl, credentialType.iconUrl]) {
			const { light, dark } = iconUrl as { light: string; dark: string };
			expect([light, dark]).toEqual([
				'icons/n8n-nodes-assistant/dist/nodes/Assistant/assistant.svg',
				'icons/n8n-nodes-assistant/dist/nodes/Assistant/assistant.dark.svg',
			]);
			for (const url of [light, dark]) {
				const file = path.join(packageDir, url.replace('icons/n8n-nodes-assistant/', ''));
				expect(fs.readFileSync(file, 'utf8')).toMatch(/<svg[\s>]/);
			}
		}
	});
});

// ——— against the independent server ———

describe('Ask', () => {
	test('text: the reply for the input and a new conversation id', async () => {
		const input = 'Hello, independent world — ça va? 😀';
		const json = only(await ask({ input }));
		expect(json).toEqual({ output: reply(input), conversation_id: expect.stringMatching(UUID) });
		const [request] = askRequests();
		expect(request).toMatchObject({ method: 'POST', authorization: `Bearer ${TOKEN}` });
		expect((request.body as IDataObject).input).toBe(input);
		// Every ask goes in streamed form (docs/api.md#exactly-once).
		expect((request.body as IDataObject).stream).toBe(true);
	});

	test('model and persona from the server’s lists (list mode and id mode; BYOK too)', async () => {
		const [mistral, , , , , byok] = MODELS.map((model) => model.model_name);
		const cook = PERSONAS[1].id;
		expect(
			only(await ask({ input: 'Which?', model: rl(mistral, 'list'), persona: rl(cook, 'id') }))
				.output,
		).toBe(reply('Which?', mistral, cook));
		expect(
			only(await ask({ input: 'Mine', model: rl(byok), persona: rl(PERSONAS[2].id, 'list') }))
				.output,
		).toBe(reply('Mine', byok, PERSONAS[2].id));
	});

	test('a deprecated model (deprecation_map) is answered by its successor', async () => {
		const json = only(await ask({ input: 'Old model', model: rl('openai:gpt-4o-2024-08-06') }));
		expect(json.output).toBe(reply('Old model', 'openai:gpt-5'));
		expect(
			server.requests
				.filter((request) => request.path === '/models/catalog')
				.every((r) => r.authorization === undefined),
		).toBe(true);
	});

	test('JSON Schema: an object conforming to the schema, the schema sent as output_format', async () => {
		expect(conform(SCHEMA)).toEqual(SCHEMA_ANSWER);
		const json = only(await ask({ input: 'Summarize: fine', ...SCHEMA_FORMAT }));
		expect(json).toEqual({ output: SCHEMA_ANSWER, conversation_id: expect.stringMatching(UUID) });
		expect((askRequests()[0].body as IDataObject).output_format).toEqual(SCHEMA);
	});

	test('two chained Asks: the second continues the first’s conversation', async () => {
		const result = await run(
			[{}],
			[
				assistant('First', { operation: 'ask', input: 'Remember: the code is 4711.' }),
				assistant('Second', {
					operation: 'ask',
					input: 'What is the code?',
					conversationId: '={{ $json.conversation_id }}',
				}),
			],
		);
		const first = only(result, 'First');
		const second = only(result, 'Second');
		expect(first.output).toBe(reply('Remember: the code is 4711.'));
		expect(second).toEqual({
			output: reply('What is the code?', 'default', 'default', 1),
			conversation_id: first.conversation_id,
		});
		expect((askRequests()[1].body as IDataObject).conversation_id).toBe(first.conversation_id);
	});
});

describe.each(['documented', 'live', '2026'] as const)(
	'Ask, streamed in the %s dialect (docs/api.md#streams)',
	(dialect) => {
		const conversationId = expect.stringMatching(CONVERSATION_ID[dialect]);
		const streamed = (parameters: IDataObject) =>
			ask(
				{ ...parameters, options: { stream: true, retries: 0, ...(parameters.options as object) } },
				[{}],
				servers[dialect],
			);

		test('a streamed answer is the JSON answer: thinking is no answer text, every piece counts once', async () => {
			const input = 'Grüße aus 東京 — café ☕ 😀';
			const plain = only(await ask({ input }, [{}], servers[dialect]));
			const json = only(await streamed({ input }));
			expect(json).toEqual({ output: plain.output, conversation_id: conversationId });
			expect(json.conversation_id).not.toBe(plain.conversation_id);
			expect(json.output).toBe(reply(input));
			expect((askRequests(servers[dialect])[1].body as IDataObject).stream).toBe(true);
		});

		// 2026: the server ends such a stream with a documented End before `completed`.
		test('without x-conversation-id, the id comes from End and continues the conversation', async () => {
			const input = 'noheader: ünïcödé ✓ 🎉';
			const json = only(await streamed({ input }));
			expect(json).toEqual({ output: reply(input), conversation_id: conversationId });
			const next = only(
				await ask(
					{ input: 'and then?', conversationId: json.conversation_id as string },
					[{}],
					servers[dialect],
				),
			);
			expect(next).toEqual({
				output: reply('and then?', 'default', 'default', 1),
				conversation_id: json.conversation_id,
			});
		});

		// The streamed twin of the JSON Schema test above: the same request but streamed, so the same
		// expected answer; kept as its own test so each dialect failing is named. The object comes in
		// End, or in 2026 as the output tool's arguments (docs/api.md#structured-output-in-a-stream).
		test('a structured answer is the object the stream gives', async () => {
			const json = only(await streamed({ input: 'Streamed summary', ...SCHEMA_FORMAT }));
			expect(json).toEqual({ output: SCHEMA_ANSWER, conversation_id: conversationId });
		});

		// 2026: the error event is `failed`, and the cut stream has no `completed`.
		test('an error event fails with the server’s message; a stream without End is incomplete', async () => {
			const failed = await streamed({ input: 'stream-error please' });
			expect(errorOf(failed).message).toContain('Upstream model failed mid-answer (stream-error)');
			const cut = await streamed({ input: 'stream-cut please' });
			expect(errorOf(cut).message).toMatch(/ended before the answer was complete|incomplete/i);
			expect(
				JSON.stringify(cut.data.data.resultData.runData.Ask?.at(-1)?.data ?? null),
			).not.toContain('echo(');
		});

		test('the model that answered instead is named on the item (docs/api.md#model-fallback)', async () => {
			const input = 'fallback please';
			const json = only(await streamed({ input }));
			expect(json).toEqual({
				output: reply(input, FALLBACK_MODEL),
				conversation_id: conversationId,
				model_fallback: FALLBACK_MODEL,
			});
		});
	},
);

test('a turn with a tool call between two model messages answers with End’s final answer (docs/api.md#how-a-stream-ends)', async () => {
	const input = 'toolcall: the weather?';
	const json = only(await ask({ input, options: { stream: true } }, [{}], servers.live));
	expect(json).toEqual({ output: reply(input), conversation_id: expect.stringMatching(UUID) });
});

describe('Ask, streamed in the 2026 dialect: what only it sends (docs/api.md#2026-stream-dialect)', () => {
	const conversationId = expect.stringMatching(CON_ID);
	/** Asked in a workflow that streams its response, so that its chunks can be read. */
	const asked = (parameters: IDataObject) =>
		ask(
			{ ...parameters, options: { stream: true, ...(parameters.options as object) } },
			[{}],
			servers['2026'],
			{ streaming: true },
		);
	/** What the streaming workflow received as the answer, piece by piece. */
	const pieces = (result: harness.RunResult) =>
		result.chunks.filter((chunk) => chunk.type === 'item').map((chunk) => String(chunk.content));
	/** The request's echo (docs/api.md#2026-stream-dialect) reaches nothing the run holds. */
	const expectNoEcho = (result: harness.RunResult) => {
		const mark = ECHO_PRIVATE.split(' ')[0];
		for (const held of [result.data, result.chunks, result.logs]) {
			expect(JSON.stringify(held)).not.toContain(mark);
			expect(JSON.stringify(held)).not.toContain('Notizen');
		}
	};
	const conversationReads = () =>
		servers['2026'].requests.filter((request) => request.path.startsWith('/conversations'));

	test('every piece once, the first in PartStartEvent; streamed piece by piece, or whole with Stream off; the echo reaches nothing', async () => {
		for (const stream of [true, false]) {
			const input = `Stream ${stream}: Grüße aus 東京 — café ☕ 😀`;
			const result = await asked({
				input,
				options: { stream, includeSteps: true, includeThinking: true },
			});
			// docs/api.md#steps: a thinking text is a step; the stream names no model.
			expect(only(result)).toEqual({
				output: reply(input),
				conversation_id: conversationId,
				steps: [{ type: 'thinking', content: THINKING_2026 }],
				model: null,
			});
			// docs/api.md#assembling-the-answer, 5.
			expect(pieces(result).join('')).toBe(reply(input));
			expect(pieces(result).length > 1).toBe(stream);
			expectNoEcho(result);
		}
		expect(askRequests(servers['2026'])).toHaveLength(2);
	});

	test('a tool round: steps in order, the result with its outcome; the second response (new zmid, opened by a delta) joined by a blank line', async () => {
		const { tool_name, tool_call_id } = TOOL_ROUND;
		const call = { type: 'tool_call', tool_name, args: TOOL_ROUND.args, tool_call_id };
		// docs/api.md#steps: a result has tool_name, tool_call_id, content, and the return's outcome.
		const result = {
			type: 'tool_result',
			tool_name,
			tool_call_id,
			content: TOOL_ROUND.content,
			outcome: TOOL_ROUND.outcome,
		};
		for (const stream of [true, false]) {
			const input = `toolcall ${stream}: where are my Bücher?`;
			const run = await asked({
				input,
				options: { stream, includeSteps: true, includeThinking: stream },
			});
			// docs/api.md#assembling-the-answer, 3 and 4: the texts of the two responses.
			const answer = `${TOOL_ROUND.text}\n\n${reply(input)}`;
			const thinking = stream ? [{ type: 'thinking', content: TOOL_ROUND.thinking }] : [];
			expect(only(run)).toEqual({
				output: answer,
				conversation_id: conversationId,
				steps: [...thinking, call, result],
				model: null,
			});
			expect(pieces(run).join('')).toBe(answer);
			expectNoEcho(run);
		}
		expect(askRequests(servers['2026'])).toHaveLength(2);
	});

	test('a structured answer is the output tool’s arguments, not the JSON text beside it; the output tool is no step', async () => {
		const result = await asked({
			input: 'Summarize, 2026 style',
			...SCHEMA_FORMAT,
			options: { includeSteps: true },
		});
		expect(only(result)).toEqual({
			output: SCHEMA_ANSWER,
			conversation_id: conversationId,
			steps: [],
			model: null,
		});
		// docs/api.md#assembling-the-answer, 5: once, whole, at the end.
		expect(pieces(result)).toHaveLength(1);
		expect(pieces(result)[0]).not.toContain('draft');
		expectNoEcho(result);
		expect(askRequests(servers['2026'])).toHaveLength(1);
	});

	test('`failed` in the 200 stream fails the item with the service’s error and its classes; not incomplete, not sent again, no conversation read', async () => {
		const result = await asked({ input: 'stream-error: Grüße' });
		const error = errorOf(result);
		expect(error.message).toContain(RUN_ERROR);
		expect(error.message).not.toMatch(/incomplete|ended before|broke off/i);
		const words = `${error.message} ${error.description}`;
		expect(words).toContain('UserError');
		expect(words).toContain('model_stream_failed');
		expect(askRequests(servers['2026'])).toHaveLength(1);
		expect(conversationReads()).toEqual([]);
		expectNoEcho(result);
	});

	test('`completed` with another status than succeeded fails the item with its error and its classes; not incomplete, not sent again, no conversation read', async () => {
		const result = await asked({ input: 'run-cancelled: Grüße' });
		const error = errorOf(result);
		expect(error.message).toContain(RUN_CANCELLED.error);
		expect(error.message).not.toMatch(/incomplete|ended before|broke off/i);
		const words = `${error.message} ${error.description}`;
		expect(words).toContain(RUN_CANCELLED.error_type);
		expect(words).toContain(RUN_CANCELLED.failure_kind);
		expect(askRequests(servers['2026'])).toHaveLength(1);
		expect(conversationReads()).toEqual([]);
		expectNoEcho(result);
	});

	test('a stream cut without `completed` after an unknown event is incomplete; the error names the event, not its data, and the log warns once', async () => {
		const result = await asked({ input: 'stream-cut: Grüße', options: { retries: 0 } });
		const error = errorOf(result);
		expect(error.message).toMatch(/ended before the answer was complete/i);
		const words = `${error.message} ${error.description}`;
		expect(words).toMatch(/\busage\b/);
		expect(words).not.toContain('1893');
		// Only the events the node does not know are named.
		expect(words).not.toMatch(/AgentRuntimeStreamChunk|FrontendModelRequest|PartDeltaEvent/);
		const warnings = result.logs.filter((line) => /^\[warn/i.test(line) && /\busage\b/.test(line));
		expect(warnings).toHaveLength(1);
		expect(askRequests(servers['2026'])).toHaveLength(1);
		expectNoEcho(result);
	});
});

test('a full session pool, whatever the status, is waited out and then answered (docs/api.md#full-session-pool)', async () => {
	const input = 'pool-once: are you free?';
	const json = only(await ask({ input, options: { retries: 2 } }));
	expect(json).toEqual({ output: reply(input), conversation_id: expect.stringMatching(UUID) });
	expect(askRequests()).toHaveLength(2);
});

describe('lists and catalog', () => {
	test('List Models: one item per model, every field as served', async () => {
		const items = outputs(await ask({ operation: 'listModels' }));
		expect(items.map((item) => item.json)).toEqual(MODELS);
		expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	test('List Personas: one item per persona, every field as served', async () => {
		const items = outputs(await ask({ operation: 'listPersonas' }));
		expect(items.map((item) => item.json)).toEqual(PERSONAS);
	});

	test('Get Catalog: one item per model by default, every field as served', async () => {
		const items = outputs(await ask({ operation: 'getCatalog' }));
		expect(items.map((item) => item.json)).toEqual(CATALOG.models);
		for (const item of items) expect(item.pairedItem).toEqual({ item: 0 });
	});

	test('Get Catalog, the whole catalog: as served, for each item; no Authorization header sent', async () => {
		const items = outputs(
			await ask({ operation: 'getCatalog', catalogOutput: 'catalog' }, [{ n: 1 }, { n: 2 }]),
		);
		expect(items).toHaveLength(2);
		items.forEach((item, index) => {
			expect(item.json).toEqual(CATALOG);
			expect(item.pairedItem).toEqual({ item: index });
		});
		const catalogRequests = server.requests.filter((request) => request.path === '/models/catalog');
		expect(catalogRequests.length).toBeGreaterThanOrEqual(1);
		for (const request of catalogRequests) expect(request.authorization).toBeUndefined();
		expect(server.requests.every((request) => request.path === '/models/catalog')).toBe(true);
	});
});

describe('pickers', () => {
	test('models: every model, BYOK marked, the filter narrows', async () => {
		const all = await harness.callListSearch(pkg, pkg.nodeType('assistant'), 'searchModels', {
			credentials: [credential],
			path: 'parameters.model',
		});
		expect(all.results.map((result) => result.value)).toEqual(
			MODELS.map((model) => model.model_name),
		);
		const byok = all.results.find((result) => String(result.value).startsWith('byok:'));
		expect(byok?.name).toMatch(/BYOK/);
		expect(
			all.results.find((result) => result.value === 'mistral:mistral-large-2411')?.name,
		).toMatch(/Mistral Large/);
		const gemini = await harness.callListSearch(pkg, pkg.nodeType('assistant'), 'searchModels', {
			credentials: [credential],
			filter: 'gemini',
		});
		expect(gemini.results.map((result) => result.value)).toEqual(['google:gemini-2.5-flash']);
		const available = server.requests.filter((request) => request.path === '/models/available');
		expect(available.length).toBe(2);
		for (const request of available) expect(request.authorization).toBe(`Bearer ${TOKEN}`);
	});

	test('personas: every persona, the filter narrows', async () => {
		const all = await harness.callListSearch(pkg, pkg.nodeType('assistant'), 'searchPersonas', {
			credentials: [credential],
		});
		expect(all.results.map((result) => result.value)).toEqual(
			PERSONAS.map((persona) => persona.id),
		);
		expect(all.results.map((result) => result.name).join(' ')).toContain('Ship’s Cook');
		const cook = await harness.callListSearch(pkg, pkg.nodeType('assistant'), 'searchPersonas', {
			credentials: [credential],
			filter: 'cook',
		});
		expect(cook.results.map((result) => result.value)).toEqual([PERSONAS[1].id]);
	});
});

describe('credential test', () => {
	test('OK with the token; an error with a wrong one (plain-text 401)', async () => {
		const ok = await harness.testCredential(pkg, 'assistantApi', {
			baseUrl: server.baseUrl,
			accessToken: TOKEN,
		});
		expect(ok).toEqual({ status: 'OK', message: expect.any(String) });
		const wrong = await harness.testCredential(pkg, 'assistantApi', {
			baseUrl: `${server.baseUrl}/`,
			accessToken: WRONG_TOKEN,
		});
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/401|token/i);
		expect(wrong.message).not.toContain(WRONG_TOKEN);
		// One request per test, the token as a bearer.
		expect(server.requests.map((request) => [request.path, request.authorization])).toEqual([
			['/models/available', `Bearer ${TOKEN}`],
			['/models/available', `Bearer ${WRONG_TOKEN}`],
		]);
	});
});

describe('errors', () => {
	test('401 with {"error": {"message": ...}}: names the credential, shows the server’s words, never the token', async () => {
		const bad: harness.EngineCredential = {
			...credential,
			data: { baseUrl: server.baseUrl, accessToken: WRONG_TOKEN },
		};
		const result = await run(
			[{}],
			[assistant('Ask', { operation: 'ask', input: 'hi', options: { retries: 0 } })],
			[bad],
		);
		const error = errorOf(result);
		expect(error.httpCode).toBe('401');
		expect(error.message).toMatch(/401/);
		expect(error.message).toContain('bad token');
		expect(`${error.message} ${error.description}`).toMatch(/credential/i);
		expectNoToken(result.data, WRONG_TOKEN);
		expectNoToken(result.logs, WRONG_TOKEN);
		expect(askRequests()).toHaveLength(1);
	});

	test('422 detail arrays: the message names the field', async () => {
		const model = await ask({
			input: 'hi',
			model: rl('mistral:no-such-model'),
			options: { retries: 0 },
		});
		expect(errorOf(model).httpCode).toBe('422');
		expect(errorOf(model).message).toMatch(/body\.model_name.*mistral:no-such-model/);
	});

	test('a schema outside the output_format grammar is refused before sending, naming the path', async () => {
		const before = askRequests().length;
		const schema = { type: 'object', properties: { count: { type: 'integer' } } };
		const outside = await ask({
			input: 'hi',
			responseFormat: 'jsonSchema',
			jsonSchema: JSON.stringify(schema),
			options: { retries: 0 },
		});
		expect(errorOf(outside).message).toContain('properties.count.type is "integer"');
		expect(askRequests()).toHaveLength(before);
	});

	test('a 200 {"error": ...} is a failure with the server’s message', async () => {
		const result = await ask({ input: 'please inband-error', options: { retries: 0 } });
		expect(errorOf(result).message).toContain(
			'The assistant could not complete this request (inband-error)',
		);
		expect(
			JSON.stringify(result.data.data.resultData.runData.Ask?.at(-1)?.data ?? null),
		).not.toContain('"output"');
	});

	test('Continue On Fail: good and bad items mixed, one item each, paired, in order', async () => {
		const items = [
			{ q: 'alpha' },
			{ q: 'beta', m: 'nope:nope' },
			{ q: 'gamma inband-error' },
			{ q: '' },
			{ q: 'delta', m: 'google:gemini-2.5-flash' },
		];
		const result = await run(items, [
			assistant(
				'Ask',
				{
					operation: 'ask',
					input: '={{ $json.q }}',
					model: rl('={{ $json.m ?? "" }}'),
					options: { retries: 0 },
				},
				{ onError: 'continueRegularOutput' },
			),
		]);
		expect(result.error()).toBeUndefined();
		const out = outputs(result);
		expect(out.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		expect(out[0].json).toEqual({
			output: reply('alpha'),
			conversation_id: expect.stringMatching(UUID),
		});
		expect(String(out[1].json.error)).toMatch(/422.*body\.model_name/);
		expect(String(out[2].json.error)).toContain('could not complete this request');
		expect(String(out[3].json.error)).toMatch(/Input is empty/);
		expect(out[4].json).toEqual({
			output: reply('delta', 'google:gemini-2.5-flash'),
			conversation_id: expect.stringMatching(UUID),
		});
		expectNoToken(result.data);
	});
});
