/**
 * `npm run check:live` (docs/live-check.md) run as a maintainer runs it, against the emulator and
 * a server in front of it posing as the live service. One suite: the check writes to one folder.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { LIST_LIMIT_BYTES, MAX_JSON_VALUES, MAX_LIST_ENTRIES } from '../../nodes/shared/limits';
import { KNOWN_STREAM_EVENTS } from '../../nodes/shared/stream/events';
import { differencesOf } from '../../scripts/check-live';
import { parseEvents, signaturesOf, statusValuesOf } from '../../scripts/live-check/signatures';
import { startEmulator } from '../emulator/server';
import { posingServer, runCheckLive, unicodeEscaped, type Mutation } from '../helpers/live-check';

const TOKEN = 'sk-live-SECRET-0123456789abcdef';
jest.setTimeout(120_000);

let emulator: Awaited<ReturnType<typeof startEmulator>>;
beforeAll(async () => {
	emulator = await startEmulator({ token: TOKEN });
});
afterAll(async () => await emulator.close());

async function against(mutation: Mutation) {
	const server = await posingServer(emulator.baseUrl, mutation);
	try {
		return await runCheckLive({ ASSISTANT_BASE_URL: server.baseUrl, ASSISTANT_TOKEN: TOKEN });
	} finally {
		await server.close();
	}
}

/** A runtime chunk as the 2026 service writes one: every key, most of them null. */
function runtimeChunk(
	type: string,
	{ status = null, data = null }: { status?: string | null; data?: unknown } = {},
) {
	const chunk = { type, delta: null, tool_name: null, status, error: null, result: null, data };
	return `event: AgentRuntimeStreamChunk\ndata: ${JSON.stringify({ ...chunk, message_id: null, runner_id: null })}\n\n`;
}

/** No run of 6 characters of the token anywhere (a cut token is still the token), nor escaped. */
function expectNoToken(text: string) {
	for (let i = 0; i + 6 <= TOKEN.length; i++) expect(text).not.toContain(TOKEN.slice(i, i + 6));
	expect(text).not.toContain(unicodeEscaped(TOKEN).slice(0, 36));
}

describe('check:live against the emulator', () => {
	test('without a token it sends nothing and exits 2', async () => {
		const server = await posingServer(emulator.baseUrl, {});
		try {
			const run = await runCheckLive({ ASSISTANT_BASE_URL: server.baseUrl });
			expect(run.code).toBe(2);
			expect(server.requests).toEqual([]);
		} finally {
			await server.close();
		}
	});

	test('the emulator itself as the service: exit 0, the echo nowhere, the token nowhere', async () => {
		const run = await against({});
		expect(run.code).toBe(0);
		// Compared whole, the default dialect's stream, lists and catalog are still its own: no
		// difference, and nothing said about what could not be compared.
		expect(run.output).toContain('The service sends what the node and the emulator know.');
		expect(run.output).not.toMatch(/difference|was empty|not compared|deeper than/);
		expect(run.saved).not.toContain('ECHO_PRIVATE_MARKER');
		expectNoToken(run.output + run.saved);
	});

	test('a new event type, a new field, a missing field: exit 1, each named', async () => {
		const run = await against({
			stream: (text) =>
				text
					.replace(
						'event: completed',
						'event: RunUsageEvent\ndata: {"tokens":3}\n\nevent: completed',
					)
					.replace('"status":"succeeded","error":null', '"status":"succeeded","usage":{}'),
		});
		expect(run.code).toBe(1);
		expect(run.output).toContain('events the node does not know: RunUsageEvent');
		expect(run.output).toContain('completed: fields the emulator does not send: usage');
		expect(run.output).toContain('completed: fields the service left out: error');
	});
});

