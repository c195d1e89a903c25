/**
 * An error body that is an event stream (transport/serverMessage.ts): the words of its error
 * event, read as the stream reader reads the same bytes, and never the data of another event
 * (the request's echo, with the user's files), also cut short.
 */
import { readAnswerFromChunks } from '../../../nodes/shared/stream/answer';
import { StreamAnswerError } from '../../../nodes/shared/stream/answerFailure';
import {
	eventStreamMessage,
	isSessionPoolMessage,
	serverMessage,
} from '../../../nodes/shared/transport/serverMessage';

const sse = (event: string, data: unknown) =>
	`event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** The stream reader's error for the same bytes. */
function streamError(body: string): string | undefined {
	try {
		readAnswerFromChunks([body], { structured: false });
	} catch (error) {
		return error instanceof StreamAnswerError ? error.message : String(error);
	}
	return undefined;
}

describe('an error body that is an event stream, read by the format’s rules (docs/api.md#errors)', () => {
	test('plain text whose first line is "Error: …" keeps its words when a data: line follows', () => {
		// Plain text that only looks like a field on its first line: no echo named, the server's words.
		const body =
			'Error: All assistant sessions are busy for this account\ndata: Input should be a valid dictionary';
		const message = serverMessage(body);
		expect(message).toBe(body);
		expect(isSessionPoolMessage(message)).toBe(true);
	});

	test('an explicit `event: message` (or empty `event:`) with flat error data gives its words, as the stream reader reads it', () => {
		for (const name of ['message', '']) {
			const body = `event:${name ? ` ${name}` : ''}\ndata: {"type": "Error", "message": "All assistant sessions are busy for this account"}\n\n`;
			// The stream reader: the same bytes are the Error event with those words.
			expect(streamError(body)).toContain('All assistant sessions are busy for this account');
			expect(serverMessage(body)).toBe('All assistant sessions are busy for this account');
		}
	});

	test('lines the SSE format does not read as a name (`event :x`, `event\\t:x`, `event` alone) do not make the flat echo an error event', () => {
		const echo =
			'{"type": "FrontendModelRequest", "message": "PRIVATE-FILE", "files": ["PRIVATE-FILE"]}';
		for (const head of ['event :error\n', 'event\t:error\n', 'event: error\nevent\n']) {
			const body = `${head}data: ${echo}\n\n`;
			// The stream reader reads this event as the echo (flat form) and drops it.
			expect(streamError(body)).toMatch(/ended before the answer was complete/);
			expect(serverMessage(body)).not.toContain('PRIVATE-FILE');
		}
	});

	test('an error event cut by the bound (64 KiB; 1000 characters on a 2xx) is not shown as raw JSON', () => {
		const privateText = 'PRIVATE-FILE '.repeat(6000);
		const errorWithInput = sse('error', { message: 'Context too long', input: privateText });
		// An echo of the request (emulator shape) under the name `error`, as a broken proxy may send it:
		// whole, it gives no words; cut, its raw JSON is shown.
		const echo = {
			kind: 'request',
			parts: [
				{ part_kind: 'system-prompt', content: `<workspace_file>${privateText}</workspace_file>` },
			],
			instructions: 'Private context: PRIVATE-FILE',
		};
		const smallEcho = sse('error', { ...echo, parts: [] });
		expect(serverMessage(smallEcho)).not.toContain('PRIVATE-FILE');
		for (const body of [errorWithInput, sse('error', echo)]) {
			expect(serverMessage(body)).not.toContain('PRIVATE-FILE');
			// jsonCall.ts notJsonFailure: eventStreamMessage of the first 1000 characters.
			expect(eventStreamMessage(body.slice(0, 1000))).not.toContain('PRIVATE-FILE');
		}
	});

	test('error data that opens as JSON and does not parse is cut JSON, not words, whether it opens an object, a list or a string; the stream reader reads it so too', () => {
		for (const data of ['{"message": "PRIVATE-FILE', '["PRIVATE-FILE', '"PRIVATE-FILE cut']) {
			const body = sse('error', data);
			expect(eventStreamMessage(body)).not.toContain('PRIVATE-FILE');
			expect(streamError(sse('failed', data))).not.toContain('PRIVATE-FILE');
		}
		// Text that is not JSON is the server's words, in both.
		expect(eventStreamMessage(sse('error', 'Model is disabled'))).toContain('Model is disabled');
		expect(streamError(sse('failed', 'Model is disabled'))).toContain('Model is disabled');
	});
});
