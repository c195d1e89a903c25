/**
 * How the chat model turns LangChain's messages into one ask (docs/api.md#ask-request), and how
 * it finds the conversation to continue: pure logic, on the TypeScript sources.
 */

import {
	conversationOfMark,
	markOfConversation,
	readMark,
} from '../../../nodes/AssistantChatModel/conversationMark';
import { isHeldAnswer, planAsk, type PlannedAsk } from '../../../nodes/AssistantChatModel/askPlan';
import { formatTranscript } from '../../../nodes/AssistantChatModel/messages';
import { readTranscript } from '../../../nodes/AssistantChatModel/transcript';
import { assistant, system, toolCall, toolResult, user } from './sdk-messages';

/** What the assistant reads: the messages of the transcript. */
const entriesOf = (input: string) => readTranscript(input)?.entries;

/**
 * A plan with its input read back into its messages (nothing was left out of these); the answer
 * the history held is tested on its own.
 */
function read(plan: PlannedAsk) {
	const { input, leftOut, heldAnswer, ...rest } = plan;
	expect(heldAnswer === undefined || typeof heldAnswer === 'string').toBe(true);
	expect(leftOut).toEqual([]);
	return { ...rest, messages: entriesOf(input) };
}

/** The node's call of the calculator on `expression`, and the calculator's result. */
const calculatorRound = (callId: string, expression: string, result: string) => [
	toolCall(callId, 'calculator', JSON.stringify({ input: expression })),
	toolResult(callId, result),
];

/** A plan that continues `conversationId`, named by the history's mark, with the calculator's result alone. */
const calculatorResultIn = (conversationId: string, content: string) => ({
	conversationId,
	conversationFrom: 'mark',
	messages: [{ role: 'tool', tool: 'calculator', content }],
});

