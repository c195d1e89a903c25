// @ts-check
'use strict';

/**
 * The REST calls the n8n editor makes (verified against n8n 2.40.7), with a session cookie,
 * plus the setup both `npm run test:e2e` and `npm run dev` need: an owner, a credential for
 * the emulator and the example workflows.
 */

const fs = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const { APP_DIR, REPO_ROOT } = require('./app');

const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');
// Each type name is a constant of its own (not built from a prefix) so that a search for the
// name n8n shows finds it here.
/** The type exported workflows use (the package installed from npm)... */
const PUBLISHED_NODE_TYPE = 'n8n-nodes-assistant.assistant';
/** ...and the one n8n gives it when loaded from N8N_CUSTOM_EXTENSIONS. */
const CUSTOM_NODE_TYPE = 'CUSTOM.assistant';
/** The tool variant n8n generates for the AI Agent (the node is usableAsTool), both ways. */
const PUBLISHED_TOOL_TYPE = 'n8n-nodes-assistant.assistantTool';
const CUSTOM_TOOL_TYPE = 'CUSTOM.assistantTool';
const PUBLISHED_CHAT_MODEL_TYPE = 'n8n-nodes-assistant.assistantChatModel';
const CUSTOM_CHAT_MODEL_TYPE = 'CUSTOM.assistantChatModel';
/** published type -> type under N8N_CUSTOM_EXTENSIONS */
const CUSTOM_TYPES = Object.freeze({
	[PUBLISHED_NODE_TYPE]: CUSTOM_NODE_TYPE,
	[PUBLISHED_TOOL_TYPE]: CUSTOM_TOOL_TYPE,
	[PUBLISHED_CHAT_MODEL_TYPE]: CUSTOM_CHAT_MODEL_TYPE,
});
const CREDENTIAL_TYPE = 'assistantApi';
/** The credential name the examples point at. */
const CREDENTIAL_NAME = 'Assistant (emulator)';

const OWNER = Object.freeze({
	email: 'owner@example.com',
	firstName: 'Ada',
	lastName: 'Owner',
	password: 'Assistant-e2e-1',
});

class RestError extends Error {
	/**
	 * @param {string} message
	 * @param {number} status
	 * @param {unknown} body
	 */
	constructor(message, status, body) {
		super(message);
		this.status = status;
		this.body = body;
	}
}

class N8nClient {
	/**
	 * @param {string} baseUrl
	 * @param {{packageLoadedAs?: 'installed' | 'custom'}} [options]  how n8n loaded the package:
	 *   installed from npm (types as in examples/), or from N8N_CUSTOM_EXTENSIONS (CUSTOM.*: the
	 *   examples are imported with their types rewritten)
	 */
	constructor(baseUrl, options = {}) {
		this.baseUrl = baseUrl;
		this.packageLoadedAs = options.packageLoadedAs ?? 'custom';
		/** @type {string | undefined} */
		this.cookie = undefined;
	}

