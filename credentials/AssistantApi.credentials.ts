import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class AssistantApi implements ICredentialType {
	name = 'assistantApi';

	displayName = 'Assistant API';

	icon: Icon = {
		light: 'file:../nodes/Assistant/assistant.svg',
		dark: 'file:../nodes/Assistant/assistant.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-assistant/n8n-nodes-assistant#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://assistant.example.com/api',
			description:
				'The address of the Assistant API, with or without a trailing slash. For the local emulator: the URL that npm run emulator prints.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'Create it in the assistant app under Settings > Advanced. It is shown once at creation and grants full access to your assistant: keep it secret.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			url: '/models/available',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The access token was rejected (HTTP 401). Copy it again from Settings > Advanced in the assistant app.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this base URL (HTTP 404). Check the address of the Assistant API.',
				},
			},
		],
	};
}