describe('messages become one ask', () => {
	test('a lone user message is a transcript of one message too', () => {
		const plan = planAsk([user('What is the capital of France?')]);
		expect(plan.conversationId).toBeUndefined();
		expect(entriesOf(plan.input)).toEqual([
			{ role: 'user', content: 'What is the capital of France?' },
		]);
		expect(plan.leftOut).toEqual([]);
	});

	test('system, user, AI and tool messages become one message each, in order', () => {
		const { input } = formatTranscript([
			system('Be brief.'),
			user('Hi'),
			assistant('Hello!'),
			...calculatorRound('c1', '1+1', '2'),
			user('Thanks'),
		]);
		expect(entriesOf(input)).toEqual([
			{ role: 'instructions', content: 'Be brief.' },
			{ role: 'user', content: 'Hi' },
			{ role: 'assistant', content: 'Hello!' },
			{
				role: 'assistant',
				content: '',
				toolCalls: [{ id: 'c1', tool: 'calculator', arguments: '{"input":"1+1"}' }],
			},
			{ role: 'tool', tool: 'calculator', toolCallId: 'c1', content: '2' },
			{ role: 'user', content: 'Thanks' },
		]);
		// Arguments that are a JSON object are embedded as JSON, for the assistant to read.
		expect(input).toContain(
			'"tool_calls":[{"id":"c1","tool":"calculator","arguments":{"input":"1+1"}}]',
		);
	});

	test('a tool result names its tool through the call it answers; failures say so', () => {
		const { input } = formatTranscript([
			toolCall('c9', 'search', '{}'),
			toolResult('c9', { hits: 3 }, true),
		]);
		expect(entriesOf(input)?.[1]).toEqual({
			role: 'tool',
			tool: 'search',
			toolCallId: 'c9',
			failed: true,
			content: '{"hits":3}',
		});
	});

	test('two calls of one tool answered out of order: each result names the call it answers', () => {
		// Another model's turn, kept by the agent's memory, called the calculator twice at once; the
		// results came back in the other order. Without the ids, 1+1 would read as 4.
		const { input } = formatTranscript([
			user('What are 1+1 and 2+2?'),
			{
				role: 'assistant',
				content: [
					{
						type: 'tool-call',
						toolCallId: 'call_a',
						toolName: 'calculator',
						input: '{"input":"1+1"}',
					},
					{
						type: 'tool-call',
						toolCallId: 'call_b',
						toolName: 'calculator',
						input: '{"input":"2+2"}',
					},
				],
			},
			toolResult('call_b', '4'),
			toolResult('call_a', '2'),
		]);
		expect(entriesOf(input)?.slice(1)).toEqual([
			{
				role: 'assistant',
				content: '',
				toolCalls: [
					{ id: 'call_a', tool: 'calculator', arguments: '{"input":"1+1"}' },
					{ id: 'call_b', tool: 'calculator', arguments: '{"input":"2+2"}' },
				],
			},
			{ role: 'tool', tool: 'calculator', toolCallId: 'call_b', content: '4' },
			{ role: 'tool', tool: 'calculator', toolCallId: 'call_a', content: '2' },
		]);
		expect(input).toContain(
			'{"role":"tool","tool":"calculator","tool_call_id":"call_b","content":"4"}',
		);
	});

	test('a call and a result without an id (or with an empty one) are written without one', () => {
		const { input } = formatTranscript([
			{
				role: 'assistant',
				content: [{ type: 'tool-call', toolName: 'calculator', input: '{"input":"1+1"}' }],
			},
			toolResult('', '2'),
		]);
		expect(input.split('\n').slice(2, 4)).toEqual([
			'{"role":"assistant","content":"","tool_calls":[{"tool":"calculator","arguments":{"input":"1+1"}}]},',
			'{"role":"tool","tool":"(unnamed)","content":"2"}',
		]);
	});

	test("the node's own call and its result are written without the node's mark for an id", () => {
		// One call per answer, answered by the result after it: the mark is the node's bookkeeping.
		const mark = markOfConversation('conv_old', 2, 'cafe0004');
		const { input } = formatTranscript([
			...calculatorRound(mark, '6*7', '42'),
			...calculatorRound('assistant-answer:4', '6*8', '48'),
		]);
		expect(input).not.toContain('assistant-');
		expect(entriesOf(input)?.slice(0, 2)).toEqual([
			{
				role: 'assistant',
				content: '',
				toolCalls: [{ tool: 'calculator', arguments: '{"input":"6*7"}' }],
			},
			{ role: 'tool', tool: 'calculator', content: '42' },
		]);
	});

	test("a user message keeps its author's name (a chat of several users); other roles' are not written", () => {
		const { input } = formatTranscript([
			{ ...system('Be brief.'), name: 'setup' },
			{ ...user('Book the room'), name: 'Ada' },
			{ ...user('For three'), name: '' },
			{ ...assistant('Done'), name: 'helper' },
		]);
		expect(entriesOf(input)).toEqual([
			{ role: 'instructions', content: 'Be brief.' },
			{ role: 'user', name: 'Ada', content: 'Book the room' },
			{ role: 'user', content: 'For three' },
			{ role: 'assistant', content: 'Done' },
		]);
		expect(input).toContain('{"role":"user","name":"Ada","content":"Book the room"}');
	});

	test('tool results given as text blocks are sent as their text', () => {
		const { input } = formatTranscript([
			toolCall('c2', 'code', '{}'),
			toolResult('c2', [
				{ type: 'text', text: 'line one' },
				{ type: 'text', text: 'line two' },
			]),
		]);
		expect(entriesOf(input)?.[1]).toEqual({
			role: 'tool',
			tool: 'code',
			toolCallId: 'c2',
			content: 'line one\nline two',
		});
	});

	test('reasoning is not part of what a message says; the message itself stays', () => {
		const { input } = formatTranscript([
			{ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking…' }] },
			user('Go on'),
		]);
		expect(entriesOf(input)).toEqual([
			{ role: 'assistant', content: '' },
			{ role: 'user', content: 'Go on' },
		]);
	});

	test('the workflow tool catalogue goes after the messages', () => {
		const { input } = formatTranscript([user('6 * 7?')], undefined, {
			catalogue: 'Tools you can use: …',
		});
		expect(readTranscript(input)).toEqual({
			entries: [{ role: 'user', content: '6 * 7?' }],
			catalogue: 'Tools you can use: …',
		});
	});
});

describe('conversations are continued from the history', () => {
	const conversation = 'conv_61c3:b0/aa';

	test('a conversation mark survives any characters in the id', () => {
		const mark = markOfConversation(conversation, 3);
		expect(conversationOfMark(mark)).toBe(conversation);
		expect(conversationOfMark('call_abc')).toBeUndefined();
		expect(conversationOfMark(undefined)).toBeUndefined();
	});

	test("after the node's own tool call only the new messages are sent, in its conversation", () => {
		const mark = markOfConversation(conversation, 2);
		const plan = planAsk([
			system('Be brief.'),
			user('6 * 7?'),
			...calculatorRound(mark, '6*7', '42'),
		]);
		expect(read(plan)).toEqual(calculatorResultIn(conversation, '42'));
	});

	test("after the node's own answer a new user message continues the conversation", () => {
		const plan = planAsk([
			user('Hi, I am Ada'),
			assistant('Hello Ada', markOfConversation(conversation, 1)),
			user('What is my name?'),
		]);
		expect(read(plan)).toEqual({
			conversationId: conversation,
			conversationFrom: 'mark',
			messages: [{ role: 'user', content: 'What is my name?' }],
		});
	});

	test('a message that repeats the one the history’s last answer answered: the plan holds that answer, and a recovered answer equal to it may be that turn’s', () => {
		const plan = planAsk([
			user('yes'),
			assistant('Done: I sent the mail to Bob.', markOfConversation(conversation, 1)),
			user('yes'),
		]);
		expect(plan.heldAnswer).toBe('Done: I sent the mail to Bob.');
		expect(isHeldAnswer('Done: I sent the mail to Bob.\n', plan.heldAnswer!)).toBe(true);
		// As the tool envelope's final answer too; another answer is this ask's own.
		const envelope = { action: 'final_answer', final_answer: 'Done: I sent the mail to Bob.' };
		expect(isHeldAnswer(envelope, plan.heldAnswer!)).toBe(true);
		expect(isHeldAnswer('Sent it again.', plan.heldAnswer!)).toBe(false);
		expect(isHeldAnswer({ action: 'call_tool', final_answer: '' }, plan.heldAnswer!)).toBe(false);
		// A new conversation holds no earlier answer; another message than the one the last answer
		// answered cannot be taken for it.
		expect(planAsk([user('yes')]).heldAnswer).toBeUndefined();
		const another = planAsk([
			user('yes'),
			assistant('Done: I sent the mail to Bob.', markOfConversation(conversation, 1)),
			user('And to Ada'),
		]);
		expect(another.heldAnswer).toBeUndefined();
	});

	test('a history that matches no conversation of the node starts a new one with the transcript', () => {
		const plan = planAsk([
			user('Hi'),
			assistant('Hello from another model', 'run-123'),
			user('Bye'),
		]);
		expect(plan.conversationId).toBeUndefined();
		expect(entriesOf(plan.input)).toEqual([
			{ role: 'user', content: 'Hi' },
			{ role: 'assistant', content: 'Hello from another model' },
			{ role: 'user', content: 'Bye' },
		]);
	});

	test("a history that ends with the node's own answer is sent whole, in a new conversation", () => {
		const plan = planAsk([user('Hi'), assistant('Hello', markOfConversation(conversation, 1))]);
		expect(plan.conversationId).toBeUndefined();
		expect(entriesOf(plan.input)).toEqual([
			{ role: 'user', content: 'Hi' },
			{ role: 'assistant', content: 'Hello' },
		]);
	});

	test('a mark carries the tool catalogue its conversation holds; older marks carry none', () => {
		expect(readMark(markOfConversation(conversation, 4, '0badf00d'))).toEqual({
			conversationId: conversation,
			catalogue: '0badf00d',
		});
		expect(readMark(`assistant-conversation:${encodeURIComponent(conversation)}:4`)).toEqual({
			conversationId: conversation,
		});
		expect(readMark('assistant-conversation:a:1:b:c')).toBeUndefined();
	});
});

describe('a conversation never receives a message twice', () => {
	const conversation = 'conv_memory';

	test('a memory that kept the tool call and the final answer sends the new user message alone', () => {
		// Simple Memory across executions: the agent's memory keeps its tool call (marked) and its
		// final answer (without the id), then the next execution adds the new user message.
		const mark = markOfConversation(conversation, 2, 'cafe0001');
		const plan = planAsk([
			system('You are a helpful assistant.'),
			user('What is 6 * 7?'),
			...calculatorRound(mark, '6*7', '42'),
			assistant('6 * 7 is 42.'),
			user('And doubled?'),
		]);
		expect(read(plan)).toEqual({
			conversationId: conversation,
			conversationFrom: 'mark',
			messages: [{ role: 'user', content: 'And doubled?' }],
			catalogue: 'cafe0001',
		});
	});

	test("within an agent's turn only the tool result after the node's call is sent", () => {
		const first = markOfConversation(conversation, 2);
		const second = markOfConversation(conversation, 6);
		const plan = planAsk([
			user('What is 6 * 7?'),
			...calculatorRound(first, '6*7', '42'),
			assistant('42.'),
			user('And doubled?'),
			...calculatorRound(second, '42*2', '84'),
		]);
		expect(read(plan)).toEqual(calculatorResultIn(conversation, '84'));
	});

	test('a turn the node answered in a conversation the service did not name is said to be begun', () => {
		// The call's id is the node's own, unmarked: the service named no conversation.
		const begun = planAsk([
			user('Email Bob, then: 6 * 7?'),
			...calculatorRound('assistant-answer:1', '6*7', '42'),
		]);
		expect(begun.conversationId).toBeUndefined();
		expect(begun.turnBegunUnnamed).toBe(true);
		// Such a call in an earlier turn (a chat memory's), before the new user message: not this turn's.
		const earlier = planAsk([
			user('What is 6 * 7?'),
			...calculatorRound('assistant-answer:1', '6*7', '42'),
			assistant('42.'),
			user('And doubled?'),
		]);
		expect(earlier.turnBegunUnnamed).toBeUndefined();
		// A call of another model (its own id) is no answer of this node's.
		expect(
			planAsk([user('6 * 7?'), ...calculatorRound('call_1', '6*7', '42')]).turnBegunUnnamed,
		).toBeUndefined();
	});
});

describe('Options > Conversation ID', () => {
	test('with no history of the node the new turn goes to the chosen conversation', () => {
		const plan = planAsk(
			[user('Hi'), assistant('Hello (from the memory)'), user('What did the Ask node say?')],
			'conv_from_ask',
		);
		expect(read(plan)).toEqual({
			conversationId: 'conv_from_ask',
			conversationFrom: 'option',
			messages: [{ role: 'user', content: 'What did the Ask node say?' }],
		});
	});

	test('a first message goes whole, with its instructions', () => {
		const plan = planAsk([system('Be brief.'), user('Hi')], 'conv_from_ask');
		expect(read(plan)).toEqual({
			conversationId: 'conv_from_ask',
			conversationFrom: 'option',
			messages: [
				{ role: 'instructions', content: 'Be brief.' },
				{ role: 'user', content: 'Hi' },
			],
		});
	});

	test('marks of the chosen conversation say what it holds, with its catalogue', () => {
		const mark = markOfConversation('conv_chosen', 2, 'cafe0002');
		const plan = planAsk(
			[user('6 * 7?'), toolCall(mark, 'calculator', '{}'), toolResult(mark, '42')],
			'conv_chosen',
		);
		expect(read(plan)).toEqual({
			conversationId: 'conv_chosen',
			conversationFrom: 'option',
			messages: [{ role: 'tool', tool: 'calculator', content: '42' }],
			catalogue: 'cafe0002',
		});
	});

	test('marks of another conversation give way to the chosen one, and its catalogue is not assumed', () => {
		const mark = markOfConversation('conv_old', 2, 'cafe0003');
		const plan = planAsk(
			[
				user('6 * 7?'),
				toolCall(mark, 'calculator', '{}'),
				toolResult(mark, '42'),
				assistant('42'),
				user('Next'),
			],
			'conv_new',
		);
		expect(read(plan)).toEqual({
			conversationId: 'conv_new',
			conversationFrom: 'option',
			messages: [{ role: 'user', content: 'Next' }],
		});
	});
});
