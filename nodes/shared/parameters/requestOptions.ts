import type { INodeProperties } from 'n8n-workflow';

import {
	DEFAULT_IDLE_TIMEOUT_MS,
	DEFAULT_RETRIES,
	DEFAULT_TIMEOUT_MS,
	MAX_RETRIES,
} from '../transport';
import { describeValue, invalidParameter, type ParameterContext } from './parameterErrors';

/**
 * How long to wait and how often to try again: options every operation offers (each in its own
 * Options collection), in units a person reads, converted here to what the transport takes.
 */

const MS_PER_MINUTE = 60_000;
const MS_PER_SECOND = 1_000;
/** A day: far beyond any answer, and well inside what a timer can hold. */
const MAX_TIMEOUT_MINUTES = 24 * 60;
const MAX_IDLE_TIMEOUT_SECONDS = 24 * 60 * 60;

export const DEFAULT_TIMEOUT_MINUTES = DEFAULT_TIMEOUT_MS / MS_PER_MINUTE;
export const DEFAULT_IDLE_TIMEOUT_SECONDS = DEFAULT_IDLE_TIMEOUT_MS / MS_PER_SECOND;

/** A duration option in the unit a person reads (minutes or seconds), from 0.01 to `max`. */
function durationOption(
	displayName: string,
	name: string,
	defaultValue: number,
	max: number,
	description: string,
): INodeProperties {
	const typeOptions = { minValue: 0.01, maxValue: max, numberPrecision: 2 };
	return { displayName, name, type: 'number', default: defaultValue, typeOptions, description };
}

export const timeoutOption = durationOption(
	'Timeout (Minutes)',
	'timeoutMinutes',
	DEFAULT_TIMEOUT_MINUTES,
	MAX_TIMEOUT_MINUTES,
	'How long the whole call may take, retries included. Answers can take minutes while the assistant uses tools.',
);

export const idleTimeoutOption = durationOption(
	'Idle Timeout (Seconds)',
	'idleTimeoutSeconds',
	DEFAULT_IDLE_TIMEOUT_SECONDS,
	MAX_IDLE_TIMEOUT_SECONDS,
	'How long a stream may stay silent between chunks before the node stops reading it; it then reads the answer from the conversation (within Timeout), or the item fails',
);

export const retriesOption: INodeProperties = {
	displayName: 'Retries',
	name: 'retries',
	type: 'number',
	default: DEFAULT_RETRIES,
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES },
	description:
		"How many times this node tries a request again after a network error, a timeout (408), a busy conversation (409), rate limiting (429), a server error (5xx) or a full session pool, with growing pauses; other errors are never retried. An ask the assistant may already have accepted is not sent again: its answer is read from its conversation. n8n's own Retry On Fail (node settings) reruns the whole node on top of these, so the attempts multiply: use one or the other.",
};

export interface RequestSettings {
	timeoutMs: number;
	idleTimeoutMs: number;
	retries: number;
}

/**
 * Options > Timeout, Idle Timeout and Retries of the item, checked, in the transport's units; from
 * `options` when the caller has read the item's Options already.
 */
export function readRequestSettings(
	ctx: ParameterContext,
	itemIndex: number,
	options = optionsOf(ctx, itemIndex),
): RequestSettings {
	const timeoutMinutes = checkedNumber(ctx, itemIndex, options, timeoutOption, 'Timeout');
	const idleSeconds = checkedNumber(ctx, itemIndex, options, idleTimeoutOption, 'Idle Timeout');
	const retries = checkedNumber(ctx, itemIndex, options, retriesOption, 'Retries');
	return {
		timeoutMs: Math.round(timeoutMinutes * MS_PER_MINUTE),
		idleTimeoutMs: Math.round(idleSeconds * MS_PER_SECOND),
		retries: Math.round(retries),
	};
}

function checkedNumber(
	ctx: ParameterContext,
	itemIndex: number,
	options: Record<string, unknown>,
	option: INodeProperties,
	label: string,
): number {
	const min = option.typeOptions?.minValue ?? 0;
	const max = option.typeOptions?.maxValue ?? Number.MAX_SAFE_INTEGER;
	const value = options[option.name] ?? option.default;
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`${label} must be a number from ${min} to ${max} (got ${describeValue(value)})`,
			`Set Options > ${option.displayName}; the default is ${String(option.default)}.`,
		);
	}
	return number;
}

/**
 * The item's Options collection: read once per run through the run's parameters when it holds
 * no expression (nodeParameter.ts); a reader that needs it twice for an item reads it once and
 * passes it on.
 */
export function optionsOf(ctx: ParameterContext, itemIndex: number): Record<string, unknown> {
	return (ctx.getNodeParameter('options', itemIndex, {}) ?? {}) as Record<string, unknown>;
}

/** An operation's Options collection: its own options, then Timeout and Retries. */
export function optionsCollection(operation: string, own: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { operation: [operation] } },
		options: [...own, retriesOption, timeoutOption],
	};
}
