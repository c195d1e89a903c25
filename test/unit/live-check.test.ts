/**
 * The pure half of `npm run check:live` (docs/live-check.md): what a stream is made of, how it is
 * compared with what the node and the emulator know, and what is removed before it is saved.
 */
import fs from 'node:fs';
import path from 'node:path';

import { MAX_JSON_VALUES } from '../../nodes/shared/limits';
import { FREE_FORM_FIELDS } from '../../scripts/live-check/freeForm';
import { redactStream, scrubberOf } from '../../scripts/live-check/redact';
import {
	compareShapes,
	compareSignatures,
	compareStatusValues,
	emptyLists,
	eventKind,
	jsonShape,
	MAX_SHAPE_DEPTH,
	MAX_SHAPE_PATHS,
	MAX_UNSENT_KINDS_NAMED,
	asTheNodeReadsThem,
	parseEvents,
	refusedEvents,
	signaturesOf,
	statusValuesOf,
	unknownEventNames,
} from '../../scripts/live-check/signatures';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const fixture = (name: string) =>
	fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'captures', name), 'utf8');

describe('stream signatures', () => {
	test('an event kind names the part, delta or chunk type inside', () => {
		expect(eventKind({ event: 'PartStartEvent', data: { part: { part_kind: 'text' } } })).toBe(
			'PartStartEvent:text',
		);
		expect(
			eventKind({ event: 'PartDeltaEvent', data: { delta: { part_delta_kind: 'tool_call' } } }),
		).toBe('PartDeltaEvent:tool_call');
		expect(eventKind({ event: 'AgentRuntimeStreamChunk', data: { type: 'persisted' } })).toBe(
			'AgentRuntimeStreamChunk:persisted',
		);
		expect(eventKind({ event: 'completed', data: { status: 'succeeded' } })).toBe('completed');
		expect(eventKind({ event: 'message', data: '[DONE]' })).toBe('message');
	});

	test("a runtime chunk's result and delta are a tool's data: their keys are no fields of the shape", () => {
		const data = { type: 'status', result: { 'Jane Doe': 1 }, delta: { 'salary 2026': 2 } };
		const signatures = signaturesOf([{ event: 'AgentRuntimeStreamChunk', data }]);
		expect(signatures.get('AgentRuntimeStreamChunk:status')).toEqual(
			new Set(['type', 'result', 'delta']),
		);
	});

	test('the research capture: its kinds and their fields, every level down to free-form content', () => {
		const signatures = signaturesOf(parseEvents(fixture('2026-08-09-research.sse')));
		expect([...signatures.keys()].sort()).toEqual([
			'AgentRuntimeStreamChunk:persisted',
			'AgentRuntimeStreamChunk:status',
			'FunctionToolCallEvent:tool-call',
			'FunctionToolResultEvent',
			'PartDeltaEvent:text',
			'PartDeltaEvent:thinking',
			'PartDeltaEvent:tool_call',
			'PartStartEvent:text',
			'PartStartEvent:thinking',
			'PartStartEvent:tool-call',
			'completed',
		]);
		expect(signatures.get('FunctionToolResultEvent')).toEqual(
			new Set([
				'content',
				'event_kind',
				'result',
				'result.content',
				'result.metadata',
				'result.outcome',
				'result.part_kind',
				'result.timestamp',
				'result.tool_call_id',
				'result.tool_name',
				'metadata',
				'metadata.zmid',
				'metadata.runner_id',
			]),
		);
	});

	test('differences: a new event, a new field, a field left out; kinds only the reference has are none', () => {
		const reference = signaturesOf([
			{ event: 'completed', data: { status: 'succeeded', error: null } },
			{ event: 'FunctionToolCallEvent', data: { part: { part_kind: 'tool-call' } } },
		]);
		const seen = signaturesOf([
			{ event: 'completed', data: { status: 'succeeded', usage: {} } },
			{ event: 'RunUsageEvent', data: { tokens: 3 } },
		]);
		expect(compareSignatures(seen, reference, 'the emulator')).toEqual([
			'completed: fields the emulator does not send: usage',
			'completed: fields the service left out: error',
			'RunUsageEvent: an event the emulator does not send',
		]);
		expect(compareSignatures(reference, reference, 'the emulator')).toEqual([]);
		expect(unknownEventNames(seen, ['completed', 'End'])).toEqual(['RunUsageEvent']);
	});

	test('status values: by kind, compared with the reference; kinds read elsewhere skipped', () => {
		const chunk = (status: string | null) => ({
			event: 'AgentRuntimeStreamChunk',
			data: { type: 'status', status },
		});
		const reference = statusValuesOf([
			chunk('dispatching'),
			chunk('progress'),
			{ event: 'completed', data: { status: 'succeeded' } },
		]);
		expect([...reference]).toEqual([
			['AgentRuntimeStreamChunk:status', new Set(['dispatching', 'progress'])],
			['completed', new Set(['succeeded'])],
		]);
		const seen = statusValuesOf([
			chunk('progress'),
			chunk('throttled'),
			chunk(null),
			{ event: 'completed', data: { status: 'cancelled' } },
			{ event: 'RunStateEvent', data: { status: 'queued' } },
			chunk('Reading tax-return 2026.pdf'),
		]);
		expect(compareStatusValues(seen, reference, 'the emulator', ['completed'])).toEqual([
			'AgentRuntimeStreamChunk:status: a status the emulator does not send: "throttled", "[27 characters]"',
			'RunStateEvent: a status the emulator does not send: "queued"',
		]);
		expect(compareStatusValues(reference, reference, 'the emulator')).toEqual([]);
	});

	test('JSON answers: field paths every level down (array items count as one), compared both ways, the outermost that differs', () => {
		const shape = jsonShape({ models: [{ id: 'a', meta: { deep: { deeper: 1 } } }], ok: true });
		expect([...shape]).toEqual([
			'models',
			'models[]',
			'models[].id',
			'models[].meta',
			'models[].meta.deep',
			'models[].meta.deep.deeper',
			'ok',
		]);
		expect(
			compareShapes('models', new Set(['a', 'b']), new Set(['b', 'c']), 'the emulator'),
		).toEqual([
			'models: fields the emulator does not send: a',
			'models: fields the service left out: c',
		]);
		// A field renamed deep down: the renamed field is named, not each field under it.
		const reasoning = (levels: string) => ({
			models: [{ reasoning: { kind: 'levels', [levels]: [{ value: 0, label: 'Low' }] } }],
		});
		expect(
			compareShapes(
				'catalog',
				jsonShape(reasoning('levels')),
				jsonShape(reasoning('options')),
				'the emulator',
			),
		).toEqual([
			'catalog: fields the emulator does not send: models[].reasoning.levels',
			'catalog: fields the service left out: models[].reasoning.options',
		]);
	});

	test("the deprecation map's keys are ids: its entries are compared as one, `deprecation_map{}`", () => {
		const ours = jsonShape({ deprecation_map: { 'openai:gpt-4o-mini': 'openai:gpt-5-mini' } });
		const theirs = jsonShape({ deprecation_map: { 'x:y': 'x:z', 'a:b': 'a:c' } });
		expect([...theirs]).toEqual(['deprecation_map', 'deprecation_map{}']);
		expect(compareShapes('catalog', theirs, ours, 'the emulator')).toEqual([]);
		const objects = jsonShape({ deprecation_map: { 'x:y': { successor: 'x:z' } } });
		expect(compareShapes('catalog', objects, ours, 'the emulator')).toEqual([
			'catalog: fields the emulator does not send: deprecation_map{}.successor',
		]);
		// None deprecated: no entry to compare, said as an empty list is.
		expect(emptyLists(jsonShape({ deprecation_map: {} }))).toEqual(['deprecation_map{}']);
	});

	test("an ask's `output`, and an event's content, are not looked into: their keys may be the user's", () => {
		const answer = { output: { 'Jane Doe': { salary: 1 } }, conversation_id: 'con_x' };
		expect([...jsonShape(answer, FREE_FORM_FIELDS)]).toEqual(['output', 'conversation_id']);
		const signatures = signaturesOf([
			{
				event: 'FunctionToolResultEvent',
				data: { result: { content: { 'Jane Doe': 1 }, metadata: { zmid: 'z', extra: { a: 1 } } } },
			},
		]);
		expect([...(signatures.get('FunctionToolResultEvent') ?? [])]).toEqual([
			'result',
			'result.content',
			'result.metadata',
			'result.metadata.zmid',
			'result.metadata.extra',
			'result.metadata.extra.a',
		]);
		// A key that is not one short word is named by its length, never printed.
		expect([...jsonShape({ 'Jane Doe, salary 2026': 1 })]).toEqual(['[21 characters]']);
	});

	test('a hostile answer nested a hundred thousand deep: followed to MAX_SHAPE_DEPTH, then one path says it goes on', () => {
		let nested: unknown = 1;
		for (let i = 0; i < 100_000; i++) nested = { a: nested };
		const shape = jsonShape(nested);
		expect(shape.size).toBe(MAX_SHAPE_DEPTH + 1);
		const deepest = `${Array(MAX_SHAPE_DEPTH).fill('a').join('.')}.…`;
		expect([...shape].at(-1)).toBe(deepest);
		expect(compareShapes('catalog', shape, jsonShape({ a: 1 }), 'the emulator')).toEqual([
			'catalog: fields the emulator does not send: a.a',
		]);
		const events = [{ event: 'completed', data: nested }];
		expect(signaturesOf(events).get('completed')?.has(deepest)).toBe(true);
	});

	test('a hostile answer of a hundred thousand keys: MAX_SHAPE_PATHS held, the rest said not compared, nothing said left out', () => {
		const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, n) => [`k${n}`, n]));
		const shape = jsonShape({ models: [keys] });
		expect(shape.size).toBe(MAX_SHAPE_PATHS);
		expect(shape.full).toBe(true);
		const known = jsonShape({ models: [{ k0: 0 }], z: 1 });
		const differences = compareShapes('catalog', shape, known, 'the emulator');
		expect(differences).toHaveLength(2);
		expect(differences[0]).toBe(
			'catalog: more than 2,000 kinds and fields: the rest were not compared',
		);
		expect(differences[1]).toMatch(
			/^catalog: fields the emulator does not send: models\[\]\.k1, models\[\]\.k2, /,
		);

		// A stream's kinds count too: a hundred thousand kinds of part are not as many lines.
		const parts = Array.from({ length: 100_000 }, (_, n) => ({
			event: 'PartStartEvent',
			data: { part: { part_kind: `k${n}` } },
		}));
		const signatures = signaturesOf(parts);
		expect(signatures.full).toBe(true);
		const reference = signaturesOf([
			{ event: 'PartStartEvent', data: { part: { part_kind: 'text' } } },
		]);
		const lines = compareSignatures(signatures, reference, 'the emulator');
		expect(lines[0]).toBe('stream: more than 2,000 kinds and fields: the rest were not compared');
		expect(lines.length).toBeLessThanOrEqual(MAX_SHAPE_PATHS);
	});

	test("a runtime chunk's fields are its type's: a field only `persisted` chunks have is said of them alone", () => {
		const chunk = (type: string, data: unknown) => ({
			event: 'AgentRuntimeStreamChunk',
			data: { type, status: null, data },
		});
		const reference = signaturesOf([
			chunk('status', { message: 'Thinking…', phase: 'model_request' }),
			chunk('persisted', { message_id: 'a' }),
		]);
		const seen = signaturesOf([
			chunk('status', { message: 'Thinking…', phase: 'model_request' }),
			chunk('persisted', { message_id: 'a', turn: 2 }),
		]);
		expect(compareSignatures(seen, reference, 'the emulator')).toEqual([
			'AgentRuntimeStreamChunk:persisted: fields the emulator does not send: data.turn',
		]);
	});

	test("an empty list: its items' fields are not taken for left out; other fields still are", () => {
		const seen = { personas: [], other: 1 };
		const reference = { personas: [{ id: 'p', name: 'n' }], extra: true };
		expect(emptyLists(seen)).toEqual(['personas[]']);
		expect(emptyLists([])).toEqual(['[]']);
		expect(
			compareShapes(
				'personas',
				jsonShape(seen),
				jsonShape(reference),
				'the emulator',
				emptyLists(seen),
			),
		).toEqual([
			'personas: fields the emulator does not send: other',
			'personas: fields the service left out: extra',
		]);
	});

	test("a list empty in every event of a kind: its items' fields are not taken for left out, as in an answer", () => {
		const chunk = (data: unknown) => ({
			event: 'AgentRuntimeStreamChunk',
			data: { type: 'status', data },
		});
		const part = (args: unknown) => ({
			event: 'PartStartEvent',
			data: { part: { part_kind: 'tool-call', tool_name: 't', calls: args } },
		});
		const reference = signaturesOf([chunk([{ at: 1 }]), part([{ id: 'c', name: 'n' }])]);
		const seen = signaturesOf([chunk([]), chunk([]), part([])]);
		expect(seen.emptyLists('AgentRuntimeStreamChunk:status')).toEqual(['data[]']);
		expect(seen.emptyLists('PartStartEvent:tool-call')).toEqual(['part.calls[]']);
		expect(compareSignatures(seen, reference, 'the emulator')).toEqual([]);

		// Empty in one event, not in another: its items were seen, and what they lack is said.
		const once = signaturesOf([chunk([]), chunk([{}]), part([{ id: 'c' }])]);
		expect(once.emptyLists('AgentRuntimeStreamChunk:status')).toEqual([]);
		expect(compareSignatures(once, reference, 'the emulator')).toEqual([
			'AgentRuntimeStreamChunk:status: fields the service left out: data[].at',
			'PartStartEvent:tool-call: fields the service left out: part.calls[].name',
		]);
	});

	test('many kinds the emulator does not send: the first MAX_UNSENT_KINDS_NAMED named as ever, the rest one line with their count', () => {
		const reference = signaturesOf([
			{ event: 'AgentRuntimeStreamChunk', data: { type: 'status', status: 'progress' } },
		]);
		const long = 'a made-up type of more than one short word';
		const chunks = [long, ...Array.from({ length: 99 }, (_, n) => `made_up_${n}`)].map((type) => ({
			event: 'AgentRuntimeStreamChunk',
			data: { type, status: 'busy' },
		}));
		const lines = compareSignatures(signaturesOf(chunks), reference, 'the emulator');
		expect(lines).toHaveLength(MAX_UNSENT_KINDS_NAMED + 1);
		expect(lines[0]).toBe(
			'AgentRuntimeStreamChunk:[42 characters]: an event the emulator does not send',
		);
		expect(lines[1]).toBe('AgentRuntimeStreamChunk:made_up_0: an event the emulator does not send');
		expect(lines[MAX_UNSENT_KINDS_NAMED - 1]).toBe(
			'AgentRuntimeStreamChunk:made_up_18: an event the emulator does not send',
		);
		expect(lines[MAX_UNSENT_KINDS_NAMED]).toBe(
			'stream: 80 more kinds of event the emulator does not send',
		);

		// Their statuses too; a new status of a kind the emulator sends is said whatever their number.
		const statuses = compareStatusValues(
			statusValuesOf([
				...chunks,
				{ event: 'AgentRuntimeStreamChunk', data: { type: 'status', status: 'throttled' } },
			]),
			statusValuesOf([
				{ event: 'AgentRuntimeStreamChunk', data: { type: 'status', status: 'progress' } },
			]),
			'the emulator',
		);
		expect(statuses).toHaveLength(MAX_UNSENT_KINDS_NAMED + 2);
		expect(statuses[0]).toBe(
			'AgentRuntimeStreamChunk:status: a status the emulator does not send: "throttled"',
		);
		expect(statuses[1]).toBe(
			'AgentRuntimeStreamChunk:[42 characters]: a status the emulator does not send: "busy"',
		);
		expect(statuses[MAX_UNSENT_KINDS_NAMED + 1]).toBe(
			'stream: 80 more kinds of event with a status the emulator never sends',
		);
	});

	test('parseEvents reads CRLF, comments, id lines, several data lines and non-JSON data', () => {
		const events = parseEvents(
			': ping\r\nid: a@1-0\r\nevent: End\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: [DONE]\n\n',
		);
		expect(events).toEqual([
			{ event: 'End', data: { a: 1 } },
			{ event: 'message', data: '[DONE]' },
		]);
	});
});

