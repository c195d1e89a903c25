/**
 * Probes on the client side of the streaming row, in this process (same clock as the server):
 *
 * - arrivals: when each piece of a marked SSE response body reached JavaScript, i.e. when
 *   Node's HTTP parser pushed it into the response stream (IncomingMessage#push), before any
 *   HTTP-client or node code saw it;
 * - chunk times: when n8n-core ran the `sendChunk` hook for each chunk the node sent
 *   (ExecutionLifecycleHooks#runHook calls the harness's handler synchronously from sendChunk).
 *
 * Both hooks only record while a recording is active and cost nothing otherwise.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { ExecutionLifecycleHooks } from 'n8n-core';

import { STREAM_MARK_HEADER } from './sseServer';

export interface Arrival {
	/** Byte offset just past the piece, in the response body. */
	end: number;
	at: number;
}

/** Called synchronously from the node's sendChunk; should not allocate (GC would skew it). */
export type ChunkListener = (type: string, content: string | undefined, at: number) => void;

interface Recording {
	arrivals: Arrival[];
	onChunk?: ChunkListener;
	onArrival?: () => void;
}

let recording: Recording | undefined;
const received = new WeakMap<object, number>();
let installed = false;

function install(): void {
	if (installed) return;
	installed = true;
	const proto = http.IncomingMessage.prototype as unknown as {
		push: (chunk: unknown, encoding?: unknown) => boolean;
	};
	const originalPush = proto.push;
	proto.push = function patchedPush(
		this: http.IncomingMessage,
		chunk: unknown,
		encoding?: unknown,
	) {
		if (
			recording &&
			chunk !== null &&
			this.headers?.[STREAM_MARK_HEADER] === '1' &&
			'req' in this
		) {
			const at = performance.now();
			const end = (received.get(this) ?? 0) + (chunk as Buffer).length;
			received.set(this, end);
			recording.arrivals.push({ end, at });
			recording.onArrival?.();
		}
		return originalPush.call(this, chunk, encoding);
	};

	const hooksProto = ExecutionLifecycleHooks.prototype as unknown as {
		runHook: (name: string, parameters: unknown[]) => Promise<void>;
	};
	const originalRunHook = hooksProto.runHook;
	hooksProto.runHook = function patchedRunHook(this: unknown, name: string, parameters: unknown[]) {
		if (recording?.onChunk && name === 'sendChunk') {
			const at = performance.now();
			const chunk = parameters[0] as { type: string; content?: string };
			recording.onChunk(chunk.type, chunk.content, at);
		}
		return originalRunHook.call(this, name, parameters);
	};
}

/** Records arrivals, and reports each sendChunk to `onChunk`, during `run`. */
export async function withProbes<T>(
	run: () => Promise<T>,
	listeners: { onArrival?: () => void; onChunk?: ChunkListener } = {},
): Promise<{ value: T; arrivals: Arrival[] }> {
	install();
	const current: Recording = { arrivals: [], ...listeners };
	recording = current;
	try {
		const value = await run();
		return { value, arrivals: current.arrivals };
	} finally {
		recording = undefined;
	}
}
