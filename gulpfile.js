// Build: type-check, bundle each node and credential into one CommonJS file (n8n-workflow and the AI
// node SDK left to n8n), and copy icons and codex files beside them.
const { series, parallel, src, dest } = require('gulp');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const entryPoints = [
	'nodes/Assistant/Assistant.node.ts',
	'nodes/AssistantChatModel/AssistantChatModel.node.ts',
	'credentials/AssistantApi.credentials.ts',
];

function clean(done) {
	fs.rmSync(path.join(__dirname, 'dist'), { recursive: true, force: true });
	done();
}

function typecheck(done) {
	execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.build.json'], {
		stdio: 'inherit',
	});
	done();
}

async function bundle() {
	await esbuild.build({
		entryPoints,
		outbase: '.',
		outdir: 'dist',
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node18',
		// n8n provides n8n-workflow (a second copy would break `instanceof` checks on its errors) and
		// the AI node SDK (loaded only when the chat model is used; bundling it would bring LangChain).
		external: ['n8n-workflow', '@n8n/ai-node-sdk'],
		// import() of an external becomes require(): n8n loads nodes as CommonJS, and the SDK must be
		// the very copy (CommonJS build) that n8n's own AI nodes use.
		supported: { 'dynamic-import': false },
		sourcemap: false,
		legalComments: 'inline',
		logLevel: 'warning',
	});
}

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.node.json'], { base: '.', encoding: false }).pipe(dest('dist'));
}

exports.clean = clean;
exports.typecheck = typecheck;
exports.bundle = bundle;
exports.build = series(clean, parallel(typecheck, bundle, copyAssets));
exports.default = exports.build;
