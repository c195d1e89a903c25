/**
 * The held answer (askPlan.ts, docs/api.md#recovery-after-a-failure) is the ask's only "when the ask
 * sends those very messages again (the same roles and contents as the conversation shows them)";
 * "another message answered with the same words is this ask's answer, taken".
 */
import type { Message } from '@n8n/ai-node-sdk';

import { planAsk } from '../../../nodes/AssistantChatModel/askPlan';

const PNG = 'iVBORw0KGgoAAAAAAAAAAAAAAAAAAAAAAAAA';

test('two unnamed files of different kinds show as different notes: the earlier answer is not held for the new one', () => {
	const messages: Message[] = [
		{
			role: 'user',
			content: [
				{ type: 'text', text: 'What is this?' },
				{ type: 'file', mediaType: 'application/pdf', data: 'JVBERi0xLjQK' },
			],
		},
		{ role: 'assistant', content: [{ type: 'text', text: 'I could not open it.' }] },
		{
			role: 'user',
			content: [
				{ type: 'text', text: 'What is this?' },
				{ type: 'file', mediaType: 'audio/mpeg', data: 'SUQzBAAAAAAA' },
			],
		},
	];
	const plan = planAsk(messages, 'con_HeldFiles00001');
	// The conversation is sent (and shows) the audio note, not the PDF's.
	expect(plan.input).toContain('an audio file');
	expect(plan.input).not.toContain('a PDF document');
	expect(plan.heldAnswer).toBeUndefined();
});

test('two images the model cannot see, with other names, show as different notes: the earlier answer is not held', () => {
	const image = (filename: string, fill: string) => ({
		role: 'user' as const,
		content: [
			{ type: 'text' as const, text: 'What is this?' },
			{
				type: 'file' as const,
				mediaType: 'image/png',
				data: PNG + fill,
				providerMetadata: { filename },
			},
		],
	});
	const messages: Message[] = [
		image('cat.png', 'A'),
		{ role: 'assistant', content: [{ type: 'text', text: 'I cannot see images.' }] },
		image('invoice.png', 'B'),
	];
	const plan = planAsk(messages, 'con_HeldImages0001', {
		send: false,
		reason: 'the model X cannot see images',
	});
	expect(plan.input).toContain('invoice.png');
	expect(plan.input).not.toContain('cat.png');
	expect(plan.heldAnswer).toBeUndefined();
});

test('the same words in two text parts show as the one text the conversation holds: the earlier answer is held', () => {
	const messages: Message[] = [
		{ role: 'user', content: [{ type: 'text', text: 'Yes, please.' }] },
		{ role: 'assistant', content: [{ type: 'text', text: 'Done: the mail is sent.' }] },
		{
			role: 'user',
			content: [
				{ type: 'text', text: 'Yes, ' },
				{ type: 'text', text: 'please.' },
			],
		},
	];
	const plan = planAsk(messages, 'con_HeldParts00001');
	const earlier = planAsk(messages.slice(0, 1), 'con_HeldParts00001');
	// As the conversation shows them, the two messages are one text.
	expect(plan.input).toBe(earlier.input);
	expect(plan.heldAnswer).toBe('Done: the mail is sent.');
});

test('a new photo the model sees, with the same words: the conversation shows the same prompt, the earlier answer is held', () => {
	const photo = (fill: string) => ({
		role: 'user' as const,
		content: [
			{ type: 'text' as const, text: 'What is this?' },
			{ type: 'file' as const, mediaType: 'image/png', data: PNG + fill },
		],
	});
	const messages: Message[] = [
		photo('A'),
		{ role: 'assistant', content: [{ type: 'text', text: 'It is a red apple.' }] },
		photo('B'),
	];
	expect(planAsk(messages, 'con_HeldPhotos0001', { send: true }).heldAnswer).toBe(
		'It is a red apple.',
	);
});