describe('check:live never prints or saves the token', () => {
	test('an error body with the token just where a printed line is cut', async () => {
		const run = await against({
			route: (url) =>
				url === '/models/available' ? { status: 500, body: 'x'.repeat(280) + TOKEN } : undefined,
		});
		expect(run.code).toBe(1);
		expectNoToken(run.output);
	});

	test('an error body with the token escaped (\\u…) or in another letter case', async () => {
		const bodies = [
			`{"detail":"invalid token ${unicodeEscaped(TOKEN)}"}`,
			`{"detail":"invalid token ${TOKEN.toLowerCase()}"}`,
		];
		for (const body of bodies) {
			const run = await against({
				route: (url) => (url === '/models/available' ? { status: 401, body } : undefined),
			});
			expect(run.code).toBe(1);
			// The token's own letter case, wherever it is written lower-cased.
			expectNoToken(run.output.toLowerCase().replace('sk-live-secret', 'sk-live-SECRET'));
		}
	});

	test('an event name holding the token, in every printed line', async () => {
		const run = await against({
			stream: (text) =>
				text.replace('event: completed', `event: Debug_${TOKEN}\ndata: {}\n\nevent: completed`),
		});
		expect(run.output).toContain('event kinds seen');
		expectNoToken(run.output + run.saved);
	});

	test('a header value holding the token, in the saved meta.json', async () => {
		const run = await against({
			headers: (headers) => {
				headers['content-type'] = `text/event-stream; charset=utf-8; debug=${TOKEN}`;
			},
		});
		expect(run.saved).toContain('content_type');
		expectNoToken(run.saved);
	});

	test('a token with a line break and a trailing newline: the error it causes is scrubbed', async () => {
		const server = await posingServer(emulator.baseUrl, {});
		try {
			const secret = 'sk-SECRET-0123456789\nabcdef-second-line';
			const run = await runCheckLive({
				ASSISTANT_BASE_URL: server.baseUrl,
				ASSISTANT_TOKEN: `${secret}\n`,
			});
			expect(run.code).toBe(2);
			expect(run.output).toContain('check:live failed');
			expect(run.output).not.toContain('sk-SECRET-0123456789');
			expect(run.output).not.toContain('abcdef-second-line');
		} finally {
			await server.close();
		}
	});
});

describe('check:live saves the capture without the echo and without private values', () => {
	test('the request echo in the flat form (no event: line) is not saved', async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					/event: FrontendModelRequest\ndata: \{/g,
					'data: {"type":"FrontendModelRequest",',
				),
		});
		expect(run.saved).toContain('event: completed');
		expect(run.saved).not.toContain('ECHO_PRIVATE_MARKER');
		expect(run.saved).not.toContain('FrontendModelRequest');
	});
});

