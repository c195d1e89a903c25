/**
 * What the process holds, for the tests of the memory bounds on the sources: the heap and array
 * buffers in use after a full collection, and whether an object has been collected.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Bytes of heap and array buffers in use, after a full collection. */
export function bytesInUse(): number {
	gc();
	const { heapUsed, arrayBuffers } = process.memoryUsage();
	return heapUsed + arrayBuffers;
}

/** How many of `refs` still point at their object after a full collection. */
export async function stillAlive(refs: Array<WeakRef<object>>): Promise<number> {
	// A WeakRef made or read in this job keeps its object alive until the job ends.
	await new Promise((resolve) => setImmediate(resolve));
	gc();
	return refs.filter((ref) => ref.deref() !== undefined).length;
}
