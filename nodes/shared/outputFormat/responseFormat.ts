import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import type { OutputFormatSchema } from '../api';
import {
	describeValue,
	invalidParameter,
	type ParameterContext,
} from '../parameters/parameterErrors';
import { outputFormatProblems } from './outputFormatGrammar';
import { schemaFromExample, type SchemaExampleError } from './schemaFromExample';

/**
 * Response Format and the shape of a structured answer: a JSON example the node derives a schema
 * from, or a JSON Schema. Both fields start empty: a default n8n does not save would change
 * every workflow that relied on it whenever the default changed.
 */

/** The parameters, shown where `show` says (a node's operation, say), or always without it. */
export function responseFormatProperties(show?: IDisplayOptions['show']): INodeProperties[] {
	return [
		{
			displayName: 'Response Format',
			name: 'responseFormat',
			type: 'options',
			default: 'text',
			options: [
				{ name: 'Text', value: 'text', description: 'The reply as text' },
				{
					name: 'JSON (Generate From JSON Example)',
					value: 'jsonExample',
					description:
						'The reply as an object shaped like an example you give; the node derives the schema from it',
				},
				{
					name: 'JSON (Define Using JSON Schema)',
					value: 'jsonSchema',
					description: 'The reply as an object matching a JSON Schema you write',
				},
			],
			...(show ? { displayOptions: { show } } : {}),
		},
		{
			displayName: 'JSON Example',
			name: 'jsonExample',
			type: 'json',
			default: '',
			placeholder: '{"summary": "One sentence", "sentiment": "positive", "topics": ["release"]}',
			hint: 'Every field is required in the answer (in a list of objects, those every element has); text, numbers, true/false, lists (one example element) and objects. The derived schema is shown after the run.',
			description: 'An example of the object to return: the answer has the same fields and types',
			typeOptions: { rows: 6 },
			displayOptions: { show: { ...show, responseFormat: ['jsonExample'] } },
		},
		{
			displayName: 'JSON Schema',
			name: 'jsonSchema',
			type: 'json',
			default: '',
			placeholder:
				'{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}',
			description:
				'The shape of the object to return: an object schema whose properties are string (optionally with enum), number, boolean, array (with items) or object',
			typeOptions: { rows: 10 },
			displayOptions: { show: { ...show, responseFormat: ['jsonSchema'] } },
		},
	];
}

export interface OutputFormat {
	schema: OutputFormatSchema;
	/** Set when the schema was derived from Response Format > JSON Example. */
	derived: boolean;
}

/** The output format of the item's request; undefined for a text answer. Checked before sending. */
export function readOutputFormat(
	ctx: ParameterContext,
	itemIndex: number,
): OutputFormat | undefined {
	const responseFormat = ctx.getNodeParameter('responseFormat', itemIndex, 'text');
	if (responseFormat === 'text') return undefined;
	if (responseFormat === 'jsonExample') {
		const example = readJson(ctx, itemIndex, 'jsonExample', 'JSON Example', EXAMPLE_FIX);
		try {
			return { schema: schemaFromExample(example), derived: true };
		} catch (error) {
			// schemaFromExample throws only SchemaExampleError: the path and what to change.
			const problem = error as SchemaExampleError;
			throw invalidParameter(ctx, itemIndex, problem.message, `Change the example. ${EXAMPLE_FIX}`);
		}
	}
	if (responseFormat === 'jsonSchema') {
		const schema = readJson(ctx, itemIndex, 'jsonSchema', 'JSON Schema', SCHEMA_FIX);
		return { schema: checkedOutputFormat(ctx, itemIndex, schema), derived: false };
	}
	throw invalidParameter(
		ctx,
		itemIndex,
		`Response Format ${describeValue(responseFormat)} is not supported`,
		'Choose Text, JSON (Generate From JSON Example) or JSON (Define Using JSON Schema).',
	);
}

const EXAMPLE_FIX =
	'Give an object like the answer you want, e.g. {"summary": "One sentence", "topics": ["release"]}.';
const SCHEMA_FIX =
	'Describe the object you want back, e.g. {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}.';

/** A JSON field's value: parsed when it is text (an expression may give an object already). */
function readJson(
	ctx: ParameterContext,
	itemIndex: number,
	name: string,
	label: string,
	fix: string,
): unknown {
	const raw = ctx.getNodeParameter(name, itemIndex, '');
	if (typeof raw !== 'string') return raw;
	if (raw.trim() === '') throw invalidParameter(ctx, itemIndex, `${label} is empty`, fix);
	try {
		return JSON.parse(raw) as unknown;
	} catch (error) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`${label} is not valid JSON`,
			`${(error as Error).message}. Fix the JSON in "${label}" (double quotes around names and strings, no trailing commas).`,
		);
	}
}

/**
 * A schema inside the service's grammar, or an error naming the first path outside it and the fix
 * (docs/api.md#ask-request): nothing is sent for a schema the service would answer with a 422.
 */
export function checkedOutputFormat(
	ctx: ParameterContext,
	itemIndex: number,
	schema: unknown,
): OutputFormatSchema {
	const [first, ...others] = outputFormatProblems(schema);
	if (!first) return schema as OutputFormatSchema;
	const more =
		others.length === 0
			? ''
			: ` Also outside the grammar: ${others
					.slice(0, 3)
					.map((problem) => problem.path)
					.join(', ')}${others.length > 3 ? ` and ${others.length - 3} more` : ''}.`;
	throw invalidParameter(ctx, itemIndex, first.message, `${first.fix}${more}`);
}
