/**
 * The scheduled live check (.github/workflows/live-check.yml, docs/live-check.md): the token
 * secret reaches only the steps that need it, never the install, whose packages' scripts run.
 */
import fs from 'node:fs';
import path from 'node:path';

const workflow = fs.readFileSync(
	path.join(__dirname, '..', '..', '.github', 'workflows', 'live-check.yml'),
	'utf8',
);
const [job, stepsText] = workflow.split(/^ {4}steps:$/m);
/** Each step's lines, as written (a step begins with `      - `). */
const steps = stepsText.split(/^ {6}- /m).slice(1);
const TOKEN_VALUE = '${{ secrets.ASSISTANT_TOKEN }}';

test('the job sets no env holding a secret', () => {
	expect(job).not.toMatch(/\$\{\{ *secrets\./);
});

test("the token's value goes only to the check and the guard over the captures", () => {
	const withToken = steps.filter((step) => step.includes(TOKEN_VALUE));
	expect(withToken).toHaveLength(2);
	expect(withToken[0]).toContain('run: npm run check:live');
	expect(withToken[1]).toContain('The captures hold no token');
	const install = steps.find((step) => step.includes('npm ci'));
	expect(install).toBeDefined();
	expect(install).not.toMatch(/\$\{\{ *secrets\./);
});

test('the captures are checked for the token before they are uploaded', () => {
	const guard = steps.findIndex((step) => step.includes('The captures hold no token'));
	const upload = steps.findIndex((step) => step.includes('actions/upload-artifact'));
	expect(guard).toBeGreaterThan(-1);
	expect(guard).toBeLessThan(upload);
});
