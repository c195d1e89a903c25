import { isObject, type JsonObject as Json } from '../json';

/**
 * The grammar of `output_format` the service accepts (docs/api.md#ask-request), checked whole
 * before anything is sent: the root and every nested object have `type`, `properties` and
 * `required`; scalar types are `string`, `number` and `boolean`; `enum` only on strings; arrays
 * have `items`; `description` anywhere; nothing else. Pure, so that every node that sends an
 * `output_format` (Ask, the chat model's response format) refuses the same schemas the same way.
 */

/** One thing outside the grammar. */
export interface OutputFormatProblem {
	/** Where, from the root: `properties.address.required`; empty for the root itself. */
	path: string;
	/** What is wrong, as a sentence that names the path. */
	message: string;
	/** What to change. */
	fix: string;
}

const TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const;
type SchemaType = (typeof TYPES)[number];

/** Keywords allowed beside `type` and `description`, by type. */
const KEYWORDS: Record<SchemaType, readonly string[]> = {
	string: ['enum'],
	number: [],
	boolean: [],
	object: ['properties', 'required'],
	array: ['items'],
};

/** Deeper schemas are refused rather than walked: no answer needs them. */
export const MAX_SCHEMA_DEPTH = 32;

const ACCEPTED =
	'type, description, properties and required (objects), items (arrays), enum (strings)';

/** Every problem of `schema`, in document order; empty when the service accepts it. */
export function outputFormatProblems(schema: unknown): OutputFormatProblem[] {
	const problems: OutputFormatProblem[] = [];
	if (!isObject(schema)) {
		problems.push({
			path: '',
			message: 'JSON Schema must be an object schema',
			fix: 'The root must look like {"type": "object", "properties": {...}, "required": [...]}.',
		});
		return problems;
	}
	if (schema.type !== 'object') {
		problems.push({
			path: 'type',
			message: `JSON Schema's root must have "type": "object" (found ${found(schema.type)})`,
			fix: 'The assistant returns an object: wrap other shapes in a property, e.g. {"type": "object", "properties": {"items": {"type": "array", "items": {...}}}, "required": ["items"]}.',
		});
		return problems;
	}
	checkSchema(schema, [], 0, problems);
	return problems;
}

function checkSchema(
	schema: unknown,
	path: string[],
	depth: number,
	problems: OutputFormatProblem[],
): void {
	const where = pathText(path);
	if (!isObject(schema)) {
		problems.push({
			path: where,
			message: `JSON Schema: ${where} must be a schema object, not ${found(schema)}`,
			fix: `Describe it as {"type": "string"} (or number, boolean, object, array).`,
		});
		return;
	}
	if (depth > MAX_SCHEMA_DEPTH) {
		problems.push({
			path: where,
			message: `JSON Schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels at ${where}`,
			fix: 'Flatten the schema.',
		});
		return;
	}
	const type = schema.type;
	if (!isSchemaType(type)) {
		problems.push(typeProblem(type, path));
		return;
	}
	for (const key of Object.keys(schema)) {
		if (key === 'type' || key === 'description' || KEYWORDS[type].includes(key)) continue;
		problems.push(keywordProblem(key, type, [...path, key]));
	}
	if (schema.description !== undefined && typeof schema.description !== 'string') {
		const at = pathText([...path, 'description']);
		problems.push({
			path: at,
			message: `JSON Schema: ${at} must be text`,
			fix: 'Write the description as a string, or remove it.',
		});
	}
	if (type === 'string' && schema.enum !== undefined) checkEnum(schema.enum, path, problems);
	if (type === 'array') checkArray(schema, path, depth, problems);
	if (type === 'object') checkObject(schema, path, depth, problems);
}

function typeProblem(type: unknown, path: string[]): OutputFormatProblem {
	const at = pathText([...path, 'type']);
	const holder = pathText(path);
	if (type === undefined) {
		return {
			path: at,
			message: `JSON Schema is missing ${at}: every property needs a "type"`,
			fix: `Give ${holder} "type": "string", "number", "boolean", "object" or "array".`,
		};
	}
	if (type === 'integer') {
		return {
			path: at,
			message: `JSON Schema: ${at} is "integer", which the service does not accept`,
			fix: `Use "type": "number" at ${holder} (the service has no integer type; round the number in a later node if you need a whole one).`,
		};
	}
	if (Array.isArray(type)) {
		return {
			path: at,
			message: `JSON Schema: ${at} is a list of types (${found(type)}), which the service does not accept`,
			fix: `Give ${holder} one type; for a value that may be missing, leave its name out of "required" instead of allowing null.`,
		};
	}
	return {
		path: at,
		message: `JSON Schema: ${at} is ${found(type)}, which the service does not accept`,
		fix: `Use "string", "number", "boolean", "object" or "array" at ${holder}.`,
	};
}