describe('check:live compares events under the names the node reads them by', () => {
	test('events in the flat form are compared under the name inside them, not as `message`', async () => {
		const run = await against({
			stream: (text) =>
				text.replace(/event: (FrontendModelRequest|completed)\ndata: \{/g, 'data: {"type":"$1",'),
		});
		expect(run.output).not.toContain('events the node does not know: message');
		expect(run.output).toContain('event kinds seen: ');
		expect(run.output).toMatch(/event kinds seen: .*FrontendModelRequest.*completed/);
		expect(run.code).toBe(0);
	});

	test('a closing bare `data: [DONE]`, which carries nothing, is no unknown event', async () => {
		const run = await against({ stream: (text) => `${text}data: [DONE]\n\n` });
		expect(run.output).not.toContain('events the node does not know: message');
		expect(run.code).toBe(0);
	});
});

describe('check:live fails when the small ask failed', () => {
	test('a `completed` whose status is not `succeeded`: exit 1, the status and the error named', async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					'"status":"succeeded","error":null',
					`"status":"cancelled","error":"the run was cancelled ${TOKEN}"`,
				),
		});
		expect(run.saved).toContain('"status":"cancelled"');
		expect(run.code).toBe(1);
		expect(run.output).toContain(
			'stream: the ask failed: completed with status "cancelled": the run was cancelled',
		);
		expectNoToken(run.output + run.saved);
	});

	test("a `failed`: exit 1, with the service's error text", async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					/event: completed\ndata: [^\n]*/,
					'event: failed\ndata: {"status":"failed","error":"Unknown model: x","runner_id":null,"error_type":"UserError","failure_owner":"ours","failure_kind":"unknown_model"}',
				),
		});
		expect(run.code).toBe(1);
		expect(run.output).toContain(
			'stream: the ask failed: failed with status "failed": Unknown model: x',
		);
	});

	test('differencesOf alone: a `completed` with status `failed` is a difference', () => {
		const fetched = (text: string, type = 'application/json') => ({
			status: 200,
			headers: new Headers({ 'content-type': type, 'x-conversation-id': 'con_abc123' }),
			text,
			bytes: Buffer.byteLength(text),
		});
		const ok = 'event: completed\ndata: {"status":"succeeded","error":null}\n\n';
		const bad = 'event: completed\ndata: {"status":"failed","error":"boom"}\n\n';
		const answers = (stream: string) => ({
			stream: fetched(stream, 'text/event-stream'),
			json: fetched('{"output":"4","conversation_id":"con_x"}'),
			models: fetched('{"models":[]}'),
			personas: fetched('{"personas":[]}'),
			catalog: fetched('{"models":[]}'),
		});
		const reference = {
			answers: answers(ok),
			signatures: signaturesOf(parseEvents(ok)),
			statuses: statusValuesOf(parseEvents(ok)),
		};
		const live = answers(bad);
		expect(
			differencesOf(live, signaturesOf(parseEvents(bad)), reference, KNOWN_STREAM_EVENTS),
		).toEqual(['stream: the ask failed: completed with status "failed": boom']);
	});

	test("differencesOf alone: an error status's body is said in the service's words, never its request echo", () => {
		const fetched = (status: number, text: string, type = 'application/json') => ({
			status,
			headers: new Headers({ 'content-type': type, 'x-conversation-id': 'con_abc123' }),
			text,
			bytes: Buffer.byteLength(text),
		});
		const ok = 'event: completed\ndata: {"status":"succeeded","error":null}\n\n';
		const echo =
			'event: FrontendModelRequest\ndata: {"kind":"request","parts":[{"part_kind":"system-prompt","content":"PRIVATE workspace file"}]}\n\n' +
			'event: Error\ndata: {"message":"Model overloaded"}\n\n';
		const answers = (stream: ReturnType<typeof fetched>, json: ReturnType<typeof fetched>) => ({
			stream,
			json,
			models: fetched(200, '{"models":[]}'),
			personas: fetched(200, '{"personas":[]}'),
			catalog: fetched(200, '{"models":[]}'),
		});
		const good = fetched(200, '{"output":"4","conversation_id":"con_x"}');
		const reference = {
			answers: answers(fetched(200, ok, 'text/event-stream'), good),
			signatures: signaturesOf(parseEvents(ok)),
			statuses: statusValuesOf(parseEvents(ok)),
		};
		const live = answers(
			fetched(503, echo, 'text/event-stream'),
			fetched(500, '{"type":"FrontendModelRequest","message":"PRIVATE words"}'),
		);
		const differences = differencesOf(live, signaturesOf([]), reference, KNOWN_STREAM_EVENTS);
		expect(differences.join('\n')).not.toContain('PRIVATE');
		expect(differences).toContain('stream: HTTP 503: Model overloaded');
	});
});

describe('check:live with an account that has no personas', () => {
	test('an empty list is said, not taken for missing fields: exit 0', async () => {
		const run = await against({
			route: (url) =>
				url === '/personas/available' ? { status: 200, body: '{"personas":[]}' } : undefined,
		});
		expect(run.output).toContain(
			"personas: the list personas was empty: its items' fields could not be compared",
		);
		expect(run.output).not.toContain('personas: fields the service left out');
		expect(run.code).toBe(0);
	});
});

