/**
 * The emulator's session pool (docs/api.md#full-session-pool) over real HTTP: an account answers
 * as many asks at once as it has sessions and refuses the rest as "sessions are busy".
 */
import { startEmulator, type Emulator } from './emulator/server';
import type { SessionPoolOptions } from './emulator/sessionPool';

const emulators: Emulator[] = [];

async function emulatorWithPool(
	sessionPool: SessionPoolOptions,
	answerDelayMs = 150,
): Promise<Emulator> {
	const emulator = await startEmulator({ answerDelayMs, sessionPool, dialect: 'live' });
	emulators.push(emulator);
	return emulator;
}

afterAll(async () => {
	await Promise.all(emulators.map((emulator) => emulator.close()));
});

async function ask(emulator: Emulator, input: string, stream = false) {
	const response = await fetch(`${emulator.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
		body: JSON.stringify({ input, stream }),
	});
	return {
		status: response.status,
		retryAfter: response.headers.get('retry-after'),
		text: await response.text(),
	};
}

describe('the account session pool', () => {
	it('answers as many asks at once as it has sessions and refuses the others as "sessions are busy" with Retry-After', async () => {
		const emulator = await emulatorWithPool({ size: 2 });
		const answers = await Promise.all([1, 2, 3, 4].map((n) => ask(emulator, `question ${n}`)));
		const answered = answers.filter((answer) => answer.status === 200);
		const refused = answers.filter((answer) => answer.status !== 200);
		expect(answered).toHaveLength(2);
		expect(refused).toHaveLength(2);
		for (const refusal of refused) {
			expect(refusal.status).toBe(503);
			expect(refusal.retryAfter).toBe('1');
			expect(JSON.parse(refusal.text).detail).toMatch(/sessions are busy/);
		}
		expect(emulator.sessionPool).toMatchObject({
			size: 2,
			active: 0,
			maxActive: 2,
			admitted: 2,
			refused: 2,
		});
	});

	it('gives a session back as soon as its answer is complete, so the next ask is admitted at once', async () => {
		const emulator = await emulatorWithPool({ size: 1 }, 20);
		for (let n = 0; n < 20; n++) {
			expect((await ask(emulator, `one after another ${n}`)).status).toBe(200);
		}
		expect(emulator.sessionPool).toMatchObject({ admitted: 20, refused: 0, maxActive: 1 });
	});

	it('holds a session for the whole stream, until its End', async () => {
		const emulator = await emulatorWithPool({ size: 1 });
		const streaming = ask(emulator, 'a streamed answer', true);
		await new Promise((resolve) => setTimeout(resolve, 50));
		const meanwhile = await ask(emulator, 'asked while the stream runs');
		const stream = await streaming;
		expect(stream.status).toBe(200);
		expect(stream.text).toContain('event: End');
		expect(meanwhile.status).toBe(503);
		expect((await ask(emulator, 'asked after the stream')).status).toBe(200);
	});

	it('can refuse without Retry-After, with another status and message', async () => {
		const emulator = await emulatorWithPool({
			size: 1,
			retryAfterSeconds: null,
			status: 429,
			message: 'sessions are busy: cannot evict',
		});
		const [first, second] = await Promise.all([ask(emulator, 'first'), ask(emulator, 'second')]);
		const refusal = first.status === 200 ? second : first;
		expect(refusal.status).toBe(429);
		expect(refusal.retryAfter).toBeNull();
		expect(JSON.parse(refusal.text)).toEqual({ detail: 'sessions are busy: cannot evict' });
	});

	it('has no limit unless configured', async () => {
		const emulator = await startEmulator({ answerDelayMs: 50 });
		emulators.push(emulator);
		const answers = await Promise.all(
			Array.from({ length: 12 }, (_, n) => ask(emulator, `no pool ${n}`)),
		);
		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(emulator.sessionPool).toBeNull();
	});

	it('shows its counts in the stats endpoint and clears them on reset', async () => {
		const emulator = await emulatorWithPool({ size: 1 }, 50);
		await Promise.all([ask(emulator, 'a'), ask(emulator, 'b')]);
		const stats = await (await fetch(`${emulator.baseUrl}/__emulator/stats`)).json();
		expect(stats.sessionPool).toMatchObject({ size: 1, admitted: 1, refused: 1 });
		await fetch(`${emulator.baseUrl}/__emulator/reset`, { method: 'POST' });
		expect(emulator.sessionPool).toMatchObject({ admitted: 0, refused: 0, active: 0 });
	});
});
