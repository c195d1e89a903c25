/**
 * A fuzz of redirect chains (docs/api.md#redirects), in n8n-core's engine against real servers:
 * seeded random chains of statuses (the five redirects, and 300 and 304, which are not followed),
 * targets (a relative path, the same origin written in full, another port, another host, a
 * scheme-relative address, https on the same host and port, a loop back to an earlier hop) and
 * lengths. Whatever the chain, no other origin gets a request (so never the token), the node
 * stops after at most 5 redirects, and the item holds the home answer exactly when the chain
 * reaches it within the origin in 5 redirects or fewer.
 */
import { prng } from '../fuzz/prng';
import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../helpers/assistant';
import { redirect, startServer, type TestServer } from '../helpers/redirect-servers';

const TOKEN = 'zo_sk_chain-fuzz-token-29';
const CHAINS = 60;
const MAX_REDIRECTS = 5;

let home: TestServer;
let otherPort: TestServer;
let otherHost: TestServer;

beforeAll(async () => {
	home = await startServer('HOME');
	otherPort = await startServer('OTHER-PORT');
	otherHost = await startServer('OTHER-HOST', '127.0.0.2');
});
afterAll(async () => {
	await Promise.all([home.close(), otherPort.close(), otherHost.close()]);
});

type Hop =
	| { kind: 'answer' }
	| { kind: 'not-followed'; status: number }
	| { kind: 'within'; status: number; form: 'relative' | 'absolute'; next: number }
	| { kind: 'foreign'; status: number; location: (path: string) => string };

const REDIRECTS = [301, 302, 303, 307, 308];

function chainOf(random: () => number): Hop[] {
	const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];
	const length = 1 + Math.floor(random() * 9);
	const hops: Hop[] = [];
	for (let index = 0; index < length; index++) {
		const roll = random();
		const status = pick(REDIRECTS);
		if (index === length - 1) {
			hops.push(
				roll < 0.7 ? { kind: 'answer' } : { kind: 'not-followed', status: pick([300, 304]) },
			);
		} else if (roll < 0.6) {
			hops.push({ kind: 'within', status, form: pick(['relative', 'absolute']), next: index + 1 });
		} else if (roll < 0.7) {
			// A loop back to this hop or an earlier one.
			hops.push({
				kind: 'within',
				status,
				form: 'relative',
				next: Math.floor(random() * (index + 1)),
			});
		} else {
			const location = pick<(path: string) => string>([
				(path) => `${otherPort.origin}${path}`,
				(path) => `${otherHost.origin}${path}`,
				(path) => `//${otherHost.origin.slice('http://'.length)}${path}`,
				(path) => `${home.origin.replace('http:', 'https:')}${path}`,
			]);
			hops.push({ kind: 'foreign', status, location });
		}
	}
	return hops;
}

/** What the node must end with: the answer, or a failure (it never follows a foreign hop). */
function expected(hops: Hop[]): 'answer' | 'failure' {
	let at = 0;
	for (let redirects = 0; ; redirects++) {
		const hop = hops[at];
		if (hop.kind === 'answer') return 'answer';
		if (hop.kind !== 'within' || redirects >= MAX_REDIRECTS) return 'failure';
		at = hop.next;
	}
}

test.each(Array.from({ length: CHAINS }, (_, seed) => seed + 1))('chain %i', async (seed) => {
	const hops = chainOf(prng(seed * 7919));
	const pathOf = (index: number) => `/f${seed}/hop${index}/models/available`;
	for (const server of [home, otherPort, otherHost]) server.seen = [];
	home.intercept = (request, response) => {
		const index = Number(/\/hop(\d+)\//.exec(request.url ?? '')?.[1] ?? 0);
		const hop = hops[index];
		if (hop.kind === 'answer') return false;
		if (hop.kind === 'not-followed') {
			response.writeHead(hop.status, { Location: `${otherHost.origin}/elsewhere` });
			response.end();
			return true;
		}
		if (hop.kind === 'foreign') return redirect(response, hop.status, hop.location(pathOf(index)));
		const path = pathOf(hop.next);
		return redirect(response, hop.status, hop.form === 'relative' ? path : `${home.origin}${path}`);
	};
	const pkg = await assistantPackage();
	const run = await runWithItems(
		[{}],
		[
			assistantNode(pkg, 'Assistant', {
				operation: 'listModels',
				options: { retries: 0 },
			}),
		],
		{ credentials: [emulatorCredential(`${home.origin}/f${seed}/hop0`, TOKEN)] },
	);
	expect(otherPort.seen).toEqual([]);
	expect(otherHost.seen).toEqual([]);
	expect(home.seen.length).toBeLessThanOrEqual(MAX_REDIRECTS + 1);
	for (const seen of home.seen) expect(seen.authorization).toBe(`Bearer ${TOKEN}`);
	const error = run.error();
	if (expected(hops) === 'answer') {
		expect(error).toBeUndefined();
		expect(JSON.stringify(run.outputs('Assistant'))).toContain('HOME');
	} else {
		expect(error).toBeDefined();
		expect(error?.message).not.toContain(TOKEN);
	}
});
