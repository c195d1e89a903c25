'use strict';
// Fixture credential for the engine harness: a bearer token applied by n8n's generic `authenticate`.
Object.defineProperty(exports, '__esModule', { value: true });
exports.EchoApi = void 0;

class EchoApi {
	constructor() {
		this.name = 'echoApi';
		this.displayName = 'Echo API';
		this.properties = [
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: 'http://127.0.0.1' },
			{
				displayName: 'Access Token',
				name: 'accessToken',
				type: 'string',
				typeOptions: { password: true },
				default: '',
			},
		];
		this.authenticate = {
			type: 'generic',
			properties: {
				headers: { Authorization: "={{'Bearer ' + $credentials.accessToken}}" },
			},
		};
	}
}
exports.EchoApi = EchoApi;
