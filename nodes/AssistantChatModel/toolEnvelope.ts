import type { OutputFormatSchema } from '../shared/api';
import type { JsonSchema } from './toolArguments';
import { INVISIBLE_CHARACTER, quotedText, safeJson, unicodeEscapes } from './transcript';
import { parseJson } from '../shared/json';

/**
 * Tool calling over an API without it: the ask carries an `output_format` (docs/api.md#ask-request,
 * inside the service's schema subset) that lets the assistant either call one of the bound tools
 * or give its final answer, and the service enforces that shape. The subset has no `oneOf`, so the
 * arguments travel as JSON text and are checked against the tool's own schema here.
 */

export const ACTION_CALL_TOOL = 'call_tool';
export const ACTION_FINAL_ANSWER = 'final_answer';

export interface ToolForEnvelope {
	name: string;
	description?: string;
	/** The tool's parameters as JSON Schema (shown to the assistant). */
	parameters: JsonSchema | undefined;
}

/**
 * `answerSchema` (Response Format with tools bound): the final answer is that object rather than
 * text. The subset has no `oneOf` and every property is required, so a tool call fills it too,
 * with values that are ignored.
 */
export function toolEnvelopeSchema(
	tools: ToolForEnvelope[],
	answerSchema?: OutputFormatSchema,
): OutputFormatSchema {
	return {
		type: 'object',
		properties: {
			action: {
				type: 'string',
				// The final answer first: a service that fills the schema with defaults answers.
				enum: [ACTION_FINAL_ANSWER, ACTION_CALL_TOOL],
				description: `"${ACTION_CALL_TOOL}" to run one tool now and see its result; "${ACTION_FINAL_ANSWER}" when you can answer the user`,
			},
			final_answer: answerSchema
				? {
						...answerSchema,
						description: `With "${ACTION_FINAL_ANSWER}": the answer for the user as this object. Otherwise any values; they are ignored.`,
					}
				: {
						type: 'string',
						description: `With "${ACTION_FINAL_ANSWER}": the complete answer for the user. Otherwise empty.`,
					},
			tool_name: {
				type: 'string',
				enum: tools.map((tool) => shownToolName(tool.name)),
				description: `With "${ACTION_CALL_TOOL}": the tool to run. Otherwise any of the names; it is ignored.`,
			},
			tool_arguments_json: {
				type: 'string',
				description: `With "${ACTION_CALL_TOOL}": the tool's arguments as a JSON object that matches its parameters schema. Otherwise "{}".`,
			},
		},
		required: ['action', 'final_answer', 'tool_name', 'tool_arguments_json'],
	};
}

/**
 * A name the assistant could not be shown as it is: a character a reader cannot see
 * (transcript.ts's INVISIBLE_CHARACTER), a control, a quote or a backslash, or a Markdown
 * image's opening.
 */
const NOT_SHOWN_AS_IS = new RegExp(
	`[\\\\"\\u0000-\\u001f]|${INVISIBLE_CHARACTER.source}|!\\[|data:`,
	'iu',
);

/** Letters of the scripts whose letters pass for one another's (Latin a, Cyrillic а, Greek α). */
const LOOK_ALIKE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u];

/** White space that is not the ASCII space (a no-break or an ideographic space, …). */
const OTHER_SPACE = /[^\S ]/u;

const BEYOND_ASCII = /\P{ASCII}/u;
const BEYOND_ASCII_RUNS = /\P{ASCII}+/gu;

/** An ASCII space that a reader cannot count: at either end, or beside another. */
const UNCOUNTED_SPACES = /^ +| +$| {2,}/g;

/**
 * Whether a name could pass for another that looks the same: it mixes letters of look-alike
 * scripts (`send_mаil`, a Cyrillic а), holds white space other than the ASCII space, or holds
 * characters that Unicode's compatibility normalization changes (fullwidth `ｓ`, a letter and its
 * accent apart). Its characters beyond ASCII are then shown as escapes. A name in one script,
 * written as Unicode composes it (`天気`, `Kalender_prüfen`), is shown as it is.
 */
function passesForAnother(name: string): boolean {
	return (
		BEYOND_ASCII.test(name) &&
		(LOOK_ALIKE_SCRIPTS.filter((script) => script.test(name)).length > 1 ||
			OTHER_SPACE.test(name) ||
			name.normalize('NFKC') !== name)
	);
}

/**
 * The name the assistant is given for a tool, in the catalogue and in the output format's enum,
 * and calls it by: the tool's own name, or, where that could not be shown as it is
 * (NOT_SHOWN_AS_IS), the name as safeJson writes it inside its quotes, every such character a
 * visible escape; a name that could pass for another (passesForAnother) has its characters
 * beyond ASCII written as escapes too, and spaces a reader cannot count (at either end, two or
 * more together) are escapes in any name. The enum is the request's JSON, which the service
 * reads back: an escape in it would not stay one, so the escapes are the name's own characters.
 * A tool's name is an MCP server's as often as the workflow's. Names written so hold a
 * backslash and the others none, so no two tools are given the same name.
 */