describe('check:live fails when the node would read no answer from the stream', () => {
	test('a stream that ends without `completed` or `failed`: exit 1, said', async () => {
		const run = await against({
			stream: (text) => text.replace(/event: completed\ndata: [^\n]*\n\n/, ''),
		});
		expect(run.output).toContain(
			'stream: the node reads no answer from it: The stream ended before the answer was complete',
		);
		expect(run.code).toBe(1);
	});

	test('a stream whose `completed` comes after thinking alone, no text: exit 1, said', async () => {
		const run = await against({
			stream: (text) =>
				text
					.split('\n\n')
					.filter((block) => !/"part_kind":"text"|"part_delta_kind":"text"/.test(block))
					.join('\n\n'),
		});
		expect(run.output).toContain('stream: the node reads no answer from it: ');
		expect(run.code).toBe(1);
	});

	test('a stream whose text deltas name their index as text: exit 1, the events named', async () => {
		const run = await against({
			stream: (text) => text.replace(/("part_delta_kind":"text"[^\n]*"index":)(\d+)/g, '$1"$2"'),
		});
		expect(run.output).toContain(
			'stream: the node reads no answer from it: The stream carried events this node could not read: PartDeltaEvent',
		);
		expect(run.code).toBe(1);
	});
});

describe('check:live fails on another terminal event', () => {
	test.each([
		['a new one', 'finished', 'events the node does not know: finished'],
		['the 2025 `End`', 'End', 'End: an event the emulator does not send'],
	])('%s instead of `completed`: exit 1, named', async (_what, name, line) => {
		const run = await against({
			stream: (text) => text.replace('event: completed', `event: ${name}`),
		});
		expect(run.output).toContain(line);
		expect(run.code).toBe(1);
	});
});

describe('check:live compares the values of `status`', () => {
	test('a runtime chunk with a status the emulator never sends: exit 1, the status named', async () => {
		const run = await against({
			stream: (text) => text.replace('"status":"progress"', '"status":"throttled"'),
		});
		expect(run.output).toContain(
			'AgentRuntimeStreamChunk:status: a status the emulator does not send: "throttled"',
		);
		expect(run.code).toBe(1);
	});

	test('a status that holds the token is said without it', async () => {
		const run = await against({
			stream: (text) => text.replace('"status":"progress"', `"status":"${TOKEN}"`),
		});
		expect(run.output).toContain(
			'AgentRuntimeStreamChunk:status: a status the emulator does not send:',
		);
		expect(run.code).toBe(1);
		expectNoToken(run.output + run.saved);
	});
});

