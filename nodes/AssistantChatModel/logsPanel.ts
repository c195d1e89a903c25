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
 * So the adapter gets a serialization with the model's settings, and generations whose
 * `generationInfo` carries the answer's details (the same as the AI message's metadata). This
 * file says what the panel shows; sdkAdapter.ts puts it on the adapter.
 */

export type LogDetails = Record<string, unknown>;

/** The chat model's side: its settings as the panel shows them, its streamed answers' details. */
export interface ModelShownInLogs {
	settingsForLogs(): LogDetails;
	readonly streamedAnswers: StreamedAnswers;
}

export function isModelShownInLogs(value: unknown): value is ModelShownInLogs {
	const candidate = value as Partial<ModelShownInLogs> | null;
	return (
		typeof candidate?.settingsForLogs === 'function' &&
		candidate.streamedAnswers instanceof StreamedAnswers
	);
}

/** A generation (or a streamed chunk of one) as LangChain's adapter returns it. */
export interface Generation {
	message?: { response_metadata?: LogDetails };
	generationInfo?: LogDetails;
}

/**
 * The answer's details of a model's streamed calls, by the call's options object: the one object
 * the adapter hands both to the model's `stream` and to its own chunk loop, so the only way
 * between them. Each model has its own (made per supplyData): nothing outlives the model, and an
 * entry goes with its call's options object.
 */
export class StreamedAnswers {
	private readonly byCall = new WeakMap<object, LogDetails>();

	/** Called by the chat model's `stream` with the call's options before its `finish` chunk. */
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

/**
 * The keys of the AI message's metadata that describe the answer (answerMessage.ts): who
 * answered, in which conversation, what the assistant did (steps) and what could not be sent
 * (leftOut).
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

/** The model's LangChain serialization as the panel shows it: its settings as `kwargs`. */
export function serializationForLogs(model: ModelShownInLogs, id: string[] | undefined): object {
	return {
		lc: 1,
		type: 'constructor',
		id: id ?? ['n8n-nodes-assistant', 'AssistantChatModel'],
		kwargs: model.settingsForLogs(),
	};
}

/** A whole call's generation: the answer's details (from its AI message) in `generationInfo`. */
export function showAnswerDetails(generation: Generation): void {
	const details = answerDetails(generation.message?.response_metadata);
	generation.generationInfo = { ...generation.generationInfo, ...details };
}

/**
 * A streamed call's chunk: the finish chunk (the only one with a finish reason, yielded once the
 * answer is whole) gets the answer's details the model noted for the call's options, in its
 * `generationInfo` and its message's metadata.
 */
export function showStreamedAnswerDetails(
	chunk: Generation,
	callOptions: unknown,
	answers: StreamedAnswers,
): void {
	if (chunk.generationInfo?.finish_reason === undefined) return;
	const details = answers.of(callOptions);
	if (!details) return;
	chunk.generationInfo = { ...chunk.generationInfo, ...details };
	if (chunk.message) {
		chunk.message.response_metadata = { ...chunk.message.response_metadata, ...details };
	}
}
