import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';

/** docs/api.md#steps: every shape of tool call, tool result and thinking, each step once. */

type Event = [name: string, data: unknown];

function sse(events: Event[]): string {
	return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

function read(events: Event[], thinking = false, structured = false) {
	return readAnswerFromChunks([sse(events)], { structured, steps: { thinking } });
}

const end: Event = ['End', { data: { conversation_id: 'c1' } }];
const text = (index: number, content: string): Event[] => [
	['PartStartEvent', { index, part: { part_kind: 'text', content } }],
	['PartEndEvent', { index, part: { part_kind: 'text', content } }],
];
const call = {
	part_kind: 'builtin-tool-call',
	tool_name: 'search_mail',
	args: { query: 'invoice' },
	tool_call_id: 'call_1',
};
const callStep = {
	type: 'tool_call',
	tool_name: 'search_mail',
	args: { query: 'invoice' },
	tool_call_id: 'call_1',
};
const resultStep = {
	type: 'tool_result',
	tool_name: 'search_mail',
	tool_call_id: 'call_1',
	content: [{ subject: 'Invoice 42' }],
};
const returnPart = {
	part_kind: 'builtin-tool-return',
	tool_name: 'search_mail',
	content: [{ subject: 'Invoice 42' }],
	tool_call_id: 'call_1',
};

describe('steps from the stream (docs/api.md#steps)', () => {
	test('a builtin tool call and its return, in Part events, snapshots and both: each once, in order', () => {
		const message1: Event[] = [
			...text(0, 'Let me look.'),
			['PartStartEvent', { index: 1, part: call }],
			['PartEndEvent', { index: 1, part: call }],
			['FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Let me look.' }, call] }],
			['PartStartEvent', { index: 2, part: returnPart }],
			['PartEndEvent', { index: 2, part: returnPart }],
			[
				'FrontendModelResponse',
				{ parts: [{ part_kind: 'text', content: 'Let me look.' }, call, returnPart] },
			],
		];
		const result = read([...message1, ...text(0, 'You have one invoice.'), end]);
		expect(result.output).toBe('Let me look.\n\nYou have one invoice.');
		expect(result.steps).toEqual([callStep, resultStep]);
	});

	test('a function tool call (tool-call part, args as JSON text) and its result as separate events', () => {
		const part = { ...call, part_kind: 'tool-call', args: '{"query": "invoice"}' };
		const result = read([
			['PartStartEvent', { index: 0, part }],
			['PartEndEvent', { index: 0, part }],
			['FunctionToolCallEvent', { part, event_kind: 'function_tool_call' }],
			[
				'FunctionToolResultEvent',
				{ result: { ...returnPart, part_kind: 'tool-return' }, event_kind: 'function_tool_result' },
			],
			...text(0, 'One invoice.'),
			end,
		]);
		expect(result.steps).toEqual([callStep, resultStep]);
	});

	test('arguments and name growing through tool_call deltas', () => {
		const start = {
			part_kind: 'tool-call',
			tool_name: 'search_',
			args: '',
			tool_call_id: 'call_1',
		};
		const result = read([
			['PartStartEvent', { index: 0, part: start }],
			[
				'PartDeltaEvent',
				{
					index: 0,
					delta: { part_delta_kind: 'tool_call', tool_name_delta: 'mail', args_delta: '{"qu' },
				},
			],
			[
				'PartDeltaEvent',
				{ index: 0, delta: { part_delta_kind: 'tool_call', args_delta: 'ery": "invoice"}' } },
			],
			...text(0, 'Done.'),
			end,
		]);
		expect(result.steps).toEqual([callStep]);
	});

	describe('a call whose name grows through tool_name_delta', () => {
		const metadata = { zmid: 'r1' };
		const start = (named: object): Event => [
			'PartStartEvent',
			{
				index: 0,
				part: { part_kind: 'tool-call', args: '', tool_call_id: 'call_1', ...named },
				metadata,
			},
		];
		const delta = (name: string | null, args: string): Event => [
			'PartDeltaEvent',
			{
				index: 0,
				delta: { part_delta_kind: 'tool_call', tool_name_delta: name, args_delta: args },
				metadata,
			},
		];
		const snapshot = (name: string, args: string): Event => [
			'FrontendModelResponse',
			{ parts: [{ part_kind: 'tool-call', tool_name: name, args, tool_call_id: 'call_1' }] },
		];
		const after = (index: number): Event => [
			'PartStartEvent',
			{ index, part: { part_kind: 'text', content: 'Done.' }, metadata },
		];

		test.each([
			['an empty name', { tool_name: '' }],
			['no name', {}],
		])(
			'started again (same index, same zmid) with %s, its name grown again: the name is reset, not doubled',
			(_case, named) => {
				const told = [start(named), delta('search_', '{"query": '), delta('mail', '"invoice"}')];
				expect(read([...told, ...told, after(1), end]).steps).toEqual([callStep]);
				// pydantic-ai's output tool told so stays the answer, never a step.
				const output = [start(named), delta('final_', '{"a": '), delta('result', '1}')];
				const result = read([...output, ...output, end], false, true);
				expect(result.output).toEqual({ a: 1 });
				expect(result.steps).toEqual([]);
			},
		);

		test('told whole by a snapshot while its deltas were still growing it: not doubled', () => {
			const events = [
				start({ tool_name: '' }),
				delta('search_', '{"query": '),
				snapshot('search_mail', '{"query": "invoice"}'),
				delta('mail', '"invoice"}'),
				after(1),
				end,
			];
			expect(read(events).steps).toEqual([callStep]);
		});
	});

	test('arguments as object deltas are merged', () => {
		const result = read([
			[
				'PartStartEvent',
				{
					index: 0,
					part: { part_kind: 'tool-call', tool_name: 'search_mail', tool_call_id: 'call_1' },
				},
			],
			[
				'PartDeltaEvent',
				{ index: 0, delta: { part_delta_kind: 'tool_call', args_delta: { query: 'invoice' } } },
			],
			...text(0, 'Done.'),
			end,
		]);
		expect(result.steps).toEqual([callStep]);
	});

	test('thinking only with Include Thinking; its deltas and its end never doubled', () => {
		const events: Event[] = [
			['PartStartEvent', { index: 0, part: { part_kind: 'thinking', content: 'Hm, ' } }],
			[
				'PartDeltaEvent',
				{ index: 0, delta: { part_delta_kind: 'thinking', content_delta: 'mail.' } },
			],
			['FrontendModelResponse', { parts: [{ part_kind: 'thinking', content: 'Hm, mail.' }] }],
			['PartDeltaEvent', { index: 0, delta: { content_delta: ' Yes.' } }],
			['PartEndEvent', { index: 0, part: { content: 'Hm, mail. Yes.' } }],
			...text(1, 'Answer.'),
			end,
		];
		expect(read(events, true).steps).toEqual([{ type: 'thinking', content: 'Hm, mail. Yes.' }]);
		expect(read(events, false).steps).toEqual([]);
		expect(read(events, true).output).toBe('Answer.');
	});

	test('unreadable steps are left out and never break the answer; unknown kinds ignored', () => {
		const result = read([
			['PartStartEvent', { index: 0, part: { part_kind: 'tool-call', args: { a: 1 } } }],
			['PartStartEvent', { index: 1, part: { part_kind: 'file', content: { url: 'x' } } }],
			[
				'PartStartEvent',
				{ index: 2, part: { part_kind: 'tool-call', tool_name: 't', args: 'not json' } },
			],
			['FunctionToolResultEvent', { result: 'nonsense' }],
			['FunctionToolCallEvent', {}],
			['PartDeltaEvent', { index: 7, delta: { part_delta_kind: 'tool_call', args_delta: 5 } }],
			...text(3, 'Still the answer.'),
			end,
		]);
		expect(result.output).toBe('Still the answer.');
		expect(result.steps).toEqual([
			{ type: 'tool_call', tool_name: 't', args: { INVALID_JSON: 'not json' }, tool_call_id: null },
		]);
	});

	test("pydantic-ai's output tool (final_result) is the answer, not a step", () => {
		const finalCall = {
			part_kind: 'tool-call',
			tool_name: 'final_result',
			args: { a: 1 },
			tool_call_id: 'f',
		};
		const result = read(
			[
				['PartStartEvent', { index: 0, part: finalCall }],
				['PartEndEvent', { index: 0, part: finalCall }],
				['End', { output: { a: 1 } }],
			],
			false,
			true,
		);
		expect(result.output).toEqual({ a: 1 });
		expect(result.steps).toEqual([]);
	});

	test('the output tool whose name grows past `final_result` (`final_result_<Name>`) is no step; a start again as another tool is', () => {
		const toolDelta = (args: unknown, name: string | null = null): Event => [
			'PartDeltaEvent',
			{
				index: 0,
				delta: { part_delta_kind: 'tool_call', args_delta: args, tool_name_delta: name },
			},
		];
		const start = (name: string, id: string): Event => [
			'PartStartEvent',
			{ index: 0, part: { part_kind: 'tool-call', tool_name: name, args: '', tool_call_id: id } },
		];
		const named = read(
			[start('final_result', 'f'), toolDelta('{"a": ', '_Report'), toolDelta('1}'), end],
			false,
			true,
		);
		expect(named.output).toEqual({ a: 1 });
		expect(named.steps).toEqual([]);
		// The same index started again as a function tool's call: its deltas are that call's.
		const restarted = read([
			start('final_result', 'f'),
			toolDelta('{"a": 1}', '_Report'),
			start('read_file', 'r'),
			toolDelta('{"path": "a"}'),
			...text(1, 'Read.'),
			end,
		]);
		expect(restarted.steps).toEqual([
			{ type: 'tool_call', tool_name: 'read_file', args: { path: 'a' }, tool_call_id: 'r' },
		]);
	});

	test('the same index in two model messages is two steps; calls without ids told twice are one', () => {
		const first = { part_kind: 'tool-call', tool_name: 'read_file', args: { path: 'a' } };
		const second = { part_kind: 'tool-call', tool_name: 'read_file', args: { path: 'b' } };
		const result = read([
			['PartStartEvent', { index: 0, part: first }],
			['PartEndEvent', { index: 0, part: first }],
			['FunctionToolCallEvent', { part: first }],
			['PartStartEvent', { index: 0, part: second }],
			['FrontendModelResponse', { parts: [second] }],
			['FunctionToolCallEvent', { part: second }],
			...text(0, 'Both read.'),
			end,
		]);
		expect(result.steps).toEqual([
			{ type: 'tool_call', tool_name: 'read_file', args: { path: 'a' }, tool_call_id: null },
			{ type: 'tool_call', tool_name: 'read_file', args: { path: 'b' }, tool_call_id: null },
		]);
	});

	test('without steps asked for, none are collected', () => {
		const result = readAnswerFromChunks(
			[sse([['PartStartEvent', { index: 0, part: call }], ...text(1, 'x'), end])],
			{ structured: false },
		);
		expect(result.steps).toBeUndefined();
	});

	test('the model the stream names', () => {
		const result = read([
			[
				'FrontendModelResponse',
				{ parts: [{ part_kind: 'text', content: 'Hi' }], model_name: 'vendor:m' },
			],
			end,
		]);
		expect(result.model).toBe('vendor:m');
	});

	test('the flat form (event name inside the JSON) tells tool events too', () => {
		const flat = [
			{ type: 'PartStartEvent', index: 0, part: call },
			{ event_kind: 'function_tool_result', result: returnPart },
			{ type: 'PartStartEvent', index: 0, part: { part_kind: 'text', content: 'Done.' } },
			{ type: 'End', data: { conversation_id: 'c1' } },
		]
			.map((data) => `data: ${JSON.stringify(data)}\n\n`)
			.join('');
		const result = readAnswerFromChunks([flat], { structured: false, steps: { thinking: false } });
		expect(result.output).toBe('Done.');
		expect(result.steps).toEqual([callStep, resultStep]);
	});

	test('a snapshot that contradicts the steps at their places is of a new message', () => {
		const other = { ...call, tool_name: 'read_file', tool_call_id: 'call_2', args: { path: 'a' } };
		const result = read([
			['FrontendModelResponse', { parts: [call] }],
			['FrontendModelResponse', { parts: [other] }],
			['FrontendModelResponse', { parts: [{ part_kind: 'text', content: 'Both.' }] }],
			end,
		]);
		expect(result.steps).toEqual([
			callStep,
			{ type: 'tool_call', tool_name: 'read_file', args: { path: 'a' }, tool_call_id: 'call_2' },
		]);
	});
});

