/**
 * Where a value breaks a JSON Schema (docs/api.md#structured-output-in-a-stream): the keywords schemas use in
 * practice (`type`, `enum`, `anyOf`/`oneOf`, `properties`, `required`, `items`,
 * `additionalProperties: false`); anything else is accepted as it is. A property that is not
 * required may be null: a model has no other way to say it has nothing there. For a tool call's
 * arguments (the chat model) and for Ask's structured answer alike.
 */

export type JsonSchema = Record<string, unknown>;

/** What is wrong, `path: problem`, at most `limit` of them; `root` names the value itself. */
export function schemaProblems(
	value: unknown,
	schema: JsonSchema,
	root: string,
	limit = 5,
): string[] {
	const problems: string[] = [];
	checkValue(value, schema, [], problems, root);
	return problems.slice(0, limit);
}

function pathText(path: Array<string | number>, root: string): string {
	return path.length === 0 ? root : path.join('.');
}

function checkValue(
	value: unknown,
	schema: JsonSchema,
	path: Array<string | number>,
	problems: string[],
	root: string,
): void {
	const where = pathText(path, root);
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
			checkValue(value, alternative, path, inner, root);
			return inner.length === 0;
		});
		if (!fits) problems.push(`${where}: matches none of the allowed shapes`);
	}
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		checkObject(value as Record<string, unknown>, schema, path, problems, root);
	}
	if (Array.isArray(value) && isSchema(schema.items)) {
		value.forEach((entry, index) =>
			checkValue(entry, schema.items as JsonSchema, [...path, index], problems, root),
		);
	}
}

function checkObject(
	value: Record<string, unknown>,
	schema: JsonSchema,
	path: Array<string | number>,
	problems: string[],
	root: string,
): void {
	const properties = isSchema(schema.properties)
		? (schema.properties as Record<string, JsonSchema>)
		: {};
	const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
	// Own fields only: a name such as `constructor` is not read from Object.prototype.
	const own = (record: Record<string, unknown>, name: string) =>
		Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
	for (const name of required) {
		const entry = own(value, name);
		if (entry === undefined || (entry === null && !allowsNull(own(properties, name)))) {
			problems.push(`${pathText([...path, name], root)}: required`);
		}
	}
	for (const [name, entry] of Object.entries(value)) {
		const propertySchema = own(properties, name);
		// Null where the schema does not take it: allowed if optional, told as `required` if not.
		if (entry === null && !allowsNull(propertySchema)) continue;
		if (propertySchema && isSchema(propertySchema)) {
			checkValue(entry, propertySchema, [...path, name], problems, root);
		} else if (schema.additionalProperties === false) {
			problems.push(`${pathText([...path, name], root)}: not in the schema`);
		}
	}
}

/** Whether a property's schema takes null itself (`type` "null" among its types). */
function allowsNull(schema: unknown): boolean {
	return isSchema(schema) && typesOf(schema.type).includes('null');
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
