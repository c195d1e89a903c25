/**
 * Row 8: what the Assistant Chat Model sends over a 10-turn agent chat with 5 tools of realistic
 * size: an AI Agent with a chat memory, one execution per user turn, in the engine against the
 * emulator. Beside it, the bytes of the new messages alone (plus one tool catalogue), and what a
 * client that resends the whole transcript and catalogue on every call would send (an OpenAI
 * chat completions body: messages and tools; n8n's OpenAI Chat Model pointed at an
 * OpenAI-compatible proxy in front of the service sends that).
 */
import { tool as langchainTool } from '@langchain/core/tools';
import { z } from 'zod';

import { startEmulator } from '../../test/emulator/server';
import { assistantPackage, emulatorCredential } from '../../test/helpers/assistant';
import {
	runChatModel,
	type AgentTool,
	type ConsumerOutput,
	type ScriptMessage,
} from '../../test/helpers/chat-model';
import type { Row } from '../lib/report';

const TOKEN = 'bench-token-agent-bytes-0123456789';
const TARGET = 1.15;

const SYSTEM =
	'You are the operations assistant of a small design studio. Answer in two or three sentences, cite the tool you used, and never invent dates, names or amounts.';

/** Five tools shaped like n8n's: a sentence or three of description, several typed parameters. */
function realisticTools(): AgentTool[] {
	const result = (name: string) => async (args: Record<string, unknown>) =>
		JSON.stringify({
			tool: name,
			request: args,
			items: Array.from({ length: 3 }, (_, i) => ({
				id: `${name}-${i + 1}`,
				title: `Result ${i + 1} of ${name}`,
				summary:
					'Quarterly planning notes: budget review on Tuesday, hiring plan for two designers, the client workshop moved to the 14th, and the new invoicing flow live from next month.',
				updated: '2026-11-20T09:30:00Z',
			})),
		});
	return [
		langchainTool(result('search_notion'), {
			name: 'search_notion',
			description:
				'Searches the studio’s Notion workspace (pages and databases) by full text. Use it for plans, meeting notes, briefs and processes. Returns the best matching pages with a summary each.',
			schema: z.object({
				query: z.string().describe('Words to search for, e.g. "Q3 planning"'),
				limit: z.number().describe('How many pages to return, 1 to 10').optional(),
				database: z
					.enum(['all', 'projects', 'meetings', 'processes'])
					.describe('Restrict the search to one database')
					.optional(),
			}),
		}),
		langchainTool(result('list_calendar_events'), {
			name: 'list_calendar_events',
			description:
				'Lists events of the shared Google Calendar between two dates, with their attendees and locations. Use it for questions about meetings, availability and deadlines.',
			schema: z.object({
				from: z.string().describe('Start date, ISO 8601, e.g. 2026-11-24'),
				to: z.string().describe('End date, ISO 8601, inclusive'),
				attendee: z.string().describe('Only events this e-mail address attends').optional(),
			}),
		}),
		langchainTool(result('query_invoices'), {
			name: 'query_invoices',
			description:
				'Queries the accounting system’s invoices. Filters by client, status and period; returns number, client, amount, currency, due date and status for each invoice.',
			schema: z.object({
				client: z.string().describe('Client name or id; empty for all clients'),
				status: z.enum(['open', 'paid', 'overdue', 'any']).describe('Invoice status'),
				period: z.string().describe('A month (2026-11) or a quarter (2026-Q4)'),
			}),
		}),
		langchainTool(result('send_slack_message'), {
			name: 'send_slack_message',
			description:
				'Posts a message to a Slack channel of the studio’s workspace as the assistant. Use it only when the user asks to notify someone; returns the message link.',
			schema: z.object({
				channel: z.string().describe('Channel name without #, e.g. design-team'),
				text: z.string().describe('The message, Slack markdown allowed'),
				thread: z.string().describe('Timestamp of a thread to reply in').optional(),
			}),
		}),
		langchainTool(result('http_request'), {
			name: 'http_request',
			description:
				'Calls an HTTP API the studio uses (status pages, the print shop’s order API, the website’s CMS). Give the full URL; GET unless a body is given.',
			schema: z.object({
				url: z.string().describe('The full URL, https only'),
				method: z.enum(['GET', 'POST', 'PUT', 'DELETE']).describe('HTTP method'),
				body: z.string().describe('JSON body for POST or PUT').optional(),
			}),
		}),
	];
}

