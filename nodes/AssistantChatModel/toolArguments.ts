import { parseJson } from '../shared/json';

/**
 * Checks a tool call's arguments against the tool's schema before the tool runs: the service
 * enforces the envelope's shape, but the arguments travel as JSON text inside it, so nothing
 * upstream has checked them.
 */

export type JsonSchema = Record<string, unknown>;

/** What a LangChain tool's Zod schema offers, used without depending on Zod. */
interface SafeParser {
	safeParse(value: unknown): {
		success: boolean;
		error?: { issues?: Array<{ path?: Array<string | number>; message?: string }> };
	};
}

export type ArgumentsCheck =
	{ ok: true; args: Record<string, unknown> } | { ok: false; problem: string };

/** Parses `argumentsJson` and checks it; `problem` says what is wrong, for the retry and the error. */
export function checkToolArguments(
	argumentsJson: string,
	schema: unknown,
	jsonSchema: JsonSchema | undefined,
): ArgumentsCheck {
	let args: unknown;
	try {
		args = parseJson(argumentsJson.trim() === '' ? '{}' : argumentsJson);
	} catch (error) {
		return { ok: false, problem: `the arguments are not valid JSON (${(error as Error).message})` };
	}
	if (typeof args !== 'object' || args === null || Array.isArray(args)) {
		return { ok: false, problem: 'the arguments must be a JSON object' };
	}
	if (isSafeParser(schema)) {
		const parsed = schema.safeParse(args);
		if (parsed.success) return { ok: true, args: args as Record<string, unknown> };
		const issues = parsed.error?.issues ?? [];
		const problem = issues
			.map((issue) => `${pathText(issue.path ?? [])}: ${issue.message ?? 'invalid'}`)
			.join('; ');
		return { ok: false, problem: problem || 'the arguments do not match the tool’s schema' };
	}
	const problems: string[] = [];
	if (jsonSchema) checkValue(args, jsonSchema, [], problems);
	if (problems.length > 0) return { ok: false, problem: problems.slice(0, 5).join('; ') };
	return { ok: true, args: args as Record<string, unknown> };
}

function isSafeParser(schema: unknown): schema is SafeParser {
	return (
		typeof schema === 'object' &&
		schema !== null &&
		typeof (schema as { safeParse?: unknown }).safeParse === 'function'
	);
}

function pathText(path: Array<string | number>): string {
	return path.length === 0 ? '(arguments)' : path.join('.');
}

/** The JSON Schema keywords tools use in practice; anything else is accepted as it is. */
function checkValue(
	value: unknown,
	schema: JsonSchema,
	path: Array<string | number>,
	problems: string[],
): void {
	const where = pathText(path);
	const types = typesOf(schema.type);
	if (types.length > 0 && !types.some((type) => hasType(value, type))) {
		problems.push(`${where}: expected ${types.join(' or ')}, got ${typeName(value)}`);
		return;
	}
	if (Array.isArray(schema.enum) && !schema.enum.some((option) => option === value)) {
		problems.push(
			`${where}: must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}`,
		);
	}
	const alternatives = [schema.anyOf, schema.oneOf].find(Array.isArray) as JsonSchema[] | undefined;
	if (alternatives && alternatives.length > 0) {
		const fits = alternatives.some((alternative) => {
			const inner: string[] = [];
			checkValue(value, alternative, path, inner);
			return inner.length === 0;
		});
		if (!fits) problems.push(`${where}: matches none of the allowed shapes`);
	}
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		checkObject(value as Record<string, unknown>, schema, path, problems);
	}
	if (Array.isArray(value) && isSchema(schema.items)) {
		value.forEach((entry, index) =>
			checkValue(entry, schema.items as JsonSchema, [...path, index], problems),
		);
	}
}

function checkObject(
	value: Record<string, unknown>,
	schema: JsonSchema,
	path: Array<string | number>,
	problems: string[],
): void {
	const properties = isSchema(schema.properties)
		? (schema.properties as Record<string, JsonSchema>)
		: {};
	const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
	for (const name of required) {
		if (value[name] === undefined) problems.push(`${pathText([...path, name])}: required`);
	}
	for (const [name, entry] of Object.entries(value)) {
		const propertySchema = properties[name];
		if (propertySchema && isSchema(propertySchema)) {
			checkValue(entry, propertySchema, [...path, name], problems);
		} else if (schema.additionalProperties === false) {
			problems.push(`${pathText([...path, name])}: not a parameter of this tool`);
		}
	}
}

function typesOf(type: unknown): string[] {
	if (typeof type === 'string') return [type];
	if (Array.isArray(type))
		return type.filter((entry): entry is string => typeof entry === 'string');
	return [];
}

function hasType(value: unknown, type: string): boolean {
	switch (type) {
		case 'string':
			return typeof value === 'string';
		case 'number':
			return typeof value === 'number' && Number.isFinite(value);
		case 'integer':
			return typeof value === 'number' && Number.isInteger(value);
		case 'boolean':
			return typeof value === 'boolean';
		case 'array':
			return Array.isArray(value);
		case 'object':
			return typeof value === 'object' && value !== null && !Array.isArray(value);
		case 'null':
			return value === null;
		default:
			return true;
	}
}

function typeName(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value;
}

function isSchema(value: unknown): value is JsonSchema {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