describe('check:live against a server that never stops sending', () => {
	test('an endless stream: it stops reading at its bound and exits 2 within seconds', async () => {
		// 20 MB a second, without end: before the bound, the check held all of it (gigabytes).
		const piece = `event: PartDeltaEvent\ndata: {"x":"${'a'.repeat(1024 * 1024)}"}\n\n`;
		const server = http.createServer((req, res) => {
			if (req.url !== '/assistant/ask') return void res.end('{}');
			res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
			const timer = setInterval(() => res.write(piece), 50);
			res.on('close', () => clearInterval(timer));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.address() as AddressInfo;
			const started = Date.now();
			const run = await runCheckLive(
				{ ASSISTANT_BASE_URL: `http://127.0.0.1:${port}`, ASSISTANT_TOKEN: TOKEN },
				30_000,
			);
			expect(run.output).toContain('the answer passed 64 MiB: the check stopped reading it');
			expect(run.code).toBe(2);
			expect(Date.now() - started).toBeLessThan(20_000);
		} finally {
			server.closeAllConnections();
			server.close();
		}
	});
});

describe('check:live compares the lists and the catalog', () => {
	test('a model of the catalog with a new field and one left out, a persona without `image`: exit 1, each named', async () => {
		const catalog = await upstream<{ models: Entry[] }>('/models/catalog');
		const personas = await upstream<{ personas: Entry[] }>('/personas/available');
		const without = (item: Record<string, unknown>, key: string) => {
			const copy = { ...item };
			delete copy[key];
			return copy;
		};
		const changedCatalog = {
			models: catalog.models.map((model) => ({
				...without(model, 'context_window'),
				price_tier: 'standard',
			})),
		};
		const changedPersonas = { personas: personas.personas.map((p) => without(p, 'image')) };
		const run = await against({
			route: (url) =>
				url === '/models/catalog'
					? { status: 200, body: JSON.stringify(changedCatalog) }
					: url === '/personas/available'
						? { status: 200, body: JSON.stringify(changedPersonas) }
						: undefined,
		});
		expect(run.output).toContain('catalog: fields the emulator does not send: models[].price_tier');
		expect(run.output).toContain('catalog: fields the service left out: models[].context_window');
		expect(run.output).toContain('personas: fields the service left out: personas[].image');
		expect(run.code).toBe(1);
	});
});

/** The emulator's answer to a GET, as the posing server would pass it on. */
async function upstream<T>(route: string): Promise<T> {
	const response = await fetch(`${emulator.baseUrl}${route}`, {
		headers: { authorization: `Bearer ${TOKEN}` },
	});
	return (await response.json()) as T;
}

type Entry = Record<string, unknown>;

describe('check:live compares every level of the catalog and of the stream', () => {
	test("a catalog whose reasoning levels are renamed, a media profile's output with a new field: exit 1, each named; other deprecated ids are no difference", async () => {
		const catalog = await upstream<{ models: Entry[]; deprecation_map: Record<string, string> }>(
			'/models/catalog',
		);
		const changed = {
			...catalog,
			models: catalog.models.map((model) => {
				const reasoning = model.reasoning as Entry | null;
				const profiles = model.media_profiles as Entry[];
				return {
					...model,
					// The field notes' `{"kind": "levels", "levels": [...]}`, where the emulator says `options`.
					reasoning:
						reasoning?.kind === 'levels'
							? { kind: 'levels', default_value: 1, levels: reasoning.options }
							: reasoning,
					media_profiles: profiles.map((profile) => ({
						...profile,
						output: { ...(profile.output as Entry), count: { min: 1, max: 4, step: 1 } },
					})),
				};
			}),
			// Another account of the service, other deprecated models: the map's keys are ids.
			deprecation_map: { 'openai:gpt-4.1': 'openai:gpt-5' },
		};
		const run = await against({
			route: (url) =>
				url === '/models/catalog' ? { status: 200, body: JSON.stringify(changed) } : undefined,
		});
		expect(run.output).toContain(
			'- catalog: fields the emulator does not send: models[].reasoning.levels, models[].media_profiles[].output.count.step\n',
		);
		expect(run.output).toContain(
			'- catalog: fields the service left out: models[].reasoning.options\n',
		);
		expect(run.output).not.toContain('deprecation_map');
		expect(run.code).toBe(1);
	});

	test('a deprecation map whose successors became objects: exit 1, the fields of its entries named', async () => {
		const catalog = await upstream<{ deprecation_map: Record<string, string> }>('/models/catalog');
		const entries = Object.entries(catalog.deprecation_map).map(([id, successor]) => [
			id,
			{ successor, sunset: '2026-12-31' },
		]);
		const changed = { ...catalog, deprecation_map: Object.fromEntries(entries) };
		const run = await against({
			route: (url) =>
				url === '/models/catalog' ? { status: 200, body: JSON.stringify(changed) } : undefined,
		});
		expect(run.output).toContain(
			'- catalog: fields the emulator does not send: deprecation_map{}.successor, deprecation_map{}.sunset\n',
		);
		expect(run.code).toBe(1);
	});

	test("a runtime chunk's `data` with an object deeper down: exit 1, its fields named under the chunk's kind", async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					'"phase":"model_request"}',
					'"phase":"model_request","progress":{"done":1,"total":3}}',
				),
		});
		expect(run.output).toContain(
			'- AgentRuntimeStreamChunk:status: fields the emulator does not send: data.progress\n',
		);
		expect(run.code).toBe(1);
	});
});

