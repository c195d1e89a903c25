/**
 * An in-memory `ICredentialsHelper` for the engine harness: serves the credentials a test
 * passes, fills in the credential type's defaults, resolves `={{ ... }}` values, and applies a
 * generic `authenticate` block (headers, qs, body or auth over `$credentials`) as n8n's own
 * CredentialsHelper does. Only what this package's credential uses: no `extends`, no function
 * `authenticate`, no pre-authentication, no OAuth.
 */
import { Credentials, getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeTypes,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, Workflow, isExpression } from 'n8n-workflow';

import { fakeNode } from './fake-node';

export interface EngineCredential {
	id?: string;
	name?: string;
	type: string;
	data: Record<string, unknown>;
}

/** A node the helper resolves credential expressions on. */
const resolverNode: INode = fakeNode({
	id: 'harness-credential-resolver',
	name: 'Credential Resolver',
	type: 'n8n-nodes-base.noOp',
});

function unsupported(what: string): never {
	throw new Error(`Engine harness: ${what} is not supported (this package does not use it)`);
}

export class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly nodeTypes: INodeTypes,
		private readonly credentials: EngineCredential[],
	) {
		super();
	}

	/** The test's credential of this type and id; one given without an id serves any reference. */
	find(details: INodeCredentialsDetails | undefined, type: string): EngineCredential {
		const ofType = this.credentials.filter((credential) => credential.type === type);
		const found =
			ofType.find((credential) => credential.id !== undefined && credential.id === details?.id) ??
			ofType.find((credential) => credential.id === undefined);
		if (!found) {
			throw new Error(
				`Engine harness: no credential of type "${type}"` +
					(details?.id ? ` with id "${details.id}"` : '') +
					" in the options' credentials",
			);
		}
		return found;
	}

	getCredentialType(type: string): ICredentialType {
		const credentialType = this.credentialTypes[type];
		if (!credentialType) throw new Error(`Engine harness: unknown credential type "${type}"`);
		if (credentialType.extends?.length) unsupported(`credential type "${type}" with extends`);
		return credentialType;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.getCredentialType(type).properties;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.find(nodeCredentials, type).data as ICredentialDataDecryptedObject;
		return this.applyDefaults(additionalData, type, stored, mode);
	}

	/** Fills in the type's defaults and resolves `={{ ... }}` values (n8n's applyDefaultsAndOverwrites). */
	applyDefaults(
		additionalData: IWorkflowExecuteAdditionalData,
		type: string,
		stored: ICredentialDataDecryptedObject,
		mode: WorkflowExecuteMode,
	): ICredentialDataDecryptedObject {
		const withDefaults = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			stored as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		return this.resolverWorkflow().expression.getComplexParameterValue(
			resolverNode,
			withDefaults as INodeParameters,
			mode,
			getAdditionalKeys(additionalData, mode, null, { isCredential: true }),
			undefined,
			undefined,
			withDefaults,
		) as ICredentialDataDecryptedObject;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getCredentialType(typeName);
		if (typeof authenticate === 'function') unsupported('a function `authenticate`');
		if (authenticate?.type === 'generic') {
			const context = workflow ?? this.resolverWorkflow();
			const resolve = (value: string) =>
				this.resolveValue(value, credentials, context, node ?? resolverNode);
			type Buckets = Record<string, Record<string, string> | undefined>;
			const target = requestOptions as unknown as Buckets;
			requestOptions.headers ??= {};
			for (const [outerKey, properties] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(properties as Record<string, string>)) {
					const bucket = (target[outerKey] ??= {});
					bucket[resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	private resolveValue(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved ? resolved.toString() : '';
	}

	/** No pre-authentication: the credential has no expirable property. */
	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(details: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const credential = this.find(details, type);
		const { id = null, name = type } = credential;
		const credentials = new Credentials({ id, name }, type);
		await credentials.setData(credential.data as ICredentialDataDecryptedObject);
		return credentials;
	}

	async updateCredentials(): Promise<void> {
		unsupported('updating a credential');
	}

	async updateCredentialsOauthTokenData(): Promise<void> {
		unsupported('OAuth');
	}

	private resolverWorkflow(): Workflow {
		return new Workflow({
			nodes: [resolverNode],
			connections: {},
			active: false,
			nodeTypes: this.nodeTypes,
		});
	}
}
