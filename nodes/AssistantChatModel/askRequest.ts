import type { AskRequest } from '../shared/api';
import type { AssistantModelSettings } from './modelSettings';
import { toolEnvelopeSchema, type ToolForEnvelope } from './toolEnvelope';

/**
 * The request of one ask: the planned input, the conversation it continues, the model's settings
 * (only those that differ from the service's defaults), and the output format: with tools bound
 * the tool envelope (its final answer the Response Format's object, if any), else the Response
 * Format's schema.
 */
export function askRequest(
	settings: AssistantModelSettings,
	input: string,
	conversationId?: string,
	tools?: ToolForEnvelope[],
): AskRequest {
	const request: AskRequest = { input };
	if (conversationId) request.conversation_id = conversationId;
	if (settings.modelName) request.model_name = settings.modelName;
	if (settings.personaId) request.persona_id = settings.personaId;
	if (settings.memoryMode) request.memory_mode = settings.memoryMode;
	if (tools && tools.length > 0) {
		request.output_format = toolEnvelopeSchema(tools, settings.outputFormat);
	} else if (settings.outputFormat) {
		request.output_format = settings.outputFormat;
	}
	return request;
}
