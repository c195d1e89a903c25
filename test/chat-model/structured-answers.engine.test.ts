/**
 * The chat model's structured output is checked against its schema
 * (docs/chat-model.md: Response Format has "the same fields, checks and schema derivation as
 * Ask's structured output"; docs/ask.md: "The node checks the answer against the schema: one
 * with a required field missing, a field of another type or a value outside its `enum` fails the
 * item ... so a next node never gets an object without the fields it reads").
 */
import { assistantPackage, emulatorCredential } from '../helpers/assistant';
import { runChatModel, type ConsumerOutput, type Scenario } from '../helpers/chat-model';
import { serveScript } from '../helpers/scripted-server';

const TOKEN = 'secret-token-for-structured-answers';
const schema = {
	type: 'object',
	properties: {
		city: { type: 'string' },
		population: { type: 'number' },
		sentiment: { type: 'string', enum: ['positive', 'negative'] },
	},
	required: ['city', 'population', 'sentiment'],
};
/** Not the schema's object: population missing, a value outside the enum. */
const wrong = { city: 'Paris', sentiment: 'ecstatic' };

async function run(
	scenario: Scenario,
	answer: unknown,
	parameters = {},
	structuredSchema?: object,
) {
	const server = await serveScript(
		(response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ output: answer, conversation_id: 'con_StructuredAnsw01' }));
		},
		(response) => {
			response.writeHead(404);
			response.end();
		},
	);
	try {
		return await runChatModel(
			await assistantPackage(),
			scenario,
			[{ role: 'user', content: 'The largest city of France' }],
			parameters,
			{
				credentials: [emulatorCredential(server.baseUrl, TOKEN)],
				...(structuredSchema ? { structuredSchema: structuredSchema as never } : {}),
			},
		);
	} finally {
		await server.close();
	}
}

const responseFormat = { responseFormat: 'jsonSchema', jsonSchema: JSON.stringify(schema) };

test('Response Format (chain): an answer object that does not match the schema fails, it does not flow on', async () => {
	const result = await run('invoke', wrong, responseFormat);
	const output = result.error()
		? undefined
		: (result.outputs('Consumer')[0].json as ConsumerOutput);
	expect(output?.text).toBeUndefined();
	expect(result.error()?.message).toMatch(
		/^The assistant's answer does not match the JSON Schema: /,
	);
	expect(result.error()?.message).toContain('population: required');
	expect(result.error()?.description).toMatch(/^Its answer begins ".*Paris.*ecstatic/);
});

test('Response Format (chain): an answer object that matches the schema is the answer', async () => {
	const result = await run(
		'invoke',
		{ ...wrong, population: 2.1e6, sentiment: 'positive' },
		responseFormat,
	);
	expect(result.error()).toBeUndefined();
	expect(JSON.parse((result.outputs('Consumer')[0].json as ConsumerOutput).text)).toEqual({
		city: 'Paris',
		population: 2.1e6,
		sentiment: 'positive',
	});
});

test('Response Format with tools (agent): a final answer object that does not match the schema fails', async () => {
	const result = await run(
		'agent',
		{
			action: 'final_answer',
			final_answer: wrong,
			tool_name: 'calculator',
			tool_arguments_json: '{}',
		},
		responseFormat,
	);
	const output = result.error()
		? undefined
		: (result.outputs('Consumer')[0].json as ConsumerOutput);
	expect(output?.text).toBeUndefined();
	expect(result.error()?.message).toBe(
		`The assistant's tool call could not be used: "final_answer" does not match the schema: population: required; sentiment: must be one of "positive", "negative"`,
	);
});

test('SDK withStructuredOutput: an answer object that does not match the schema fails', async () => {
	const result = await run('sdkStructured', wrong, {}, schema);
	const output = result.error()
		? undefined
		: (result.outputs('Consumer')[0].json as ConsumerOutput);
	expect(output?.text).toBeUndefined();
	expect(result.error()?.message ?? '').toMatch(/does not match|schema/i);
});
