import type { IAuthenticateGeneric, Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

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
			placeholder: "https://… (the API's address, from the service's API documentation)",
			description:
				"The address of the assistant service's API, as its API documentation gives it: not the address of the web app you chat in. Saving the credential tests it, and says what answered if this is another address.",
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'Create it in the assistant app under Settings > Advanced. It is shown once, when you create it, and grants full access to your assistant: keep it secret.',
		},
	];

	// Tested by the Assistant node (its credentialTest method), which can tell a web page, a wrong
	// token and an unreachable address apart: a declarative test passes for any 200.
	// A token pasted with its `Bearer ` prefix, or with spaces around it, is sent once-prefixed
	// (docs/api.md#authentication); n8n resolves this expression in n8n-workflow, 1.x and 2.x alike.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization:
					'=Bearer {{ String($credentials.accessToken || "").trim().replace(/^bearer(\\s+|$)/i, "") }}',
			},
		},
	};
}