describe("check:live compares each kind of runtime chunk's fields by itself", () => {
	test('a new field in the `data` of `persisted` chunks alone: exit 1, named under that kind only', async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					/"type":"persisted",(.*?)"data":\{"message_id":("[^"]*")\}/g,
					(_all, before, id) => `"type":"persisted",${before}"data":{"message_id":${id},"turn":2}`,
				),
		});
		expect(run.output).toContain(
			'- AgentRuntimeStreamChunk:persisted: fields the emulator does not send: data.turn\n',
		);
		expect(run.output).not.toContain('AgentRuntimeStreamChunk:status: fields');
		expect(run.code).toBe(1);
	});

	test('a runtime chunk of a type the emulator never sends: exit 1, the type named', async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					'event: completed',
					`${runtimeChunk('heartbeat', { data: { at: 1 } })}event: completed`,
				),
		});
		expect(run.output).toContain(
			'- AgentRuntimeStreamChunk:heartbeat: an event the emulator does not send\n',
		);
		expect(run.code).toBe(1);
	});
});

describe('check:live fails on a list the node would refuse (its bounds, limits.ts)', () => {
	test("models past 8 MiB, personas past 10,000 entries: exit 1, each in the node's words", async () => {
		const { models } = await upstream<{ models: Entry[] }>('/models/available');
		const { personas } = await upstream<{ personas: Entry[] }>('/personas/available');
		const long = { ...models[0], description: 'x'.repeat(LIST_LIMIT_BYTES) };
		const many = Array.from({ length: MAX_LIST_ENTRIES + 1 }, (_, n) => ({
			...personas[n % personas.length],
			id: `persona_${n}`,
		}));
		const run = await against({
			route: (url) =>
				url === '/models/available'
					? { status: 200, body: JSON.stringify({ models: [long] }) }
					: url === '/personas/available'
						? { status: 200, body: JSON.stringify({ personas: many }) }
						: undefined,
		});
		expect(run.output).toContain(
			"- models: The service sent a list larger than 8 MiB; the node stopped reading it so as not to exhaust n8n's memory\n",
		);
		expect(run.output).toContain(
			'- personas: The assistant\'s "personas" list has 10,001 entries, more than the 10,000 this node makes items of\n',
		);
		expect(run.code).toBe(1);
	});
});

describe("check:live reads JSON answers within the node's bound on values", () => {
	test('a catalog of two million empty models: said as the node would refuse it, not parsed', async () => {
		// 6 MB of `{},`, within the bound on a list's bytes: parsed whole (three times), four
		// million held gigabytes for a minute.
		const models = `{"models":[${'{},'.repeat(2_000_000)}{}]}`;
		const run = await against({
			route: (url) => (url === '/models/catalog' ? { status: 200, body: models } : undefined),
		});
		expect(run.output).toContain('catalog: The JSON holds more than 1,000,000 values');
		expect(run.code).toBe(1);
	});
});

describe("check:live reads each event within the node's bound on values", () => {
	test("an event of a million and one zeros: exit 1, said in the node's words, neither compared nor saved", async () => {
		const zeros = `[${'0,'.repeat(MAX_JSON_VALUES)}0]`;
		const run = await against({
			stream: (text) =>
				text.replace(
					'event: completed',
					`event: RunUsageEvent\ndata: ${zeros}\n\nevent: completed`,
				),
		});
		expect(run.output).toContain(
			'- stream: RunUsageEvent: The JSON holds more than 1,000,000 values\n',
		);
		expect(run.output).not.toContain('RunUsageEvent: an event the emulator does not send');
		// Not read, and still a name the node does not know: said so, as any other.
		expect(run.output).toContain('events the node does not know: RunUsageEvent\n');
		expect(run.saved).toContain(
			'event: RunUsageEvent\ndata: [The JSON holds more than 1,000,000 values]\n',
		);
		expect(run.saved).not.toContain('0,0,0');
		expect(run.code).toBe(1);
	});
});

