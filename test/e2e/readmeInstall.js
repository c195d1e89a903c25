// @ts-check
'use strict';

/**
 * The README's manual install, run as written: the one `npm install … n8n-nodes-assistant` line
 * of README.md, with n8n's nodes folder (`~/.n8n/nodes`) replaced by the run's and the package
 * name by the packed tarball. Then the folder is checked: the package alone, nothing else
 * installed (no peers, no LangChain, nothing compiled). So the install users run is the one the
 * real-app checks run on.
 */

const fs = require('node:fs');
const path = require('node:path');

const PACKAGE_NAME = 'n8n-nodes-assistant';
const NODES_FOLDER = '~/.n8n/nodes';
const INSTALL_LINE = /^npm install\b.*\bn8n-nodes-assistant$/;

/**
 * The README's install command as arguments of npm, e.g. ['install', '--prefix', '~/.n8n/nodes',
 * 'n8n-nodes-assistant'].
 * @param {string} readme  README.md's text
 * @returns {string[]}
 */
function readmeInstallArgs(readme) {
	const lines = readme
		.split('\n')
		.map((line) => line.trim())
		.filter((line) => INSTALL_LINE.test(line));
	if (lines.length !== 1) {
		throw new Error(
			`README.md must show the manual install as one line "npm install … ${PACKAGE_NAME}" (found ${lines.length})`,
		);
	}
	const args = lines[0].split(/\s+/).slice(1);
	for (const needed of [NODES_FOLDER, PACKAGE_NAME]) {
		if (!args.includes(needed)) {
			throw new Error(`README.md's install line "${lines[0]}" does not name ${needed}`);
		}
	}
	return args;
}

/**
 * The README's command for this run: the nodes folder and the package replaced.
 * @param {string[]} args  from readmeInstallArgs
 * @param {{nodesDir: string, tarball: string}} target
 */
function installArgsFor(args, target) {
	return args.map((arg) =>
		arg === NODES_FOLDER ? target.nodesDir : arg === PACKAGE_NAME ? target.tarball : arg,
	);
}

/**
 * Every file and folder under `dir` (relative paths), not following links.
 * @param {string} dir
 * @returns {string[]}
 */
function listTree(dir) {
	/** @type {string[]} */
	const found = [];
	const walk = (/** @type {string} */ relative) => {
		for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
			const child = path.join(relative, entry.name);
			found.push(child);
			if (entry.isDirectory()) walk(child);
		}
	};
	walk('');
	return found;
}

/**
 * Throws unless n8n's nodes folder holds the package alone: npm's own files, and
 * node_modules/n8n-nodes-assistant with no node_modules of its own and no compiled add-on.
 * @param {string} nodesDir
 * @returns {string} what the folder holds, for the log
 */
function assertOnlyThePackage(nodesDir) {
	const modules = path.join(nodesDir, 'node_modules');
	const installed = fs.readdirSync(modules).filter((name) => !name.startsWith('.'));
	if (installed.length !== 1 || installed[0] !== PACKAGE_NAME) {
		throw new Error(
			`the README's install put more than the package into n8n's nodes folder: ${installed.join(', ')}`,
		);
	}
	const files = listTree(path.join(modules, PACKAGE_NAME));
	const foreign = files.filter(
		(file) => file.split(path.sep).includes('node_modules') || /\.(node|gyp)$/.test(file),
	);
	if (foreign.length > 0) {
		throw new Error(`the installed package holds dependencies or add-ons: ${foreign.join(', ')}`);
	}
	const bytes = files
		.map((file) => fs.statSync(path.join(modules, PACKAGE_NAME, file)))
		.filter((stat) => stat.isFile())
		.reduce((sum, stat) => sum + stat.size, 0);
	return `${PACKAGE_NAME} alone (${files.length} files, ${Math.round(bytes / 1024)} KB)`;
}

module.exports = { readmeInstallArgs, installArgsFor, assertOnlyThePackage, NODES_FOLDER };