/** Ten user turns: the first five each need one tool, the rest are follow-ups. */
const QUESTIONS = [
	'Please use search_notion to find our Q3 planning notes and tell me the budget review date.',
	'Use list_calendar_events: what is on the shared calendar next week?',
	'Use query_invoices for the open invoices of November, which ones are due first?',
	'Use send_slack_message to tell the design-team channel the workshop moved to the 14th.',
	'Use http_request to check the print shop order API status page.',
	'Thanks. Which of these needs my attention today?',
	'Summarize the week for me in three bullet points.',
	'Who should I talk to about the hiring plan?',
	'Draft a one-line reminder about the overdue invoices.',
	'That is all for today, thank you.',
];

interface Measured {
	/** Bytes of `input` the node sent over the whole chat. */
	inputBytes: number;
	/** Bytes of whole ask bodies (input, output_format and the rest). */
	bodyBytes: number;
	asks: number;
	/** Bytes of the messages that were new at each call (user questions, tool results). */
	newMessageBytes: number;
	/** One catalogue as the node lists it. */
	catalogueBytes: number;
	/** A client that resends the whole transcript and the tools on every call. */
	resendBytes: number;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** What the agent's memory keeps of a turn (as n8n's AI Agent saves it). */
function remembered(question: string, output: ConsumerOutput): ScriptMessage[] {
	return [
		{ role: 'user', content: question },
		...(output.toolCalls.length > 0
			? [
					{
						role: 'assistant' as const,
						content: '',
						toolCalls: output.toolCalls.map(({ id, name, args }) => ({ id, name, args })),
					},
				]
			: []),
		...output.toolCalls.map((call): ScriptMessage => ({
			role: 'tool',
			content: call.result,
			toolCallId: call.id,
		})),
		{ role: 'assistant', content: output.text },
	];
}

