/**
 * `npm run check:live`: notices a change of the live service before users do (docs/live-check.md).
 * With ASSISTANT_BASE_URL and ASSISTANT_TOKEN from the environment (the token is never printed),
 * it makes one small ask streamed and not streamed, lists models and personas and reads the
 * catalog; saves the stream, the request echo and private values removed, under
 * artifacts/live-check/ (git-ignored); and compares the event types and fields with what the node
 * knows and what the emulator's 2026 dialect sends. It exits 1 listing the differences, 2 when it
 * cannot run (no token: then it sends nothing). Not part of `npm test`.
 */
import fs from 'node:fs';
import path from 'node:path';

import { listEntries } from '../nodes/shared/lists';
import { parseJson } from '../nodes/shared/json';
import { LIST_LIMIT_BYTES, mebibytes, messageLimitBytes } from '../nodes/shared/limits';
import { readAnswerFromChunks } from '../nodes/shared/stream/answer';
import { StreamAnswerError } from '../nodes/shared/stream/answerFailure';
import { KNOWN_STREAM_EVENTS, toStreamEvents } from '../nodes/shared/stream/events';
import { LIST_BODY } from '../nodes/shared/transport/jsonCall';
import { serverMessage } from '../nodes/shared/transport/serverMessage';
import { tooLargeMessage } from '../nodes/shared/transport/transportFailures';
import { startEmulator } from '../test/emulator/server';
import { FREE_FORM_FIELDS } from './live-check/freeForm';
import { redactStream, scrubberOf, type Scrub } from './live-check/redact';
import {
	asTheNodeReadsThem,
	compareShapes,
	compareSignatures,
	compareStatusValues,
	emptyLists,
	jsonShape,
	parseEvents,
	refusedEvents,
	signaturesOf,
	statusValuesOf,
	unknownEventNames,
	type Signatures,
	type StatusValues,
	type StreamEvent,
} from './live-check/signatures';

const ASK = 'Reply with one short sentence: what is 2 + 2?';
const OUT_DIR = path.join(__dirname, '..', 'artifacts', 'live-check');
interface Target {
	baseUrl: string;
	token: string;
}

interface Fetched {
	status: number;
	headers: Headers;
	text: string;
	/** The body's size as it came, in bytes. */
	bytes: number;
}

/**
 * The most of one answer the check reads: the node's own bound on one body (limits.ts). A server
 * that sends without end is stopped there, not held whole until the timeout.
 */
const MAX_ANSWER_BYTES = messageLimitBytes();

/**
 * The body as text (as `Response.text()` reads it) and its size in bytes, or an error past
 * MAX_ANSWER_BYTES.
 */
async function boundedText(response: Response, what: string) {
	const chunks: Uint8Array[] = [];
	let size = 0;
	const reader = response.body?.getReader();
	for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
		size += read.value.byteLength;
		if (size > MAX_ANSWER_BYTES) {
			await reader?.cancel();
			throw new Error(
				`${what}: the answer passed ${mebibytes(MAX_ANSWER_BYTES)}: the check stopped reading it`,
			);
		}
		chunks.push(read.value);
	}
	return { text: new TextDecoder().decode(Buffer.concat(chunks)), bytes: size };
}

