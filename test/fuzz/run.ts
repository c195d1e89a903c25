/** `npm run fuzz [-- --cases N --seed S]`: the exactly-once property over generated streams. */
import { runFuzz } from './check';

function arg(name: string, fallback: number): number {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const cases = arg('cases', 10_000);
const seed = arg('seed', Date.now() % 1_000_000);
const started = Date.now();
const report = runFuzz(cases, seed);
console.log(
	`Stream fuzz: ${cases} cases from seed ${seed} in ${Date.now() - started} ms ` +
		`(dialects ${JSON.stringify(report.byDialect)}, outcomes ${JSON.stringify(report.byOutcome)})`,
);
if (report.failed.length > 0) {
	for (const { seed: failedSeed, problem } of report.failed.slice(0, 10)) {
		console.log(
			`FAILED seed ${failedSeed} (replay with --seed ${failedSeed} --cases 1): ${problem}`,
		);
	}
	console.log(`${cases - report.failed.length} passed, ${report.failed.length} failed`);
	process.exitCode = 1;
} else {
	console.log(`${cases} passed, 0 failed`);
}
