// @ts-check
'use strict';

/**
 * Scripted replies for the Assistant Chat Model's asks, so that agent and chain tests in the
 * real n8n app are deterministic:
 *
 * - An ask whose `output_format` is the chat model's tool envelope (`action`: call_tool |
 *   final_answer, `tool_name`, `tool_arguments_json`, `final_answer`) is answered from the
 *   conversation's transcript: each tool the user's question names (e.g. "use the calculator")
 *   is called once, in the order of the tool list, with arguments built from its parameters
 *   schema (a calculator gets the arithmetic expression of the question); then the final answer
 *   quotes every tool result (an object built from the schema when the envelope's final_answer is
 *   an object schema). The tool list is the latest in the conversation's inputs. `#badargs=once` in the question makes the first call's arguments
 *   wrong until the model sends its correction; `#badargs=always` keeps them wrong.
 * - A plain ask whose input asks for JSON matching a "JSON Schema" instance in a ```json block
 *   (LangChain's structured output parser, used by the Information Extractor) is answered with
 *   such JSON, built from the schema.
 *
 * Anything else returns null: the emulator's usual reply applies.
 */

const { readTranscript, plainText } = require('./transcript');

/** @typedef {Record<string, unknown>} JsonObject */

const TOOLS_HEADER = 'Tools you can use';
const CORRECTION_START = 'Your last reply could not be used';
const ARITHMETIC_RE = /[-(]*\d+(?:\.\d+)?(?:\s*[-+*/^]\s*[(]*\d+(?:\.\d+)?[)]*)+/;

/**
 * @param {unknown} schema
 * @returns {boolean}
 */
function isToolEnvelope(schema) {
	const properties = /** @type {JsonObject | undefined} */ (
		typeof schema === 'object' && schema !== null
			? /** @type {JsonObject} */ (schema).properties
			: undefined
	);
	const action = /** @type {JsonObject | undefined} */ (properties?.action);
	return (
		Array.isArray(action?.enum) &&
		action.enum.includes('call_tool') &&
		properties !== undefined &&
		'tool_arguments_json' in properties
	);
}

/**
 * The envelope's `final_answer` when it is an object schema (the chat model's Response Format with
 * tools bound), or undefined when it is text.
 * @param {unknown} outputFormat
 * @returns {JsonObject | undefined}
 */
function objectAnswerSchema(outputFormat) {
	const properties = /** @type {JsonObject} */ (
		/** @type {JsonObject} */ (outputFormat).properties
	);
	const answer = /** @type {JsonObject | undefined} */ (properties.final_answer);
	return answer?.type === 'object' ? answer : undefined;
}

/**
 * The structured reply for a tool-envelope ask, or null for any other ask.
 * @param {unknown} outputFormat
 * @param {string} input  this ask's input
 * @param {string[]} earlier  the conversation's earlier inputs, oldest first
 * @returns {JsonObject | null}
 */
function scriptedOutput(outputFormat, input, earlier) {
	if (!isToolEnvelope(outputFormat)) return null;
	const answerSchema = objectAnswerSchema(outputFormat);
	const inputs = [...earlier, input];
	const transcript = inputs.join('\n\n');
	const tools = toolCatalogue(inputs);
	const question = userQuestion(inputs);
	const results = toolResults(inputs);
	const wanted = tools.filter((tool) => mentions(question, tool.name));
	const next = wanted.find((tool) => !results.has(tool.name));
	if (next) {
		const corrected = transcript.includes(CORRECTION_START);
		const bad = /#badargs=always/.test(question) || (/#badargs=once/.test(question) && !corrected);
		const args = bad ? { unexpected: 'value' } : argumentsFor(next, question);
		return {
			action: 'call_tool',
			final_answer: answerSchema ? valueFor('output', answerSchema, question) : '',
			tool_name: next.name,
			tool_arguments_json: JSON.stringify(args),
		};
	}
	const quoted = [...results].map(([name, result]) => `${name} returned ${result.trim()}`);
	const text =
		quoted.length > 0 ? `The tools answered: ${quoted.join('; ')}.` : `You said: "${question}".`;
	return {
		action: 'final_answer',
		final_answer: answerSchema ? valueFor('output', answerSchema, text) : text,
		tool_name: tools[0]?.name ?? '',
		tool_arguments_json: '{}',
	};
}

/**
 * The text reply for a plain ask that asks for JSON matching a schema, or null.
 * @param {string} asked
 * @returns {string | null}
 */
function scriptedText(asked) {
	const input = plainText(asked);
	if (!input.includes('"JSON Schema" instance')) return null;
	const block = /```json\s*\n([\s\S]*?)\n```/.exec(
		input.slice(input.indexOf('"JSON Schema" instance')),
	);
	if (!block) return null;
	let schema;
	try {
		schema = JSON.parse(block[1]);
	} catch {
		return null;
	}
	const subject = input.replace(/```[\s\S]*?```/g, '').trim();
	return `\`\`\`json\n${JSON.stringify(valueFor('output', schema, subject))}\n\`\`\``;
}

/**
 * The latest tool catalogue: it follows a transcript's messages (or is a lone input's text).
 * @param {string[]} inputs
 * @returns {Array<{ name: string, parameters: JsonObject }>}
 */
function toolCatalogue(inputs) {
	for (let index = inputs.length - 1; index >= 0; index--) {
		const text = readTranscript(inputs[index])?.catalogue ?? inputs[index];
		const at = text.lastIndexOf(TOOLS_HEADER);
		if (at < 0) continue;
		const block = /```json\s*\n([\s\S]*?)\n```/.exec(text.slice(at));
		if (!block) return [];
		try {
			const tools = JSON.parse(block[1]);
			return Array.isArray(tools) ? tools : [];
		} catch {
			return [];
		}
	}
	return [];
}

/**
 * The latest user message of the transcripts (a correction is not one).
 * @param {string[]} inputs
 */
function userQuestion(inputs) {
	for (let index = inputs.length - 1; index >= 0; index--) {
		const transcript = readTranscript(inputs[index]);
		if (!transcript) continue;
		const user = transcript.messages.filter((message) => message.role === 'user').pop();
		if (user) return String(user.content).trim();
	}
	return '';
}

/**
 * Every tool result of the conversation, by tool.
 * @param {string[]} inputs
 */
function toolResults(inputs) {
	/** @type {Map<string, string>} */
	const results = new Map();
	for (const input of inputs) {
		for (const message of readTranscript(input)?.messages ?? []) {
			if (message.role === 'tool') results.set(String(message.tool), String(message.content));
		}
	}
	return results;
}

/**
 * @param {string} question
 * @param {string} toolName
 */
function mentions(question, toolName) {
	const text = question.toLowerCase();
	const name = toolName.toLowerCase();
	return text.includes(name) || text.includes(name.replace(/_/g, ' '));
}

/**
 * Required parameters (all of them when none is required), built from their schemas.
 * @param {{ name: string, parameters: JsonObject }} tool
 * @param {string} question
 */
function argumentsFor(tool, question) {
	const properties = /** @type {Record<string, JsonObject>} */ (tool.parameters?.properties ?? {});
	const listed = /** @type {unknown} */ (tool.parameters?.required);
	const required = Array.isArray(listed) && listed.length > 0 ? listed : Object.keys(properties);
	const plain = question.replace(/#\w+=\S*/g, '').trim();
	const expression = ARITHMETIC_RE.exec(plain)?.[0];
	const text = /calc|math/i.test(tool.name) && expression ? expression : plain;
	/** @type {JsonObject} */
	const args = {};
	for (const name of required) {
		if (properties[name]) args[name] = valueFor(name, properties[name], text);
	}
	return args;
}

/**
 * @param {string} name
 * @param {JsonObject} schema
 * @param {string} text
 * @returns {unknown}
 */
function valueFor(name, schema, text) {
	const types = Array.isArray(schema.type) ? schema.type : [schema.type];
	const type = types.find((candidate) => candidate !== 'null') ?? 'string';
	if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
	switch (type) {
		case 'number':
		case 'integer':
			return 42;
		case 'boolean':
			return true;
		case 'array':
			return [valueFor(name, /** @type {JsonObject} */ (schema.items ?? {}), text)];
		case 'object': {
			/** @type {JsonObject} */
			const out = {};
			const properties = /** @type {Record<string, JsonObject>} */ (schema.properties ?? {});
			for (const [key, property] of Object.entries(properties)) {
				out[key] = valueFor(key, property, text);
			}
			return out;
		}
		default:
			return name === 'output' || /input|query|question|text/i.test(name)
				? text
				: `${name} of ${text.slice(0, 40)}`;
	}
}

module.exports = { scriptedOutput, scriptedText, isToolEnvelope };