async function request(target: Target, method: string, route: string, body?: unknown) {
	const response = await fetch(`${target.baseUrl}${route}`, {
		method,
		headers: {
			authorization: `Bearer ${target.token}`,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(180_000),
	});
	const { text, bytes } = await boundedText(response, `${method} ${route}`);
	return { status: response.status, headers: response.headers, text, bytes };
}

/** What one target (the service, or the emulator) answers to the check's requests. */
async function survey(target: Target): Promise<Record<string, Fetched>> {
	return {
		stream: await request(target, 'POST', '/assistant/ask', { input: ASK, stream: true }),
		json: await request(target, 'POST', '/assistant/ask', { input: ASK, stream: false }),
		models: await request(target, 'GET', '/models/available'),
		personas: await request(target, 'GET', '/personas/available'),
		catalog: await request(target, 'GET', '/models/catalog'),
	};
}

/**
 * A JSON answer as the node reads it (json.ts, its bound on values): its value, or why the node
 * would refuse it; undefined for text that is not JSON.
 */
function readJson(fetched: Fetched): { value: unknown; refused?: string } {
	try {
		return { value: parseJson(fetched.text) };
	} catch (error) {
		if (error instanceof SyntaxError) return { value: undefined };
		return { value: undefined, refused: error instanceof Error ? error.message : String(error) };
	}
}

function parsedJson(fetched: Fetched): unknown {
	return readJson(fetched).value;
}

/** A stream's events under the names the node reads them by, the flat form's included. */
function eventsOf(text: string) {
	return asTheNodeReadsThem(parseEvents(text));
}

/** The emulator's 2026 dialect: the same small ask, and a tool round (the kinds it adds). */
async function emulatorReference() {
	const emulator = await startEmulator({ dialect: '2026' });
	try {
		const target = { baseUrl: emulator.baseUrl, token: emulator.token };
		const answers = await survey(target);
		const round = await request(target, 'POST', '/assistant/ask', {
			input: 'What is new in my mail?',
			stream: true,
		});
		const signatures = signaturesOf(eventsOf(answers.stream.text));
		signaturesOf(eventsOf(round.text), signatures);
		const statuses = statusValuesOf(eventsOf(answers.stream.text));
		statusValuesOf(eventsOf(round.text), statuses);
		return { answers, signatures, statuses };
	} finally {
		await emulator.close();
	}
}

/**
 * The stream's failures as the node reads them (events.ts): a `failed`, a `completed` whose
 * status is not `succeeded`, an error event. The small ask should succeed: a failure means the
 * account or the service is not as the check assumes, and its words say why.
 */
export function streamFailures(events: StreamEvent[]): string[] {
	const failures: string[] = [];
	for (const event of events) {
		// One whose JSON was refused goes to the node's reader as it came: it refuses it too.
		const data =
			event.refused !== undefined
				? (event.dataText ?? '')
				: typeof event.data === 'string'
					? event.data
					: JSON.stringify(event.data);
		for (const read of toStreamEvents({ event: event.event, data })) {
			if (read.type === 'runFailed') {
				failures.push(
					`stream: the ask failed: ${event.event} with status "${read.status}": ${read.message}`,
				);
			} else if (read.type === 'error') {
				failures.push(`stream: the ask failed: ${event.event}: ${read.message}`);
			}
		}
	}
	return failures;
}

/**
 * The stream read as the node reads it (answer.ts): a stream it reads no answer from (no
 * `completed`, `failed` or `End`; no text) fails every ask, whatever its events. A failed run and
 * an error event are streamFailures', in the service's words.
 */
export function unansweredStream(text: string): string[] {
	try {
		readAnswerFromChunks([text], { structured: false });
		return [];
	} catch (error) {
		if (error instanceof StreamAnswerError) {
			if (error.failure === 'run-failed' || error.failure === 'error-event') return [];
		}
		const message = error instanceof Error ? error.message : String(error);
		return [`stream: the node reads no answer from it: ${message}`];
	}
}

/** A run's end: its status is read by streamFailures, which says a failure in its own words. */
const RUN_END_KINDS = ['completed', 'failed'];

/** The answers compared by their JSON fields. */
const JSON_ANSWERS = ['json', 'models', 'personas', 'catalog'];

/**
 * The answers the node reads as lists, each read within LIST_LIMIT_BYTES, and the key of the
 * list whose entries become items (List Models, List Personas, Get Catalog: shared/lists.ts).
 */
const LISTS: Record<string, string> = { models: 'models', personas: 'personas', catalog: 'models' };

/**
 * The fields of an answer (jsonShape): an ask's `output` is the model's words, not looked into,
 * as in an event; the lists and the catalog are the service's own, every field compared.
 */
function answerShape(what: string, value: unknown) {
	return jsonShape(value, what === 'json' ? FREE_FORM_FIELDS : undefined);
}

/**
 * A JSON answer as the node reads it: its value, or why the node refuses it, in the node's
 * words: a list past LIST_LIMIT_BYTES (not parsed), or one the node's list reader refuses
 * (shared/lists.ts: no list, past MAX_LIST_ENTRIES, an entry that is no object), any answer past
 * the node's bound on values (readJson).
 */
function readAnswer(what: string, fetched: Fetched): { value: unknown; refused?: string } {
	const key = LISTS[what];
	if (key !== undefined && fetched.bytes > LIST_LIMIT_BYTES) {
		return { value: undefined, refused: tooLargeMessage(LIST_BODY, LIST_LIMIT_BYTES) };
	}
	const read = readJson(fetched);
	if (key === undefined || read.refused !== undefined) return read;
	const listed = listEntries(read.value, key);
	return 'problem' in listed ? { value: undefined, refused: listed.problem.message } : read;
}

/** Every difference between the service's answers and what the node and the emulator know. */
export function differencesOf(
	live: Record<string, Fetched>,
	liveSignatures: Signatures,
	reference: { answers: Record<string, Fetched>; signatures: Signatures; statuses: StatusValues },
	knownEvents: readonly string[],
): string[] {
	const differences: string[] = [];
	for (const [what, fetched] of Object.entries(live)) {
		if (fetched.status !== 200) {
			// In the service's words as the node reads them: never the request echo an error
			// status's event stream may carry (serverMessage.ts).
			differences.push(`${what}: HTTP ${fetched.status}: ${serverMessage(fetched.text)}`);
		}
	}
	const liveEvents = eventsOf(live.stream.text);
	differences.push(...refusedEvents(liveEvents));
	differences.push(...streamFailures(liveEvents));
	if (live.stream.status === 200) differences.push(...unansweredStream(live.stream.text));
	const unknown = unknownEventNames(liveSignatures, knownEvents, liveEvents);
	if (unknown.length > 0) differences.push(`events the node does not know: ${unknown.join(', ')}`);
	differences.push(...compareSignatures(liveSignatures, reference.signatures, 'the emulator'));
	differences.push(
		...compareStatusValues(
			statusValuesOf(liveEvents),
			reference.statuses,
			'the emulator',
			RUN_END_KINDS,
		),
	);
	const type = live.stream.headers.get('content-type') ?? '';
	if (!type.startsWith('text/event-stream')) differences.push(`stream: content type ${type}`);
	if (!/^con_[A-Za-z0-9]+$/.test(live.stream.headers.get('x-conversation-id') ?? '')) {
		differences.push('stream: no x-conversation-id header of the form con_…');
	}
	for (const what of JSON_ANSWERS) {
		const { value: answer, refused } = readAnswer(what, live[what]);
		if (refused !== undefined) {
			differences.push(`${what}: ${refused}`);
			continue;
		}
		const seen = answerShape(what, answer);
		const known = answerShape(what, parsedJson(reference.answers[what]));
		differences.push(...compareShapes(what, seen, known, 'the emulator', emptyLists(seen)));
	}
	return differences;
}

/**
 * What the check could not compare, said without failing: an empty list (an account without
 * personas, say) shows none of its items' fields, an empty map (no deprecated model) none of its
 * entries'.
 */
export function notesOf(live: Record<string, Fetched>): string[] {
	return JSON_ANSWERS.flatMap((what) => {
		const { value, refused } = readAnswer(what, live[what]);
		if (refused !== undefined) return [];
		return emptyLists(answerShape(what, value)).map((list) => emptyListNote(what, list));
	});
}

/**
 * The same of the stream: a list empty in every event of a kind the emulator sends (a kind it
 * does not send is a difference, its fields compared with none).
 */
export function streamNotesOf(seen: Signatures, reference: Signatures): string[] {
	return [...seen.keys()]
		.filter((kind) => reference.has(kind))
		.flatMap((kind) =>
			seen.emptyLists(kind).map((list) => emptyListNote(kind, list, "(the event's data)")),
		);
}

/** `whole`: what a list at the top is (an answer, or an event's data). */
function emptyListNote(what: string, list: string, whole = '(the answer)'): string {
	const name = list.slice(0, -2) || whole;
	return list.endsWith('{}')
		? `${what}: the map ${name} had no entries: their fields could not be compared`
		: `${what}: the list ${name} was empty: its items' fields could not be compared`;
}

/** The longest line printed: an error body is cut there, after the token is taken out of it. */
const MAX_LINE = 300;

/** A line as printed: scrubbed first, whole, so that no cut can leave a piece of the token. */
function printable(line: string, scrub: Scrub): string {
	const shown = scrub(line).replace(/\s+/g, ' ');
	return shown.length > MAX_LINE ? `${shown.slice(0, MAX_LINE)}…` : shown;
}

function save(name: string, content: string, scrub: Scrub): string {
	fs.mkdirSync(OUT_DIR, { recursive: true });
	const file = path.join(OUT_DIR, name);
	fs.writeFileSync(file, scrub(content));
	return path.relative(process.cwd(), file);
}

/** The token the requests send: the environment's, trimmed, as a credential's is. */
function tokenFromEnv(): string {
	return (process.env.ASSISTANT_TOKEN ?? '').trim();
}

async function main(scrub: Scrub): Promise<number> {
	const say = (line: string) => console.log(printable(line, scrub));
	const baseUrl = (process.env.ASSISTANT_BASE_URL ?? '').trim().replace(/\/+$/, '');
	const token = tokenFromEnv();
	if (!baseUrl || !token) {
		console.error(
			'check:live needs ASSISTANT_BASE_URL and ASSISTANT_TOKEN in the environment ' +
				'(docs/live-check.md). Nothing was sent.',
		);
		return 2;
	}
	say(`Checking ${baseUrl} (token from ASSISTANT_TOKEN, not shown)…`);
	const live = await survey({ baseUrl, token });
	const date = new Date().toISOString().slice(0, 10);
	const capture = redactStream(live.stream.text, scrub);
	const saved = save(`${date}-ask.sse`, capture, scrub);
	save(
		`${date}-ask.meta.json`,
		`${JSON.stringify(
			{
				captured: new Date().toISOString(),
				request: { input: ASK, stream: true },
				response: {
					status: live.stream.status,
					content_type: live.stream.headers.get('content-type'),
					x_conversation_id: live.stream.headers.get('x-conversation-id') ? 'con_[removed]' : null,
				},
				json_answer_fields: [...answerShape('json', parsedJson(live.json))],
			},
			null,
			2,
		)}\n`,
		scrub,
	);
	// Only names and field paths of the live stream are compared and printed, each line scrubbed.
	const liveSignatures = signaturesOf(eventsOf(live.stream.text));
	const reference = await emulatorReference();
	const differences = differencesOf(live, liveSignatures, reference, KNOWN_STREAM_EVENTS);
	say(`saved ${saved} (the request echo, ids and private values removed)`);
	say(`event kinds seen: ${[...liveSignatures.keys()].join(', ')}`);
	for (const note of notesOf(live)) say(note);
	for (const note of streamNotesOf(liveSignatures, reference.signatures)) say(note);
	if (differences.length === 0) {
		say('The service sends what the node and the emulator know.');
		return 0;
	}
	say(`${differences.length} difference(s) from what the node and the emulator know:`);
	for (const difference of differences) say(`- ${difference}`);
	return 1;
}

/** An error's words and its cause's (fetch puts the network's reason there). */
function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
	return `${error.message}${cause}`;
}

if (require.main === module) {
	// The same scrubber for the run and for whatever it throws: the token can be in either.
	const scrub = scrubberOf(tokenFromEnv());
	main(scrub).then(
		(code) => {
			process.exitCode = code;
		},
		(error: unknown) => {
			console.error(printable(`check:live failed: ${describeError(error)}`, scrub));
			process.exitCode = 2;
		},
	);
}
