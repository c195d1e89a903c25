import type { IExecuteFunctions } from 'n8n-workflow';

import type { OutputFormatSchema } from '../../../shared/api';
import { schemaProblems, type JsonSchema } from '../../../shared/outputFormat/schemaCheck';
import { quotedStart } from '../../../shared/outputFormat/structuredText';
import { apiError } from '../../../shared/transport/errors';

/**
 * A structured answer is an object that matches the JSON Schema the ask sent
 * (docs/api.md#structured-output-in-a-stream). One that does not (a required field missing, a
 * field of another type, a value outside its enum) fails the item, quoting the answer's start,
 * instead of flowing on as if it matched; so does an object the assistant only quoted in its
 * prose, which rarely has the schema's fields.
 */
export function checkAnswerMatchesSchema(
	ctx: IExecuteFunctions,
	itemIndex: number,
	output: unknown,
	schema: OutputFormatSchema,
): void {
	const problems = schemaProblems(output, schema as unknown as JsonSchema, '(answer)');
	if (problems.length === 0) return;
	throw apiError(
		ctx.getNode(),
		{
			message: `The assistant's answer does not match the JSON Schema: ${problems.join('; ')}`,
			description: `Its answer begins ${quotedStart(JSON.stringify(output), 300)}. Run the item again; if it keeps happening, describe the fields in the schema (their description), or try another model.`,
		},
		itemIndex,
	);
}
