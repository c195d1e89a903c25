/**
 * How the chat model turns LangChain's messages into one ask (docs/api.md#ask-request), and how
 * it finds the conversation to continue: pure logic, on the TypeScript sources.
 */
import type { Message } from '@n8n/ai-node-sdk';

import {
	conversationOfMark,
	markOfConversation,
	readMark,
} from '../../../nodes/AssistantChatModel/conversationMark';
import { planAsk } from '../../../nodes/AssistantChatModel/askPlan';
import { formatTranscript } from '../../../nodes/AssistantChatModel/messages';

const system = (text: string): Message => ({ role: 'system', content: [{ type: 'text', text }] });
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string, id?: string): Message => ({
	role: 'assistant',
	id,
	content: [{ type: 'text', text }],
});
const toolCall = (toolCallId: string, toolName: string, input: string): Message => ({
	role: 'assistant',
	content: [{ type: 'tool-call', toolCallId, toolName, input }],
});
const toolResult = (toolCallId: string, result: unknown, isError = false): Message => ({
	role: 'tool',
	content: [{ type: 'tool-result', toolCallId, result, isError }],
});

describe('messages become one ask', () => {
	test('a lone user message is sent as it is', () => {
		expect(planAsk([user('What is the capital of France?')])).toEqual({
			input: 'What is the capital of France?',
		});
	});

	test('system, user, AI and tool messages become one labelled transcript, in order', () => {
		const input = formatTranscript([
			system('Be brief.'),
			user('Hi'),
			assistant('Hello!'),
			toolCall('c1', 'calculator', '{"input":"1+1"}'),
			toolResult('c1', '2'),
			user('Thanks'),
		]);
		expect(input).toBe(
			[
				'Instructions:\nBe brief.',
				'User:\nHi',
				'Assistant:\nHello!',
				'Assistant:\n(called the tool calculator with the arguments {"input":"1+1"})',
				'Result of the tool calculator:\n2',
				'User:\nThanks',
			].join('\n\n'),
		);
	});

	test('a tool result names its tool through the call it answers; failures say so', () => {
		const input = formatTranscript([
			toolCall('c9', 'search', '{}'),
			toolResult('c9', { hits: 3 }, true),
		]);
		expect(input).toContain('Result of the tool search:\n(the tool failed) {"hits":3}');
	});

	test('tool results given as text blocks are sent as their text', () => {
		const input = formatTranscript([
			toolCall('c2', 'code', '{}'),
			toolResult('c2', [
				{ type: 'text', text: 'line one' },
				{ type: 'text', text: 'line two' },
			]),
		]);
		expect(input).toContain('Result of the tool code:\nline one\nline two');
	});

	test('reasoning and empty messages are left out', () => {
		const input = formatTranscript([
			{ role: 'assistant', content: [{ type: 'reasoning', text: 'thinking…' }] },
			user('Go on'),
		]);
		expect(input).toBe('Go on');
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
			toolCall(mark, 'calculator', '{"input":"6*7"}'),
			toolResult(mark, '42'),
		]);
		expect(plan).toEqual({
			conversationId: conversation,
			input: 'Result of the tool calculator:\n42',
		});
	});

	test("after the node's own answer a new user message continues the conversation", () => {
		const plan = planAsk([
			user('Hi, I am Ada'),
			assistant('Hello Ada', markOfConversation(conversation, 1)),
			user('What is my name?'),
		]);
		expect(plan).toEqual({ conversationId: conversation, input: 'What is my name?' });
	});

	test('a history that matches no conversation of the node starts a new one with the transcript', () => {
		const plan = planAsk([
			user('Hi'),
			assistant('Hello from another model', 'run-123'),
			user('Bye'),
		]);
		expect(plan.conversationId).toBeUndefined();
		expect(plan.input).toBe('User:\nHi\n\nAssistant:\nHello from another model\n\nUser:\nBye');
	});

	test("a history that ends with the node's own answer is sent whole, in a new conversation", () => {
		const plan = planAsk([user('Hi'), assistant('Hello', markOfConversation(conversation, 1))]);
		expect(plan.conversationId).toBeUndefined();
		expect(plan.input).toBe('User:\nHi\n\nAssistant:\nHello');
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
			toolCall(mark, 'calculator', '{"input":"6*7"}'),
			toolResult(mark, '42'),
			assistant('6 * 7 is 42.'),
			user('And doubled?'),
		]);
		expect(plan).toEqual({
			conversationId: conversation,
			input: 'And doubled?',
			catalogue: 'cafe0001',
		});
	});

	test("within an agent's turn only the tool result after the node's call is sent", () => {
		const first = markOfConversation(conversation, 2);
		const second = markOfConversation(conversation, 6);
		const plan = planAsk([
			user('What is 6 * 7?'),
			toolCall(first, 'calculator', '{"input":"6*7"}'),
			toolResult(first, '42'),
			assistant('42.'),
			user('And doubled?'),
			toolCall(second, 'calculator', '{"input":"42*2"}'),
			toolResult(second, '84'),
		]);
		expect(plan).toEqual({
			conversationId: conversation,
			input: 'Result of the tool calculator:\n84',
		});
	});
});

describe('Options > Conversation ID', () => {
	test('with no history of the node the new turn goes to the chosen conversation', () => {
		const plan = planAsk(
			[user('Hi'), assistant('Hello (from the memory)'), user('What did the Ask node say?')],
			'conv_from_ask',
		);
		expect(plan).toEqual({ conversationId: 'conv_from_ask', input: 'What did the Ask node say?' });
	});

	test('a first message goes whole, with its instructions', () => {
		const plan = planAsk([system('Be brief.'), user('Hi')], 'conv_from_ask');
		expect(plan).toEqual({
			conversationId: 'conv_from_ask',
			input: 'Instructions:\nBe brief.\n\nUser:\nHi',
		});
	});

	test('marks of the chosen conversation say what it holds, with its catalogue', () => {
		const mark = markOfConversation('conv_chosen', 2, 'cafe0002');
		const plan = planAsk(
			[user('6 * 7?'), toolCall(mark, 'calculator', '{}'), toolResult(mark, '42')],
			'conv_chosen',
		);
		expect(plan).toEqual({
			conversationId: 'conv_chosen',
			input: 'Result of the tool calculator:\n42',
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
		expect(plan).toEqual({ conversationId: 'conv_new', input: 'Next' });
	});
});
