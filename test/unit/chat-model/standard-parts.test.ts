/**
 * The AI Agent's images reach the node as images (standardParts.ts): LangChain's older parts are
 * given in the standard form n8n's LangChain adapter converts. On the sources, with LangChain's
 * own messages; sdk-adapter.test.ts shows them going through the SDK's real adapter.
 */
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { BaseMessage } from '@langchain/core/messages';

import { standardMessages } from '../../../nodes/AssistantChatModel/standardParts';

const image = new HumanMessage({
	content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
});

function standard(messages: BaseMessage[]): BaseMessage[] {
	return standardMessages(messages) as BaseMessage[];
}

describe("the AI Agent's images are given in LangChain's standard form", () => {
	test('an image_url part becomes a standard image, with its media type', () => {
		const question = new HumanMessage('What is in this picture?');
		const [first, second] = standard([question, image]);
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

	test("a PDF in LangChain's first data form keeps its name", () => {
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
		expect(standard([pdf])[0].content).toEqual([
			{
				type: 'file',
				mimeType: 'application/pdf',
				data: 'JVBERi0=',
				metadata: { filename: 'report.pdf' },
			},
		]);
	});

	test('other messages, and anything that is not a list of messages, pass as they are', () => {
		const answer = new AIMessage('Hello');
		const parts = new HumanMessage({ content: [{ type: 'text', text: 'Hi' }] });
		const [first, second] = standard([answer, parts]);
		expect(first).toBe(answer);
		expect(second).toBe(parts);
		expect(standardMessages(undefined)).toBeUndefined();
		const notAList = { content: [] };
		expect(standardMessages(notAList)).toBe(notAList);
	});
});
