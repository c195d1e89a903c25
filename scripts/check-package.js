#!/usr/bin/env node
// `npm run check:package`: pack the package as `npm publish` would, print what is in it, and fail
// when the tarball breaks a rule for a verified n8n community node:
//   - it holds only dist/, README, LICENSE, CHANGELOG and package.json;
//   - no runtime dependencies (n8n installs none for a community node; ours are bundled); peers
//     only n8n-workflow and, with `n8n.aiNodeSdkVersion`, @n8n/ai-node-sdk (both provided by n8n);
//   - no source maps that carry the sources, no tests;
//   - under 256 KB;
//   - n8n metadata: every node and credential in package.json's `n8n` is in dist/ and loads; each
//     node has its codex (categories n8n knows), light and dark icons, a documentationUrl and, when
//     it has a main output, `usableAsTool`; each credential has icons and a documentationUrl.
// Run `npm run build` first.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { packInto } = require('./pack');

const root = path.resolve(__dirname, '..');
// What the bound is for: a dependency bundled by mistake (LangChain, through the AI node SDK, is
// megabytes). Each node's bundle holds the shared code (about 85 KB packed), and the package's
// own code grows by a few KB with a change: 200 KB, the first bound, was met at 201.5 KB.
const MAX_TARBALL_BYTES = 256 * 1024;
const ALLOWED = [/^dist\//, /^README\.md$/, /^LICENSE$/, /^CHANGELOG\.md$/, /^package\.json$/];
const TEST_FILE = /(^|\/)(__tests__|__mocks__|tests?|spec)\/|\.(test|spec)\.[cm]?[jt]s$/;
// The codex categories n8n's node panel groups nodes by.
const CODEX_CATEGORIES = new Set([
	'AI',
	'Analytics',
	'Communication',
	'Core Nodes',
	'Data & Storage',
	'Development',
	'Finance & Accounting',
	'HITL',
	'Marketing',
	'Marketing & Content',
	'Miscellaneous',
	'Productivity',
	'Sales',
	'Utility',
]);
const AI_SUBCATEGORIES = new Set([
	'Agents',
	'Chains',
	'Document Loaders',
	'Embeddings',
	'Language Models',
	'Memory',
	'Miscellaneous',
	'Model Context Protocol',
	'Output Parsers',
	'Rerankers',
	'Retrievers',
	'Root Nodes',
	'Text Splitters',
	'Tools',
	'Vector Stores',
]);

const problems = [];
const problem = (message) => problems.push(message);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

function checkFiles(info, dir) {
	console.log(`${info.name}@${info.version}: ${info.filename}`);
	for (const { path: file, size } of info.files) console.log(`  ${kb(size).padStart(9)}  ${file}`);
	console.log(
		`${info.entryCount} files, ${kb(info.size)} packed, ${kb(info.unpackedSize)} unpacked`,
	);

	for (const { path: file } of info.files) {
		if (!ALLOWED.some((re) => re.test(file)))
			problem(`${file}: not dist/, README, LICENSE, CHANGELOG or package.json`);
		if (TEST_FILE.test(file)) problem(`${file}: a test file`);
		if (file.endsWith('.map')) {
			const map = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
			if (Array.isArray(map.sourcesContent) && map.sourcesContent.some(Boolean)) {
				problem(`${file}: a source map that embeds the sources`);
			}
		}
		if (/\.[cm]?js$/.test(file)) {
			const text = fs.readFileSync(path.join(dir, file), 'utf8');
			if (/sourceMappingURL=data:/.test(text)) problem(`${file}: an inline source map`);
		}
	}
	for (const required of ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json']) {
		if (!info.files.some((f) => f.path === required))
			problem(`${required}: missing from the tarball`);
	}
	if (info.size >= MAX_TARBALL_BYTES)
		problem(`tarball is ${kb(info.size)}: the limit is ${kb(MAX_TARBALL_BYTES)}`);
}

function checkManifest(pkg) {
	for (const field of [
		'dependencies',
		'optionalDependencies',
		'bundleDependencies',
		'bundledDependencies',
	]) {
		const value = pkg[field];
		const count = Array.isArray(value) ? value.length : Object.keys(value ?? {}).length;
		if (count > 0) problem(`package.json: "${field}" must be empty (found ${count})`);
	}
	const peers = pkg.peerDependencies ?? {};
	const usesAiSdk = pkg.n8n?.aiNodeSdkVersion !== undefined;
	const expectedPeers = usesAiSdk
		? { '@n8n/ai-node-sdk': '*', 'n8n-workflow': '*' }
		: { 'n8n-workflow': '*' };
	const sorted = Object.fromEntries(Object.entries(peers).sort(([a], [b]) => a.localeCompare(b)));
	if (JSON.stringify(sorted) !== JSON.stringify(expectedPeers)) {
		problem(
			`package.json: peerDependencies must be exactly ${JSON.stringify(expectedPeers)}${usesAiSdk ? ' (with n8n.aiNodeSdkVersion)' : ''}, found ${JSON.stringify(peers)}`,
		);
	}
	if (!pkg.keywords?.includes('n8n-community-node-package')) {
		problem('package.json: the keyword "n8n-community-node-package" is missing');
	}
	for (const field of ['repository', 'homepage', 'bugs', 'author', 'license', 'engines']) {
		if (!pkg[field]) problem(`package.json: "${field}" is missing`);
	}
	const scripts = pkg.scripts ?? {};
	for (const hook of [
		'preinstall',
		'install',
		'postinstall',
		'prepare',
		'prepublish',
		'preprepare',
		'postprepare',
	]) {
		if (scripts[hook]) problem(`package.json: lifecycle script "${hook}" runs on users' machines`);
	}
}

/** Loads a dist file with n8n-workflow resolvable, as n8n does (it provides its own copy). */
function loadClass(dir, file) {
	const modules = path.join(path.dirname(dir), 'node_modules');
	if (!fs.existsSync(path.join(modules, 'n8n-workflow'))) {
		fs.mkdirSync(modules, { recursive: true });
		fs.symlinkSync(
			path.join(root, 'node_modules', 'n8n-workflow'),
			path.join(modules, 'n8n-workflow'),
			'dir',
		);
	}
	const exported = require(path.join(dir, file));
	const classes = Object.values(exported).filter((value) => typeof value === 'function');
	if (classes.length !== 1) throw new Error(`expected one exported class, found ${classes.length}`);
	return new classes[0]();
}

function checkIcon(dir, file, where, icon) {
	if (!icon || typeof icon !== 'object' || !icon.light || !icon.dark) {
		problem(`${where}: icon must be { light, dark } (themed SVGs)`);
		return;
	}
	for (const [theme, ref] of Object.entries({ light: icon.light, dark: icon.dark })) {
		const match = /^file:(.+\.svg)$/.exec(ref);
		if (!match) {
			problem(`${where}: ${theme} icon "${ref}" is not a file: SVG`);
			continue;
		}
		const iconPath = path.join(dir, path.dirname(file), match[1]);
		if (!fs.existsSync(iconPath))
			problem(`${where}: ${theme} icon ${path.relative(dir, iconPath)} is not in the tarball`);
	}
	if (icon.light === icon.dark) problem(`${where}: light and dark icons are the same file`);
}

function checkCodex(dir, nodeFile, packageName, description) {
	const codexFile = nodeFile.replace(/\.js$/, '.json');
	if (!fs.existsSync(path.join(dir, codexFile))) {
		problem(`${codexFile}: the node's codex is missing`);
		return;
	}
	const codex = JSON.parse(fs.readFileSync(path.join(dir, codexFile), 'utf8'));
	const expectedNode = `${packageName}.${description.name}`;
	if (codex.node !== expectedNode)
		problem(`${codexFile}: "node" is "${codex.node}", expected "${expectedNode}"`);
	if (codex.codexVersion !== '1.0') problem(`${codexFile}: "codexVersion" must be "1.0"`);
	const versions = []
		.concat(description.version)
		.map((v) => (Number.isInteger(v) ? `${v}.0` : String(v)));
	if (!versions.includes(codex.nodeVersion))
		problem(
			`${codexFile}: "nodeVersion" ${codex.nodeVersion} is not a version of the node (${versions.join(', ')})`,
		);
	if (!Array.isArray(codex.categories) || codex.categories.length === 0)
		problem(`${codexFile}: "categories" is empty`);
	for (const category of codex.categories ?? []) {
		if (!CODEX_CATEGORIES.has(category)) problem(`${codexFile}: unknown category "${category}"`);
	}
	for (const [category, subcategories] of Object.entries(codex.subcategories ?? {})) {
		// A key is a category, or a subcategory listed under one (AI > Language Models > Chat Models).
		const listed = Object.values(codex.subcategories ?? {}).some((subs) => subs.includes(category));
		if (!codex.categories?.includes(category) && !listed)
			problem(`${codexFile}: subcategories of "${category}", which is not among its categories`);
		if (category === 'AI') {
			for (const sub of subcategories)
				if (!AI_SUBCATEGORIES.has(sub)) problem(`${codexFile}: unknown AI subcategory "${sub}"`);
		}
	}
	for (const kind of ['primaryDocumentation', 'credentialDocumentation']) {
		for (const { url } of codex.resources?.[kind] ?? []) {
			if (!/^https:\/\//.test(url)) problem(`${codexFile}: ${kind} URL "${url}" is not https`);
		}
	}
	if (!codex.resources?.primaryDocumentation?.length)
		problem(`${codexFile}: no primaryDocumentation`);
}

function checkN8nEntries(dir, pkg) {
	const { nodes = [], credentials = [] } = pkg.n8n ?? {};
	if (nodes.length === 0) problem('package.json: n8n.nodes is empty');
	for (const file of [...nodes, ...credentials]) {
		if (!fs.existsSync(path.join(dir, file)))
			problem(`${file}: listed in package.json's n8n field, not in the tarball`);
	}
	const summary = [];
	for (const file of credentials) {
		if (!fs.existsSync(path.join(dir, file))) continue;
		try {
			const credential = loadClass(dir, file);
			checkIcon(dir, file, file, credential.icon);
			if (!/^https:\/\//.test(credential.documentationUrl ?? ''))
				problem(`${file}: documentationUrl is not an https URL`);
			summary.push(`credential ${credential.name}: docs ${credential.documentationUrl}`);
		} catch (error) {
			problem(`${file}: does not load: ${error.message}`);
		}
	}
	for (const file of nodes) {
		if (!fs.existsSync(path.join(dir, file))) continue;
		try {
			const { description } = loadClass(dir, file);
			checkIcon(dir, file, file, description.icon);
			if (!/^https:\/\//.test(description.documentationUrl ?? ''))
				problem(`${file}: description.documentationUrl is not an https URL`);
			// A sub-node (a chat model) supplies data to its root node and cannot be a tool.
			const hasMainOutput = (description.outputs ?? []).some((output) =>
				[output, output?.type].includes('main'),
			);
			if (hasMainOutput && !description.usableAsTool) problem(`${file}: usableAsTool is not set`);
			checkCodex(dir, file, pkg.name, description);
			const hints = (description.hints ?? []).map((h) => h.location ?? 'ndv').join(', ') || 'none';
			summary.push(
				`node ${description.name}: docs ${description.documentationUrl}; hints: ${hints}`,
			);
		} catch (error) {
			problem(`${file}: does not load: ${error.message}`);
		}
	}
	for (const line of summary) console.log(line);
}

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'check-package-'));
try {
	if (!fs.existsSync(path.join(root, 'dist')))
		throw new Error('No dist/: run `npm run build` first.');
	const { info, unpacked } = packInto(temp);
	const pkg = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
	checkFiles(info, unpacked);
	checkManifest(pkg);
	checkN8nEntries(unpacked, pkg);
	if (problems.length > 0) {
		console.error(`\ncheck:package failed, ${problems.length} problems:`);
		for (const message of problems) console.error(`  - ${message}`);
		process.exitCode = 1;
	} else {
		console.log('\ncheck:package passed.');
	}
} finally {
	fs.rmSync(temp, { recursive: true, force: true });
}