export function shownToolName(name: string): string {
	let shown = NOT_SHOWN_AS_IS.test(name) ? safeJson(name).slice(1, -1) : name;
	if (passesForAnother(name)) shown = shown.replace(BEYOND_ASCII_RUNS, unicodeEscapes);
	return shown.replace(UNCOUNTED_SPACES, unicodeEscapes);
}

function catalogueOf(tools: ToolForEnvelope[]) {
	return tools.map((tool) => ({
		name: shownToolName(tool.name),
		description: tool.description ?? '',
		parameters: tool.parameters ?? { type: 'object', properties: {} },
	}));
}

/**
 * Sent after the transcript once per conversation, and again when the bound tools change: which
 * tools exist, with their schemas, and how to use them. The output format names the tools on
 * every ask. The catalogue is a third party's text as often as the workflow's (an MCP server's
 * tools, through n8n's MCP Client Tool): it is escaped as the messages are (safeJson), so that
 * no name, description or schema writes an image the service would take out, a line break, or an
 * invisible character; it parses back as the same JSON.
 */
export function toolInstructions(tools: ToolForEnvelope[]): string {
	const catalogue = catalogueOf(tools);
	return [
		'Tools you can use (answer with the JSON object of the output format):',
		'```json',
		safeJson(catalogue, 2),
		'```',
		`To use a tool, set "action" to "${ACTION_CALL_TOOL}", "tool_name" to its name and "tool_arguments_json" to its arguments as JSON text; you will get its result in the next message. Call one tool at a time. When you have what you need, set "action" to "${ACTION_FINAL_ANSWER}" and write the whole answer in "final_answer".`,
	].join('\n');
}

/**
 * Eight hex digits that change when the catalogue does (FNV-1a over its JSON): the conversation
 * marks carry it, so the next ask knows whether its conversation has these tools already. It is
 * of the catalogue as a value (plain JSON), not of the escaped text toolInstructions writes:
 * that text parses back as this value, so both name the same catalogue.
 */
export function catalogueFingerprint(tools: ToolForEnvelope[]): string {
	const text = JSON.stringify(catalogueOf(tools));
	let hash = 0x811c9dc5;
	for (let index = 0; index < text.length; index++) {
		hash ^= text.charCodeAt(index);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(16).padStart(8, '0');
}

export type EnvelopeReply =
	| { action: 'final_answer'; answer: string }
	/** `toolName`: the tool's own name, as the workflow knows it. */
	| { action: 'call_tool'; toolName: string; argumentsJson: string }
	| { action: 'invalid'; problem: string };

/** Reads the service's structured answer (an object, or its JSON text). */
export function readEnvelope(
	output: unknown,
	tools: ToolForEnvelope[],
	structured = false,
): EnvelopeReply {
	let value = output;
	if (typeof value === 'string') {
		try {
			value = parseJson(value);
		} catch {
			return {
				action: 'invalid',
				problem: 'the answer is not the JSON object of the output format',
			};
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		return { action: 'invalid', problem: 'the answer is not the JSON object of the output format' };
	}
	const reply = value as Record<string, unknown>;
	if (reply.action === ACTION_FINAL_ANSWER && structured) {
		const answer = reply.final_answer;
		if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
			return { action: 'invalid', problem: '"final_answer" is not the object of the schema' };
		}
		return { action: 'final_answer', answer: JSON.stringify(answer) };
	}
	if (reply.action === ACTION_FINAL_ANSWER) {
		const answer = typeof reply.final_answer === 'string' ? reply.final_answer : '';
		if (answer.trim() === '') return { action: 'invalid', problem: '"final_answer" is empty' };
		return { action: 'final_answer', answer };
	}
	if (reply.action === ACTION_CALL_TOOL) {
		const shown = reply.tool_name;
		const tool = tools.find((candidate) => shownToolName(candidate.name) === shown);
		if (typeof shown !== 'string' || !tool) {
			return {
				action: 'invalid',
				problem: `"tool_name" ${JSON.stringify(shown)} is not one of the tools (${tools.map((candidate) => shownToolName(candidate.name)).join(', ')})`,
			};
		}
		const args = reply.tool_arguments_json;
		const argumentsJson =
			typeof args === 'string' ? args : args === undefined ? '{}' : JSON.stringify(args);
		return { action: 'call_tool', toolName: tool.name, argumentsJson };
	}
	return {
		action: 'invalid',
		problem: `"action" must be "${ACTION_CALL_TOOL}" or "${ACTION_FINAL_ANSWER}" (got ${JSON.stringify(reply.action)})`,
	};
}

/**
 * The follow-up after a malformed call: what was wrong, and the same rules again. The reason
 * quotes the reply (a value it gave, a key it wrote), which the assistant may have taken from a
 * web page or a mail: it goes as one JSON string, never as lines of its own.
 */
export function correctionRequest(problem: string): string {
	return `Your last reply could not be used. What was wrong (it quotes your reply): ${quotedText(problem)}. Reply again with the JSON object of the output format: either call one tool with arguments that match its parameters schema, or give the final answer.`;
}
