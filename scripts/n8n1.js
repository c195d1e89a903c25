#!/usr/bin/env node
// The engine tests against n8n 1.x (`npm run test:n8n1`).
//   node scripts/n8n1.js install   install compat/n8n1's lockfile into .cache/n8n1 (kept while
//                                  the lockfile is unchanged)
//   node scripts/n8n1.js test      install, then run jest with jest.n8n1.config.js (more jest
//                                  arguments may follow)
// Run `npm run build` first: the tests load the built package from dist/.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { copyLockFiles, lockHash } = require('./lockfile');

const root = path.resolve(__dirname, '..');
const source = path.join(root, 'compat', 'n8n1');
const target = path.join(root, '.cache', 'n8n1');
const stampFile = path.join(target, '.installed');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function install() {
	const wanted = lockHash(source);
	const installed = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
	if (installed === wanted && fs.existsSync(path.join(target, 'node_modules', 'n8n-core'))) {
		console.log(`n8n 1.x: using ${path.relative(root, target)} (up to date)`);
		return;
	}
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	copyLockFiles(source, target);
	// As in the root: no install scripts (isolated-vm's does not build on Node 20).
	fs.writeFileSync(path.join(target, '.npmrc'), 'ignore-scripts=true\n');
	console.log(`n8n 1.x: installing into ${path.relative(root, target)} (npm ci)`);
	execFileSync(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
		cwd: target,
		stdio: 'inherit',
	});
	fs.writeFileSync(stampFile, `${wanted}\n`);
}

function versions() {
	const version = (name) =>
		JSON.parse(fs.readFileSync(path.join(target, 'node_modules', name, 'package.json'), 'utf8'))
			.version;
	return `n8n-core ${version('n8n-core')}, n8n-workflow ${version('n8n-workflow')}`;
}

const [command = 'test', ...rest] = process.argv.slice(2);
if (command === 'install') {
	install();
	console.log(`n8n 1.x: ${versions()}`);
} else if (command === 'test') {
	install();
	console.log(`n8n 1.x: running the engine tests against ${versions()}`);
	const jest = require.resolve('jest/bin/jest');
	const result = spawnSync(process.execPath, [jest, '-c', 'jest.n8n1.config.js', ...rest], {
		cwd: root,
		stdio: 'inherit',
	});
	process.exitCode = result.status ?? 1;
} else {
	console.error(`Unknown command "${command}": use install or test.`);
	process.exitCode = 2;
}
