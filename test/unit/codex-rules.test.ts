/**
 * n8n's next community-node lint rules on the codex files (from n8n's own repository,
 * packages/@n8n/eslint-plugin-community-nodes, newer than the published 0.32 that `lint:dist`
 * runs): `no-ai-codex-category` (the "AI" category) and `no-codex-subcategories`
 * (`subcategories`) are allowed only for a node built on n8n's AI node SDK, that is, whose
 * `.node.ts` file has a top-level import from `@n8n/ai-node-sdk`. A `.node.json` codex counts
 * when its `.node.ts` sibling declares no inline `codex`. This applies the rules as read there to
 * both nodes' codex files; it is a check of this package, not a copy of the plugin.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const SDK_MODULES = ['@n8n/ai-node-sdk', 'ai-node-sdk'];

interface Codex {
	categories?: unknown;
	subcategories?: unknown;
}

interface NodeFile {
	/** A top-level `import … from '@n8n/ai-node-sdk'` (a type import included). */
	importsSdk: boolean;
	/** A `codex: {…}` property anywhere in the file, which n8n's loader would use instead. */
	inlineCodex: boolean;
}

function readNodeFile(source: string): NodeFile {
	const file = ts.createSourceFile('node.ts', source, ts.ScriptTarget.Latest, true);
	const importsSdk = file.statements.some(
		(statement) =>
			ts.isImportDeclaration(statement) &&
			ts.isStringLiteral(statement.moduleSpecifier) &&
			SDK_MODULES.includes(statement.moduleSpecifier.text),
	);
	let inlineCodex = false;
	const visit = (node: ts.Node): void => {
		if (
			ts.isPropertyAssignment(node) &&
			(ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
			node.name.text === 'codex' &&
			ts.isObjectLiteralExpression(node.initializer)
		) {
			inlineCodex = true;
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return { importsSdk, inlineCodex };
}

/** What the two rules report for a codex file and its node file. */
function codexProblems(codex: Codex, node: NodeFile): string[] {
	if (node.inlineCodex || node.importsSdk) return [];
	const problems: string[] = [];
	if (Array.isArray(codex.categories) && codex.categories.includes('AI')) {
		problems.push('no-ai-codex-category: "AI" without the AI node SDK');
	}
	if (codex.subcategories !== undefined) {
		problems.push('no-codex-subcategories: subcategories without the AI node SDK');
	}
	return problems;
}

const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[] };
};
/** Each node the package declares, as its source and codex file. */
const NODES = packageJson.n8n.nodes.map((built) => {
	const source = built.replace(/^dist\//, '').replace(/\.js$/, '.ts');
	return { source, codexFile: source.replace(/\.node\.ts$/, '.node.json') };
});

describe("n8n's next codex rules (no-ai-codex-category, no-codex-subcategories)", () => {
	test('the package declares both nodes, each with a codex file', () => {
		expect(NODES.map((node) => path.basename(node.source))).toEqual([
			'Assistant.node.ts',
			'AssistantChatModel.node.ts',
		]);
		for (const node of NODES) expect(fs.existsSync(path.join(ROOT, node.codexFile))).toBe(true);
	});

	test.each(NODES.map((node) => [path.basename(node.codexFile), node]))(
		'%s passes both rules',
		(_name, node) => {
			const codex = JSON.parse(fs.readFileSync(path.join(ROOT, node.codexFile), 'utf8')) as Codex;
			const nodeFile = readNodeFile(fs.readFileSync(path.join(ROOT, node.source), 'utf8'));
			expect(codexProblems(codex, nodeFile)).toEqual([]);
		},
	);

	test('the Assistant node, not built on the SDK, is listed under Productivity, without AI', () => {
		const codex = JSON.parse(
			fs.readFileSync(path.join(ROOT, 'nodes/Assistant/Assistant.node.json'), 'utf8'),
		) as Codex & { alias: string[] };
		expect(codex.categories).toEqual(['Productivity']);
		expect(codex.subcategories).toBeUndefined();
		// Found by search: its name and these aliases.
		expect(codex.alias).toEqual(expect.arrayContaining(['AI Assistant', 'Personal AI']));
	});

	test('the chat model keeps AI > Language Models: its node file imports the SDK (types only)', () => {
		const source = fs.readFileSync(
			path.join(ROOT, 'nodes/AssistantChatModel/AssistantChatModel.node.ts'),
			'utf8',
		);
		expect(readNodeFile(source).importsSdk).toBe(true);
		// A type import only: a value import would stop the package loading on n8n without the SDK.
		expect(source).toMatch(/^import type \{[^}]*\} from '@n8n\/ai-node-sdk';$/m);
		expect(source).not.toMatch(/^import (?!type)[^;]*from '@n8n\/ai-node-sdk'/m);
	});

	test('the check finds what the rules report (an AI codex without the SDK, subcategories)', () => {
		const plain = readNodeFile("import type { INodeType } from 'n8n-workflow';");
		expect(codexProblems({ categories: ['AI', 'Productivity'] }, plain)).toHaveLength(1);
		expect(codexProblems({ categories: ['Productivity'], subcategories: {} }, plain)).toHaveLength(
			1,
		);
		const sdk = readNodeFile("import { supplyModel } from '@n8n/ai-node-sdk';");
		expect(codexProblems({ categories: ['AI'], subcategories: { AI: ['Tools'] } }, sdk)).toEqual(
			[],
		);
		const inline = readNodeFile('const description = { codex: { categories: [] } };');
		expect(codexProblems({ categories: ['AI'] }, inline)).toEqual([]);
	});
});
