import type { ParameterContext } from './parameterErrors';

/**
 * The parameters of one node run, as the parameter readers take them (a ParameterContext): a
 * parameter that cannot differ between items is read once per run. Each getNodeParameter call
 * costs n8n a parameter resolution, clean-up and validation, and a parameter whose stored value
 * holds no expression resolves the same for every item. Any expression in it (at any depth: a
 * collection's option, a locator's value) and it is read per item, as n8n would. Values are
 * shared between items: callers read them, never change them. Made with the run (runContext.ts),
 * so nothing outlives it.
 */
export class RunParameters<
	C extends ParameterContext = ParameterContext,
> implements ParameterContext {
	private readonly fixed = new Map<string, typeof PER_ITEM | { value: unknown }>();

	constructor(readonly ctx: C) {}

	getNode(): ReturnType<ParameterContext['getNode']> {
		return this.ctx.getNode();
	}

	getNodeParameter(name: string, itemIndex: number, fallback?: unknown): unknown {
		const known = this.fixed.get(name);
		if (known === PER_ITEM) return this.ctx.getNodeParameter(name, itemIndex, fallback);
		if (known) return known.value;
		// n8n's own way to read a parameter as stored, its expressions unresolved (n8n 1.x and 2.x
		// alike); NOT_STORED comes back when nothing is stored and the fallback would apply.
		const stored = this.ctx.getNodeParameter(name, itemIndex, NOT_STORED, RAW);
		const value = this.ctx.getNodeParameter(name, itemIndex, fallback);
		// Nothing stored (the fallback applies) or an expression: read per item.
		const perItem = stored === NOT_STORED || stored === undefined || holdsExpression(stored);
		this.fixed.set(name, perItem ? PER_ITEM : { value });
		return value;
	}
}

const PER_ITEM = Symbol('per item');
const NOT_STORED = Symbol('not stored');
const RAW = { rawExpressions: true };

/** n8n stores an expression as text starting with "=" (what n8n-workflow's isExpression checks). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (typeof value === 'object' && value !== null) {
		return Object.values(value as Record<string, unknown>).some(holdsExpression);
	}
	return false;
}