/**
 * Providers that number a response's tool calls (Kimi models on Fireworks or vLLM: `bash:0`,
 * from 0 in every response), whose ids pydantic-ai passes on: one id, a call in each model
 * message (docs/api.md#steps).
 */
describe('tool call ids that restart in each model response', () => {
	const meta = (zmid: string) => ({ zmid, runner_id: 'r-1' });
	const bash = (cmd: string, id = 'bash:0') => ({
		part_kind: 'tool-call',
		tool_name: 'bash',
		args: JSON.stringify({ cmd }),
		tool_call_id: id,
	});
	const returned = (content: string, id = 'bash:0', name: string | null = 'bash') => ({
		part_kind: 'tool-return',
		...(name ? { tool_name: name } : {}),
		content,
		tool_call_id: id,
		outcome: 'success',
	});
	/** A 2026 round: the call's start and its arguments' delta, then the tool's two events. */
	const round2026 = (zmid: string, cmd: string, out: string): Event[] => [
		['PartStartEvent', { index: 0, part: { ...bash(cmd), args: '' }, metadata: meta(zmid) }],
		[
			'PartDeltaEvent',
			{
				index: 0,
				delta: { part_delta_kind: 'tool_call', args_delta: bash(cmd).args, tool_call_id: 'bash:0' },
				metadata: meta(zmid),
			},
		],
		['FunctionToolCallEvent', { part: bash(cmd), metadata: meta(zmid) }],
		['FunctionToolResultEvent', { result: returned(out), metadata: meta(zmid) }],
	];
	const callStepOf = (cmd: string, id = 'bash:0') => ({
		type: 'tool_call',
		tool_name: 'bash',
		args: { cmd },
		tool_call_id: id,
	});
	const resultStepOf = (content: string, id = 'bash:0') => ({
		type: 'tool_result',
		tool_name: 'bash',
		tool_call_id: id,
		content,
		outcome: 'success',
	});
	const both = [
		callStepOf('ls'),
		resultStepOf('notes.md'),
		callStepOf('cat notes.md'),
		resultStepOf('Buy milk'),
	];
	const answer: Event[] = [
		[
			'PartStartEvent',
			{ index: 0, part: { part_kind: 'text', content: 'Buy milk.' }, metadata: meta('z3') },
		],
		['completed', { status: 'succeeded' }],
	];

	test('2026: each round’s call and result are steps of their own, in order', () => {
		const result = read([
			...round2026('z1', 'ls', 'notes.md'),
			...round2026('z2', 'cat notes.md', 'Buy milk'),
			...answer,
		]);
		expect(result.output).toBe('Buy milk.');
		expect(result.steps).toEqual(both);
	});

	test('2026: a response told again whole by a snapshot after its round still counts once', () => {
		const retold: Event = ['FrontendModelResponse', { parts: [bash('ls')] }];
		const result = read([
			...round2026('z1', 'ls', 'notes.md'),
			retold,
			...round2026('z2', 'cat notes.md', 'Buy milk'),
			...answer,
		]);
		expect(result.steps).toEqual(both);
	});

	test('the live dialect: a builtin call and its return in each message, one id', () => {
		const call = (query: string) => ({
			part_kind: 'builtin-tool-call',
			tool_name: 'web_search',
			args: { query },
			tool_call_id: 'web_search:0',
		});
		const ret = (content: string) => ({
			part_kind: 'builtin-tool-return',
			tool_name: 'web_search',
			content,
			tool_call_id: 'web_search:0',
		});
		const result = read([
			['PartStartEvent', { index: 0, part: call('paris weather') }],
			['PartStartEvent', { index: 1, part: ret('rain') }],
			['FrontendModelResponse', { parts: [call('paris weather'), ret('rain')] }],
			...text(0, 'Rain in Paris; and Rome?'),
			['PartStartEvent', { index: 1, part: call('rome weather') }],
			['PartEndEvent', { index: 1, part: call('rome weather') }],
			['PartStartEvent', { index: 2, part: ret('sun') }],
			...text(0, 'Sun in Rome.'),
			end,
		]);
		const step = (query: string, content: string) => [
			{ type: 'tool_call', tool_name: 'web_search', args: { query }, tool_call_id: 'web_search:0' },
			{ type: 'tool_result', tool_name: 'web_search', tool_call_id: 'web_search:0', content },
		];
		expect(result.steps).toEqual([
			...step('paris weather', 'rain'),
			...step('rome weather', 'sun'),
		]);
	});

	test('told by the tool events alone: a call whose result an event told has run, the next is another', () => {
		const result = read([
			['FunctionToolCallEvent', { part: bash('ls') }],
			['FunctionToolResultEvent', { result: returned('notes.md') }],
			['FunctionToolCallEvent', { part: bash('cat notes.md') }],
			['FunctionToolResultEvent', { result: returned('Buy milk') }],
			...text(0, 'Buy milk.'),
			end,
		]);
		expect(result.steps).toEqual(both);
	});

	test('a result that does not name its tool takes its own call’s name, not the other round’s', () => {
		const search = { ...bash('x', 'call_0'), tool_name: 'search', args: '{"q": "x"}' };
		const readFile = { ...bash('x', 'call_0'), tool_name: 'read', args: '{"path": "a"}' };
		const result = read([
			['PartStartEvent', { index: 0, part: search, metadata: meta('z1') }],
			['FunctionToolCallEvent', { part: search, metadata: meta('z1') }],
			[
				'FunctionToolResultEvent',
				{ result: returned('found a', 'call_0', null), metadata: meta('z1') },
			],
			['PartStartEvent', { index: 0, part: readFile, metadata: meta('z2') }],
			['FunctionToolCallEvent', { part: readFile, metadata: meta('z2') }],
			[
				'FunctionToolResultEvent',
				{ result: returned('text of a', 'call_0', null), metadata: meta('z2') },
			],
			...answer,
		]);
		expect(
			result.steps?.map((step) => [step.type, 'tool_name' in step ? step.tool_name : '']),
		).toEqual([
			['tool_call', 'search'],
			['tool_result', 'search'],
			['tool_call', 'read'],
			['tool_result', 'read'],
		]);
	});
});

