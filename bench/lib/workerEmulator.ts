/**
 * The emulator in a worker thread: its own event loop on another core, like a remote service,
 * so its CPU time does not queue behind the node's on the bench's thread. Driven through the
 * emulator's control endpoints (POST /__emulator/reset, GET /__emulator/stats).
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface WorkerEmulatorStats {
	maxInFlight: number;
	requests: Array<{ path: string; body?: unknown }>;
	sessionPool: { refused: number; maxActive: number; admitted: number } | null;
}

export interface WorkerEmulator {
	baseUrl: string;
	reset(): Promise<void>;
	stats(): Promise<WorkerEmulatorStats>;
	close(): Promise<void>;
}

const SERVER = path.resolve(__dirname, '..', '..', 'test', 'emulator', 'server.js');

export async function startWorkerEmulator(options: {
	token: string;
	answerDelayMs?: number;
	sessionPool?: { size: number; retryAfterSeconds?: number | null };
}): Promise<WorkerEmulator> {
	const source = `
		const { parentPort, workerData } = require('node:worker_threads');
		const { startEmulator } = require(workerData.server);
		startEmulator(workerData.options).then((emulator) => {
			parentPort.postMessage({ baseUrl: emulator.baseUrl });
			parentPort.on('message', async (message) => {
				if (message === 'close') { await emulator.close(); parentPort.close(); }
			});
		}, (error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
	`;
	const worker = new Worker(source, { eval: true, workerData: { server: SERVER, options } });
	const baseUrl = await new Promise<string>((resolve, reject) => {
		worker.once('message', (message: { baseUrl?: string; error?: string }) =>
			message.baseUrl ? resolve(message.baseUrl) : reject(new Error(message.error)),
		);
		worker.once('error', reject);
	});
	return {
		baseUrl,
		async reset() {
			const response = await fetch(`${baseUrl}/__emulator/reset`, { method: 'POST' });
			if (!response.ok) throw new Error(`emulator reset: HTTP ${response.status}`);
		},
		async stats() {
			const response = await fetch(`${baseUrl}/__emulator/stats`);
			return (await response.json()) as WorkerEmulatorStats;
		},
		async close() {
			worker.postMessage('close');
			await new Promise<void>((resolve) => {
				const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 2000);
				worker.once('exit', () => {
					clearTimeout(timer);
					resolve();
				});
			});
		},
	};
}
