import type { AskRequest, OutputFormatSchema } from '../shared/api';
import type { RequestSettings } from '../shared/parameters/requestOptions';
import type { ISupplyDataFunctions } from 'n8n-workflow';

import type { RunContext } from '../shared/runContext';

/** The chat model's settings, read and checked once by the node's `supplyData`. */

/** docs/api.md#memory-mode */
export type MemoryMode = NonNullable<AskRequest['memory_mode']>;

export interface AssistantModelSettings extends RequestSettings {
	modelName?: string;
	personaId?: string;
	memoryMode?: MemoryMode;
	/** Options > Conversation ID: the assistant conversation to continue. */
	conversationId?: string;
	/** Response Format (or withStructuredOutput): the schema the answer must match. */
	outputFormat?: OutputFormatSchema;
	/** What the model's calls share: the credential, the catalog, what was told once. */
	run: RunContext<ISupplyDataFunctions>;
}

/** How the Logs panel and the AI message's metadata name the assistant's defaults. */
export const DEFAULT_MODEL = 'default model';
export const ACTIVE_PERSONA = 'active persona';
