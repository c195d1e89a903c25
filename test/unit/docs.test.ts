// The documentation holds together: every relative link and anchor in README.md,
// CONTRIBUTING.md and docs/*.md resolves; the nodes' documentation URLs point at README
// headings; CONTRIBUTING's Layout names files that exist; README.md stays short and shows the one
// install command the e2e runs (test/e2e/readmeInstall.js), which installs nothing but the
// package because its peers are optional.
import * as fs from 'node:fs';
import * as path from 'node:path';

import { readmeInstallArgs } from '../e2e/readmeInstall';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const PAGES = [
	'README.md',
	'CONTRIBUTING.md',
	...fs
		.readdirSync(path.join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

/** Markdown without fenced code blocks and inline code, where links are not links. */
function withoutCode(markdown: string): string {
	return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
	return heading
		.replace(/`/g, '')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings (numbered when repeated, as GitHub does) and ids. */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
	for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
		const base = slug(heading);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	for (const [, id] of markdown.matchAll(/<a\s+id="([^"]+)"/g)) anchors.add(id);
	return anchors;
}

/** The targets of a page's links and images: [text](target) and ![alt](target). */
function linksOf(markdown: string): string[] {
	return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(
		([, target]) => target,
	);
}

/** What is wrong with one link of `page`, or undefined when it resolves. */
function brokenLink(page: string, target: string): string | undefined {
	if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:
	const [file, anchor] = target.split('#') as [string, string | undefined];
	const resolved = file === '' ? page : path.join(path.dirname(page), decodeURI(file));
	if (!fs.existsSync(path.join(ROOT, resolved))) return `${target}: ${resolved} does not exist`;
	if (anchor === undefined) return undefined;
	if (!resolved.endsWith('.md')) return `${target}: an anchor into a file that is not Markdown`;
	return anchorsOf(read(resolved)).has(anchor)
		? undefined
		: `${target}: no #${anchor} in ${resolved}`;
}

describe('documentation links', () => {
	it.each(PAGES)('every relative link and anchor in %s resolves', (page) => {
		const broken = linksOf(read(page))
			.map((target) => brokenLink(page, target))
			.filter((problem) => problem !== undefined);
		expect(broken).toEqual([]);
	});

	it("the nodes' and the credential's documentation URLs point at README headings", () => {
		const sources = [
			'credentials/AssistantApi.credentials.ts',
			'nodes/Assistant/Assistant.node.ts',
			'nodes/AssistantChatModel/AssistantChatModel.node.ts',
			'nodes/shared/constants.ts',
		].filter((file) => fs.existsSync(path.join(ROOT, file)));
		const anchors = anchorsOf(read('README.md'));
		const urls = sources.flatMap((file) => [
			...read(file).matchAll(/github\.com\/n8n-nodes-assistant\/n8n-nodes-assistant#([\w-]+)/g),
		]);
		expect(urls.length).toBeGreaterThan(0);
		const missing = urls
			.map(([, anchor]) => anchor)
			.filter((anchor) => anchor !== 'readme' && !anchors.has(anchor));
		expect(missing).toEqual([]);
	});

	it('the link check sees a broken anchor and a missing file', () => {
		expect(brokenLink('README.md', 'docs/security.md#no-such-heading')).toMatch(/no #no-such/);
		expect(brokenLink('README.md', 'docs/missing.md')).toMatch(/does not exist/);
		expect(brokenLink('docs/ask.md', 'reliability.md#memory-bounds')).toBeUndefined();
		expect(slug("In n8n's own chat (Chat Hub)")).toBe('in-n8ns-own-chat-chat-hub');
	});
});

describe('CONTRIBUTING.md Layout', () => {
	it('names only files and folders that exist', () => {
		const contributing = read('CONTRIBUTING.md');
		const start = contributing.indexOf('### Layout');
		const block = /```\n([\s\S]*?)```/.exec(contributing.slice(start))?.[1] ?? '';
		expect(block).not.toBe('');
		const missing: string[] = [];
		let checked = 0;
		// The folder each indentation level is in: a name indented by 2n is in parents[n].
		const parents: string[] = [''];
		for (const line of block.split('\n')) {
			const match = /^( *)(\S.*?)(?: {2,}|$)/.exec(line);
			if (!match || match[1].length >= 20) continue; // a description's continuation
			const [, indent, names] = match;
			const level = indent.length / 2;
			const folder = parents[level] ?? '';
			for (const name of names.split(/,\s*/)) {
				if (name.includes('*')) continue;
				const relative = path.join(folder, name);
				checked++;
				if (!fs.existsSync(path.join(ROOT, relative))) missing.push(relative);
			}
			if (names.endsWith('/')) parents[level + 1] = path.join(folder, names);
		}
		expect(checked).toBeGreaterThan(50);
		expect(missing).toEqual([]);
	});
});

describe('README.md', () => {
	it('is at most 250 lines', () => {
		expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
	});

	it("shows one install command, into n8n's nodes folder, and the package's peers are optional", () => {
		const args = readmeInstallArgs(read('README.md'));
		expect(args).toEqual(expect.arrayContaining(['--prefix', '~/.n8n/nodes']));
		const pkg = JSON.parse(read('package.json')) as {
			peerDependencies: Record<string, string>;
			peerDependenciesMeta?: Record<string, { optional?: boolean }>;
		};
		const required = Object.keys(pkg.peerDependencies).filter(
			(peer) => pkg.peerDependenciesMeta?.[peer]?.optional !== true,
		);
		expect(required).toEqual([]);
	});
});
