// ESLint for the sources and the tests: n8n's community-node rules as `n8n-node lint`
// (@n8n/node-cli) and n8n's package scanner (@n8n/scan-community-package) apply them, plus
// JavaScript/TypeScript recommended rules. `npm run lint` runs it with --max-warnings 0.
// The packed tarball is linted separately (`npm run lint:dist`, scripts/lint-dist.mjs), the way
// the scanner lints a published package.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { globalIgnores } from 'eslint/config';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// (@n8n/node-cli also adds eslint-plugin-import-x; left out: its resolver, unrs-resolver, needs
// per-platform binary packages that `npm ci` cannot always fetch.)

// The strict one: also enforces what n8n Cloud requires (no restricted globals or imports).
const community = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	// Build output, installs and reports; bench/ (benchmarks) is neither source nor test.
	globalIgnores(['dist/', 'node_modules/', '.cache/', 'artifacts/', 'coverage/', 'bench/']),

	{
		files: ['**/*.{ts,js,mjs,cjs}'],
		extends: [js.configs.recommended, community],
		languageOptions: { globals: { ...globals.node } },
		// As @n8n/node-cli's config.
		rules: {
			'no-console': 'error',
			'prefer-spread': 'off',
		},
	},
	{
		files: ['**/*.ts'],
		extends: [tseslint.configs.recommended],
	},
	{
		// CommonJS: the emulator, the fixture package, the build and tool configs.
		files: ['**/*.{js,cjs}'],
		languageOptions: { sourceType: 'commonjs' },
	},

	{
		// Code that never ships and never runs inside n8n: tests, the emulator, the demo, the fuzzer,
		// build and release scripts. The rules below guard what a node may do inside n8n (n8n
		// Cloud's allowed globals and modules, no child processes, no console, no secrets in
		// source); this code runs in node or jest on a developer's machine, starts servers on
		// loopback, and uses fixed fake tokens for the local emulator. Every other rule applies.
		files: ['test/**', 'scripts/**', '*.{js,mjs,cjs}'],
		rules: {
			'@n8n/community-nodes/no-restricted-globals': 'off',
			'@n8n/community-nodes/no-restricted-imports': 'off',
			'@n8n/community-nodes/no-dangerous-functions': 'off',
			'@n8n/community-nodes/no-hardcoded-secrets': 'off',
			'no-console': 'off',
		},
	},
	{
		// Test doubles of n8n's own nodes for the engine harness, not nodes of this package.
		files: ['test/helpers/**'],
		rules: { '@n8n/community-nodes/node-usable-as-tool': 'off' },
	},

	// Three parts, one direction: both nodes import the shared core (nodes/shared/); the core
	// imports neither node, and neither node imports the other.
	...[
		['nodes/shared/**', ['**/Assistant', '**/Assistant/**', '**/AssistantChatModel/**']],
		['nodes/Assistant/**', ['**/AssistantChatModel/**']],
		['nodes/AssistantChatModel/**', ['**/Assistant', '**/Assistant/**']],
	].map(([folder, forbidden]) => ({
		files: [folder],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							group: forbidden,
							message:
								'A node folder holds that node alone: import what both nodes use from nodes/shared/.',
						},
					],
				},
			],
		},
	})),

	// eslint-plugin-n8n-nodes-base, wired like @n8n/node-cli's config and the scanner's.
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{
		files: ['package.json'],
		extends: [community],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// As in @n8n/node-cli: a full URL is the valid form for community credentials.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			// As in @n8n/node-cli: community-nodes/credential-password-field is the accurate one.
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// As in @n8n/node-cli: inputs/outputs use the NodeConnectionTypes enum, not "main".
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
