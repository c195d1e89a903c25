import type { Logger } from 'n8n-workflow';

import {
	isModelShownInLogs,
	serializationForLogs,
	showAnswerDetails,
	showStreamedAnswerDetails,
	type Generation,
	type ModelShownInLogs,
} from './logsPanel';
import { standardMessages } from './standardParts';

/**
 * The one patch on the AI node SDK's LangChain adapter (`LangchainChatModelAdapter` of n8n's AI
 * utilities, which `supplyModel` returns and whose `bindTools` makes another for the agent). Its
 * methods are LangChain's private ones, which the SDK may change: this file alone knows their
 * shape, checks it, and says so in n8n's debug log when it is not the one it knows (the adapter is
 * then left as it is: the answers are the same, the Logs panel shows less and the AI Agent's
 * images arrive as notes). test/unit/chat-model/sdk-adapter.test.ts pins the shape against the
 * SDK versions n8n ships.
 *
 * Each call's messages go in with their parts in the standard form (standardParts.ts), and its
 * serialization and generations come out with what the Logs panel shows (logsPanel.ts), on that
 * adapter instance alone.
 */

interface KnownAdapter {
	/** The model it wraps: this node's (its settings for the Logs panel). */
	chatModel: ModelShownInLogs;
	lc_id?: string[];
	toJSON(): unknown;
	_generate(messages: unknown, ...rest: unknown[]): Promise<{ generations: Generation[] }>;
	_streamResponseChunks(
		messages: unknown,
		options: unknown,
		runManager?: unknown,
	): AsyncGenerator<Generation>;
	bindTools(...args: unknown[]): unknown;
}

const METHODS = ['toJSON', '_generate', '_streamResponseChunks', 'bindTools'] as const;

/** What the value lacks of the adapter's known shape (none: it is the adapter this file knows). */
export function adapterShapeProblems(value: unknown): string[] {
	if (typeof value !== 'object' || value === null) return ['not an object'];
	const candidate = value as Record<string, unknown>;
	const problems = METHODS.filter((method) => typeof candidate[method] !== 'function').map(
		(method) => `no method ${method}`,
	);
	if (!isModelShownInLogs(candidate.chatModel)) {
		problems.push('no chatModel holding this node’s model');
	}
	return problems;
}

/** Patches the SDK's adapter (and each one its `bindTools` makes); returns it. */
export function patchSdkAdapter<T>(adapter: T, logger: Pick<Logger, 'debug'>): T {
	const problems = adapterShapeProblems(adapter);
	if (problems.length > 0) {
		logger.debug(
			`Assistant Chat Model: the AI node SDK's LangChain adapter is not of the shape this node knows (${problems.join('; ')}), so it is left as it is: n8n's Logs panel shows less of its calls, and images from the AI Agent arrive as notes`,
		);
		return adapter;
	}
	const known = adapter as unknown as KnownAdapter;
	const generate = known._generate;
	const streamChunks = known._streamResponseChunks;
	const bindTools = known.bindTools;

	known.toJSON = () => serializationForLogs(known.chatModel, known.lc_id);

	known._generate = async function (this: KnownAdapter, messages: unknown, ...rest: unknown[]) {
		const result = await generate.call(this, standardMessages(messages), ...rest);
		for (const generation of result.generations) showAnswerDetails(generation);
		return result;
	};

	known._streamResponseChunks = async function* (
		this: KnownAdapter,
		messages: unknown,
		options: unknown,
		runManager?: unknown,
	) {
		const chunks = streamChunks.call(this, standardMessages(messages), options, runManager);
		for await (const chunk of chunks) {
			showStreamedAnswerDetails(chunk, options, known.chatModel.streamedAnswers);
			yield chunk;
		}
	};

	known.bindTools = function (this: KnownAdapter, ...args: unknown[]) {
		return patchSdkAdapter(bindTools.apply(this, args), logger);
	};

	return adapter;
}
