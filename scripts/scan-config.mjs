// The ESLint config n8n's package scanner lints a community package with, rebuilt from
// @n8n/scan-community-package@0.32.0 (scanner/scanner.mjs, `buildScanConfig`) with this
// project's (newer) plugin versions. The scanner runs it twice, both times with
// `allowInlineConfig: false` (eslint-disable comments do not count) and without any config file
// of the package (`overrideConfigFile: true`), failing on any error:
//   - on the source the package's npm provenance points at: `SOURCE_FILE_PATTERNS`;
//   - on the published tarball: `TARBALL_FILE_PATTERNS`.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { defineConfig } from 'eslint/config';
import n8nNodesPlugin from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

export const SOURCE_FILE_PATTERNS = ['package.json', '{nodes,credentials}/**/*.{js,ts,json}'];
export const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

export function buildScanConfig() {
	const parser = tseslint.parser;
	return defineConfig(
		n8nCommunityNodesPlugin.configs.recommended,
		{ rules: { 'no-console': 'error' } },
		{ plugins: { 'n8n-nodes-base': n8nNodesPlugin } },
		{
			files: ['package.json'],
			rules: { ...n8nNodesPlugin.configs.community.rules },
		},
		{
			files: ['**/credentials/**/*.ts'],
			rules: {
				...n8nNodesPlugin.configs.credentials.rules,
				'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
				'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
			},
		},
		{
			files: ['**/nodes/**/*.ts'],
			rules: {
				...n8nNodesPlugin.configs.nodes.rules,
				'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
				'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
				'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
			},
		},
		{ files: ['**/*.json'], languageOptions: { parser } },
		{ files: ['**/*.ts'], languageOptions: { parser } },
	);
}
