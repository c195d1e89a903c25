// Two projects. `unit`: test/unit/, on the TypeScript sources, no build needed
// (`npm run test:unit`). `built`: every other suite; they load dist/ (the engine suites, the
// packed tarball) or start the emulator, and test/helpers/fresh-dist.js rebuilds dist/ first
// when it is older than the sources, so no suite runs an old build. `npm test` runs both.
const transform = {
	// Types are stripped, not checked: type-checking is `npm run typecheck`'s job.
	'^.+\\.ts$': '<rootDir>/test/helpers/esbuild-transform.js',
};

/** @type {import('jest').Config} */
const unit = {
	displayName: 'unit',
	rootDir: __dirname,
	testEnvironment: 'node',
	roots: ['<rootDir>/test/unit'],
	testMatch: ['**/*.test.ts'],
	transform,
};

/** @type {import('jest').Config} */
const built = {
	displayName: 'built',
	rootDir: __dirname,
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/'],
	transform,
	globalSetup: '<rootDir>/test/helpers/fresh-dist.js',
};

/** @type {import('jest').Config} */
module.exports = { projects: [unit, built], testTimeout: 30000 };
