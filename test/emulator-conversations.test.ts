/**
 * The emulator's conversations (test/emulator/conversations.js, acceptedFaults.js) over real
 * HTTP: `GET /conversations/{id}` as docs/api.md#reading-a-conversation describes it, turns that
 * run on to their end whatever becomes of their connection, the faults that strike after an ask
 * was accepted, and the count of asks started that the node's exactly-once tests read.
 */
import { setTimeout as pause } from 'node:timers/promises';

import { useEmulator } from './helpers/emulatorFixture';

// The tests read arbitrary JSON shapes; `any` keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SCHEMA = {
	type: 'object',
	properties: { summary: { type: 'string' }, score: { type: 'number' } },
	required: ['summary', 'score'],
};

const live = useEmulator({ conversationRetryAfterMs: 25, dialect: 'live' });
const documented = useEmulator({ dialect: 'documented' });

function ask(body: Json, target = live.emulator) {
	return fetch(`${target.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
		body: JSON.stringify(body),
	});
}

async function read(id: string, target = live.emulator, token: string | null = target.token) {
	const res = await fetch(`${target.baseUrl}/conversations/${encodeURIComponent(id)}`, {
		headers: token === null ? {} : { authorization: `Bearer ${token}` },
	});
	return { status: res.status, headers: res.headers, json: (await res.json()) as Json };
}

/** A conversation with one answered ask: its id. */
async function conversation(target = live.emulator): Promise<string> {
	const res = await ask({ input: 'first' }, target);
	return ((await res.json()) as Json).conversation_id as string;
}

async function idle(id: string, target = live.emulator): Promise<Json> {
	for (let tries = 0; tries < 100; tries++) {
		const { json } = await read(id, target);
		if (json.state !== 'running') return json;
		await pause(20);
	}
	throw new Error(`conversation ${id} still running`);
}

/** Drains a body, tolerating a connection that drops. */
async function drain(res: Response): Promise<{ text: string; broke: boolean }> {
	try {
		return { text: await res.text(), broke: false };
	} catch {
		return { text: '', broke: true };
	}
}

const lastAnswer = (json: Json) => json.messages.at(-1).parts.at(-1).content;

describe('GET /conversations/{id} (docs/api.md#reading-a-conversation)', () => {
	test('an idle conversation: its requests and responses in pydantic-ai’s shape', async () => {
		const id = await conversation();
		await ask({ input: 'second', conversation_id: id });
		const { status, json } = await read(id);
		expect(status).toBe(200);
		expect(json.state).toBe('idle');
		expect(json.messages.map((m: Json) => m.kind)).toEqual([
			'request',
			'response',
			'request',
			'response',
		]);
		expect(json.messages[2].parts).toEqual([
			{ part_kind: 'user-prompt', content: 'second', timestamp: expect.any(String) },
		]);
		expect(lastAnswer(json)).toContain('You said: "second"');
	});

	test('running while a turn is answered; retry-after-ms when the emulator is told so', async () => {
		const id = await conversation();
		const answering = ask({ input: 'slow #delay=300', conversation_id: id });
		await pause(100);
		const during = await read(id);
		expect(during.json.state).toBe('running');
		expect(during.headers.get('retry-after-ms')).toBe('25');
		expect(during.json.messages.at(-1)).toMatchObject({ kind: 'request' });
		await (await answering).text();
		const after = await read(id);
		expect(after.json.state).toBe('idle');
		expect((await read(id, documented.emulator)).status).toBe(404);
	});

	test('a structured answer is the output tool’s call (its object whole), then its return', async () => {
		const res = await ask({ input: 'rate this', output_format: SCHEMA });
		const { output, conversation_id: id } = (await res.json()) as Json;
		const { json } = await read(id);
		const [response, ending] = json.messages.slice(-2);
		expect(response).toEqual({
			kind: 'response',
			parts: [
				{
					part_kind: 'tool-call',
					tool_name: 'final_result',
					tool_call_id: expect.any(String),
					args: output,
				},
			],
		});
		expect(ending).toMatchObject({ kind: 'request', parts: [{ part_kind: 'tool-return' }] });
	});

	test('a tool-call turn: the lead text, the tool call and its return, then the answer', async () => {
		const res = await ask({ input: 'look it up #shape=tool-call+thinking' });
		const { conversation_id: id } = (await res.json()) as Json;
		const { json } = await read(id);
		const kinds = json.messages.map((m: Json) => m.parts.map((p: Json) => p.part_kind));
		expect(kinds).toEqual([
			['user-prompt'],
			['thinking', 'text', 'builtin-tool-call', 'builtin-tool-return'],
			['thinking', 'text'],
		]);
		expect(lastAnswer(json)).toContain('You said: "look it up');
	});

	test('the token is required; an unknown id is 404; a queued fault can take the endpoint away', async () => {
		const id = await conversation();
		expect((await read(id, live.emulator, null)).status).toBe(401);
		expect((await read(id, live.emulator, 'wrong')).status).toBe(401);
		expect((await read('conv_unknown')).status).toBe(404);
		live.emulator.queueFault({ name: '404', path: '/conversations/*' }, 2);
		expect((await read(id)).status).toBe(404);
		expect((await read(id)).status).toBe(404);
		expect((await read(id)).status).toBe(200);
	});
});

describe('a turn runs on to its end, whatever becomes of its connection (docs/api.md#exactly-once)', () => {
	test.each([
		['drop-after-accept', false],
		['drop-after-accept', true],
		['drop-after-headers', true],
		['reset-mid-stream', true],
		['accepted-502', false],
		['accepted-502', true],
		['empty-answer', false],
		['empty-answer', true],
	])(
		'#fault=%s (stream %s): started once; the answer joins the conversation later',
		async (fault, stream) => {
			const id = await conversation();
			const input = `after acceptance #fault=${fault}&ms=150`;
			const res = await ask({ input, conversation_id: id, stream }).catch(() => undefined);
			const body = res ? await drain(res) : undefined;
			expect(live.emulator.stats.startedAsks.get(input)).toBe(1);
			expect(live.emulator.stats.completedAsks.get(input)).toBeUndefined();
			expect((await read(id)).json.state).toBe('running');
			const json = await idle(id);
			expect(lastAnswer(json)).toContain(`You said: "${input}"`);
			if (fault === 'accepted-502') {
				expect(res?.status).toBe(502);
				expect(res?.headers.get('x-conversation-id')).toBeNull();
			}
			if (fault === 'drop-after-headers') {
				expect(res?.headers.get('x-conversation-id')).toBe(id);
				expect(body).toEqual({ text: '', broke: true });
			}
			if (fault === 'empty-answer' && !stream) {
				expect(JSON.parse(body?.text ?? '')).toEqual({ output: '', conversation_id: id });
			}
			if (fault === 'empty-answer' && stream) {
				expect(body?.text).toContain('event: End');
				expect(body?.text).not.toContain('PartStartEvent');
			}
		},
	);

	test('accepted-502 answers the status it is given, as the proxy would', async () => {
		const res = await ask({ input: 'gateway #fault=accepted-502&status=504' });
		expect(res.status).toBe(504);
		expect(await res.text()).toContain('Gateway Time-out');
	});

	test('a structured answer cut in the conversation: object=cut', async () => {
		const id = await conversation();
		const input = 'rate #fault=drop-after-accept&ms=0&object=cut';
		await ask({ input, conversation_id: id, output_format: SCHEMA, stream: true }).catch(
			() => undefined,
		);
		const json = await idle(id);
		const args = json.messages.at(-2).parts[0].args;
		expect(typeof args).toBe('string');
		expect(() => JSON.parse(args)).toThrow();
	});

	test('conversation-busy: an earlier ask runs on the conversation, so this one is refused 409', async () => {
		const id = await conversation();
		const input = 'busy #fault=conversation-busy&ms=150&times=1';
		const refused = await ask({ input, conversation_id: id });
		expect(refused.status).toBe(409);
		expect(live.emulator.stats.startedAsks.get(input)).toBeUndefined();
		expect((await read(id)).json.state).toBe('running');
		await idle(id);
		const again = await ask({ input, conversation_id: id });
		expect(again.status).toBe(200);
		expect(live.emulator.stats.startedAsks.get(input)).toBe(1);
	});

	describe('on an emulator of its own', () => {
		const spare = useEmulator();

		test('reset and close end the turns still running', async () => {
			const extra = spare.emulator;
			const input = 'long #fault=drop-after-accept&ms=60000';
			const res = await ask({ input }, extra).catch(() => undefined);
			expect(res).toBeUndefined();
			expect(extra.stats.startedAsks.get(input)).toBe(1);
			const started = Date.now();
			await extra.close();
			// The turn had a minute to go: only a close that waited for it fails this bound.
			expect(Date.now() - started).toBeLessThan(10_000);
		});
	});
});
