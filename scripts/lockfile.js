// @ts-check
'use strict';

// A folder pinned by its lockfile (compat/n8n1, compat/n8n-app), copied into .cache and installed
// there with npm ci; the hash tells whether the copy in .cache is still the committed one.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const LOCK_FILES = ['package.json', 'package-lock.json'];

/** @param {string} folder */
function lockHash(folder) {
	const hash = crypto.createHash('sha256');
	for (const file of LOCK_FILES) hash.update(fs.readFileSync(path.join(folder, file)));
	return hash.digest('hex');
}

/**
 * @param {string} from
 * @param {string} to
 */
function copyLockFiles(from, to) {
	for (const file of LOCK_FILES) fs.copyFileSync(path.join(from, file), path.join(to, file));
}

module.exports = { copyLockFiles, lockHash };
