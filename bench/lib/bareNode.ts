/**
 * The least an n8n node can do to send the same ask: read `input`, POST it with n8n's own
 * authenticated HTTP helper (the one the Assistant node uses too), return the answer. Run in
 * the same engine, it separates what n8n itself costs per item from what the node's code adds.
 * `concurrency` > 1 runs that many items at once (a plain worker pool, nothing else).
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
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';

import type { LoadedPackage } from '../../test/helpers/engine';

export const BARE_NODE_TYPE = 'bench.bareAsk';

class BareAsk implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Bare Ask',
		name: 'bareAsk',
		group: ['transform'],
		version: 1,
		description: 'POSTs the input with n8n’s helper, nothing else',
		defaults: { name: 'Bare Ask' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'assistantApi', required: true }],
		properties: [
			{ displayName: 'Input', name: 'input', type: 'string', default: '' },
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 1 },
			// 'helper': httpRequestWithAuthentication (n8n applies the credential per request);
			// 'header': the bearer header set here from credentials read once, then httpRequest.
			{ displayName: 'Auth', name: 'auth', type: 'string', default: 'helper' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const url = this.getNodeParameter('url', 0) as string;
		const concurrency = this.getNodeParameter('concurrency', 0, 1) as number;
		const auth = this.getNodeParameter('auth', 0, 'helper') as string;
		const token =
			auth === 'header' ? String((await this.getCredentials('assistantApi')).accessToken) : '';
		const out: INodeExecutionData[] = new Array(items.length);
		const ask = async (i: number) => {
			const input = this.getNodeParameter('input', i) as string;
			const options: IHttpRequestOptions = {
				method: 'POST',
				url,
				headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
				body: { input },
				json: true,
			};
			let answer: IDataObject;
			if (auth === 'header') {
				options.headers = { ...options.headers, Authorization: `Bearer ${token}` };
				answer = (await this.helpers.httpRequest(options)) as IDataObject;
			} else {
				answer = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'assistantApi',
					options,
				)) as IDataObject;
			}
			out[i] = {
				json: { output: answer.output, conversation_id: answer.conversation_id },
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
