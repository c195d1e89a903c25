import type { ParameterContext } from './parameterErrors';

/**
 * A parameter's value for an item, read once per node run when it cannot differ between items:
 * each getNodeParameter call costs n8n a parameter resolution, clean-up and validation, and a
 * parameter whose stored value holds no expression resolves the same for every item. Any
 * expression in it (at any depth: a collection's option, a locator's value) and it is read per
 * item, as n8n would. Values are shared between items: callers read them, never change them.
 */
export function nodeParameter(
	ctx: ParameterContext,
	name: string,
	itemIndex: number,
	fallback: unknown,
): unknown {
	let fixed = fixedValues.get(ctx);
	if (!fixed) fixedValues.set(ctx, (fixed = new Map()));
	const known = fixed.get(name);
	if (known === PER_ITEM) return ctx.getNodeParameter(name, itemIndex, fallback);
	if (known) return known.value;
	const stored = (ctx.getNode().parameters as Record<string, unknown> | undefined)?.[name];
	const value = ctx.getNodeParameter(name, itemIndex, fallback);
	// Nothing stored (the fallback applies) or an expression: read per item.
	fixed.set(name, stored === undefined || holdsExpression(stored) ? PER_ITEM : { value });
	return value;
}

const PER_ITEM = Symbol('per item');
/** Keyed by the node run's context: n8n makes one per run, so nothing outlives the run. */
const fixedValues = new WeakMap<
	ParameterContext,
	Map<string, typeof PER_ITEM | { value: unknown }>
>();

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (typeof value === 'object' && value !== null) {
		return Object.values(value as Record<string, unknown>).some(holdsExpression);
	}
	return false;
}