/**
 * A snapshot of the next model message, its thinking alone, sent just before the rest of that
 * message (its Part events, or snapshots growing it): the answer's text cannot tell it from the
 * message before (it has none), its thinking can. The snapshot's thinking and what follows it are
 * one step (docs/api.md#steps, 2).
 */
describe('a snapshot of the next message, thinking alone, then the rest of that message', () => {
	const thinking = (index: number, content: string, metadata?: object): Event => [
		'PartStartEvent',
		{ index, part: { part_kind: 'thinking', content }, ...(metadata ? { metadata } : {}) },
	];
	const more = (index: number, content: string, metadata?: object): Event => [
		'PartDeltaEvent',
		{
			index,
			delta: { part_delta_kind: 'thinking', content_delta: content },
			...(metadata ? { metadata } : {}),
		},
	];
	const said = (index: number, content: string, metadata?: object): Event => [
		'PartStartEvent',
		{ index, part: { part_kind: 'text', content }, ...(metadata ? { metadata } : {}) },
	];
	const snapshot = (...parts: object[]): Event => ['FrontendModelResponse', { parts }];
	const thought = (content: string) => ({ type: 'thinking', content });
	/** The message before: thinking, text, then a builtin tool call (no tool round after it). */
	const before = (metadata?: object): Event[] => [
		thinking(0, 'I should search.', metadata),
		said(1, 'Let me look.', metadata),
		['PartStartEvent', { index: 2, part: call, ...(metadata ? { metadata } : {}) }],
		['PartEndEvent', { index: 2, part: call, ...(metadata ? { metadata } : {}) }],
	];

	test.each([
		['whole', 'Found it.'],
		['cut short', 'Fou'],
	])('live (no zmid), the snapshot %s: each thinking once', (_case, told) => {
		const result = read(
			[
				...before(),
				snapshot({ part_kind: 'thinking', content: told }),
				thinking(0, ''),
				more(0, 'Found'),
				more(0, ' it.'),
				said(1, 'One invoice.'),
				end,
			],
			true,
		);
		expect(result.output).toBe('Let me look.\n\nOne invoice.');
		expect(result.steps).toEqual([thought('I should search.'), callStep, thought('Found it.')]);
	});

	test('2026 (the next response named by its zmid): each thinking once', () => {
		const result = read(
			[
				...before({ zmid: 'z1' }),
				snapshot({ part_kind: 'thinking', content: 'Found' }),
				thinking(0, 'Fo', { zmid: 'z2' }),
				more(0, 'und it.', { zmid: 'z2' }),
				said(1, 'One invoice.', { zmid: 'z2' }),
				['completed', { status: 'succeeded' }],
			],
			true,
		);
		expect(result.output).toBe('Let me look.\n\nOne invoice.');
		expect(result.steps).toEqual([thought('I should search.'), callStep, thought('Found it.')]);
	});

	test('live: told by growing snapshots alone, the one with its text too: its thinking once', () => {
		const result = read(
			[
				...before(),
				snapshot({ part_kind: 'thinking', content: 'Fou' }),
				// Its text is not the message before's: there, the answer's text sees a new message.
				snapshot(
					{ part_kind: 'thinking', content: 'Found it.' },
					{ part_kind: 'text', content: 'One' },
				),
				snapshot(
					{ part_kind: 'thinking', content: 'Found it.' },
					{ part_kind: 'text', content: 'One invoice.' },
				),
				end,
			],
			true,
		);
		expect(result.output).toBe('Let me look.\n\nOne invoice.');
		expect(result.steps).toEqual([thought('I should search.'), callStep, thought('Found it.')]);
	});

	test('a snapshot after it that tells other thinking is another message', () => {
		const result = read(
			[
				...before(),
				snapshot({ part_kind: 'thinking', content: 'Found it.' }),
				snapshot(
					{ part_kind: 'thinking', content: 'Other.' },
					{ part_kind: 'text', content: 'One' },
				),
				end,
			],
			true,
		);
		expect(result.steps).toEqual([
			thought('I should search.'),
			callStep,
			thought('Found it.'),
			thought('Other.'),
		]);
	});

	test('a tool round between the snapshot and the Part events: those are the next message', () => {
		const result = read(
			[
				...before(),
				snapshot({ part_kind: 'thinking', content: 'Found it.' }),
				['FunctionToolCallEvent', { part: call }],
				['FunctionToolResultEvent', { result: returnPart }],
				thinking(0, 'Now answer.'),
				said(1, 'One invoice.'),
				end,
			],
			true,
		);
		expect(result.steps).toEqual([
			thought('I should search.'),
			callStep,
			thought('Found it.'),
			resultStep,
			thought('Now answer.'),
		]);
	});

	test('2026: after a snapshot holding a tool call, a named response is the next message', () => {
		const other = { ...call, tool_name: 'read_file', args: { path: 'a' }, tool_call_id: 'call_2' };
		const result = read(
			[
				...before({ zmid: 'z1' }),
				// Its text begins as the message before's: the answer's text takes it for that one.
				snapshot(
					{ part_kind: 'thinking', content: 'Found it.' },
					{ part_kind: 'text', content: 'Let' },
					other,
				),
				thinking(0, 'Now answer.', { zmid: 'z2' }),
				said(1, 'One invoice.', { zmid: 'z2' }),
				['completed', { status: 'succeeded' }],
			],
			true,
		);
		expect(result.steps).toEqual([
			thought('I should search.'),
			callStep,
			thought('Found it.'),
			{ type: 'tool_call', tool_name: 'read_file', args: { path: 'a' }, tool_call_id: 'call_2' },
			thought('Now answer.'),
		]);
	});
});

