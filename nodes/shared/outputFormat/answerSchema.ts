import type { OutputFormatSchema } from '../api';
import { schemaProblems, type JsonSchema } from './schemaCheck';
import { quotedStart } from './structuredText';

/**
 * A structured answer is an object that matches the JSON Schema the ask sent
 * (docs/api.md#structured-output-in-a-stream). One that does not (a required field missing, a
 * field of another type, a value outside its enum) is no answer: the item fails, quoting the
 * answer's start, instead of flowing on as if it matched; so does an object the assistant only
 * quoted in its prose, which rarely has the schema's fields. Both nodes check their answers so
 * (Ask, and the chat model's Response Format and structured output); each makes the error its way.
 */
export interface SchemaMismatch {
	/** Each problem, by its path in the answer. */
	problems: string[];
	message: string;
	description: string;
}

/** Whether `output` matches `schema` (answerSchemaMismatch would find nothing wrong). */
export function fitsAnswerSchema(output: unknown, schema: OutputFormatSchema): boolean {
	return schemaProblems(output, schema as unknown as JsonSchema, '(answer)').length === 0;
}

/** What is wrong with `output` against `schema`; undefined when it matches. */
export function answerSchemaMismatch(
	output: unknown,
	schema: OutputFormatSchema,
): SchemaMismatch | undefined {
	const problems = schemaProblems(output, schema as unknown as JsonSchema, '(answer)');
	if (problems.length === 0) return undefined;
	return {
		problems,
		message: `The assistant's answer does not match the JSON Schema: ${problems.join('; ')}`,
		description: `Its answer begins ${quotedStart(JSON.stringify(output), 300)}. Run the item again; if it keeps happening, describe the fields in the schema (their description), or try another model.`,
	};
}
