/**
 * Process setup the engine harness needs before n8n-core is used; imported first by engine.ts.
 *
 * - n8n-core's InstanceSettings (every node execution context gets it) creates
 *   `<N8N_USER_FOLDER>/.n8n/config` with an encryption key on first use: build it here against a
 *   temporary folder instead of $HOME, then delete the folder (the settings stay in memory).
 * - Logs: n8n-workflow's `LoggerProxy` (the engine's own logging) and the DI `Logger` that
 *   n8n-core hands to nodes as `this.logger` both write to `recordLog`, which copies each line
 *   into the sinks of the runs in progress.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { InstanceSettings } from 'n8n-core';
// Not exported from the package's index, in 1.x as in 2.x.
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LogMetadata, Logger as WorkflowLogger } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';

type LogLevel = keyof WorkflowLogger;

/** Lines logged while a sink is registered are appended to it. */
export const logSinks = new Set<string[]>();

/** JSON that keeps Error details and survives cycles. */
function toJson(value: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(value, (_key, current: unknown) => {
		if (current instanceof Error) {
			return { ...current, name: current.name, message: current.message, stack: current.stack };
		}
		if (typeof current === 'bigint') return current.toString();
		if (current !== null && typeof current === 'object') {
			if (seen.has(current)) return '[Circular]';
			seen.add(current);
		}
		return current;
	});
}

function recordLog(level: LogLevel, message: string, metadata?: LogMetadata): void {
	if (logSinks.size === 0) return;
	const meta = metadata && Object.keys(metadata).length > 0 ? ` ${toJson(metadata)}` : '';
	const line = `[${level}] ${message}${meta}`;
	for (const sink of logSinks) sink.push(line);
}

const captureLogger = {
	error: (message: string, metadata?: LogMetadata) => recordLog('error', message, metadata),
	warn: (message: string, metadata?: LogMetadata) => recordLog('warn', message, metadata),
	info: (message: string, metadata?: LogMetadata) => recordLog('info', message, metadata),
	debug: (message: string, metadata?: LogMetadata) => recordLog('debug', message, metadata),
	scoped: () => captureLogger,
};

LoggerProxy.init(captureLogger);
Container.set(Logger, captureLogger as unknown as Logger);

{
	const userFolder = mkdtempSync(path.join(tmpdir(), 'n8n-engine-harness-'));
	const previous = process.env.N8N_USER_FOLDER;
	process.env.N8N_USER_FOLDER = userFolder;
	try {
		Container.get(InstanceSettings);
	} finally {
		if (previous === undefined) delete process.env.N8N_USER_FOLDER;
		else process.env.N8N_USER_FOLDER = previous;
		rmSync(userFolder, { recursive: true, force: true });
	}
}

/**
 * n8n-core 1.x: the SSHClientsManager singleton (created with the first node execution or
 * load-options context) starts a 60 s cleanup interval that is not unref'd, so jest never exits;
 * 2.x unrefs it. Create it now and unref its timer when it holds the process.
 */
{
	const manager = Container.get(SSHClientsManager) as unknown as { cleanupTimer?: NodeJS.Timeout };
	if (manager.cleanupTimer?.hasRef()) manager.cleanupTimer.unref();
}