describe('check:live says of an end past the bound what the node says of it', () => {
	const zeros = `[${'0,'.repeat(MAX_JSON_VALUES)}0]`;
	const ending = (event: string, data: string) => (text: string) =>
		text.replace(/event: completed\ndata: [^\n]*/, `event: ${event}\ndata: ${data}`);

	test('a `failed` whose error holds a million and one zeros: the run failed, without its words', async () => {
		const run = await against({ stream: ending('failed', `{"status":"failed","error":${zeros}}`) });
		expect(run.output).toContain('- stream: failed: The JSON holds more than 1,000,000 values\n');
		expect(run.output).toContain(
			'- stream: the ask failed: failed with status "failed": The run ended with status "failed"\n',
		);
		expect(run.code).toBe(1);
	});

	test('an `Error` whose message holds them: its text as it came, clipped, as the node shows it', async () => {
		const run = await against({ stream: ending('Error', `{"message":${zeros}}`) });
		expect(run.output).toContain('- stream: Error: The JSON holds more than 1,000,000 values\n');
		expect(run.output).toMatch(/- stream: the ask failed: Error: \{"message":\[0,0,0,[0,]*…\n/);
		expect(run.output).not.toContain('without a message');
		expect(run.code).toBe(1);
	});
});

describe('check:live excuses a list empty in every event of a kind, as in an answer', () => {
	test("the request echo with no parts: its parts' fields not taken for left out, said instead: exit 0", async () => {
		const run = await against({
			stream: (text) =>
				text.replace(
					/(event: FrontendModelRequest\ndata: )[^\n]*/,
					'$1{"kind":"request","parts":[],"instructions":"x","run_id":"r"}',
				),
		});
		expect(run.output).not.toContain('FrontendModelRequest: fields the service left out');
		expect(run.output).toContain(
			"FrontendModelRequest: the list parts was empty: its items' fields could not be compared",
		);
		expect(run.code).toBe(0);
	});

	test("an event whose data is an empty list: named as the event's data, not as an answer", async () => {
		const run = await against({
			stream: (text) => text.replace(/(event: FrontendModelRequest\ndata: )[^\n]*/, '$1[]'),
		});
		expect(run.output).toContain(
			"FrontendModelRequest: the list (the event's data) was empty: its items' fields could not be compared",
		);
		expect(run.output).not.toContain('(the answer)');
	});
});

describe('check:live names a few kinds of event the emulator does not send, then counts them', () => {
	test('a hundred made-up runtime chunk types: twenty named, the rest one line: exit 1', async () => {
		const types = Array.from({ length: 100 }, (_, n) => `made_up_${n}`);
		const chunks = types.map((type) => runtimeChunk(type)).join('');
		const run = await against({
			stream: (text) => text.replace('event: completed', `${chunks}event: completed`),
		});
		const named = run.output.match(/: an event the emulator does not send\n/g) ?? [];
		expect(named).toHaveLength(20);
		expect(run.output).toContain(
			'- AgentRuntimeStreamChunk:made_up_0: an event the emulator does not send\n',
		);
		expect(run.output).toContain('- stream: 80 more kinds of event the emulator does not send\n');
		expect(run.code).toBe(1);
	});

	test('three thousand made-up statuses: two thousand held and compared, the rest one line: exit 1', async () => {
		const statuses = Array.from({ length: 3000 }, (_, n) => `made_up_${n}`);
		const chunks = statuses.map((status) => runtimeChunk('status', { status })).join('');
		const run = await against({
			stream: (text) => text.replace('event: completed', `${chunks}event: completed`),
		});
		expect(run.output).toContain(
			'- stream: more than 2,000 status values: the rest were not compared\n',
		);
		expect(run.output).toContain(
			'- AgentRuntimeStreamChunk:status: a status the emulator does not send: "made_up_0", ',
		);
		expect(run.output).not.toContain('"made_up_2999"');
		expect(run.code).toBe(1);
	});
});
