import { mulberry32 } from '../emulator/writer';

/** Small, fast, seedable PRNG (the emulator's mulberry32): a failing case is replayed from its seed. */
export const prng: (seed: number) => () => number = mulberry32;

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
