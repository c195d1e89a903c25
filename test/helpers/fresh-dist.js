// @ts-check
'use strict';

/**
 * Jest's global setup for the suites that load the built package: they must never run an old
 * dist/. When dist/ is missing, or a source it is built from (nodes/, credentials/, the build
 * script) changed after it, this builds it (`npm run build`, about 5 s) before any suite
 * starts, or fails the run saying why.
 */

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
/** What the build reads, besides node_modules. */
const SOURCES = ['nodes', 'credentials', 'gulpfile.js', 'tsconfig.build.json'];
/** What the build writes, one file per entry point. */
const OUTPUTS = [
	'dist/nodes/Assistant/Assistant.node.js',
	'dist/credentials/AssistantApi.credentials.js',
];

/**
 * The newest modification time among files under `entry` (a file or a folder).
 * @param {string} entry
 * @returns {{file: string, mtimeMs: number}}
 */
function newest(entry) {
	const stat = fs.statSync(entry);
	if (!stat.isDirectory()) return { file: entry, mtimeMs: stat.mtimeMs };
	let found = { file: entry, mtimeMs: 0 };
	for (const name of fs.readdirSync(entry)) {
		const candidate = newest(path.join(entry, name));
		if (candidate.mtimeMs > found.mtimeMs) found = candidate;
	}
	return found;
}

/**
 * Why dist/ must be rebuilt, or undefined when it is up to date.
 * @param {string} root
 * @returns {string | undefined}
 */
function staleReason(root) {
	let builtAt = Infinity;
	for (const output of OUTPUTS) {
		const file = path.join(root, output);
		if (!fs.existsSync(file)) return `${output} is missing`;
		builtAt = Math.min(builtAt, fs.statSync(file).mtimeMs);
	}
	for (const source of SOURCES) {
		const { file, mtimeMs } = newest(path.join(root, source));
		if (mtimeMs > builtAt) return `${path.relative(root, file)} changed after dist/ was built`;
	}
	return undefined;
}

module.exports = async function freshDist() {
	const reason = staleReason(ROOT);
	if (!reason) return;
	process.stdout.write(`\n${reason}: running "npm run build" before the suites that load dist/\n`);
	const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
	const after = build.status === 0 ? staleReason(ROOT) : reason;
	if (after) {
		throw new Error(
			`dist/ is out of date (${after}) and "npm run build" failed: fix the build, or run it yourself; the suites that load dist/ never run an old build`,
		);
	}
};

module.exports.staleReason = staleReason;
