import type {
	ConversationMessage,
	ConversationResponse,
	OutputFormatSchema,
	Unchecked,
} from '../api';
import { withoutImages } from '../images';
import { objectFromText, type TextObjectRule } from '../outputFormat/structuredText';
import { isObject, objectOfJson } from '../json';
import { isBlank } from '../stream/answerFailure';
import { messageText, turnText } from '../stream/assembly';
import { chosenOutputObject, isOutputTool } from '../stream/outputTool';

/**
 * What a conversation says about one ask, once it is no longer running
 * (docs/api.md#recovery-after-a-failure). Pure: the conversation comes as it was read.
 *
 * The ask was taken when the conversation's last request that carries a prompt is this ask's
 * input (the same text, line endings, surrounding whitespace and images aside: the service takes
 * an input's images out of its text, docs/api.md#images; a tool round's request carries one only
 * as pydantic-ai puts a user's prompt there, promptOf); the answer is then what the stream of
 * that turn gives unbroken: the text of every `response` after that request, joined as the
 * stream joins its messages (stream/assembly.ts's turnText: a public client would take the last
 * `text` part alone, and the item's output would depend on whether the stream broke), or, for a
 * structured ask, as the stream reads it: the object of pydantic-ai's output tool call
 * (`final_result…`; of several, the one the stream would choose: the first that matches
 * `answerSchema`), else the last response's text by the ask's rule. A last response inside a
 * tool round (it calls a tool, or a tool's return follows it) is no answer: the run stopped
 * before the model had its say.
 */
export type TurnReading =
	| { kind: 'answered'; output: string | Record<string, unknown> }
	/** The conversation's last prompt is not this input: the ask was never taken. */
	| { kind: 'not-taken' }
	/** Taken, but nothing after it is an answer. */
	| { kind: 'no-answer' }
	/** A structured ask taken, whose answer the conversation does not hold whole. */
	| { kind: 'object-not-whole' };

/** Whether the conversation is still answering: a public client waits while it is `running`. */
export function isAnswering(state: ConversationResponse['state']): boolean {
	return state === 'running' || state === 'stopping';
}

/**
 * Whether the conversation's last request that carries a prompt has this input (compared as
 * readTurn compares it): the turn it holds, running or not, may be this ask's.
 */
export function lastPromptIs(messages: ConversationMessage[], input: string): boolean {
	return askedAt(messages, input) >= 0;
}

export function readTurn(
	messages: ConversationMessage[],
	input: string,
	structured: boolean,
	textObject?: TextObjectRule,
	answerSchema?: OutputFormatSchema,
): TurnReading {
	const asked = askedAt(messages, input);
	if (asked < 0) return { kind: 'not-taken' };
	const after = messages.slice(asked + 1);
	const lastAt = after.map((message) => message.kind).lastIndexOf('response');
	if (lastAt < 0) return { kind: 'no-answer' };
	const parts = partsOf(after[lastAt]);
	// A run that stopped inside a tool round: the text beside its tool call is no answer.
	if (inToolRound(parts, after.slice(lastAt + 1))) {
		return structured ? { kind: 'object-not-whole' } : { kind: 'no-answer' };
	}
	if (!structured) {
		const responses = after.filter((message) => message.kind === 'response');
		const text = turnText(responses.map((message) => messageText(partsOf(message))));
		return isBlank(text) ? { kind: 'no-answer' } : { kind: 'answered', output: text };
	}
	// The last response's whole text, as the stream reads its last message: under the `whole`
	// rule, an object quoted after a sentence of prose is no answer, in a part of its own or not.
	const object =
		outputToolObject(parts, answerSchema) ?? objectFromText(messageText(parts), textObject);
	return object ? { kind: 'answered', output: object } : { kind: 'object-not-whole' };
}

type Part = Unchecked<ConversationMessage['parts'][number]>;

function partsOf(message: ConversationMessage): Part[] {
	return Array.isArray(message.parts) ? message.parts.filter(isObject) : [];
}

