/**
 * The AI Agent's images reach the node as images (standardParts.ts): LangChain's older parts are
 * handed to n8n's LangChain adapter in the standard form it converts. On the sources, with
 * LangChain's own messages and a stand-in for the adapter.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { BaseMessage } from '@langchain/core/messages';

import { withStandardParts } from '../../../nodes/AssistantChatModel/standardParts';

/** What n8n's adapter is to the node: it receives LangChain's messages; bindTools gives another. */
class StandInAdapter {
	received: BaseMessage[][] = [];
	bound?: StandInAdapter;

	async _generate(messages: BaseMessage[]) {
		this.received.push(messages);
		return { generations: [] };
	}

	async *_streamResponseChunks(messages: BaseMessage[]) {
		this.received.push(messages);
		yield 'chunk';
	}

	bindTools() {
		this.bound = new StandInAdapter();
		return this.bound;
	}
}

const image = new HumanMessage({
	content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
});

describe("the AI Agent's images reach the node as images", () => {
	test('an image_url part is handed on as a standard image, with its media type', async () => {
		const adapter = withStandardParts(new StandInAdapter());
		const question = new HumanMessage('What is in this picture?');
		await adapter._generate([question, image]);
		const [[first, second]] = adapter.received;
		expect(first).toBe(question);
		expect(HumanMessage.isInstance(second)).toBe(true);
		expect(second.content).toEqual([
			{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
		]);
		// The agent's own message is left as it was.
		expect(image.content).toEqual([
			{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
		]);
	});

	test("a PDF in LangChain's first data form keeps its name", async () => {
		const adapter = withStandardParts(new StandInAdapter());
		const pdf = new HumanMessage({
			content: [
				{
					type: 'file',
					source_type: 'base64',
					mime_type: 'application/pdf',
					data: 'JVBERi0=',
					metadata: { filename: 'report.pdf' },
				},
			],
		});
		for await (const chunk of adapter._streamResponseChunks([pdf])) expect(chunk).toBe('chunk');
		expect(adapter.received[0][0].content).toEqual([
			{
				type: 'file',
				mimeType: 'application/pdf',
				data: 'JVBERi0=',
				metadata: { filename: 'report.pdf' },
			},
		]);
	});

	test('the model bindTools returns is wrapped too; other messages pass as they are', async () => {
		const adapter = withStandardParts(new StandInAdapter());
		const bound = adapter.bindTools();
		const answer = new AIMessage('Hello');
		await bound._generate([answer, image]);
		expect(bound.received[0][0]).toBe(answer);
		expect(bound.received[0][1].content).toEqual([
			{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
		]);
	});

	test('anything that is not an adapter passes as it is', () => {
		expect(withStandardParts(undefined)).toBeUndefined();
		const plain = { invoke: () => 'x' };
		expect(withStandardParts(plain)).toBe(plain);
	});
});
