/**
 * `npm run fuzz [-- --cases N --transcripts N --seed S]`: the exactly-once property over
 * generated streams, and the transcript property over generated conversations. Case n is made
 * from seed n, a run's from S to S + N - 1: runs at seeds closer than N repeat cases.
 */
import { runFuzz } from './check';
import { runTranscriptFuzz } from './transcript';

function arg(name: string, fallback: number): number {
	const at = process.argv.indexOf(`--${name}`);
	return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const cases = arg('cases', 10_000);
const transcripts = arg('transcripts', 10_000);
const seed = arg('seed', Date.now() % 1_000_000);
let failures = 0;

function reportFailures(failed: Array<{ seed: number; problem: string }>, replay: string): void {
	for (const { seed: failedSeed, problem } of failed.slice(0, 10)) {
		console.log(
			`FAILED seed ${failedSeed} (replay with --seed ${failedSeed} ${replay}): ${problem}`,
		);
	}
	failures += failed.length;
}

let started = Date.now();
const report = runFuzz(cases, seed);
console.log(
	`Stream fuzz: ${cases} cases from seed ${seed} in ${Date.now() - started} ms ` +
		`(dialects ${JSON.stringify(report.byDialect)}, outcomes ${JSON.stringify(report.byOutcome)}, ` +
		`${report.steps} steps, each exactly once): ` +
		`${cases - report.failed.length} passed, ${report.failed.length} failed`,
);
reportFailures(report.failed, '--cases 1 --transcripts 0');

started = Date.now();
const transcriptReport = runTranscriptFuzz(transcripts, seed);
console.log(
	`Transcript fuzz: ${transcripts} adversarial transcripts (${transcriptReport.messages} messages) ` +
		`from seed ${seed} in ${Date.now() - started} ms, each read back into exactly its messages: ` +
		`${transcripts - transcriptReport.failed.length} passed, ${transcriptReport.failed.length} failed`,
);
reportFailures(transcriptReport.failed, '--cases 0 --transcripts 1');

if (failures > 0) process.exitCode = 1;
