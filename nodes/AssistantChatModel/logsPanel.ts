/**
 * What n8n's Logs panel shows of the chat model's calls, as it does for n8n's own chat models.
 *
 * n8n logs a model's calls through the tracing callback of its AI utilities (N8nLlmTracing): a
 * call's input shows the model's LangChain serialization (`toJSON().kwargs`) as its `options`,
 * and its output keeps of each generation only `text` and `generationInfo`. The LangChain
 * adapter the AI node SDK wraps a model in implements neither: its serialization is
 * `{"type": "not_implemented", …}` and its generations carry no `generationInfo`, so the panel
 * showed neither the model, its settings, nor which model, persona and conversation answered.
 *
 * So the adapter `supplyModel` returns (and each one its `bindTools` makes for the agent) gets,
 * on that instance alone, a serialization with the model's settings, and generations whose
 * `generationInfo` carries the answer's details (the same as the AI message's metadata). Its
 * calls, messages and results are untouched; an adapter of another shape is left as it is.
 */

export type LogDetails = Record<string, unknown>;

/** The chat model's side: its settings as the panel shows them, and its streamed answers. */
export interface ModelShownInLogs {
	settingsForLogs(): LogDetails;
	readonly streamedAnswers: StreamedAnswers;
}

/**
 * The answer's details of a model's streamed calls, by the call's options object (shared with the
 * adapter): noted by the model's `stream` before its `finish` chunk, read by the adapter's. Each
 * model has its own, so nothing outlives the model (made per supplyData).
 */
export class StreamedAnswers {
	private readonly byCall = new WeakMap<object, LogDetails>();

	note(callOptions: unknown, details: LogDetails): void {
		if (typeof callOptions === 'object' && callOptions !== null) {
			this.byCall.set(callOptions, details);
		}
	}

	of(callOptions: unknown): LogDetails | undefined {
		return typeof callOptions === 'object' && callOptions !== null
			? this.byCall.get(callOptions)
			: undefined;
	}
}

interface Generation {
	message?: { response_metadata?: LogDetails };
	generationInfo?: LogDetails;
}

interface Adapter {
	lc_id?: string[];
	chatModel?: unknown;
	toJSON(): unknown;
	_generate(...args: unknown[]): Promise<{ generations: Generation[] }>;
	_streamResponseChunks(
		messages: unknown,
		options: unknown,
		runManager?: unknown,
	): AsyncGenerator<Generation>;
	bindTools(...args: unknown[]): unknown;
}

function isAdapter(value: unknown): value is Adapter {
	const candidate = value as Partial<Adapter> | null;
	return (
		typeof candidate === 'object' &&
		candidate !== null &&
		typeof candidate.toJSON === 'function' &&
		typeof candidate._generate === 'function' &&
		typeof candidate._streamResponseChunks === 'function' &&
		typeof candidate.bindTools === 'function'
	);
}

function isModelShownInLogs(value: unknown): value is ModelShownInLogs {
	const candidate = value as Partial<ModelShownInLogs> | null;
	return (
		typeof candidate?.settingsForLogs === 'function' &&
		candidate.streamedAnswers instanceof StreamedAnswers
	);
}

/**
 * The keys of the AI message's metadata that describe the answer (chatModel.ts): who answered,
 * in which conversation, what the assistant did (steps) and what could not be sent (leftOut).
 */
export const ANSWER_DETAIL_KEYS = [
	'modelName',
	'persona',
	'conversationId',
	'modelFallback',
	'steps',
	'leftOut',
];

function answerDetails(metadata: LogDetails | undefined): LogDetails {
	const details: LogDetails = {};
	for (const key of ANSWER_DETAIL_KEYS) {
		if (metadata?.[key] !== undefined) details[key] = metadata[key];
	}
	return details;
}

/** Gives the SDK's adapter around `model` what the Logs panel shows; returns the adapter. */
export function showInLogs<T>(adapter: T, model: ModelShownInLogs): T {
	if (!isAdapter(adapter)) return adapter;
	const generate = adapter._generate;
	const streamChunks = adapter._streamResponseChunks;
	const bindTools = adapter.bindTools;

	adapter.toJSON = () => ({
		lc: 1,
		type: 'constructor',
		id: adapter.lc_id ?? ['n8n-nodes-assistant', 'AssistantChatModel'],
		kwargs: model.settingsForLogs(),
	});

	adapter._generate = async function (this: Adapter, ...args: unknown[]) {
		const result = await generate.apply(this, args);
		for (const generation of result.generations) {
			const details = answerDetails(generation.message?.response_metadata);
			generation.generationInfo = { ...generation.generationInfo, ...details };
		}
		return result;
	};

	adapter._streamResponseChunks = async function* (
		this: Adapter,
		messages: unknown,
		options: unknown,
		runManager?: unknown,
	) {
		for await (const chunk of streamChunks.call(this, messages, options, runManager)) {
			// The finish chunk: the only one with a finish reason, yielded once the answer is whole.
			const details =
				chunk.generationInfo?.finish_reason !== undefined
					? model.streamedAnswers.of(options)
					: undefined;
			if (details) {
				chunk.generationInfo = { ...chunk.generationInfo, ...details };
				if (chunk.message) {
					chunk.message.response_metadata = { ...chunk.message.response_metadata, ...details };
				}
			}
			yield chunk;
		}
	};

	adapter.bindTools = function (this: Adapter, ...args: unknown[]) {
		const bound = bindTools.apply(this, args);
		const boundModel = (bound as Partial<Adapter> | null)?.chatModel;
		return isModelShownInLogs(boundModel) ? showInLogs(bound, boundModel) : bound;
	};

	return adapter;
}
