import { successorOf } from '../../../shared/catalog';
import type { RequestSettings } from '../../../shared/parameters/requestOptions';
import type { ExecuteRun } from '../../../shared/runContext';

/**
 * A deprecated model id is answered by its successor (Options > Replace Deprecated Model, on by
 * default), with a hint either way, so that workflows keep working when the service retires a
 * model (docs/api.md#catalog). The catalog is only an aid here: when it cannot be read, the model
 * is sent as chosen.
 */
export async function activeModel(
	run: ExecuteRun,
	settings: RequestSettings,
	modelId: string,
	useSuccessor: boolean,
): Promise<string> {
	const { ctx } = run;
	let successor: string | undefined;
	try {
		const catalog = await run.catalog(settings);
		successor = successorOf(catalog, modelId);
	} catch (error) {
		ctx.logger.debug(
			`Assistant: catalog not available for the deprecation check: ${(error as Error).message}`,
		);
		return modelId;
	}
	if (!successor) return modelId;
	if (run.notices.first(`deprecation hint ${modelId}`)) {
		ctx.addExecutionHints({
			message: useSuccessor
				? `Model "${modelId}" is deprecated: asked its successor "${successor}" instead. Choose "${successor}" in Model to make this permanent.`
				: `Model "${modelId}" is deprecated; its successor is "${successor}". Choose it in Model, or turn on Options > Replace Deprecated Model.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return useSuccessor ? successor : modelId;
}
