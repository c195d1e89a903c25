import type { INodeProperties } from 'n8n-workflow';

import {
	describeValue,
	invalidParameter,
	type ParameterContext,
} from '../../../shared/parameters/parameterErrors';
import {
	idleTimeoutOption,
	optionsOf,
	readRequestSettings,
	retriesOption,
	timeoutOption,
	type RequestSettings,
} from '../../../shared/parameters/requestOptions';
import { DEFAULT_ANSWER_LIMIT_CHARS, MAX_ANSWER_LIMIT_CHARS } from '../../../shared/limits';

/** Ask's Options collection: declared, read and checked here. */

export const MAX_CONCURRENCY = 20;

const MILLION = 1_000_000;

export const askOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show: { operation: ['ask'] } },
	options: [
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			default: 1,
			typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
			description:
				'The most items to ask at once; fewer while the service answers that it is busy (the node finds the pace your account allows). Output order and pairing stay those of the input; items that continue the same conversation still run one after another.',
		},
		{ ...idleTimeoutOption, displayOptions: { show: { stream: [true] } } },
		{
			displayName: 'Include Steps',
			name: 'includeSteps',
			type: 'boolean',
			default: false,
			description:
				'Whether the item also gets steps: what the assistant did on the way to its answer (each tool call with its arguments, each tool result), in order, and model: the model that answered. For audit, routing (e.g. an If node on the tools used) and debugging.',
		},
		{
			displayName: 'Include Thinking',
			name: 'includeThinking',
			type: 'boolean',
			default: false,
			displayOptions: { show: { includeSteps: [true] } },
			description:
				"Whether steps also hold the assistant's thinking texts, where the model shares them. They can be long.",
		},
		{
			displayName: 'Max Answer Length (Million Characters)',
			name: 'maxAnswerMillionChars',
			type: 'number',
			// DEFAULT_ANSWER_LIMIT_CHARS / MILLION (a literal, as n8n's description rules want).
			default: 32,
			typeOptions: { minValue: 1, maxValue: MAX_ANSWER_LIMIT_CHARS / MILLION },
			description:
				"The longest answer the node accepts. A longer one fails the item (never cut short), so that a broken or hostile server cannot exhaust n8n's memory. Real answers are far shorter; raise it only for answers this long, within your n8n instance's memory.",
		},
		{
			displayName: 'Memory',
			name: 'memory',
			type: 'boolean',
			default: true,
			description:
				"Whether the assistant may use your workspace's memory to answer. Turn it off for automations that should answer from the message alone.",
		},
		{
			displayName: 'Replace Deprecated Model',
			name: 'useSuccessor',
			type: 'boolean',
			default: true,
			description:
				"Whether to ask the successor of the chosen model when the service's catalog marks the model deprecated. A hint names the successor either way.",
		},
		retriesOption,
		{
			displayName: 'Stream',
			name: 'stream',
			type: 'boolean',
			default: false,
			description:
				'Whether a workflow that streams its response (a Webhook or Chat Trigger set to stream) receives the answer piece by piece, as it is written; off, it receives the whole answer in one piece once it is complete. The output is the same either way: every ask is sent in streamed form.',
		},
		timeoutOption,
	],
};

export interface AskOptions extends RequestSettings {
	stream: boolean;
	/** docs/api.md#steps: undefined when Include Steps is off. */
	steps?: { thinking: boolean };
	memory: boolean;
	useSuccessor: boolean;
	/** docs/api.md#memory-bounds. */
	answerLimitChars: number;
}

/** The item's options, checked before anything is sent. */
export function readAskOptions(ctx: ParameterContext, itemIndex: number): AskOptions {
	const options = optionsOf(ctx, itemIndex);
	const includeSteps = readSwitch(ctx, itemIndex, options, 'includeSteps', 'Include Steps', false);
	const thinking = readSwitch(
		ctx,
		itemIndex,
		options,
		'includeThinking',
		'Include Thinking',
		false,
	);
	return {
		stream: readSwitch(ctx, itemIndex, options, 'stream', 'Stream', false),
		...(includeSteps ? { steps: { thinking } } : {}),
		memory: readSwitch(ctx, itemIndex, options, 'memory', 'Memory', true),
		useSuccessor: readSwitch(
			ctx,
			itemIndex,
			options,
			'useSuccessor',
			'Replace Deprecated Model',
			true,
		),
		answerLimitChars: readAnswerLimit(ctx, itemIndex, options),
		...readRequestSettings(ctx, itemIndex, options),
	};
}

/** Options > Max Answer Length, in characters. */
function readAnswerLimit(
	ctx: ParameterContext,
	itemIndex: number,
	options: Record<string, unknown>,
): number {
	const value = options.maxAnswerMillionChars ?? DEFAULT_ANSWER_LIMIT_CHARS / MILLION;
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	const max = MAX_ANSWER_LIMIT_CHARS / MILLION;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < 1 || number > max) {
		throw invalidParameter(
			ctx,
			itemIndex,
			`Max Answer Length must be a number from 1 to ${max} (got ${describeValue(value)})`,
			`Set Options > Max Answer Length (Million Characters); the default is ${DEFAULT_ANSWER_LIMIT_CHARS / MILLION}.`,
		);
	}
	return Math.round(number * MILLION);
}

/** Options > Concurrency: one value for the whole run, read from the first item. */
export function readConcurrency(ctx: ParameterContext): number {
	const value = ctx.getNodeParameter('options.concurrency', 0, 1);
	// Numbers from an expression may come as text (a webhook's, a form's), as for the other options.
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (
		typeof number !== 'number' ||
		!Number.isInteger(number) ||
		number < 1 ||
		number > MAX_CONCURRENCY
	) {
		throw invalidParameter(
			ctx,
			0,
			`Concurrency must be a whole number from 1 to ${MAX_CONCURRENCY} (got ${describeValue(value)})`,
			'Set Options > Concurrency; 1 asks one item at a time.',
		);
	}
	return number;
}

function readSwitch(
	ctx: ParameterContext,
	itemIndex: number,
	options: Record<string, unknown>,
	name: string,
	label: string,
	fallback: boolean,
): boolean {
	const value = options[name] ?? fallback;
	if (typeof value !== 'boolean') {
		throw invalidParameter(
			ctx,
			itemIndex,
			`${label} must be true or false (got ${describeValue(value)})`,
			`Set Options > ${label} with the switch, or an expression that gives true or false.`,
		);
	}
	return value;
}
