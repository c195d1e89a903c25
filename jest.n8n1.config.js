// The engine suites again, against n8n 1.x: n8n-core, n8n-workflow and the two n8n packages the
// harness uses directly (@n8n/di, @n8n/backend-common) resolve to the copies that
// `node scripts/n8n1.js install` puts in .cache/n8n1 (pinned in compat/n8n1/). The mapping holds
// for every module jest loads, so the built node (dist/, loaded by n8n-core's
// PackageDirectoryLoader through jest's require) gets the 1.x n8n-workflow too.
// n8n 1.x has no AI node SDK: `@n8n/ai-node-sdk` is mapped to a path that does not exist, so the
// package is loaded as it is there (test/chat-model/loading.test.ts).
// Run with `npm run test:n8n1`.
const path = require('node:path');
const { projects, testTimeout } = require('./jest.config');

const built = projects.find((project) => project.displayName === 'built');
const n8n1Modules = path.join(__dirname, '.cache', 'n8n1', 'node_modules');
const mapped = ['n8n-core', 'n8n-workflow', '@n8n/di', '@n8n/backend-common'];
const names = mapped.map((name) => name.replace('/', '\\/')).join('|');

/** @type {import('jest').Config} */
module.exports = {
	...built,
	testTimeout,
	displayName: 'n8n 1.x',
	testMatch: [
		'**/test/assistant/node.engine.test.ts',
		'**/test/assistant/reliability.test.ts',
		'**/test/assistant/credential-token.engine.test.ts',
		'**/test/engine-harness.test.ts',
		'**/test/chat-model/loading.test.ts',
		'**/test/redirects/redirects.engine.test.ts',
		// The Assistant Tool's part; the chat model's is skipped there (no AI node SDK).
		'**/test/redirects/redirects-ai.engine.test.ts',
		'**/test/redirects/redirects-https.engine.test.ts',
		'**/test/bounds/memory-bounds.engine.test.ts',
		'**/test/assistant/stream-2026.engine.test.ts',
		'**/test/assistant/errors-2026.engine.test.ts',
		'**/test/assistant/stream-last-event.engine.test.ts',
	],
	moduleNameMapper: {
		[`^(${names})$`]: `${n8n1Modules}/$1`,
		[`^(${names})/(.*)$`]: `${n8n1Modules}/$1/$2`,
		'^@n8n/ai-node-sdk$': path.join(__dirname, '.cache', 'n8n1', 'no-ai-node-sdk-in-n8n-1'),
	},
};
