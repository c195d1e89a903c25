import { isObject } from './json';
import { MAX_LIST_ENTRIES } from './limits';

/**
 * The service's lists (models, personas, the catalog's models), as every reader takes them: the
 * list operations, Get Catalog and the editor's pickers. Each entry is an object
 * (docs/api.md#models); anything else is the service answering in another shape, said in one
 * way wherever a list is read.
 */

/** What is wrong with a list answer, in the words an error shows. */
export interface ListProblem {
	message: string;
	description: string;
}

const CHECK_BASE_URL = "Check that the credential's base URL points at the Assistant API.";

/** The objects under `key` of a list answer, or what is wrong with it. */
export function listEntries(
	response: unknown,
	key: string,
): { entries: Array<Record<string, unknown>> } | { problem: ListProblem } {
	const list = isObject(response) ? response[key] : undefined;
	if (!Array.isArray(list)) {
		return {
			problem: {
				message: `The assistant's answer has no "${key}" list`,
				description: `Expected {"${key}": [...]}. ${CHECK_BASE_URL}`,
			},
		};
	}
	const tooMany = tooManyEntriesMessage(key, list.length);
	if (tooMany !== undefined) {
		return {
			problem: {
				message: tooMany,
				description: `No Assistant API lists this many (List Models, List Personas and Get Catalog would make an output item of each). ${CHECK_BASE_URL}`,
			},
		};
	}
	const odd = list.findIndex((entry) => !isObject(entry));
	if (odd >= 0) {
		return {
			problem: {
				message: `The assistant's "${key}" list holds an entry that is no object (entry ${odd + 1} is ${kindOf(list[odd])})`,
				description: `Each entry of "${key}" is an object. ${CHECK_BASE_URL}`,
			},
		};
	}
	return { entries: list as Array<Record<string, unknown>> };
}

/** What a value is, never what it holds (a server's text may be long). */
function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return 'text';
	return `a ${typeof value}`;
}

/**
 * Why a list of more than MAX_LIST_ENTRIES entries fails (listEntries), or undefined within the
 * bound; `npm run check:live` says it in these words.
 */
export function tooManyEntriesMessage(key: string, entries: number): string | undefined {
	if (entries <= MAX_LIST_ENTRIES) return undefined;
	return `The assistant's "${key}" list has ${entries.toLocaleString('en-US')} entries, more than the ${MAX_LIST_ENTRIES.toLocaleString('en-US')} this node makes items of`;
}
