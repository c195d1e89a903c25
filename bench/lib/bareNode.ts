/**
 * The least an n8n node can do to send the same ask: read `input`, POST it with n8n's own
 * authenticated HTTP helper (the one the Assistant node uses too), return the answer. Run in
 * the same engine, it separates what n8n itself costs per item from what the node's code adds.
 * `streamed`: the ask in streamed form, as the node sends every ask, its event stream read whole
 * as text and returned as it is (nothing decoded: what the node does with it is the node's cost).
 * `bodyAsStream` (with `streamed`): the body taken from the helper as a stream (`encoding:
 * 'stream'`, as the node takes it, to read it within a bound as it arrives) and its pieces joined
 * by 'data' events: what n8n's helper costs for a body read as it comes, nothing of the node's.
 * The item tells how many pieces the body came in (`pieces`).
 * `concurrency` > 1 runs that many items at once (a plain worker pool, nothing else).
 * `retries` > 0 retries busy answers (429, 503, "sessions are busy") at that fixed concurrency,
 * as a client without a pace does: after Retry-After, else 1 s, 2 s, … with jitter (the node's
 * backoff for other failures); an item whose retries run out becomes `{ error }`.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import type { LoadedPackage } from '../../test/helpers/engine';
import { testNodeDescription } from '../../test/helpers/engine-nodes';

export const BARE_NODE_TYPE = 'bench.bareAsk';

class BareAsk implements INodeType {
	description: INodeType['description'] = {
		...testNodeDescription(
			'bareAsk',
			'Bare Ask',
			'POSTs the input with n8n’s helper, nothing else',
			{ name: 'Bare Ask', group: 'transform' },
			[
				{ displayName: 'Input', name: 'input', type: 'string', default: '' },
				{ displayName: 'URL', name: 'url', type: 'string', default: '' },
				{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
				// 'helper': httpRequestWithAuthentication (n8n applies the credential per request);
				// 'header': the bearer header set here from credentials read once, then httpRequest.
				{ displayName: 'Auth', name: 'auth', type: 'string', default: 'helper' },
				{ displayName: 'Retries', name: 'retries', type: 'number', default: 0 },
				{ displayName: 'Streamed', name: 'streamed', type: 'boolean', default: false },
				{ displayName: 'Body As Stream', name: 'bodyAsStream', type: 'boolean', default: false },
			],
		),
		credentials: [{ name: 'assistantApi', required: true }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const url = this.getNodeParameter('url', 0) as string;
		const concurrency = this.getNodeParameter('concurrency', 0, 1) as number;
		const auth = this.getNodeParameter('auth', 0, 'helper') as string;
		const retries = this.getNodeParameter('retries', 0, 0) as number;
		const streamed = this.getNodeParameter('streamed', 0, false) as boolean;
		const bodyAsStream = streamed && (this.getNodeParameter('bodyAsStream', 0, false) as boolean);
		if (retries > 0) return [await askWithRetries(this, items.length, url, concurrency, retries)];
		const token =
			auth === 'header' ? String((await this.getCredentials('assistantApi')).accessToken) : '';
		const out: INodeExecutionData[] = new Array(items.length);
		const ask = async (i: number) => {
			const input = this.getNodeParameter('input', i) as string;
			const options: IHttpRequestOptions = {
				method: 'POST',
				url,
				headers: {
					Accept: streamed ? 'text/event-stream' : 'application/json',
					'Content-Type': 'application/json',
				},
				body: streamed ? { input, stream: true } : { input },
				...(streamed
					? { encoding: bodyAsStream ? ('stream' as const) : ('text' as const), json: false }
					: { json: true }),
			};
			let answer: unknown;
			if (auth === 'header') {
				options.headers = { ...options.headers, Authorization: `Bearer ${token}` };
				answer = await this.helpers.httpRequest(options);
			} else {
				answer = await this.helpers.httpRequestWithAuthentication.call(
					this,
					'assistantApi',
					options,
				);
			}
			let pieces: number | undefined;
			if (bodyAsStream) ({ text: answer, pieces } = await joined(answer as NodeJS.ReadableStream));
			// Streamed: the event stream's text as it came; else the JSON answer's fields.
			const fields = answer as IDataObject;
			out[i] = {
				json: streamed
					? { output: answer as string, ...(pieces === undefined ? {} : { pieces }) }
					: { output: fields.output, conversation_id: fields.conversation_id },
				pairedItem: { item: i },
			};
		};
		let next = 0;
		const worker = async () => {
			while (next < items.length) await ask(next++);
		};
		await Promise.all(
			Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker),
		);
		return [out];
	}
}

/** A body stream's pieces joined, read by 'data' events as the node reads one; how many came. */
async function joined(body: NodeJS.ReadableStream): Promise<{ text: string; pieces: number }> {
	return await new Promise((resolve, reject) => {
		const pieces: Buffer[] = [];
		body.on('data', (piece: Buffer) => pieces.push(piece));
		body.on('end', () =>
			resolve({ text: Buffer.concat(pieces).toString('utf8'), pieces: pieces.length }),
		);
		body.on('error', reject);
	});
}

class WithExtraTypes implements INodeTypes {
	constructor(
		private readonly base: INodeTypes,
		private readonly extra: Record<string, INodeType>,
	) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return this.extra[nodeType] ?? this.base.getByName(nodeType);
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const extra = this.extra[nodeType];
		return extra
			? NodeHelpers.getVersionedNodeType(extra, version)
			: this.base.getByNameAndVersion(nodeType, version);
	}

	getKnownTypes(): IDataObject {
		return this.base.getKnownTypes();
	}
}

/** The package, plus the bare node type. */
export function withBareNode(pkg: LoadedPackage): LoadedPackage {
	return {
		...pkg,
		nodeTypes: new WithExtraTypes(pkg.nodeTypes, { [BARE_NODE_TYPE]: new BareAsk() }),
	};
}

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | undefined>;
	body: IDataObject & { detail?: unknown };
}

/** Fixed concurrency, busy answers retried after Retry-After or a backoff; failures counted. */
async function askWithRetries(
	ctx: IExecuteFunctions,
	count: number,
	url: string,
	concurrency: number,
	retries: number,
): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = new Array(count);
	const ask = async (i: number) => {
		const input = ctx.getNodeParameter('input', i) as string;
		for (let attempt = 0; ; attempt++) {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'assistantApi', {
				method: 'POST',
				url,
				headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
				body: { input },
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as FullResponse;
			if (response.statusCode === 200) {
				const answer = response.body;
				out[i] = {
					json: { output: answer.output, conversation_id: answer.conversation_id },
					pairedItem: { item: i },
				};
				return;
			}
			const busy =
				response.statusCode === 429 ||
				response.statusCode === 503 ||
				/sessions are busy|cannot evict/i.test(JSON.stringify(response.body));
			if (!busy || attempt >= retries) {
				out[i] = {
					json: { error: `HTTP ${response.statusCode}`, attempts: attempt + 1 },
					pairedItem: { item: i },
				};
				return;
			}
			const retryAfter = Number(response.headers['retry-after']);
			const backoff = 1000 * 2 ** attempt;
			const delay = Number.isFinite(retryAfter)
				? retryAfter * 1000
				: backoff / 2 + (Math.random() * backoff) / 2;
			await new Promise((resolve) => setTimeout(resolve, delay));
		}
	};
	let next = 0;
	const worker = async () => {
		while (next < count) await ask(next++);
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	return out;
}
