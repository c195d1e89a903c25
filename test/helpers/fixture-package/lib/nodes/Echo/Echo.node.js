'use strict';
// Fixture node for the engine harness: posts each item's `message` to the echo server with the
// `echoApi` credential, streams when the execution streams, and offers a resource-locator search.
Object.defineProperty(exports, '__esModule', { value: true });
exports.Echo = void 0;
const n8n_workflow_1 = require('n8n-workflow');

class Echo {
	constructor() {
		this.description = {
			displayName: 'Echo',
			name: 'echo',
			group: ['transform'],
			version: 1,
			description: 'Echoes each item through a tiny HTTP server',
			defaults: { name: 'Echo' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [
				{ name: 'echoApi', required: true, testedBy: 'echoApiTest' },
			],
			properties: [
				{ displayName: 'Path', name: 'path', type: 'string', default: '/echo' },
				{ displayName: 'Message', name: 'message', type: 'string', default: '' },
				{
					displayName: 'Thing',
					name: 'thing',
					type: 'resourceLocator',
					default: { mode: 'list', value: '' },
					modes: [
						{
							displayName: 'From List',
							name: 'list',
							type: 'list',
							typeOptions: { searchListMethod: 'searchThings', searchable: true },
						},
						{ displayName: 'ID', name: 'id', type: 'string' },
					],
				},
			],
		};
		this.methods = {
			listSearch: {
				async searchThings(filter, paginationToken) {
					const credentials = await this.getCredentials('echoApi');
					const page = await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
						method: 'GET',
						baseURL: credentials.baseUrl,
						url: '/things',
						qs: { filter: filter || '', page: paginationToken || '1' },
						json: true,
					});
					return {
						results: page.things.map((thing) => ({ name: thing.name, value: thing.id })),
						paginationToken: page.next,
					};
				},
			},
			credentialTest: {
				// Asks /whoami with the token; says what the status means.
				async echoApiTest(credential) {
					try {
						// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions -- the only HTTP helper n8n gives a credential test
						await this.helpers.request({
							method: 'GET',
							uri: `${credential.data.baseUrl}/whoami`,
							headers: { authorization: `Bearer ${credential.data.accessToken}` },
							json: true,
						});
						return { status: 'OK', message: 'Connection successful!' };
					} catch (error) {
						const status = error.statusCode ?? error.response?.status;
						return { status: 'Error', message: `HTTP ${status}` };
					}
				},
			},
		};
	}

	async execute() {
		const items = this.getInputData();
		const credentials = await this.getCredentials('echoApi');
		const streaming = typeof this.isStreaming === 'function' && this.isStreaming();
		const returnData = [];
		for (let i = 0; i < items.length; i++) {
			try {
				const message = this.getNodeParameter('message', i);
				const path = this.getNodeParameter('path', i);
				this.logger.debug('Echo: sending an item', { itemIndex: i });
				if (streaming) await this.sendChunk('begin', i);
				const response = await this.helpers.httpRequestWithAuthentication.call(this, 'echoApi', {
					method: 'POST',
					baseURL: credentials.baseUrl,
					url: path,
					body: { message, input: items[i].json },
					json: true,
				});
				if (streaming) {
					await this.sendChunk('item', i, String(message));
					await this.sendChunk('end', i);
				}
				returnData.push({ json: response, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					returnData.push({ json: { error: error.message }, pairedItem: { item: i } });
					continue;
				}
				if (error instanceof n8n_workflow_1.NodeApiError) throw error;
				throw new n8n_workflow_1.NodeOperationError(this.getNode(), error, { itemIndex: i });
			}
		}
		return [returnData];
	}
}
exports.Echo = Echo;