/**
 * The turn's last response (`parts`) left a tool round open: it calls a tool, or a tool's return
 * comes after it (`later`), so the model had more to say. Not when it calls the output tool: that
 * call is the answer, and the tools called beside it return "not executed" after it.
 */
function inToolRound(parts: Part[], later: ConversationMessage[]): boolean {
	if (parts.some((part) => part.part_kind === 'tool-call' && callsOutputTool(part.tool_name))) {
		return false;
	}
	if (parts.some((part) => part.part_kind === 'tool-call')) return true;
	return later.some((message) =>
		partsOf(message).some(
			(part) => part.part_kind === 'tool-return' && !callsOutputTool(part.tool_name),
		),
	);
}

/** pydantic-ai's output tool, by its name (stream/outputTool.ts decides it for the stream too). */
function callsOutputTool(name: unknown): boolean {
	return typeof name === 'string' && isOutputTool(name);
}

/**
 * The request of the conversation's last prompt, when that prompt is this input; -1 when it is
 * another's, or there is none.
 */
function askedAt(messages: ConversationMessage[], input: string): number {
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index];
		if (message?.kind !== 'request') continue;
		const prompt = promptOf(partsOf(message), input);
		if (prompt !== undefined) return normalized(prompt) === normalized(input) ? index : -1;
	}
	return -1;
}

const PROMPT_KINDS = new Set(['user-prompt', 'text']);
/** The parts that make a request a tool round's: the tools' returns, or pydantic-ai's retry prompt. */
const TOOL_ROUND_KINDS = new Set(['tool-return', 'builtin-tool-return', 'retry-prompt']);

/**
 * The prompt a request carries, if any. In a tool round's request pydantic-ai puts, after the
 * returns, `user-prompt` parts with what the tools gave the model to see (a tool's file as
 * `["This is file <id>:", <the file>]`, a tool's own `ToolReturn.content`), then, last, a user's
 * prompt sent with deferred tool results. Which one a last part is cannot be told from its shape,
 * so there only this input counts as a prompt: reading a tool's output as another prompt would
 * read the ask as not taken, and send it again.
 */
function promptOf(parts: Part[], input: string): string | undefined {
	if (!parts.some((part) => TOOL_ROUND_KINDS.has(String(part.part_kind)))) return promptText(parts);
	const last = parts.slice(-1);
	const text = promptText(last);
	return text !== undefined && normalized(text) === normalized(input) ? text : undefined;
}

/** The text of the prompt parts, joined; undefined when there are none. */
function promptText(parts: Part[]): string | undefined {
	const pieces: string[] = [];
	for (const part of parts) {
		if (typeof part.part_kind !== 'string' || !PROMPT_KINDS.has(part.part_kind)) continue;
		const { content } = part;
		if (typeof content === 'string') pieces.push(content);
		else if (Array.isArray(content)) pieces.push(...content.filter((c) => typeof c === 'string'));
	}
	return pieces.length > 0 ? pieces.join('') : undefined;
}

/**
 * pydantic-ai's output tool (`final_result`, or `final_result_<Name>`): its arguments, an object
 * or the JSON text of one, as the stream reads them (prose holding an object is none); of
 * several calls, the one the stream chooses (chosenOutputObject).
 */
function outputToolObject(
	parts: Part[],
	schema: OutputFormatSchema | undefined,
): Record<string, unknown> | undefined {
	const objects = parts.map(({ part_kind: kind, tool_name: name, args }) =>
		kind === 'tool-call' && callsOutputTool(name) ? objectOfJson(args) : undefined,
	);
	return chosenOutputObject(objects, schema);
}

/**
 * A message as the conversation is matched by it: its text, line endings and surrounding
 * whitespace aside, its images left out.
 */
export function normalized(text: string): string {
	return withoutImages(text).replace(/\r\n?/g, '\n').trim();
}
