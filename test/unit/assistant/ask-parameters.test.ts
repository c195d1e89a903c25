import { NodeOperationError } from 'n8n-workflow';

import { readAskParameters } from '../../../nodes/Assistant/actions/ask/askParameters';
import { readConcurrency } from '../../../nodes/Assistant/actions/ask/askOptions';
import type { ParameterContext } from '../../../nodes/shared/parameters/parameterErrors';
import { parameters } from './parameter-context';

function failure(
	values: Record<string, unknown>,
	read: (ctx: ParameterContext, itemIndex: number) => unknown = readAskParameters,
): NodeOperationError {
	try {
		read(parameters(values), 0);
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error('expected the parameters to be refused');
}

describe('Ask: what is sent', () => {
	test('only the input when nothing else is set: optional fields are left out', () => {
		const { request, options } = readAskParameters(parameters({ input: 'Hello' }), 0);
		expect(request).toEqual({ input: 'Hello' });
		expect(options).toEqual({
			stream: false,
			memory: true,
			useSuccessor: true,
			timeoutMs: 600_000,
			idleTimeoutMs: 300_000,
			retries: 2,
			answerLimitChars: 32_000_000,
		});
	});

	test('locators, conversation and memory off become request fields', () => {
		const { request } = readAskParameters(
			parameters({
				input: 'Hi',
				model: { __rl: true, mode: 'list', value: 'openai:gpt-5-mini' },
				persona: 'persona_pirate',
				conversationId: '  conv_1 ',
				options: { memory: false },
			}),
			0,
		);
		expect(request).toEqual({
			input: 'Hi',
			model_name: 'openai:gpt-5-mini',
			persona_id: 'persona_pirate',
			conversation_id: 'conv_1',
			memory_mode: 'off',
		});
	});

	test('timeouts are given in minutes and seconds, and sent on in milliseconds', () => {
		const { options } = readAskParameters(
			parameters({ input: 'x', options: { timeoutMinutes: 30, idleTimeoutSeconds: 45 } }),
			0,
		);
		expect(options).toMatchObject({ timeoutMs: 1_800_000, idleTimeoutMs: 45_000 });
	});

	test('a JSON example becomes the schema sent as output_format, marked as derived', () => {
		const { request, outputFormat } = readAskParameters(
			parameters({ input: 'x', responseFormat: 'jsonExample', jsonExample: '{"ok": true}' }),
			0,
		);
		const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
		expect(request.output_format).toEqual(schema);
		expect(outputFormat).toEqual({ schema, derived: true });
	});
});

describe('Ask: bad parameters are refused before anything is sent, naming the parameter', () => {
	test.each([
		['an empty input', { input: '  ' }, /^Input is empty$/],
		['an input that is an object', { input: { a: 1 } }, /^Input must be text$/],
		['a model ID with spaces', { input: 'x', model: 'claude haiku' }, /^Model ID "claude haiku"/],
		['a persona that is a number', { input: 'x', persona: 7 }, /^Persona must be an ID/],
		['a conversation ID that is a list', { input: 'x', conversationId: [] }, /^Conversation ID/],
		['an unknown response format', { input: 'x', responseFormat: 'xml' }, /^Response Format "xml"/],
		[
			'a JSON Schema that is empty (no default to fall back on)',
			{ input: 'x', responseFormat: 'jsonSchema' },
			/^JSON Schema is empty$/,
		],
		[
			'a JSON Schema whose root is a list',
			{ input: 'x', responseFormat: 'jsonSchema', jsonSchema: '{"type": "array"}' },
			/root must have "type": "object"/,
		],
		[
			'a JSON example that is not JSON',
			{ input: 'x', responseFormat: 'jsonExample', jsonExample: '{summary: 1}' },
			/^JSON Example is not valid JSON$/,
		],
		[
			'a JSON example with a null field',
			{ input: 'x', responseFormat: 'jsonExample', jsonExample: '{"a": {"b": null}}' },
			/^JSON Example: "a.b" is null/,
		],
		['a timeout of 0 minutes', { input: 'x', options: { timeoutMinutes: 0 } }, /^Timeout must/],
		['retries above 10', { input: 'x', options: { retries: 11 } }, /^Retries must be a number/],
		['Memory as text', { input: 'x', options: { memory: 'off' } }, /^Memory must be true or false/],
	])('%s', (_name, values, message) => {
		const error = failure(values);
		expect(error.message).toMatch(message);
		expect(error.description).toEqual(expect.any(String));
		expect(error.context.itemIndex).toBe(0);
	});

	test('Concurrency is a whole number from 1 to 20, checked with Ask', () => {
		expect(readConcurrency(parameters({ options: { concurrency: 5 } }))).toBe(5);
		expect(readConcurrency(parameters({}))).toBe(1);
		// A number an expression gives as text is read as the other options' are.
		expect(readConcurrency(parameters({ options: { concurrency: ' 3 ' } }))).toBe(3);
		for (const concurrency of [0, 21, 2.5, '3 items', '']) {
			const error = failure({ options: { concurrency } }, (ctx) => readConcurrency(ctx));
			expect(error.message).toMatch(/^Concurrency must be a whole number from 1 to 20/);
		}
	});
});