	/**
	 * A REST call; resolves with the body's `data` (n8n wraps answers in {data}).
	 * @param {string} method
	 * @param {string} urlPath  e.g. '/rest/workflows'
	 * @param {unknown} [body]
	 * @param {{timeoutMs?: number}} [options]
	 * @returns {Promise<any>}
	 */
	async request(method, urlPath, body, options = {}) {
		/** @type {Record<string, string>} */
		const headers = { accept: 'application/json' };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (this.cookie) headers.cookie = this.cookie;
		const send = () =>
			fetch(`${this.baseUrl}${urlPath}`, {
				method,
				headers,
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
			});
		/** @type {Response} */
		let response;
		try {
			response = await send();
		} catch (error) {
			// A kept-alive connection that n8n closed as this request went out on it: nothing reached
			// n8n, so the request is sent once more on a new connection (a bare "fetch failed" was seen on
			// a loaded machine).
			if (!closedBeforeAnswer(error)) throw withCause(method, urlPath, error);
			response = await send().catch((again) => {
				throw withCause(method, urlPath, again);
			});
		}
		const setCookie = response.headers.getSetCookie();
		const auth = setCookie.find((entry) => entry.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await response.text();
		/** @type {any} */
		let parsed = text;
		try {
			parsed = text === '' ? undefined : JSON.parse(text);
		} catch {
			// not JSON: keep the text
		}
		if (!response.ok) {
			const message =
				typeof parsed === 'object' && parsed?.message ? parsed.message : String(text).slice(0, 300);
			throw new RestError(
				`${method} ${urlPath}: HTTP ${response.status}: ${message}`,
				response.status,
				parsed,
			);
		}
		return parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed;
	}

	/** Whether the instance still shows the owner setup page. */
	async needsOwnerSetup() {
		const settings = await this.request('GET', '/rest/settings');
		return Boolean(settings?.userManagement?.showSetupOnFirstLoad);
	}

	/** @param {typeof OWNER} owner */
	async setupOwner(owner = OWNER) {
		return await this.request('POST', '/rest/owner/setup', owner);
	}

	/** @param {typeof OWNER} owner */
	async login(owner = OWNER) {
		return await this.request('POST', '/rest/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
	}

	/** Sets up the owner when needed, else signs in. */
	async signIn(owner = OWNER) {
		if (await this.needsOwnerSetup()) return await this.setupOwner(owner);
		return await this.login(owner);
	}

	/**
	 * Creates the emulator's credential, or updates the one of that name (the emulator's
	 * address changes from run to run).
	 * @param {{baseUrl: string, token: string}} emulator
	 * @returns {Promise<{id: string, name: string}>}
	 */
	async upsertEmulatorCredential(emulator) {
		const data = { baseUrl: emulator.baseUrl, accessToken: emulator.token };
		const existing = (await this.request('GET', '/rest/credentials')).find(
			(/** @type {any} */ credential) =>
				credential.name === CREDENTIAL_NAME && credential.type === CREDENTIAL_TYPE,
		);
		if (existing) {
			await this.request('PATCH', `/rest/credentials/${existing.id}`, {
				name: CREDENTIAL_NAME,
				type: CREDENTIAL_TYPE,
				data,
			});
			return { id: existing.id, name: existing.name };
		}
		const created = await this.request('POST', '/rest/credentials', {
			name: CREDENTIAL_NAME,
			type: CREDENTIAL_TYPE,
			data,
		});
		return { id: created.id, name: created.name };
	}

	/**
	 * Imports one example workflow as the editor's "Import from File" + save does: POST
	 * /rest/workflows with the file's id and credential reference. n8n replaces a credential
	 * id it does not know by the credential of the same name and type in the project.
	 * @param {any} workflow  an example's JSON (see readExamples)
	 */
	async importWorkflow(workflow) {
		const body = this.packageLoadedAs === 'custom' ? withCustomNodeType(workflow) : workflow;
		return await this.request('POST', '/rest/workflows', body);
	}

	/**
	 * Runs a saved workflow from its manual trigger, as the editor's "Execute workflow" button
	 * does, and waits for the execution to finish.
	 * @param {any} workflow  the saved workflow (from importWorkflow)
	 * @param {{timeoutMs?: number}} [options]
	 * @returns {Promise<{executionId: string, status: string, runData: Record<string, any[]>, error?: any}>}
	 */
	async runWorkflow(workflow, options = {}) {
		const trigger = workflow.nodes.find(
			(/** @type {any} */ node) => node.type === 'n8n-nodes-base.manualTrigger',
		);
		if (!trigger) throw new Error(`workflow ${workflow.name} has no manual trigger`);
		const started = await this.request('POST', `/rest/workflows/${workflow.id}/run`, {
			triggerToStartFrom: { name: trigger.name },
		});
		if (!started?.executionId) {
			throw new Error(`n8n did not start an execution: ${JSON.stringify(started)}`);
		}
		return await this.waitForExecution(started.executionId, options.timeoutMs ?? 60_000);
	}

	/**
	 * Publishes (activates) a saved workflow as the editor's "Publish" button does, then waits
	 * until n8n reports its triggers live. n8n 2.x publishes through an outbox: the POST returns
	 * at once and the production webhooks are registered a moment later (`publication-status`
	 * goes from `in_progress` to `published`); a production URL called before that answers 404.
	 * @param {any} workflow  the saved workflow (its versionId is the version to publish)
	 * @param {{timeoutMs?: number}} [options]
	 * @returns {Promise<{status: string, liveVersionId: string | null, triggers: any[], waitedMs: number}>}
	 */
	async publishWorkflow(workflow, options = {}) {
		const started = Date.now();
		await this.request('POST', `/rest/workflows/${workflow.id}/activate`, {
			versionId: workflow.versionId,
		});
		const deadline = started + (options.timeoutMs ?? 30_000);
		for (;;) {
			const status = await this.request('GET', `/rest/workflows/${workflow.id}/publication-status`);
			if (status.status === 'published') return { ...status, waitedMs: Date.now() - started };
			if (status.status === 'failed' || status.status === 'partial') {
				throw new Error(`publishing ${workflow.name} failed: ${JSON.stringify(status.triggers)}`);
			}
			if (Date.now() > deadline) {
				throw new Error(
					`${workflow.name} was not published within ${options.timeoutMs ?? 30_000} ms: ${JSON.stringify(status)}`,
				);
			}
			await sleep(200);
		}
	}

	/**
	 * Runs a tool sub-node on its own, as the editor's "Execute step" on a tool does after its
	 * "$fromAI" dialog: n8n replaces the agent the tool is connected to by its internal Tool
	 * Executor, which calls the tool with the given values, and waits for the execution.
	 * @param {any} workflow  the saved workflow
	 * @param {string} nodeName  the tool node
	 * @param {Record<string, unknown>} values  the $fromAI values by key
	 * @param {{timeoutMs?: number}} [options]
	 */
	async runToolNode(workflow, nodeName, values, options = {}) {
		// The editor keys the values by the tool's name (the node name, spaces as underscores).
		const toolName = nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');
		const started = await this.request('POST', `/rest/workflows/${workflow.id}/run`, {
			destinationNode: { nodeName, mode: 'inclusive' },
			agentRequest: { query: { [toolName]: values }, tool: { name: toolName } },
		});
		if (!started?.executionId) {
			throw new Error(`n8n did not start an execution: ${JSON.stringify(started)}`);
		}
		return await this.waitForExecution(started.executionId, options.timeoutMs ?? 60_000);
	}

	/**
	 * The newest execution of a workflow (e.g. one a webhook call started), finished.
	 * @param {string} workflowId
	 * @param {{timeoutMs?: number}} [options]
	 */
	async lastExecution(workflowId, options = {}) {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const list = await this.request('GET', `/rest/executions?filter=${filter}&limit=1`);
		const [newest] = list?.results ?? [];
		if (!newest) throw new Error(`no execution of workflow ${workflowId}`);
		return await this.waitForExecution(String(newest.id), options.timeoutMs ?? 30_000);
	}

	/**
	 * @param {string} executionId
	 * @param {number} timeoutMs
	 */
	async waitForExecution(executionId, timeoutMs) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const execution = await this.request('GET', `/rest/executions/${executionId}`);
			const finished = execution && !['new', 'running', 'waiting'].includes(execution.status);
			if (finished) {
				const data = parseFlatted(execution.data);
				return {
					executionId,
					status: execution.status,
					runData: data?.resultData?.runData ?? {},
					error: data?.resultData?.error,
				};
			}
			if (Date.now() > deadline) {
				throw new Error(
					`execution ${executionId} did not finish within ${timeoutMs} ms (status ${execution?.status})`,
				);
			}
			await sleep(250);
		}
	}
}

