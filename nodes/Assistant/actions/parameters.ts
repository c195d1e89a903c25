import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import type { OutputFormatSchema } from '../api';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../transport';
import { DEFAULT_RETRIES, MAX_RETRIES } from '../transport/retry';

/**
 * Reads and checks Ask's parameters before any request is sent, so bad input fails with the
 * parameter's name and the fix instead of a round trip and a server error.
 */

export function readInput(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('input', itemIndex, '') as unknown;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalid(
			ctx,
			itemIndex,
			'Input must be text',
			`Got ${describe(value)}. Put the message for the assistant in "Input", e.g. {{ $json.question }}.`,
		);
	}
	const text = String(value);
	if (text.trim() === '') {
		throw invalid(
			ctx,
			itemIndex,
			'Input is empty',
			'Put the message for the assistant in "Input". If it comes from an expression, check that the field exists on this item.',
		);
	}
	return text;
}

/**
 * A resource locator's ID; undefined when empty (the assistant's default is used).
 * Accepts the locator object and, for workflows that set it by expression, a plain string.
 */
export function readLocatorId(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: 'model' | 'persona',
): string | undefined {
	const label = name === 'model' ? 'Model' : 'Persona';
	const raw = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	let value: unknown = raw;
	if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
		value = (raw as { value?: unknown }).value;
	}
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') {
		throw invalid(
			ctx,
			itemIndex,
			`${label} must be an ID (text)`,
			`Got ${describe(value)}. Pick a ${name} from the list or type its ID${name === 'model' ? ', e.g. anthropic:claude-haiku-4-5-20251001' : ''}; leave it empty for the default.`,
		);
	}
	const id = value.trim();
	if (id === '') return undefined;
	if (/\s/.test(id)) {
		throw invalid(
			ctx,
			itemIndex,
			`${label} ID "${id}" is not valid: IDs have no spaces`,
			`Pick the ${name} from the list, or type its ID exactly as List ${label === 'Model' ? 'Models' : 'Personas'} returns it.`,
		);
	}
	return id;
}

export function readConversationId(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const value = ctx.getNodeParameter('conversationId', itemIndex, '') as unknown;
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalid(
			ctx,
			itemIndex,
			'Conversation ID must be text',
			`Got ${describe(value)}. Use the conversation_id of an earlier answer, e.g. {{ $json.conversation_id }}, or leave it empty to start a new conversation.`,
		);
	}
	const id = String(value).trim();
	return id === '' ? undefined : id;
}

/** The JSON Schema parameter, parsed and checked at the root (the server checks the rest). */
export function readJsonSchema(ctx: IExecuteFunctions, itemIndex: number): OutputFormatSchema {
	const raw = ctx.getNodeParameter('jsonSchema', itemIndex, '') as unknown;
	let schema: unknown = raw;
	if (typeof raw === 'string') {
		if (raw.trim() === '') {
			throw invalid(
				ctx,
				itemIndex,
				'JSON Schema is empty',
				'Describe the object you want back, e.g. {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}.',
			);
		}
		try {
			schema = JSON.parse(raw);
		} catch (error) {
			throw invalid(
				ctx,
				itemIndex,
				'JSON Schema is not valid JSON',
				`${(error as Error).message}. Fix the JSON in "JSON Schema" (double quotes around names and strings, no trailing commas).`,
			);
		}
	}
	if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
		throw invalid(
			ctx,
			itemIndex,
			'JSON Schema must be an object schema',
			'The root must look like {"type": "object", "properties": {...}}.',
		);
	}
	const root = schema as Record<string, unknown>;
	if (root.type !== 'object') {
		throw invalid(
			ctx,
			itemIndex,
			`JSON Schema's root must have "type": "object" (found ${JSON.stringify(root.type) ?? 'no type'})`,
			'The assistant returns an object: wrap other shapes in a property, e.g. {"type": "object", "properties": {"items": {"type": "array", "items": {...}}}}.',
		);
	}
	const properties = root.properties;
	if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
		throw invalid(
			ctx,
			itemIndex,
			'JSON Schema\'s root needs "properties", an object',
			'List the fields you want, e.g. "properties": {"summary": {"type": "string"}}.',
		);
	}
	if (
		root.required !== undefined &&
		(!Array.isArray(root.required) || root.required.some((entry) => typeof entry !== 'string'))
	) {
		throw invalid(
			ctx,
			itemIndex,
			'JSON Schema\'s "required" must be a list of property names',
			'e.g. "required": ["summary"].',
		);
	}
	return root as OutputFormatSchema;
}

export interface RequestSettings {
	timeoutMs: number;
	idleTimeoutMs: number;
	retries: number;
}

/** Options > Timeout, Idle Timeout and Retries, checked. */
export function readRequestSettings(ctx: IExecuteFunctions, itemIndex: number): RequestSettings {
	return {
		timeoutMs: readNumberOption(ctx, itemIndex, 'timeout', 'Timeout', DEFAULT_TIMEOUT_MS, 1),
		idleTimeoutMs: readNumberOption(
			ctx,
			itemIndex,
			'idleTimeout',
			'Idle Timeout',
			DEFAULT_IDLE_TIMEOUT_MS,
			1,
		),
		retries: readNumberOption(
			ctx,
			itemIndex,
			'retries',
			'Retries',
			DEFAULT_RETRIES,
			0,
			MAX_RETRIES,
		),
	};
}

function readNumberOption(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: string,
	label: string,
	fallback: number,
	min: number,
	max = Number.MAX_SAFE_INTEGER,
): number {
	const options = optionsOf(ctx, itemIndex);
	const value = options[name] === undefined ? fallback : options[name];
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
		throw invalid(
			ctx,
			itemIndex,
			`${label} must be a number ${range} (got ${describe(value)})`,
			`Set Options > ${label}; the default is ${fallback}.`,
		);
	}
	return Math.round(number);
}

/** Options, read once per item: one getNodeParameter call (each costs n8n a parameter resolution). */
const optionsCache = new WeakMap<IExecuteFunctions, Map<number, Record<string, unknown>>>();

export function optionsOf(ctx: IExecuteFunctions, itemIndex: number): Record<string, unknown> {
	let perItem = optionsCache.get(ctx);
	if (!perItem) optionsCache.set(ctx, (perItem = new Map()));
	let options = perItem.get(itemIndex);
	if (!options) {
		options = (ctx.getNodeParameter('options', itemIndex, {}) ?? {}) as Record<string, unknown>;
		perItem.set(itemIndex, options);
	}
	return options;
}

function invalid(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: string,
	description: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	if (typeof value === 'string') return JSON.stringify(value);
	return `${typeof value} ${String(value)}`;
}
