/** `npm run fuzz [-- --cases N --seed S]`: the SSE framing property over many cases. */
import { runFuzz } from './sseFraming';

function arg(name: string, fallback: number): number {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const cases = arg('cases', 10_000);
const seed = arg('seed', Date.now() % 1_000_000);
const started = Date.now();
const failed = runFuzz(cases, seed);
console.log(`SSE framing fuzz: ${cases} cases from seed ${seed} in ${Date.now() - started} ms`);
if (failed.length > 0) {
	console.log(`FAILED seeds (replay with --seed S --cases 1): ${failed.slice(0, 20).join(', ')}`);
	console.log(`${cases - failed.length} passed, ${failed.length} failed`);
	process.exitCode = 1;
} else {
	console.log(`${cases} passed, 0 failed`);
}
