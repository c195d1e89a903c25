import { parseJson } from '../shared/json';
import { schemaProblems, type JsonSchema } from '../shared/outputFormat/schemaCheck';

/**
 * Checks a tool call's arguments against the tool's schema before the tool runs: the service
 * enforces the envelope's shape, but the arguments travel as JSON text inside it, so nothing
 * upstream has checked them.
 */

export type { JsonSchema };

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
			.map(
				(issue) =>
					`${issue.path?.length ? issue.path.join('.') : '(arguments)'}: ${issue.message ?? 'invalid'}`,
			)
			.join('; ');
		return { ok: false, problem: problem || 'the arguments do not match the tool’s schema' };
	}
	const problems = jsonSchema ? schemaProblems(args, jsonSchema, '(arguments)') : [];
	if (problems.length > 0) return { ok: false, problem: problems.join('; ') };
	return { ok: true, args: args as Record<string, unknown> };
}

function isSafeParser(schema: unknown): schema is SafeParser {
	return (
		typeof schema === 'object' &&
		schema !== null &&
		typeof (schema as { safeParse?: unknown }).safeParse === 'function'
	);
}
