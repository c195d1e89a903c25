/**
 * Redirects whose `Location` writes another origin in the forms a parser may read otherwise
 * (docs/api.md#redirects, docs/security.md): with the token as userinfo, a backslash after the
 * first slash, protocol-relative, another port of the same host, a tab inside the scheme. With
 * the built package in n8n-core's engine: none is followed, the other servers (127.0.0.2 and
 * another port of 127.0.0.1) get no request, and the token is in nothing the run shows.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { emulatorCredential, everythingShown, askOnceContinuing } from '../helpers/assistant';
import { serveRequests, type ServedRequests } from '../helpers/scripted-server';

const TOKEN = 'Zo_Sk_Location-Token-Q8w3Er7T';

let otherPort = 0;

/** Each `Location`, by what it is. */
const LOCATIONS: Record<string, [number, () => string]> = {
	'another host, the token as its userinfo': [
		307,
		() => `http://u:${TOKEN}@127.0.0.2:${otherPort}/api/assistant/ask`,
	],
	'another host after a backslash': [302, () => `/\\127.0.0.2:${otherPort}/api/assistant/ask`],
	'another host, protocol-relative': [308, () => `//127.0.0.2:${otherPort}/api/assistant/ask`],
	'another port of the same host': [301, () => `http://127.0.0.1:${otherPort}/api/assistant/ask`],
	'another host, a tab inside the scheme': [
		303,
		() => `ht\ttp://127.0.0.2:${otherPort}/api/assistant/ask`,
	],
};

let server: ServedRequests;
let other1: http.Server;
let other2: http.Server;
const otherSeen: Array<{ url: string; authorization?: string }> = [];

beforeAll(async () => {
	server = await serveRequests((_request, body, response) => {
		const { input } = JSON.parse(body || '{}') as { input?: string };
		const location = LOCATIONS[input ?? ''];
		if (!location) {
			response.writeHead(400);
			response.end();
			return;
		}
		const [status, target] = location;
		response.writeHead(status, { Location: target() });
		response.end();
	});
	const recorder: http.RequestListener = (request, response) => {
		otherSeen.push({ url: request.url ?? '', authorization: request.headers.authorization });
		response.writeHead(200, { 'Content-Type': 'application/json' });
		response.end(JSON.stringify({ output: 'OTHER', conversation_id: 'con_other' }));
	};
	other2 = http.createServer(recorder);
	await new Promise<void>((resolve) => other2.listen(0, '127.0.0.2', () => resolve()));
	otherPort = (other2.address() as AddressInfo).port;
	other1 = http.createServer(recorder);
	await new Promise<void>((resolve) => other1.listen(otherPort, '127.0.0.1', () => resolve()));
});

afterAll(async () => {
	await server.close();
	for (const s of [other1, other2]) {
		s.closeAllConnections();
		await new Promise<void>((resolve) => s.close(() => resolve()));
	}
});

test.each(Object.keys(LOCATIONS))(
	'a redirect to %s: not followed, nothing sent there, the token nowhere',
	async (what) => {
		otherSeen.length = 0;
		const run = await askOnceContinuing(emulatorCredential(`${server.origin}/api`, TOKEN), what);
		const [item] = run.outputs('Assistant');
		expect(item.json.output).toBeUndefined();
		expect(item.json.error).toBeDefined();
		expect(otherSeen).toEqual([]);
		const shown = everythingShown(run).toLowerCase();
		expect(shown).not.toContain(TOKEN.toLowerCase().slice(0, 8));
		expect(shown).not.toContain(TOKEN.toLowerCase().slice(-8));
	},
);