/**
 * A part started again in the same model response (a `PartStartEvent` again for its index, the
 * same `zmid`) is told from its beginning (docs/api.md#assembling-the-answer, 3): what a whole
 * view told of it before (its end, a snapshot, a tool event) is no longer the step.
 */
describe('a part told whole, then started again in the same response', () => {
	const metadata = { zmid: 'z1' };
	const bash = (cmd: string, name = 'bash') => ({
		part_kind: 'tool-call',
		tool_name: name,
		args: JSON.stringify({ cmd }),
		tool_call_id: 'call_1',
	});
	const told: Record<string, Event> = {
		'its end': ['PartEndEvent', { index: 0, part: bash('ls'), metadata }],
		'a snapshot': ['FrontendModelResponse', { parts: [bash('ls')] }],
		'a tool event': ['BuiltinToolCallEvent', { part: bash('ls'), metadata }],
	};
	const restart = (part: object, ...deltas: object[]): Event[] => [
		['PartStartEvent', { index: 0, part, metadata }],
		...deltas.map((delta): Event => [
			'PartDeltaEvent',
			{ index: 0, delta: { part_delta_kind: 'tool_call', ...delta }, metadata },
		]),
	];
	const answer: Event[] = [
		['PartStartEvent', { index: 1, part: { part_kind: 'text', content: 'Done.' }, metadata }],
		['completed', { status: 'succeeded' }],
	];
	const step = (cmd: string, name = 'bash', id: string | null = 'call_1') => ({
		type: 'tool_call',
		tool_name: name,
		args: { cmd },
		tool_call_id: id,
	});

	test.each(Object.keys(told))('told whole by %s, started again with other arguments', (by) => {
		const result = read([
			['PartStartEvent', { index: 0, part: { ...bash('ls'), args: '' }, metadata }],
			told[by],
			...restart({ ...bash('pwd'), args: '' }, { args_delta: '{"cmd": "pwd"}' }),
			...answer,
		]);
		expect(result.output).toBe('Done.');
		expect(result.steps).toEqual([step('pwd')]);
	});

	test.each(Object.keys(told))('told whole by %s, started again as another tool', (by) => {
		const result = read([
			['PartStartEvent', { index: 0, part: bash('ls'), metadata }],
			told[by],
			// Its name grown again through tool_name_delta.
			...restart(
				{ ...bash('pwd'), tool_name: '', args: '' },
				{
					tool_name_delta: 'shell',
					args_delta: '{"cmd": "pwd"}',
				},
			),
			...answer,
		]);
		expect(result.steps).toEqual([step('pwd', 'shell')]);
	});

	test('started again naming another tool, without an id: one step, the new one', () => {
		const unnamed = (cmd: string, name: string) => {
			const part: Record<string, unknown> = bash(cmd, name);
			delete part.tool_call_id;
			return part;
		};
		const result = read([
			['PartStartEvent', { index: 0, part: unnamed('ls', 'bash'), metadata }],
			['PartEndEvent', { index: 0, part: unnamed('ls', 'bash'), metadata }],
			['PartStartEvent', { index: 0, part: unnamed('pwd', 'shell'), metadata }],
			...answer,
		]);
		expect(result.steps).toEqual([step('pwd', 'shell', null)]);
	});

	test('a thinking part told whole by its end, started again: the new thinking', () => {
		const start = (content: string): Event => [
			'PartStartEvent',
			{ index: 0, part: { part_kind: 'thinking', content }, metadata },
		];
		const result = read(
			[
				start('Search mail.'),
				[
					'PartEndEvent',
					{ index: 0, part: { part_kind: 'thinking', content: 'Search mail.' }, metadata },
				],
				start('Read'),
				['PartDeltaEvent', { index: 0, delta: { content_delta: ' files.' }, metadata }],
				...answer,
			],
			true,
		);
		expect(result.steps).toEqual([{ type: 'thinking', content: 'Read files.' }]);
	});

	test('live: a snapshot before its first start is no earlier telling, it stays the step', () => {
		const result = read([
			['FrontendModelResponse', { parts: [bash('ls')] }],
			['PartStartEvent', { index: 0, part: { ...bash('ls'), args: '' } }],
			...text(1, 'Done.'),
			end,
		]);
		expect(result.steps).toEqual([step('ls')]);
	});
});
