import type { ParameterContext } from '../../../nodes/shared/parameters/parameterErrors';
import { fakeNode } from '../../helpers/fake-node';

const NODE = fakeNode();

/**
 * The two things a parameter check asks of n8n: the node (for the error) and a parameter's value
 * (here as n8n resolves it: the stored value, or the fallback; `options.x` reads into a collection).
 */
export function parameters(values: Record<string, unknown>): ParameterContext {
	return {
		getNode: () => NODE,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => {
			const [head, ...rest] = name.split('.');
			let value: unknown = values[head];
			for (const key of rest) value = (value as Record<string, unknown> | undefined)?.[key];
			return value === undefined ? fallback : value;
		},
	};
}