function keywordProblem(key: string, type: SchemaType, path: string[]): OutputFormatProblem {
	const at = pathText(path);
	if (key === 'enum') {
		return {
			path: at,
			message: `JSON Schema: ${at} is on a ${type}, and the service accepts "enum" only on strings`,
			fix: `Make ${pathText(path.slice(0, -1))} "type": "string" with the values as text, or remove "enum".`,
		};
	}
	const belongs = (Object.keys(KEYWORDS) as SchemaType[]).find((other) =>
		KEYWORDS[other].includes(key),
	);
	if (belongs) {
		return {
			path: at,
			message: `JSON Schema: ${at} belongs to a schema of type "${belongs}", but this one is "${type}"`,
			fix: `Set "type": "${belongs}" at ${pathText(path.slice(0, -1))}, or remove "${key}".`,
		};
	}
	return {
		path: at,
		message: `JSON Schema: ${at} is outside what the service accepts`,
		fix: `Remove "${key}". The service accepts ${ACCEPTED}.`,
	};
}

function checkEnum(values: unknown, path: string[], problems: OutputFormatProblem[]): void {
	const at = pathText([...path, 'enum']);
	if (!Array.isArray(values) || values.length === 0) {
		problems.push({
			path: at,
			message: `JSON Schema: ${at} must be a non-empty list of texts`,
			fix: 'e.g. "enum": ["positive", "neutral", "negative"].',
		});
		return;
	}
	values.forEach((value, index) => {
		if (typeof value === 'string') return;
		const item = pathText([...path, 'enum', String(index)]);
		problems.push({
			path: item,
			message: `JSON Schema: ${item} is ${found(value)}; enum values must be text`,
			fix: `Write it as text, e.g. "${String(value)}".`,
		});
	});
}

function checkArray(
	schema: Json,
	path: string[],
	depth: number,
	problems: OutputFormatProblem[],
): void {
	if (schema.items === undefined) {
		const at = pathText([...path, 'items']);
		problems.push({
			path: at,
			message: `JSON Schema is missing ${at}: every array needs "items"`,
			fix: `Give ${pathText(path)} "items", the schema of one element, e.g. {"type": "string"}.`,
		});
		return;
	}
	checkSchema(schema.items, [...path, 'items'], depth + 1, problems);
}

function checkObject(
	schema: Json,
	path: string[],
	depth: number,
	problems: OutputFormatProblem[],
): void {
	const holder = pathText(path);
	const properties = schema.properties;
	if (!isObject(properties)) {
		const at = pathText([...path, 'properties']);
		problems.push({
			path: at,
			message:
				path.length === 0
					? 'JSON Schema\'s root needs "properties", an object'
					: properties === undefined
						? `JSON Schema is missing ${at}: every object needs "properties"`
						: `JSON Schema: ${at} must be an object of property schemas`,
			fix: `List the fields of ${holder}, e.g. "properties": {"summary": {"type": "string"}}.`,
		});
		return;
	}
	for (const [name, property] of Object.entries(properties)) {
		if (name === '__proto__') {
			// Not the service's rule: sent, such a property did not reach it (dropped on the way),
			// and the service then refused the schema.
			problems.push({
				path: pathText([...path, 'properties', name]),
				message: `JSON Schema: a property named "__proto__" (in ${holder}) cannot be sent`,
				fix: 'Rename the property, e.g. "proto".',
			});
			continue;
		}
		checkSchema(property, [...path, 'properties', name], depth + 1, problems);
	}
	checkRequired(schema.required, Object.keys(properties), path, problems);
}

function checkRequired(
	required: unknown,
	names: string[],
	path: string[],
	problems: OutputFormatProblem[],
): void {
	const at = pathText([...path, 'required']);
	const holder = pathText(path);
	const all = `"required": ${JSON.stringify(names)}`;
	if (required === undefined) {
		const missing = path.length === 0 ? '"required" at the root' : at;
		problems.push({
			path: at,
			message: `JSON Schema is missing ${missing}: every object needs "required", the list of the properties the answer must have`,
			fix: `Add ${all} to ${holder} (or the names of those the answer must always have).`,
		});
		return;
	}
	if (!Array.isArray(required)) {
		problems.push({
			path: at,
			message: `JSON Schema: ${at} must be a list of property names`,
			fix: `e.g. ${all}.`,
		});
		return;
	}
	required.forEach((name, index) => {
		if (typeof name === 'string' && names.includes(name)) return;
		const item = pathText([...path, 'required', String(index)]);
		problems.push({
			path: item,
			message:
				typeof name === 'string'
					? `JSON Schema: ${item} names "${name}", which is not in ${pathText([...path, 'properties'])}`
					: `JSON Schema: ${item} is ${found(name)}; "required" lists property names`,
			fix: `List only names of ${holder}'s properties: ${all}.`,
		});
	});
}

/** `properties.address.required`; the root reads "the root". */
function pathText(path: string[]): string {
	return path.length === 0 ? 'the root' : path.join('.');
}

function found(value: unknown): string {
	if (value === undefined) return 'no type';
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function isSchemaType(value: unknown): value is SchemaType {
	return typeof value === 'string' && (TYPES as readonly string[]).includes(value);
}
