/**
 * Events of the 2026 stream (docs/api.md#2026-stream-dialect) for a scripted server to send, with
 * the fields the captures show: each Part event and tool event names its model response
 * (`metadata.zmid`), runtime chunks and the request echo open the turn, `completed` ends it.
 */
import {
	COMPLETED_SUCCEEDED,
	ECHO_PRIVATE_MARKER,
	runtimeChunk as runtimeFrame,
} from '../emulator/frames2026';
import { sse } from './scripted-server';

const RUNNER = '6fbbe2d9-3318-4965-818d-a6d8a2ffa4bf';

const metadata = (zmid: string) => ({ zmid, runner_id: RUNNER });

function runtimeChunk(type: 'status' | 'persisted', fields: Record<string, unknown>): string {
	const { type: name, data } = runtimeFrame(type, { runner_id: RUNNER, ...fields });
	return sse(name, data);
}

/** The echo of the model's request: private, never in anything the node gives. */
export const echo = (): string =>
	sse('FrontendModelRequest', {
		kind: 'request',
		parts: [
			{
				part_kind: 'system-prompt',
				content: `<workspace_file>${ECHO_PRIVATE_MARKER}</workspace_file>`,
			},
			{ part_kind: 'user-prompt', content: 'Hi' },
		],
	});

/** The turn's opening: dispatched, the user's message persisted, a status line, the echo. */
export const opening = (): string =>
	runtimeChunk('status', { status: 'dispatching', runner_id: null }) +
	runtimeChunk('persisted', { data: { message_id: 'u1' }, message_id: 'u1' }) +
	runtimeChunk('status', {
		status: 'progress',
		data: { message: 'Thinking\u2026', phase: 'model_request' },
	}) +
	echo();

export const completed = (): string => sse('completed', COMPLETED_SUCCEEDED);

/** A part's start in response `zmid`, with the fields the captures show; `part`'s own win. */
export function partStart(index: number, part: Record<string, unknown>, zmid: string): string {
	return sse('PartStartEvent', {
		event_kind: 'part_start',
		index,
		part: { id: null, provider_details: null, provider_name: null, ...part },
		previous_part_kind: null,
		metadata: metadata(zmid),
	});
}

/** A text part of response `zmid`: its first piece in its start, the rest in deltas of five. */
export function textPart(index: number, text: string, zmid: string): string {
	const [first, ...rest] = text.match(/[\s\S]{1,5}/g) ?? [''];
	return (
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index,
			part: {
				content: first,
				id: null,
				part_kind: 'text',
				provider_details: null,
				provider_name: null,
			},
			previous_part_kind: null,
			metadata: metadata(zmid),
		}) +
		rest
			.map((piece) =>
				sse('PartDeltaEvent', {
					delta: { content_delta: piece, part_delta_kind: 'text' },
					event_kind: 'part_delta',
					index,
					metadata: metadata(zmid),
				}),
			)
			.join('')
	);
}

/**
 * A text part's start, index 0 of response `m1`, with only the fields the node reads (not the
 * captures' layout): for suites whose bytes are their own, such as those that spell the token.
 */
export const bareTextStart = (content: string): string =>
	sse('PartStartEvent', {
		event_kind: 'part_start',
		index: 0,
		part: { part_kind: 'text', content },
		metadata: { zmid: 'm1' },
	});

/** The next piece of bareTextStart's part. */
export const bareTextDelta = (content: string): string =>
	sse('PartDeltaEvent', {
		event_kind: 'part_delta',
		index: 0,
		delta: { part_delta_kind: 'text', content_delta: content },
		metadata: { zmid: 'm1' },
	});

export interface ToolCall {
	name: string;
	id: string;
	/** The arguments' JSON text. */
	args: string;
}

/** The whole call, as a tool-call part. */
const callPart = (call: ToolCall) => ({
	args: call.args,
	id: null,
	part_kind: 'tool-call',
	provider_details: null,
	provider_name: null,
	tool_call_id: call.id,
	tool_name: call.name,
});

/** A tool-call part of response `zmid`: its start, then its arguments in one `tool_call` delta. */
export function toolCallPart(index: number, call: ToolCall, zmid: string): string {
	return (
		sse('PartStartEvent', {
			event_kind: 'part_start',
			index,
			part: { ...callPart(call), args: '' },
			previous_part_kind: null,
			metadata: metadata(zmid),
		}) +
		sse('PartDeltaEvent', {
			delta: {
				args_delta: call.args,
				part_delta_kind: 'tool_call',
				tool_call_id: call.id,
				tool_name_delta: null,
			},
			event_kind: 'part_delta',
			index,
			metadata: metadata(zmid),
		})
	);
}

/** A tool's return part, as pydantic-ai writes it. */
const returnPart = (call: ToolCall, content: unknown, outcome: string) => ({
	content,
	metadata: null,
	outcome,
	part_kind: 'tool-return',
	timestamp: '2026-09-20T10:00:00Z',
	tool_call_id: call.id,
	tool_name: call.name,
});

/**
 * A function tool's round after response `zmid`: `FunctionToolCallEvent`, then
 * `FunctionToolResultEvent` with the return part under `field`: `result` as the captures show
 * (pydantic-ai before 1.93), `part` from pydantic-ai 1.93 and in 2.x.
 */
export function toolRound(
	call: ToolCall,
	content: unknown,
	zmid: string,
	{ field = 'result', outcome = 'success' }: { field?: 'result' | 'part'; outcome?: string } = {},
): string {
	return (
		sse('FunctionToolCallEvent', {
			args_valid: true,
			event_kind: 'function_tool_call',
			part: callPart(call),
			metadata: metadata(zmid),
		}) +
		sse('FunctionToolResultEvent', {
			content: null,
			event_kind: 'function_tool_result',
			[field]: returnPart(call, content, outcome),
			metadata: metadata(zmid),
		}) +
		runtimeChunk('persisted', { data: { message_id: `${zmid}-r` }, message_id: `${zmid}-r` })
	);
}

/**
 * pydantic-ai's output tool run after response `zmid` (from 1.93): `OutputToolCallEvent` with the
 * call whole, `OutputToolResultEvent` with its return ("Final result processed.").
 */
export function outputToolRound(call: ToolCall, zmid: string): string {
	return (
		sse('OutputToolCallEvent', {
			args_valid: true,
			event_kind: 'output_tool_call',
			part: callPart(call),
			metadata: metadata(zmid),
		}) +
		sse('OutputToolResultEvent', {
			event_kind: 'output_tool_result',
			part: returnPart(call, 'Final result processed.', 'success'),
			metadata: metadata(zmid),
		})
	);
}
