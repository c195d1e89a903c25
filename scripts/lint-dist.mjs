#!/usr/bin/env node
// `npm run lint:dist`: lint the package the way n8n's package scanner (@n8n/scan-community-package)
// does before it verifies a community node, with the scanner's own ESLint config
// (scripts/scan-config.mjs) and inline `eslint-disable` comments ignored:
//   1. the packed tarball (`npm pack` of the current build): its JavaScript and package.json;
//   2. the source the scanner reads from the repository: package.json, nodes/ and credentials/.
// Fails on any error, as the scanner does; warnings are printed and counted.
// Run `npm run build` first: the tarball holds dist/.
import { ESLint } from 'eslint';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import pack from './pack.js';
import { buildScanConfig, SOURCE_FILE_PATTERNS, TARBALL_FILE_PATTERNS } from './scan-config.mjs';

const { packInto } = pack;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files under `dir` matching the scanner's glob patterns (no node_modules, dot-folders, lockfiles). */
function collect(dir, patterns) {
	const regexps = patterns.flatMap(expandBraces).map(globToRegExp);
	const all = [];
	const walk = (rel) => {
		for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
			const child = rel ? `${rel}/${entry.name}` : entry.name;
			if (entry.isDirectory()) {
				if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(child);
			} else if (entry.name !== 'package-lock.json') all.push(child);
		}
	};
	walk('');
	return all
		.filter((file) => regexps.some((re) => re.test(file)))
		.map((file) => path.join(dir, file));
}

/** `{a,b}/x.{c,d}` → the four plain patterns. */
function expandBraces(pattern) {
	const match = /\{([^{}]*)\}/.exec(pattern);
	if (!match) return [pattern];
	const before = pattern.slice(0, match.index);
	const after = pattern.slice(match.index + match[0].length);
	return match[1].split(',').flatMap((alt) => expandBraces(before + alt + after));
}

// `**` + `/`: any folders (or none); `*`: any part of a name; nothing else is special here.
function globToRegExp(glob) {
	let re = '';
	for (let i = 0; i < glob.length; i++) {
		if (glob.startsWith('**/', i)) {
			re += '(?:.*/)?';
			i += 2;
		} else if (glob[i] === '*') re += '[^/]*';
		else re += glob[i].replace(/[.+?^$()|[\]\\]/g, '\\$&');
	}
	return new RegExp(`^${re}$`);
}

async function lintLeg(label, dir, patterns) {
	const files = collect(dir, patterns);
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: buildScanConfig(),
	});
	const results = await eslint.lintFiles(files);
	const errors = results.reduce((n, r) => n + r.errorCount, 0);
	const warnings = results.reduce((n, r) => n + r.warningCount, 0);
	const formatter = await eslint.loadFormatter('stylish');
	const text = await formatter.format(results);
	console.log(`\n${label}: ${files.length} files, ${errors} errors, ${warnings} warnings`);
	for (const file of files) console.log(`  ${path.relative(dir, file)}`);
	if (text.trim()) console.log(text);
	return errors;
}

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-dist-'));
try {
	if (!fs.existsSync(path.join(root, 'dist')))
		throw new Error('No dist/: run `npm run build` first.');
	const { unpacked: packageDir } = packInto(temp);
	const errors =
		(await lintLeg('Packed tarball (as published)', packageDir, TARBALL_FILE_PATTERNS)) +
		(await lintLeg('Source (as the scanner reads the repository)', root, SOURCE_FILE_PATTERNS));
	if (errors > 0) {
		console.error(
			`\nlint:dist failed: ${errors} errors (n8n's scanner would reject this package).`,
		);
		process.exitCode = 1;
	} else {
		console.log('\nlint:dist passed: no errors in the tarball or the source.');
	}
} finally {
	fs.rmSync(temp, { recursive: true, force: true });
}