test("an event past the node's bound on values: not parsed, said in the node's words, neither a kind nor saved", () => {
	// `[0,0,…]`: one value more than the node reads, two characters each.
	const zeros = `[${Array.from({ length: MAX_JSON_VALUES + 1 }, () => '0').join(',')}]`;
	const nested = `{"a":[${Array.from({ length: MAX_JSON_VALUES }, () => '[]').join(',')}]}`;
	const text =
		`event: RunUsageEvent\ndata: ${zeros}\n\n` +
		`data: ${nested}\n\n` +
		`event: RunUsageEvent\ndata: ${nested}\n\n` +
		'event: completed\ndata: {"status":"succeeded"}\n\n';
	const events = parseEvents(text);
	const refused = 'The JSON holds more than 1,000,000 values';
	// The data as it came is kept for the node's own reader alone (streamFailures), never parsed.
	expect(events).toEqual([
		{ event: 'RunUsageEvent', data: '', refused, dataText: zeros },
		{ event: 'message', data: '', refused, dataText: nested },
		{ event: 'RunUsageEvent', data: '', refused, dataText: nested },
		{ event: 'completed', data: { status: 'succeeded' } },
	]);
	expect(unknownEventNames(signaturesOf(events), ['completed'], events)).toEqual([
		'RunUsageEvent',
		'message',
	]);
	expect(refusedEvents(asTheNodeReadsThem(events))).toEqual([
		`stream: 2 RunUsageEvent events: ${refused}`,
		`stream: message: ${refused}`,
	]);
	expect([...signaturesOf(events).keys()]).toEqual(['completed']);
	const saved = redactStream(text, scrubberOf('tok_live_Secret123'));
	expect(saved).toBe(
		`event: RunUsageEvent\ndata: [${refused}]\n\n` +
			`data: [${refused}]\n\n` +
			`event: RunUsageEvent\ndata: [${refused}]\n\n` +
			'event: completed\ndata: {"status":"succeeded"}\n\n',
	);
});

