/**
 * Property check of the SSE decoding: a recorded-style stream, re-framed at random (split at
 * any byte, `\n` or `\r\n` per line, comments, unknown events, multi-line data, thinking parts),
 * must always assemble to the same answer.
 */
import { createAssistantStreamDecoder, StreamAnswerAssembler } from '../../nodes/Assistant/sse';

/** Small, fast, seedable PRNG (mulberry32): a failing case is replayed from its seed. */
export function prng(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS = [
	'Hello',
	'café',
	'naïve',
	'😀',
	'中文',
	'line\nbreak',
	'tab\there',
	'"quoted"',
	'emoji 👩‍💻',
	'data:',
	'event: End',
	'\\',
	' ',
	'ok',
];

interface FramedCase {
	bytes: Buffer;
	expected: string;
	chunkSizes: number[];
}

export function makeCase(seed: number): FramedCase {
	const random = prng(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
	const lineEnd = () => (random() < 0.5 ? '\n' : '\r\n');
	const events: string[] = [];
	const expectedPieces: string[] = [];
	const textEvents = 1 + Math.floor(random() * 12);

	const event = (name: string | undefined, data: string) => {
		const lines: string[] = [];
		if (name) lines.push(`event: ${name}`);
		// Split the data over several `data:` lines now and then: SSE joins them with \n,
		// which JSON reads as whitespace only when cut between tokens; cut at a comma or colon.
		const cut = data.indexOf('":');
		if (random() < 0.2 && cut > 0) {
			lines.push(`data: ${data.slice(0, cut + 2)}`, `data: ${data.slice(cut + 2)}`);
		} else {
			lines.push(random() < 0.1 ? `data:${data}` : `data: ${data}`);
		}
		events.push(lines.map((line) => line + lineEnd()).join('') + lineEnd());
	};
	const noise = () => {
		const roll = random();
		if (roll < 0.15)
			events.push(`: keep-alive ${Math.floor(random() * 1000)}${lineEnd()}${lineEnd()}`);
		else if (roll < 0.3)
			event(
				pick(['PartStartEvent', 'PartDeltaEvent', 'PartEndEvent', 'Usage']),
				JSON.stringify({ delta: pick(WORDS) }),
			);
		else if (roll < 0.35) events.push(`retry: 1000${lineEnd()}${lineEnd()}`);
	};

	for (let index = 0; index < textEvents; index++) {
		noise();
		const text = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(WORDS)).join(' ');
		expectedPieces.push(text);
		const shape = random();
		if (shape < 0.5) event('FrontendModelResponse', JSON.stringify({ content: text }));
		else if (shape < 0.8) {
			event(
				'FrontendModelResponse',
				JSON.stringify({
					parts: [
						{ part_kind: 'thinking', content: `thinking ${pick(WORDS)}` },
						{ part_kind: 'text', content: text },
					],
				}),
			);
		} else
			event(
				'FrontendModelResponse',
				JSON.stringify({ parts: [{ part_kind: 'text', content: text }] }),
			);
	}
	noise();
	const end = random();
	event(
		'End',
		end < 0.4
			? '{}'
			: end < 0.7
				? JSON.stringify({ conversation_id: 'conv_fuzz' })
				: JSON.stringify({ conversation_id: 'conv_fuzz', output: expectedPieces.join('') }),
	);
	// Whatever follows End must not change the answer.
	if (random() < 0.3) event('FrontendModelResponse', JSON.stringify({ content: 'AFTER END' }));

	const bytes = Buffer.from(events.join(''), 'utf8');
	const chunkSizes: number[] = [];
	for (let left = bytes.length; left > 0;) {
		const size = Math.min(
			left,
			random() < 0.3 ? 1 + Math.floor(random() * 3) : 1 + Math.floor(random() * 64),
		);
		chunkSizes.push(size);
		left -= size;
	}
	return { bytes, expected: expectedPieces.join(''), chunkSizes };
}

/** The answer the decoder and assembler produce for a case's bytes, chunked as the case says. */
export function assemble(framed: FramedCase): string {
	const assembler = new StreamAnswerAssembler(false);
	const decoder = createAssistantStreamDecoder((event) => assembler.accept(event));
	let offset = 0;
	for (const size of framed.chunkSizes) {
		decoder.push(framed.bytes.subarray(offset, offset + size));
		offset += size;
	}
	decoder.finish();
	if (!assembler.complete) throw new Error('stream not complete');
	return assembler.result().output as string;
}

/** Runs `count` cases from `firstSeed`; returns the seeds that failed. */
export function runFuzz(count: number, firstSeed = 1): number[] {
	const failed: number[] = [];
	for (let seed = firstSeed; seed < firstSeed + count; seed++) {
		const framed = makeCase(seed);
		let actual: string | undefined;
		try {
			actual = assemble(framed);
		} catch {
			actual = undefined;
		}
		if (actual !== framed.expected) failed.push(seed);
	}
	return failed;
}