/**
 * n8n stores execution data with `flatted` (cycles allowed); parse it with n8n's own copy.
 * @param {unknown} data
 */
function parseFlatted(data) {
	if (typeof data !== 'string') return data;
	const flatted = require(path.join(APP_DIR, 'node_modules', 'flatted'));
	return flatted.parse(data);
}

/** The JSON items a node output in its last run, first output. */
/**
 * @param {Record<string, any[]>} runData
 * @param {string} nodeName
 * @returns {any[]}
 */
function nodeOutput(runData, nodeName) {
	const runs = runData[nodeName];
	if (!runs || runs.length === 0) throw new Error(`node "${nodeName}" did not run`);
	const last = runs[runs.length - 1];
	if (last.error)
		throw new Error(
			`node "${nodeName}" failed: ${last.error.message}${last.error.description ? ` (${last.error.description})` : ''}`,
		);
	return (last.data?.main?.[0] ?? []).map((/** @type {any} */ item) => item.json);
}

/**
 * The example workflows, by file name without .json.
 * @returns {Record<string, any>}
 */
function readExamples() {
	/** @type {Record<string, any>} */
	const examples = {};
	for (const file of fs
		.readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.sort()) {
		examples[path.basename(file, '.json')] = JSON.parse(
			fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'),
		);
	}
	return examples;
}

/**
 * A copy of a workflow with the published node types replaced by CUSTOM.assistant and
 * CUSTOM.assistantTool: n8n names node types after the package they come from, and a package
 * loaded through N8N_CUSTOM_EXTENSIONS is "CUSTOM" (installed from npm it would be
 * n8n-nodes-assistant).
 * @param {any} workflow
 */
function withCustomNodeType(workflow) {
	const copy = structuredClone(workflow);
	for (const node of copy.nodes) {
		const custom = /** @type {Record<string, string>} */ (CUSTOM_TYPES)[node.type];
		if (custom) node.type = custom;
	}
	return copy;
}

/**
 * fetch's own message is only "fetch failed": the request and the cause say what happened.
 * @param {string} method
 * @param {string} urlPath
 * @param {unknown} error
 */
function withCause(method, urlPath, error) {
	const cause = /** @type {{cause?: {code?: string, message?: string}}} */ (error)?.cause;
	if (!cause) return error;
	return new Error(
		`${method} ${urlPath}: ${String(/** @type {Error} */ (error).message)} (${cause.code ?? ''} ${cause.message ?? ''})`,
		{ cause },
	);
}

/**
 * Whether fetch failed because the server closed the socket before any answer (undici's
 * UND_ERR_SOCKET, "other side closed"), as it does with an idle kept-alive connection.
 * @param {unknown} error
 */
function closedBeforeAnswer(error) {
	const cause = /** @type {{cause?: {code?: string}}} */ (error)?.cause;
	return error instanceof TypeError && cause?.code === 'UND_ERR_SOCKET';
}

module.exports = {
	N8nClient,
	RestError,
	OWNER,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	CUSTOM_NODE_TYPE,
	PUBLISHED_NODE_TYPE,
	CUSTOM_TOOL_TYPE,
	CUSTOM_CHAT_MODEL_TYPE,
	PUBLISHED_CHAT_MODEL_TYPE,
	PUBLISHED_TOOL_TYPE,
	CUSTOM_TYPES,
	readExamples,
	withCustomNodeType,
	nodeOutput,
};
