/**
 * An in-memory `ICredentialsHelper` for the engine harness: serves the credentials a test passes,
 * applies the credential type's defaults and expressions, and applies its `authenticate` (a
 * function, or the generic headers/qs/body/auth with `={{ ... }}` over `$credentials`) the way
 * n8n's own CredentialsHelper does (packages/cli/src/credentials-helper.ts).
 */
import { Credentials, getAdditionalKeys } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsExpressionResolveValues,
	IExecuteData,
	IHttpRequestHelper,
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

export interface EngineCredential {
	id?: string;
	name?: string;
	type: string;
	data: Record<string, unknown>;
}

/** A node the helper resolves credential expressions on when no execution is at hand. */
const resolverNode: INode = {
	id: 'harness-credential-resolver',
	name: 'Credential Resolver',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

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
		return credentialType;
	}

	getParentTypes(type: string): string[] {
		const parents = this.credentialTypes[type]?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(type: string, nodeType: string): boolean {
		const credentialType = this.credentialTypes[type];
		if (!credentialType?.restrictToSupportedNodes) return true;
		return (credentialType.supportedNodes ?? []).some(
			(supported) => nodeType === supported || nodeType.endsWith(`.${supported}`),
		);
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.getCredentialType(type);
		if (!credentialType.extends) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		_executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.find(nodeCredentials, type).data as ICredentialDataDecryptedObject;
		if (raw === true) return { ...stored };
		return this.applyDefaults(additionalData, type, stored, mode, expressionResolveValues);
	}

	/** Fills in the type's defaults and resolves `={{ ... }}` values (n8n's applyDefaultsAndOverwrites). */
	applyDefaults(
		additionalData: IWorkflowExecuteAdditionalData,
		type: string,
		stored: ICredentialDataDecryptedObject,
		mode: WorkflowExecuteMode,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const withDefaults = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			stored as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (stored.oauthTokenData !== undefined) withDefaults.oauthTokenData = stored.oauthTokenData;
		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });

		if (expressionResolveValues) {
			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
				expressionResolveValues;
			return workflow.expression.getParameterValue(
				withDefaults as INodeParameters,
				runExecutionData,
				runIndex,
				itemIndex,
				node.name,
				connectionInputData,
				mode,
				additionalKeys,
				undefined,
				false,
				withDefaults,
			) as ICredentialDataDecryptedObject;
		}
		return this.resolverWorkflow().expression.getComplexParameterValue(
			resolverNode,
			withDefaults as INodeParameters,
			mode,
			additionalKeys,
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
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
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

	/**
	 * Runs the type's `preAuthentication` when its expirable property is empty, expired or being
	 * tested, and keeps the result in memory (n8n would persist it).
	 */
	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.getCredentialType(typeName);
		const expirable = credentialType.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (!expirable || typeof credentialType.preAuthentication !== 'function') return undefined;
		const isTest = node.parameters?.temp === '' && node.type === 'n8n-nodes-base.noOp';
		if (credentials[expirable.name] !== '' && !credentialsExpired && !isTest) return undefined;
		const output = await credentialType.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;
		const details = node.credentials?.[typeName];
		if (details) Object.assign(this.find(details, typeName).data, output);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const { preAuthentication } = this.getCredentialType(typeName);
		if (typeof preAuthentication !== 'function') return undefined;
		const output = await preAuthentication.call(helpers, credentials);
		return (output as ICredentialDataDecryptedObject) ?? undefined;
	}

	async getCredentials(details: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const credential = this.find(details, type);
		const { id = null, name = type } = credential;
		const credentials = new Credentials({ id, name }, type);
		await credentials.setData(credential.data as ICredentialDataDecryptedObject);
		return credentials;
	}

	async updateCredentials(
		details: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.find(details, type).data = { ...data };
	}

	async updateCredentialsOauthTokenData(
		details: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.find(details, type).data.oauthTokenData = data.oauthTokenData;
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
