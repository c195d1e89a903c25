import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { router } from './actions/router';
import { versionDescription } from './actions/versionDescription';
import { searchModels, searchPersonas } from './methods/listSearch';

export class Assistant implements INodeType {
	description: INodeTypeDescription = versionDescription;

	methods = {
		listSearch: { searchModels, searchPersonas },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
