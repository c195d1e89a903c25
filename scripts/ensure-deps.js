#!/usr/bin/env node
// Installs the dev dependencies when they are missing or differ from package-lock.json, so
// that `npm test`, `npm run dev`, `npm run demo` and every script that builds work as the first
// command on a fresh clone; when they match it does nothing (a few milliseconds). Only Node's own
// modules here: nothing else is installed yet when this runs.
//
// "Differ" compares versions, not times: package-lock.json against npm's record of what it
// installed (node_modules/.package-lock.json). A node_modules that is a link (shared between
// checkouts) is never installed into: npm ci would empty it for every checkout using it.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** @param {string} file */
function readJson(file) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return undefined;
	}
}

/** Why an install is needed, or undefined when node_modules matches the lockfile. */
function installReason() {
	const wanted = readJson(path.join(root, 'package-lock.json'))?.packages;
	if (!wanted) return undefined; // no lockfile: nothing to compare with (npm ci needs one)
	const installed = readJson(path.join(root, 'node_modules', '.package-lock.json'))?.packages;
	if (!installed) return 'node_modules is missing';
	for (const [name, entry] of Object.entries(wanted)) {
		if (name === '' || entry.link) continue;
		const have = installed[name];
		// Optional packages for other platforms are not installed: that is not a difference.
		if (!have && entry.optional) continue;
		if (!have) return `${name} is not installed`;
		if (have.version !== entry.version) {
			return `${name} is ${have.version}, package-lock.json wants ${entry.version}`;
		}
	}
	return undefined;
}

const reason = installReason();
const modules = path.join(root, 'node_modules');
if (reason && fs.lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) {
	// A node_modules shared with other checkouts: npm ci here would empty it for all of them.
	process.stderr.write(
		`${reason}, and node_modules is a link to ${fs.realpathSync(modules)}, shared with other checkouts: not installing through it. Run "npm ci" where it points, or replace the link with a folder of your own.\n`,
	);
	process.exit(1);
}
if (reason) {
	process.stdout.write(`${reason}: installing the dependencies (npm ci, about a minute)\n`);
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
	if (result.status !== 0) {
		process.stderr.write('npm ci failed: see its output above\n');
		process.exit(result.status ?? 1);
	}
}
