/**
 * A small stand-in for the context n8n gives a node's execute(), for unit tests of the node's
 * own logic on the TypeScript sources (no build, no engine): the input items, parameters per
 * item, Continue On Fail, and an HTTP helper answered by the test. The engine suites run the
 * same code in n8n-core's real engine against the emulator.
 */
import {
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
} from 'n8n-workflow';

import { fakeNode } from './fake-node';

/** What the test's server answers: the status and a JSON body (sent as text). */
export interface FakeAnswer {
	statusCode: number;
	body: unknown;
	headers?: Record<string, string>;
}

export interface FakeContextOptions {
	items: IDataObject[];
	/** A parameter's value for an item; undefined means the parameter's default. */
	parameter: (name: string, itemIndex: number) => unknown;
	respond: (request: IHttpRequestOptions) => Promise<FakeAnswer> | FakeAnswer;
	continueOnFail?: boolean;
	executionId?: string;
	credentials?: { baseUrl: string; accessToken: string };
}

export const FAKE_NODE: INode = fakeNode({ id: 'assistant-under-test', name: 'Assistant' });

/** The context, and every request the node sent through it, in order. */
export function fakeExecuteContext(options: FakeContextOptions): {
	ctx: IExecuteFunctions;
	requests: IHttpRequestOptions[];
} {
	const requests: IHttpRequestOptions[] = [];
	const send = async (request: IHttpRequestOptions) => {
		requests.push(request);
		const answer = await options.respond(request);
		return {
			statusCode: answer.statusCode,
			headers: { 'content-type': 'application/json', ...answer.headers },
			body: JSON.stringify(answer.body),
		};
	};
	const input: INodeExecutionData[] = options.items.map((json) => ({ json }));
	const ctx = {
		getInputData: () => input,
		getNode: () => FAKE_NODE,
		// n8n reads a dotted path ('options.concurrency') inside a collection parameter.
		getNodeParameter: (
			name: string,
			itemIndex: number,
			fallback?: unknown,
			how?: { rawExpressions?: boolean },
		) => {
			// As stored on the node: FAKE_NODE stores none (values come per item), so the fallback.
			if (how?.rawExpressions) return fallback;
			const [first, ...rest] = name.split('.');
			let value = options.parameter(first, itemIndex);
			for (const key of rest) value = (value as IDataObject | undefined)?.[key];
			return value ?? fallback;
		},
		continueOnFail: () => options.continueOnFail ?? false,
		getExecutionId: () => options.executionId ?? 'unit-execution',
		getExecutionCancelSignal: () => undefined,
		getCredentials: async () =>
			options.credentials ?? { baseUrl: 'http://assistant.test/api', accessToken: 'unit-token' },
		addExecutionHints: () => undefined,
		isStreaming: () => false,
		sendChunk: () => undefined,
		logger: { debug: () => undefined, info: () => undefined, warn: () => undefined },
		helpers: {
			httpRequest: send,
			httpRequestWithAuthentication: (_type: string, request: IHttpRequestOptions) => send(request),
		},
	};
	return { ctx: ctx as unknown as IExecuteFunctions, requests };
}