test('events are read as the node reads them: the flat form by the name inside, `[DONE]` as nothing', () => {
	const events = asTheNodeReadsThem(
		parseEvents(
			'data: {"type":"completed","status":"succeeded"}\n\n' +
				'data: {"event_kind":"part_delta","index":0}\n\n' +
				'data: {"other":1}\n\n' +
				'data: [DONE]\n\n',
		),
	);
	expect(events).toEqual([
		{ event: 'completed', data: { status: 'succeeded' } },
		{ event: 'PartDeltaEvent', data: { index: 0 } },
		{ event: 'message', data: { other: 1 } },
	]);
});

describe('what a saved capture keeps', () => {
	const token = 'tok_live_Secret123';
	const stream = [
		'id: 3907e0ce@1789870143394-0',
		'event: FrontendModelRequest',
		`data: {"parts":[{"content":"my private file"}],"token":"${token}"}`,
		'',
		'id: 3907e0ce@1789870143394-1',
		'event: PartStartEvent',
		'data: {"index":0,"part":{"content":"Let me think","id":"reasoning_content","part_kind":"thinking","signature":"abc"},"metadata":{"zmid":"ya78zk76dv1h","runner_id":"aed0"}}',
		'',
		'event: PartStartEvent',
		`data: {"index":1,"part":{"content":"Four, con_eHdR4qvN6wGURY4Z ${token}","id":null,"part_kind":"text"}}`,
		'',
		'event: FunctionToolResultEvent',
		'data: {"result":{"content":{"stdout":"memory: my bank"},"outcome":"success","tool_call_id":"call_1"}}',
		'',
		'event: completed',
		'data: {"status":"succeeded","error":null,"runner_id":null}',
		'',
		'',
	].join('\n');

	test('no echo, no id lines, no text of any value; every field name, value type and enumeration stays', () => {
		const saved = redactStream(stream, scrubberOf(token));
		expect(saved).not.toContain('FrontendModelRequest');
		expect(saved).not.toContain('private file');
		expect(saved).not.toMatch(/^id:/m);
		for (const secret of [
			token,
			'ya78zk76dv1h',
			'aed0',
			'eHdR4qvN6wGURY4Z',
			'Let me think',
			'abc',
			'my bank',
			'call_1',
			'Four',
		]) {
			expect(saved).not.toContain(secret);
		}
		const answer = `Four, con_eHdR4qvN6wGURY4Z ${token}`;
		expect(saved).toContain(`"content":"[${answer.length} characters]"`);
		expect(saved).toContain('"part_kind":"thinking"');
		expect(saved).toContain('"outcome":"success"');
		expect(saved).toContain('"runner_id":null');
		expect(saved.endsWith('"status":"succeeded","error":null,"runner_id":null}\n\n')).toBe(true);
		const kinds = (text: string) =>
			[...signaturesOf(parseEvents(text)).entries()].map(([k, f]) => [k, [...f]]);
		expect(kinds(saved)).toEqual(kinds(stream).filter(([kind]) => kind !== 'FrontendModelRequest'));
	});

	const esc = (text: string) =>
		[...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

	test('the echo in the flat form, named by `type` anywhere in its JSON, is removed too', () => {
		const flat = [
			'data: {"parts":[{"content":"my private file"}],"type":"FrontendModelRequest"}',
			'',
			'data: {"type":"FrontendModelResponse","content":"Four"}',
			'',
			'',
		].join('\n');
		const saved = redactStream(flat, scrubberOf(token));
		expect(saved).not.toContain('FrontendModelRequest');
		expect(saved).not.toContain('private file');
		expect(saved).toBe('data: {"type":"FrontendModelResponse","content":"[4 characters]"}\n\n');
	});

	test("a runtime chunk's delta and result, an enumeration field holding words, and non-JSON data are replaced", () => {
		const chunks =
			'event: AgentRuntimeStreamChunk\ndata: {"type":"status","delta":"PRIVATE_DELTA","tool_name":"gmail","status":"progress","error":null,"result":{"stdout":"PRIVATE_TOOL_OUTPUT","status":"PRIVATE words in a status"},"data":null,"message_id":null,"runner_id":null}\n\n' +
			`event: AgentRuntimeStreamChunk\ndata: not json ${esc(token)} PRIVATE_RAW\n\n` +
			'data: [DONE]\n\n';
		const saved = redactStream(chunks, scrubberOf(token));
		for (const secret of ['PRIVATE', 'gmail', '\\u0074']) expect(saved).not.toContain(secret);
		expect(saved).toContain('"type":"status"');
		expect(saved).toContain('"status":"progress"');
		// The tool's data goes whole, its keys with it.
		expect(saved).toContain('"result":"[JSON: 69 characters]"');
		expect(saved).not.toContain('stdout');
		expect(saved).toContain('data: [not JSON: ');
		expect(saved.endsWith('data: [DONE]\n\n')).toBe(true);
	});

	test("enumeration fields in a tool's own JSON, arguments, metadata or error lose their values; the event's own keep theirs", () => {
		const enumerations = {
			type: 'ACME-Corp_acquisition-2026',
			status: 'jane.doe',
			kind: 'salary:184000',
		};
		// A tool's own JSON, its keys the user's words too.
		const tool = { ...enumerations, 'Jane Doe, Head of Sales': 1 };
		const events =
			sse('FunctionToolResultEvent', {
				event_kind: 'function_tool_result',
				result: { part_kind: 'tool-return', outcome: 'success', content: tool },
			}) +
			sse('FunctionToolCallEvent', {
				event_kind: 'function_tool_call',
				part: { part_kind: 'tool-call', args: tool },
			}) +
			sse('PartDeltaEvent', {
				event_kind: 'part_delta',
				delta: { part_delta_kind: 'tool_call', args_delta: tool },
				// The framework's metadata keeps its keys (zmid, runner_id): only its values go.
				metadata: enumerations,
			}) +
			sse('PartStartEvent', {
				event_kind: 'part_start',
				part: { part_kind: 'thinking', content: '', provider_details: tool },
			}) +
			sse('failed', { status: 'failed', error: tool, error_type: 'UserError' }) +
			sse('Error', { message: tool, detail: [tool] }) +
			sse('End', { output: tool }) +
			sse('AgentRuntimeStreamChunk', {
				type: 'status',
				status: 'progress',
				delta: tool,
				result: tool,
			});
		const saved = redactStream(events, scrubberOf(token));
		for (const secret of [...Object.values(enumerations), 'Jane Doe']) {
			expect(saved).not.toContain(secret);
		}
		for (const kept of [
			'"event_kind":"function_tool_result"',
			'"part_kind":"tool-return"',
			'"outcome":"success"',
			'"part_kind":"tool-call"',
			'"part_delta_kind":"tool_call"',
			'"part_kind":"thinking"',
			'"status":"failed"',
			'"error_type":"UserError"',
			'"type":"status"',
			'"status":"progress"',
		]) {
			expect(saved).toContain(kept);
		}
		expect(saved).toContain('"type":"[26 characters]"');
	});

	test('the scrubber takes out the token (cut, any letter case, escaped) and conversation ids', () => {
		expect(scrubberOf('ab')('a conv_0123abcd and con_AbC123 b')).toBe(
			'a con_[removed] and con_[removed] b',
		);
		const scrub = scrubberOf(token);
		expect(scrub(`x ${token.slice(0, 10)}`)).toBe('x [redacted]');
		expect(scrub(`x ${token.toUpperCase()} y`)).toBe('x [redacted] y');
		expect(
			scrub(
				`x ${[...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}`,
			),
		).not.toContain('\\u0074\\u006f');
	});
});
