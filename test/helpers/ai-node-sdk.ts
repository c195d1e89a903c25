/**
 * Whether n8n's AI node SDK is there: on n8n 2.x, and not under jest.n8n1.config.js, which makes
 * it unresolvable as n8n 1.x does (the chat model's suites skip what needs it there).
 */
export function aiNodeSdkResolves(): boolean {
	try {
		require.resolve('@n8n/ai-node-sdk');
		return true;
	} catch {
		return false;
	}
}
