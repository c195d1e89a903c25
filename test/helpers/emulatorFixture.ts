/**
 * The emulator for an engine suite, and the one way such a suite runs the Assistant node.
 *
 *   const assistant = useEmulator({ token: 'tok_my_suite', conversationRetryAfterMs: 20 });
 *
 *   test('answers', async () => {
 *     const run = await assistant.run({ input: 'Hello' }); // Trigger → Items [{}] → Ask
 *     expect(run.json.output).toContain('Hello');
 *     expect(assistant.askRequests()).toHaveLength(1);
 *   });
 *
 * `useEmulator(options)` registers jest hooks in the scope it is called in (a file, or a
 * `describe` for an emulator per block): beforeAll starts an emulator with `options` (those of
 * test/emulator/server.js's `startEmulator`) and loads the built package, beforeEach resets the
 * emulator (conversations, statistics, queued faults), afterAll closes it. Each suite starts its
 * own, with its own token: jest runs suites in parallel workers, and a reset must clear only this
 * suite's state. The fields are read inside tests and hooks, not when the file loads.
 *
 * `run(parameters, options)` runs Manual Trigger → Items (`options.items`, default one empty
 * item) → an Assistant node named `options.name` (default 'Ask') with `parameters` (operation
 * 'ask' unless they say another) → `options.then` (more nodes, made with `node()`), in n8n-core's
 * engine with the emulator's credential (unless `options.credentials` gives others). The result
 * is the engine's (test/helpers/engine.ts `RunResult`) plus `json`, the node's first output item,
 * and `failure`, the run's error as the user reads it.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { startEmulator, type Emulator } from '../emulator/server';
import { assistantNode, assistantPackage, emulatorCredential } from './assistant';
import {
	chain,
	itemsNode,
	manualTrigger,
	runWorkflow,
	type EngineCredential,
	type LoadedPackage,
	type RunOptions,
	type RunResult,
} from './engine';

export type EmulatorOptions = NonNullable<Parameters<typeof startEmulator>[0]>;

/** One request the emulator received (test/emulator/server.js `RecordedRequest`). */
export type RecordedRequest = Emulator['stats']['requests'][number];

export interface AssistantRunOptions extends RunOptions {
	/** The items the Assistant node receives; default one empty item. */
	items?: IDataObject[];
	/** The Assistant node's name; default 'Ask'. */
	name?: string;
	/** Node-level fields of the Assistant node (onError, retryOnFail, type…). */
	node?: Partial<INode>;
	/** Nodes run after it, in a row (made with the fixture's `node()`). */
	then?: INode[];
}

/** What a run's error says to the user (a NodeApiError or NodeOperationError's fields). */
export interface RunFailure {
	message: string;
	description?: string | null;
	httpCode?: string | null;
	stack?: string;
	context?: IDataObject;
}

export interface AssistantRun extends RunResult {
	/** The Assistant node's first output item's JSON; `{}` when the run failed. */
	json: IDataObject;
	/** The run's error, if any. */
	failure: RunFailure | undefined;
}

export interface EmulatorFixture {
	/** The running emulator: its `stats`, `queueFault`, `baseUrl`, `token`. */
	readonly emulator: Emulator;
	/** The engine credential for it (`assistantApi`: its base URL and token). */
	readonly credential: EngineCredential;
	/** The built package, loaded once. */
	readonly pkg: LoadedPackage;
	/** An Assistant node (for `then`, or an agent's tool); `extra` sets node-level fields. */
	node(name: string, parameters: INodeParameters, extra?: Partial<INode>): INode;
	/** Runs an Assistant node in the engine (above). */
	run(parameters: INodeParameters, options?: AssistantRunOptions): Promise<AssistantRun>;
	/** The asks (`POST /assistant/ask`) the emulator received since the last reset. */
	askRequests(): RecordedRequest[];
}

export function useEmulator(options: EmulatorOptions = {}): EmulatorFixture {
	let emulator: Emulator | undefined;
	let pkg: LoadedPackage | undefined;

	beforeAll(async () => {
		emulator = await startEmulator(options);
		pkg = await assistantPackage();
	});
	afterAll(async () => await emulator?.close());
	beforeEach(() => emulator?.reset());

	const started = (): Emulator => {
		if (!emulator) throw new Error('useEmulator: read the emulator inside a test or hook');
		return emulator;
	};
	const loaded = (): LoadedPackage => {
		if (!pkg) throw new Error('useEmulator: read the package inside a test or hook');
		return pkg;
	};

	const fixture: EmulatorFixture = {
		get emulator() {
			return started();
		},
		get credential() {
			return emulatorCredential(started().baseUrl, started().token);
		},
		get pkg() {
			return loaded();
		},
		node: (name, parameters, extra = {}) => assistantNode(loaded(), name, parameters, extra),
		async run(parameters, runOptions = {}) {
			const { items = [{}], name = 'Ask', node = {}, then = [], ...engineOptions } = runOptions;
			const ask = fixture.node(name, { operation: 'ask', ...parameters }, node);
			const workflow = chain(manualTrigger(), itemsNode(items), ask, ...then);
			const result = await runWorkflow(loaded(), workflow, {
				credentials: [fixture.credential],
				...engineOptions,
			});
			const failure = result.error() as unknown as RunFailure | undefined;
			return Object.assign(result, {
				json: failure ? {} : (result.outputs(name)[0]?.json ?? {}),
				failure,
			});
		},
		askRequests: () =>
			started().stats.requests.filter((request) => request.path === '/assistant/ask'),
	};
	return fixture;
}
