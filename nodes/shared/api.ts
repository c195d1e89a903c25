/** Types of every request and response of the Assistant API (docs/api.md). */

/** A JSON Schema restricted to the subset the service accepts for `output_format`. */
export interface OutputFormatSchema {
	type: 'object';
	properties: Record<string, OutputFormatProperty>;
	required?: string[];
	[keyword: string]: unknown;
}

export type OutputFormatProperty =
	| { type: 'string'; enum?: string[]; description?: string }
	| { type: 'number' | 'integer' | 'boolean'; description?: string }
	| { type: 'array'; items: OutputFormatProperty; description?: string }
	| {
			type: 'object';
			properties: Record<string, OutputFormatProperty>;
			required?: string[];
			description?: string;
	  };

/** Body of POST /assistant/ask. Optional fields are omitted rather than sent as null. */
export interface AskRequest {
	input: string;
	conversation_id?: string;
	model_name?: string;
	persona_id?: string;
	output_format?: OutputFormatSchema;
	stream?: boolean;
	/** docs/api.md#memory-mode: sent only to turn memory off. */
	memory_mode?: 'enabled' | 'off';
}

/** Non-streaming answer of POST /assistant/ask. */
export interface AskResponse {
	output: string | Record<string, unknown>;
	conversation_id: string;
}

/** What a 200 response may carry instead of an answer (docs/api.md#ask-answer): a failure. */
export interface InBandErrorResponse {
	error: string;
}

/** Entry of GET /models/available. */
export interface ModelEntry {
	model_name: string;
	label: string;
	vendor: string;
	description: string | null;
	/** Documented as fast | capable | null; an OpenAPI revision says free | subscribers. */
	type: string | null;
	context_window: number | null;
	is_byok: boolean;
	/** Lower first; may be absent (docs/api.md#models). */
	priority?: number | null;
}

export interface ModelsResponse {
	models: ModelEntry[];
}

/** Entry of GET /personas/available. */
export interface PersonaEntry {
	id: string;
	name: string;
	prompt: string;
	model: string | null;
	image: string | null;
}

export interface PersonasResponse {
	personas: PersonaEntry[];
}

export interface ReasoningLevelOption {
	value: number;
	label: string;
	/** Older catalogs omit it. */
	api_value?: string;
}

/**
 * A model's reasoning control (`kind` `levels` or `range`). The specification lists a levels
 * config's choices under `options`, the published OpenAPI document under `levels`; the nodes
 * read neither (docs/api.md#catalog).
 */
export type ReasoningConfig =
	| {
			kind?: 'levels';
			options?: ReasoningLevelOption[];
			levels?: ReasoningLevelOption[];
			[field: string]: unknown;
	  }
	| { kind?: 'range'; min_tokens: number; max_tokens: number; [field: string]: unknown };

export type MediaDomain = 'image' | 'video' | 'speech' | 'transcription';

export interface MediaProfile {
	operation: string;
	request_variants: Array<Record<string, unknown>>;
	price_rules: Array<Record<string, unknown>>;
	output: Record<string, unknown>;
	[field: string]: unknown;
}

/** Entry of GET /models/catalog's `models`; the service adds fields beyond these. */
export interface CatalogModel {
	/** The public model id (`vendor:model`). */
	value: string;
	label?: string;
	vendor?: string;
	description?: string | null;
	type?: string | null;
	context_window?: number | null;
	reasoning: ReasoningConfig | null;
	media_domain: MediaDomain | null;
	media_profiles: MediaProfile[];
	/** Whether the model sees images in the input (docs/api.md#images); true when absent. */
	supports_images?: boolean;
	[field: string]: unknown;
}

/** GET /models/catalog (public, cached for a minute by the service). */
export interface CatalogResponse {
	models: CatalogModel[];
	/** Deprecated, always false: never used to filter. */
	media_gateway_public_discovery_enabled: boolean;
	default_chat_model_id: string;
	featured_model_ids: string[];
	featured_models_are_free: boolean;
	featured_model_labels: string[];
	promo_end_date: string | null;
	deprecation_map: Record<string, string>;
	[field: string]: unknown;
}

/** A part of a model message (docs/api.md#live-stream-dialect). */
export interface MessagePart {
	/** `file`: a file or image the model made; its `content` is an object, never answer text. */
	part_kind: 'text' | 'thinking' | 'builtin-tool-call' | 'file' | string;
	content?: string;
	/** Tool calls and tool returns (docs/api.md#steps). */
	tool_name?: string;
	/** A tool call's arguments: an object, or JSON text. */
	args?: unknown;
	tool_call_id?: string;
}

/** A message of a conversation's history (docs/api.md#reading-a-conversation). */
export interface ConversationMessage {
	/** `request`: what was sent to the model (the user's prompt, tool returns); `response`: what it wrote. */
	kind: 'request' | 'response' | string;
	/** A request's prompt is a `user-prompt` (or `text`) part, its content text (or a list of pieces). */
	parts: Array<Omit<MessagePart, 'content'> & { content?: unknown }>;
}

/** GET /conversations/{conversation_id} (docs/api.md#reading-a-conversation). */
export interface ConversationResponse {
	state: 'running' | 'idle' | 'stopping' | string;
	messages: ConversationMessage[];
}

/** Data of a `FrontendModelResponse` event: `content` (a chunk), `parts` (a snapshot), or both. */
export interface FrontendModelResponseData {
	content?: string;
	parts?: MessagePart[];
	/** The model that wrote the message, as pydantic-ai names it (docs/api.md#steps). */
	model_name?: string;
}

/** Data of `PartStartEvent` and `PartEndEvent` (the end repeats the whole part). */
export interface PartEventData {
	index: number;
	part: MessagePart;
	/** pydantic-ai's hint on a `PartEndEvent`: the kind of the part that follows, or null. Not needed. */
	next_part_kind?: string | null;
}

export interface PartDeltaEventData {
	index: number;
	delta: {
		part_delta_kind?: 'text' | 'thinking' | 'tool_call' | string;
		content_delta?: string;
		/** `tool_call` deltas (docs/api.md#steps): more of the name, of the arguments. */
		tool_name_delta?: string;
		args_delta?: string | Record<string, unknown>;
		tool_call_id?: string;
	};
}

/** Data of an `End` event; `{}` is common; the live service nests the fields under `data`. */
export interface EndEventData {
	output?: string | Record<string, unknown>;
	conversation_id?: string;
	data?: { output?: string | Record<string, unknown>; conversation_id?: string };
}

/** Data of an `Error` or `SSEErrorEvent` event. */
export interface ErrorEventData {
	message?: string;
	turn_status?: string;
}

/**
 * Data of the 2026 stream's terminal events (docs/api.md#2026-stream-dialect): `completed`
 * (`status` `succeeded`, or another status: a failure) and `failed` (the run failed, in a 200).
 */
export interface RunEndEventData {
	status?: 'succeeded' | 'failed' | string | null;
	/** The message for the user when the run failed. */
	error?: string | null;
	/** The service's class of failure, e.g. `UserError`. */
	error_type?: string | null;
	/** Whose failure it is (`ours` seen), and what kind (`unknown_model` seen). */
	failure_owner?: string | null;
	failure_kind?: string | null;
	runner_id?: string | null;
}

/** A tool's result as `FunctionToolResultEvent.result` tells it (a `tool-return` part). */
export interface ToolReturnPart extends MessagePart {
	/** Whether the tool succeeded (2026 stream). */
	outcome?: 'success' | 'error' | string;
}

/** An API shape as it comes off the wire: its fields by name, each still to be checked. */
export type Unchecked<T> = { [K in keyof T]?: unknown };
