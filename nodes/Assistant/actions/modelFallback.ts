import type { IExecuteFunctions } from 'n8n-workflow';

import type { AskResult } from '../../shared/askAssistant';
import type { RunNotices } from '../../shared/runNotices';

/**
 * When the service answered with another model than the one asked for
 * (docs/api.md#model-fallback): a warning hint in the editor, once per node run for each pair
 * of models, and, since hints are not seen in production runs, the answering model in the
 * item's `model_fallback` field (only on items where it happened).
 */
export function noteModelFallback(
	ctx: IExecuteFunctions,
	notices: RunNotices,
	askedModel: string | undefined,
	result: AskResult,
): { model_fallback?: string } {
	const answered = result.modelFallback;
	if (!answered) return {};
	const asked = askedModel ? `Model "${askedModel}"` : 'The default model';
	if (notices.first(`model fallback ${askedModel ?? ''} -> ${answered}`)) {
		ctx.addExecutionHints({
			message: `${asked} was not available: the service answered with "${answered}" instead (see model_fallback in the output).`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return { model_fallback: answered };
}
