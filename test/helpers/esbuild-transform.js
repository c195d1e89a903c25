// @ts-check
'use strict';

/**
 * Jest's TypeScript transform: esbuild strips the types (type-checking is `npm run
 * typecheck`'s job), a few milliseconds a file where ts-jest takes seconds to start.
 */

const crypto = require('node:crypto');
const fs = require('node:fs');

const { transformSync, version } = require('esbuild');

/** Jest caches transformed files: a change here or a new esbuild must not serve stale ones. */
const OWN_KEY = `${version}:${fs.readFileSync(__filename, 'utf8')}`;

/** @type {import('@jest/transform').SyncTransformer} */
module.exports = {
	process(source, filename) {
		const { code, map } = transformSync(source, {
			loader: 'ts',
			format: 'cjs',
			target: 'node20',
			sourcefile: filename,
			sourcemap: 'external',
			sourcesContent: false,
			// As tsc does for CommonJS: import() becomes require(), which jest's module system serves.
			supported: { 'dynamic-import': false },
		});
		return { code, map };
	},
	getCacheKey(source, filename) {
		return crypto
			.createHash('sha256')
			.update(OWN_KEY)
			.update(filename)
			.update(source)
			.digest('hex');
	},
};