/** An OpenAI chat completions body for the history so far (messages and tools). */
function resendBody(history: ScriptMessage[], tools: ReturnType<typeof toolList>): number {
	const messages = history.map((message) =>
		message.role === 'tool'
			? { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
			: message.toolCalls
				? {
						role: 'assistant',
						content: null,
						tool_calls: message.toolCalls.map((call) => ({
							id: call.id,
							type: 'function',
							function: { name: call.name, arguments: JSON.stringify(call.args) },
						})),
					}
				: { role: message.role, content: message.content },
	);
	return bytes(JSON.stringify({ model: 'assistant', messages, tools }));
}

function toolList(parameters: Array<{ name: string; description: string; parameters: unknown }>) {
	return parameters.map((tool) => ({ type: 'function', function: tool }));
}

async function measure(): Promise<Measured> {
	const emulator = await startEmulator({ token: TOKEN });
	try {
		const pkg = await assistantPackage();
		const credential = emulatorCredential(emulator.baseUrl, TOKEN);
		const tools = realisticTools();
		const history: ScriptMessage[] = [{ role: 'system', content: SYSTEM }];
		// The system message is new at the first call.
		let newMessageBytes = bytes(SYSTEM);
		let resendBytes = 0;
		let catalogue = '';
		let catalogueBytes = 0;
		let openAiTools: ReturnType<typeof toolList> = [];
		for (const question of QUESTIONS) {
			const before = emulator.stats.requests.length;
			const run = await runChatModel(
				pkg,
				'agent',
				[...history, { role: 'user', content: question }],
				{},
				{ credentials: [credential], tools },
			);
			const error = run.error();
			if (error) throw error;
			const output = run.outputs('Consumer')[0].json as ConsumerOutput;
			const asks = emulator.stats.requests
				.slice(before)
				.filter((request) => request.path === '/assistant/ask');
			if (!catalogue) {
				const first = String((asks[0].body as { input: string }).input);
				catalogue = first.slice(first.indexOf('Tools you can use'));
				catalogueBytes = bytes(catalogue);
				const listed = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(catalogue)?.[1] ?? '[]');
				openAiTools = toolList(listed);
			}
			// The new messages of each call: the question, then each tool result.
			newMessageBytes += bytes(question);
			for (const call of output.toolCalls) newMessageBytes += bytes(call.result);
			// The resending client: the whole history at each call of this turn.
			const turn = remembered(question, output);
			let calls = 0;
			for (let end = 1; end <= turn.length; end++) {
				// A call happens after the question and after each tool result.
				const last = turn[end - 1];
				if (last.role === 'user' || last.role === 'tool') {
					resendBytes += resendBody([...history, ...turn.slice(0, end)], openAiTools);
					calls++;
				}
			}
			if (calls !== asks.length) {
				throw new Error(`turn "${question}": ${asks.length} asks for ${calls} model calls`);
			}
			history.push(...turn);
		}
		const asks = emulator.stats.requests.filter((request) => request.path === '/assistant/ask');
		const inputBytes = asks.reduce(
			(sum, request) => sum + bytes(String((request.body as { input: string }).input)),
			0,
		);
		const bodyBytes = asks.reduce((sum, request) => sum + bytes(JSON.stringify(request.body)), 0);
		return {
			inputBytes,
			bodyBytes,
			asks: asks.length,
			newMessageBytes,
			catalogueBytes,
			resendBytes,
		};
	} finally {
		await emulator.close();
	}
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

export async function agentBytesRow(): Promise<Row> {
	// Byte counts do not vary between runs: one run.
	const m = await measure();
	const ideal = m.newMessageBytes + m.catalogueBytes;
	const ratio = m.inputBytes / ideal;
	const verdict = ratio <= TARGET ? 'met' : 'missed';
	return {
		name: '8. Agent chat bytes',
		measure: `AI Agent, ${QUESTIONS.length} turns (${m.asks} asks), 5 tools, memory: input sent`,
		figure: kb(m.inputBytes),
		baseline: `${kb(ideal)} (new messages ${kb(m.newMessageBytes)} + one catalogue ${kb(m.catalogueBytes)})`,
		ratio: `${ratio.toFixed(2)}×`,
		target: `≤ ${TARGET}×`,
		verdict,
		why:
			verdict === 'missed'
				? `the node sent ${kb(m.inputBytes)} of input against ${kb(ideal)}; see "Targets missed"`
				: undefined,
		details: [
			`${QUESTIONS.length} executions of an AI Agent (one per user turn) with a chat memory that keeps each turn's tool calls, tool results and final answer, 5 tools with 2–4 typed parameters and 1–3 sentence descriptions, tool results of about 0.9 KB; in the engine against the emulator, ${m.asks} asks in all. Byte counts are deterministic: one run.`,
			`The node's asks: ${kb(m.inputBytes)} of \`input\` (labels and the one catalogue included); whole JSON bodies ${kb(m.bodyBytes)}, the difference being mostly the tool envelope \`output_format\` that names the tools on every ask (${kb((m.bodyBytes - m.inputBytes) / m.asks)} an ask).`,
			`A client that resends the whole transcript and the tool list on every call (an OpenAI chat completions body, computed from the same turns: what n8n's OpenAI Chat Model sends through an OpenAI-compatible proxy): ${kb(m.resendBytes)}, ${(m.resendBytes / m.bodyBytes).toFixed(1)}× the node's whole bodies.`,
		],
	};
}
