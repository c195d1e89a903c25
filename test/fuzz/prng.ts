// The emulator (test/emulator/writer.js) has the same mulberry32: it is plain JavaScript that
// imports nothing from the tests, so each side keeps its own copy.
/** Small, fast, seedable PRNG (mulberry32): a failing case is replayed from its seed. */
export function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export interface Draw {
	random: () => number;
	chance(p: number): boolean;
	int(min: number, max: number): number;
	pick<T>(list: readonly T[]): T;
}

export function draw(seed: number): Draw {
	const random = prng(seed);
	return {
		random,
		chance: (p) => random() < p,
		int: (min, max) => min + Math.floor(random() * (max - min + 1)),
		pick: (list) => list[Math.floor(random() * list.length)],
	};
}
