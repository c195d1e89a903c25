/**
 * Conversations on the emulator, straight over HTTP, for the exactly-once suites
 * (docs/api.md#reading-a-conversation): one answered before a run, as an earlier execution leaves
 * it, and the answer a conversation holds.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Emulator } from '../emulator/server';

/** A new conversation with one answered ask: its id and the answer. */
export async function answeredConversation(
	emulator: Emulator,
	input = 'Hi! My name is Ada.',
): Promise<{ id: string; output: string }> {
	const res = await fetch(`${emulator.baseUrl}/assistant/ask`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${emulator.token}` },
		body: JSON.stringify({ input }),
	});
	const { output, conversation_id: id } = (await res.json()) as Record<string, string>;
	return { id, output };
}

/**
 * The last text part of the conversation's last response: what its ask's stream carried, for a
 * turn without a tool round (docs/api.md#recovery-after-a-failure joins a turn's responses).
 */
export async function heldAnswer(emulator: Emulator, id: string): Promise<string> {
	const res = await fetch(`${emulator.baseUrl}/conversations/${encodeURIComponent(id)}`, {
		headers: { authorization: `Bearer ${emulator.token}` },
	});
	const { messages } = (await res.json()) as { messages: IDataObject[] };
	const last = messages.filter((message) => message.kind === 'response').at(-1);
	return String((last?.parts as IDataObject[]).at(-1)?.content);
}
