import { RunParameters } from '../../../nodes/shared/parameters/nodeParameter';
import type { ParameterContext } from '../../../nodes/shared/parameters/parameterErrors';
import { fakeNode } from '../../helpers/fake-node';

/**
 * A context whose stored parameters are `stored`; getNodeParameter resolves them per item as n8n
 * would an expression (here: the stored value followed by the item index), and counts its calls.
 */
function context(stored: Record<string, unknown>) {
	const calls: string[] = [];
	const node = fakeNode({ parameters: stored as never });
	const n8n: ParameterContext = {
		getNode: () => node,
		getNodeParameter: (name, itemIndex, fallback, how) => {
			// The stored value, expressions unresolved: what n8n gives with rawExpressions.
			if (how?.rawExpressions) return stored[name] ?? fallback;
			calls.push(`${name}#${itemIndex}`);
			const value = stored[name];
			if (value === undefined) return fallback;
			return typeof value === 'string' && value.startsWith('=') ? `${value}:${itemIndex}` : value;
		},
	};
	// One node run's parameters: how the node reads them (runContext.ts).
	const run = new RunParameters(n8n);
	return { ctx: run, calls };
}

function nodeParameter(ctx: ParameterContext, name: string, itemIndex: number, fallback: unknown) {
	return ctx.getNodeParameter(name, itemIndex, fallback);
}

describe('parameters read once per node run when no item can change them', () => {
	test('a fixed value is resolved by n8n once and is the same for every item', () => {
		const { ctx, calls } = context({ responseFormat: 'text', options: { retries: 3 } });
		for (const item of [0, 1, 2]) {
			expect(nodeParameter(ctx, 'responseFormat', item, 'text')).toBe('text');
			expect(nodeParameter(ctx, 'options', item, {})).toEqual({ retries: 3 });
		}
		expect(calls).toEqual(['responseFormat#0', 'options#0']);
	});

	test('an expression is resolved for each item', () => {
		const { ctx, calls } = context({ input: '={{ $json.q }}' });
		expect([0, 1, 2].map((item) => nodeParameter(ctx, 'input', item, ''))).toEqual([
			'={{ $json.q }}:0',
			'={{ $json.q }}:1',
			'={{ $json.q }}:2',
		]);
		expect(calls).toEqual(['input#0', 'input#1', 'input#2']);
	});

	test('an expression deep inside a collection or a locator makes the whole parameter per item', () => {
		const { ctx, calls } = context({
			options: { timeout: 30, tags: ['a', '={{ $json.tag }}'] },
			model: { __rl: true, mode: 'id', value: '={{ $json.model }}' },
		});
		for (const item of [0, 1]) {
			nodeParameter(ctx, 'options', item, {});
			nodeParameter(ctx, 'model', item, '');
		}
		expect(calls).toEqual(['options#0', 'model#0', 'options#1', 'model#1']);
	});

	test('a parameter not stored on the node (its fallback applies) is read per item', () => {
		const { ctx, calls } = context({});
		expect(nodeParameter(ctx, 'conversationId', 0, '')).toBe('');
		expect(nodeParameter(ctx, 'conversationId', 1, '')).toBe('');
		expect(calls).toEqual(['conversationId#0', 'conversationId#1']);
	});

	test('another node run reads its parameters afresh', () => {
		const first = context({ responseFormat: 'text' });
		const second = context({ responseFormat: 'jsonExample' });
		expect(nodeParameter(first.ctx, 'responseFormat', 0, 'text')).toBe('text');
		expect(nodeParameter(second.ctx, 'responseFormat', 0, 'text')).toBe('jsonExample');
	});
});
