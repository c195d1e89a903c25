/**
 * Row 3: streaming. One 20 MB answer in 200,000 FrontendModelResponse events.
 *
 * 3a/3b (module, side by side): the node's stream modules (nodes/shared/stream/:
 *   readSseBody + StreamAnswer, the path Ask uses) versus eventsource-parser
 *   alone, over the same bytes, in the same process: time and peak memory growth.
 * 3c (engine, end to end): the node in n8n-core's engine with Options > Stream, against a tiny
 *   server writing those exact bytes in network-sized pieces, versus a bare fetch +
 *   eventsource-parser reading the same server: time and peak memory growth.
 * 3d (engine, n8n streaming on): for every chunk, the time from its bytes' arrival in this
 *   process to the node's sendChunk for it; p99.
 */
import { createParser } from 'eventsource-parser';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import { StreamAnswer } from '../../nodes/shared/stream/answer';
import { createSseDecoder } from '../../nodes/shared/stream/decode';
import { STREAM_EVENT_NAMES } from '../../nodes/shared/stream/events';
import { readSseBody } from '../../nodes/shared/stream/sseBody';
import { withProbes, type Arrival } from '../lib/probes';
import type { Row } from '../lib/report';
import {
	SEQ_WIDTH,
	buildStream,
	startSseServer,
	type BuiltStream,
	type WriteRecord,
} from '../lib/sseServer';
import {
	PeakMemory,
	collectGarbage,
	fmtMb,
	fmtMs,
	fmtRatio,
	fmtSpreadMb,
	fmtSpreadMs,
	percentile,
	spread,
	timed,
} from '../lib/stats';

const TIME_TARGET = 1.5;
/** Row 3e: the same stream with a tool call every few hundred events, steps on against off. */
const STEPS_TARGET = 1.2;
/** Twice the events to read: a little over twice the time of one source. */
const SOURCES_TARGET = 2.5;
const TOOL_EVERY = 300;
const MEMORY_TARGET = 3;
const LATENCY_TARGET_MS = 5;

export interface StreamingOptions {
	events: number;
	answerChars: number;
	/** Size of the pieces the server writes and the module runs are fed. */
	pieceBytes: number;
	runs: number;
	latencyRuns: number;
}

interface Sample {
	ms: number;
	peak: number;
}

function pieces(bytes: Buffer, size: number): Uint8Array[] {
	const out: Uint8Array[] = [];
	for (let i = 0; i < bytes.length; i += size)
		out.push(bytes.subarray(i, Math.min(bytes.length, i + size)));
	return out;
}

function check(label: string, got: unknown, expected: string): void {
	if (got !== expected) {
		const length = typeof got === 'string' ? got.length : typeof got;
		throw new Error(`${label}: wrong answer (length ${length}, expected ${expected.length})`);
	}
}

/** eventsource-parser alone: decode, parse, keep each event's data, join once at the end. */
function parserAlone(input: Uint8Array[], memory: PeakMemory): string {
	const decoder = new TextDecoder('utf-8');
	const data: string[] = [];
	const parser = createParser({ onEvent: (message) => data.push(message.data) });
	for (const piece of input) {
		parser.feed(decoder.decode(piece, { stream: true }));
		memory.sample();
	}
	parser.feed(decoder.decode());
	return data.join('');
}

/** The least any client must do: parser + JSON.parse of each event + join of the contents. */
function parserWithJson(input: Uint8Array[], memory: PeakMemory): string {
	const decoder = new TextDecoder('utf-8');
	const contents: string[] = [];
	const parser = createParser({
		onEvent: (message) => {
			if (message.event === 'FrontendModelResponse')
				contents.push((JSON.parse(message.data) as { content: string }).content);
		},
	});
	for (const piece of input) {
		parser.feed(decoder.decode(piece, { stream: true }));
		memory.sample();
	}
	parser.feed(decoder.decode());
	return contents.join('');
}

export const MODULE_PATH = 'readSseBody';

/**
 * The node's module, as Ask uses it: the body read as it arrives into the stream's answer; with
 * `steps`, as Ask with Include Steps (`onSteps` gets how many were collected).
 */
async function nodeModule(
	input: Uint8Array[],
	memory: PeakMemory,
	steps?: (count: number) => void,
): Promise<string> {
	async function* body() {
		for (const piece of input) {
			yield piece;
			memory.sample();
		}
	}
	const answer = new StreamAnswer({
		structured: false,
		steps: steps ? { thinking: false } : undefined,
	});
	// The event names Ask reads by (streamCall.ts): a known name is compared, not decoded.
	await readSseBody(body(), undefined, {
		onMessage: (message) => answer.accept(message),
		failureOf: (error) => error,
		names: STREAM_EVENT_NAMES,
	});
	const result = answer.result();
	steps?.(result.steps?.length ?? 0);
	return result.output as string;
}

/** The node's decoder without the async generator (for the details only). */
function nodeDecoderSync(input: Uint8Array[], memory: PeakMemory): string {
	const answer = new StreamAnswer({ structured: false });
	const decoder = createSseDecoder(
		(message) => answer.accept(message),
		undefined,
		STREAM_EVENT_NAMES,
	);
	for (const piece of input) {
		decoder.push(piece);
		memory.sample();
	}
	decoder.finish();
	return answer.result().output as string;
}

type Variant = [string, (memory: PeakMemory) => Promise<string> | string];

/**
 * Each variant once to warm up, then `runs` rounds, the order reversed every other round; each
 * result checked against what `expectedFor` its name gives (nothing to check: undefined).
 */
async function sideBySide(
	variants: Variant[],
	expectedFor: (name: string) => string | undefined,
	runs: number,
): Promise<Map<string, Sample[]>> {
	const samples = new Map<string, Sample[]>(variants.map(([name]) => [name, []]));
	for (const [name, run] of variants) await measure(run, expectedFor(name), name);
	for (let i = 0; i < runs; i++) {
		const order = i % 2 === 0 ? variants : [...variants].reverse();
		for (const [name, run] of order)
			samples.get(name)?.push(await measure(run, expectedFor(name), name));
	}
	return samples;
}

async function measure(
	run: (memory: PeakMemory) => Promise<string> | string,
	expected: string | undefined,
	label: string,
): Promise<Sample> {
	const memory = new PeakMemory(); // full GC first, then the baseline
	let result: { ms: number; value: string };
	try {
		result = await timed(async () => await run(memory));
	} catch (error) {
		memory.stop();
		throw error;
	}
	const peak = memory.stop(); // sampled once more while the answer is still held
	if (expected !== undefined) check(label, result.value, expected);
	return { ms: result.ms, peak };
}

export async function streamingRows(options: StreamingOptions): Promise<Row[]> {
	const stream = buildStream(options.events, options.answerChars);
	const input = pieces(stream.bytes, options.pieceBytes);
	const answerBytes = stream.answer.length; // ASCII
	const memoryLimit = MEMORY_TARGET * answerBytes;
	const streamMb = fmtMb(stream.bytes.length);
	const streamDesc = `${options.events.toLocaleString('en')} FrontendModelResponse events + End, ${streamMb} of SSE, answer ${fmtMb(answerBytes)} (ASCII), in ${input.length} pieces of ${options.pieceBytes / 1024} KiB`;

	// ---- 3a/3b: module side by side
	const variants: Variant[] = [
		['node module', (m) => nodeModule(input, m)],
		['parser alone', (m) => parserAlone(input, m)],
		['parser + JSON.parse', (m) => parserWithJson(input, m)],
		['node decoder (sync)', (m) => nodeDecoderSync(input, m)],
	];
	// eventsource-parser alone keeps the events' raw data, not the answer: nothing to compare.
	const expectedFor = (name: string) => (name === 'parser alone' ? undefined : stream.answer);
	const samples = await sideBySide(variants, expectedFor, options.runs);
	const time = (name: string) => spread((samples.get(name) ?? []).map((s) => s.ms));
	const peak = (name: string) => spread((samples.get(name) ?? []).map((s) => s.peak));
	const moduleTime = time('node module');
	const parserTime = time('parser alone');
	const moduleRatio = moduleTime.median / parserTime.median;
	const modulePeak = peak('node module');
	const parserPeak = peak('parser alone');

	// ---- 3e: steps on against off, the same stream with a tool call every TOOL_EVERY events
	const toolStream = buildStream(options.events, options.answerChars, TOOL_EVERY);
	const toolInput = pieces(toolStream.bytes, options.pieceBytes);
	let stepsSeen = -1;
	const stepVariants: Variant[] = [
		['steps off', (m) => nodeModule(toolInput, m)],
		['steps on', (m) => nodeModule(toolInput, m, (count) => (stepsSeen = count))],
	];
	const stepSamples = await sideBySide(stepVariants, () => toolStream.answer, options.runs);
	// Each tool call is a call step and a result step, each exactly once.
	if (stepsSeen !== 2 * toolStream.toolCalls) {
		throw new Error(`steps: ${stepsSeen} collected, ${2 * toolStream.toolCalls} expected`);
	}
	const stepsTime = (name: string) => spread((stepSamples.get(name) ?? []).map((s) => s.ms));
	const stepsOn = stepsTime('steps on');
	const stepsOff = stepsTime('steps off');
	const stepsRatio = stepsOn.median / stepsOff.median;

	// ---- 3f: the same answer told by two sources, Part deltas and content deltas
	const twoSourceStream = buildStream(options.events, options.answerChars, 0, true);
	const twoSourceInput = pieces(twoSourceStream.bytes, options.pieceBytes);
	const sourceSamples = await sideBySide(
		[
			['one source', (m) => nodeModule(input, m)],
			['two sources', (m) => nodeModule(twoSourceInput, m)],
		],
		() => stream.answer,
		options.runs,
	);
	const sourcesTime = (name: string) => spread((sourceSamples.get(name) ?? []).map((s) => s.ms));
	const twoSources = sourcesTime('two sources');
	const oneSource = sourcesTime('one source');
	const sourcesRatio = twoSources.median / oneSource.median;

	// ---- 3c/3d: engine, against a server writing the same bytes
	const server = await startSseServer(stream, options.pieceBytes);
	const rows: Row[] = [];
	try {
		const pkg = await assistantPackage();
		const credential = emulatorCredential(server.baseUrl, 'bench-token');
		const node = assistantNode(pkg, 'Ask', {
			operation: 'ask',
			input: 'Stream me 20 MB',
			options: { stream: true },
		});

		const engineRun = async (memory: PeakMemory) => {
			const { value } = await withProbes(
				async () => await runWithItems([{}], [node], { credentials: [credential] }),
				{ onArrival: () => memory.sample() },
			);
			return value.outputs('Ask')[0].json.output as string;
		};
		const fetchRun = async (memory: PeakMemory) => {
			const response = await fetch(`${server.baseUrl}/assistant/ask`, {
				method: 'POST',
				headers: {
					Accept: 'text/event-stream',
					'Content-Type': 'application/json',
					Authorization: 'Bearer bench-token',
				},
				body: JSON.stringify({ input: 'Stream me 20 MB', stream: true }),
			});
			const decoder = new TextDecoder('utf-8');
			const data: string[] = [];
			const parser = createParser({ onEvent: (message) => data.push(message.data) });
			for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
				parser.feed(decoder.decode(piece, { stream: true }));
				memory.sample();
			}
			parser.feed(decoder.decode());
			return data.join('');
		};
		const engine: Sample[] = [];
		const bare: Sample[] = [];
		await measure(engineRun, stream.answer, 'engine');
		await measure(fetchRun, undefined, 'fetch + parser');
		for (let i = 0; i < options.runs; i++) {
			if (i % 2 === 0) {
				engine.push(await measure(engineRun, stream.answer, 'engine'));
				bare.push(await measure(fetchRun, undefined, 'fetch + parser'));
			} else {
				bare.push(await measure(fetchRun, undefined, 'fetch + parser'));
				engine.push(await measure(engineRun, stream.answer, 'engine'));
			}
		}
		const engineTime = spread(engine.map((s) => s.ms));
		const bareTime = spread(bare.map((s) => s.ms));
		const enginePeak = spread(engine.map((s) => s.peak));
		const barePeak = spread(bare.map((s) => s.peak));
		const engineRatio = engineTime.median / bareTime.median;

		// ---- 3d: chunk latency with n8n streaming on
		const latency = await chunkLatency(stream, credential, node, options.latencyRuns);

		const moduleVerdictTime = moduleRatio <= TIME_TARGET ? 'met' : 'missed';
		const memoryOk = modulePeak.median <= memoryLimit && enginePeak.median <= memoryLimit;
		const jsonTime = time('parser + JSON.parse');
		const syncTime = time('node decoder (sync)');
		rows.push({
			name: '3a. Streaming, module',
			measure: `decode + assemble ${fmtMb(answerBytes)} answer`,
			figure: fmtSpreadMs(moduleTime),
			baseline: `${fmtSpreadMs(parserTime)} (eventsource-parser alone)`,
			ratio: fmtRatio(moduleRatio),
			target: `≤ ${TIME_TARGET}×`,
			verdict: moduleVerdictTime,
			why:
				moduleVerdictTime === 'missed'
					? `the node's decoding module takes ${fmtRatio(moduleRatio)} the time of eventsource-parser alone; see "Targets missed"`
					: undefined,
			details: [
				`Stream: ${streamDesc}. Module runs feed the pre-built pieces from memory (no network), ${options.runs} runs each, order alternated, full GC before each.`,
				`Node: nodes/shared/stream/ as Ask uses it, \`${MODULE_PATH}\` (the pieces read as they come) into \`StreamAnswer\`, then \`result()\`; answer checked equal to the expected 20 MB string.`,
				`Baseline: eventsource-parser@3 alone (\`createParser({onEvent})\` fed by a streaming TextDecoder), keeping each event's \`data\` and joining once at the end.`,
				`Reference (not the target's baseline): parser + \`JSON.parse\` of each event + join of the contents, the least a client must do: ${fmtSpreadMs(jsonTime)}; the node takes ${fmtRatio(moduleTime.median / jsonTime.median)} of that. The node's decoder fed synchronously (no async generator): ${fmtSpreadMs(syncTime)}.`,
				`Per run (ms): node ${(samples.get('node module') ?? []).map((s) => s.ms.toFixed(0)).join(', ')}; parser alone ${(samples.get('parser alone') ?? []).map((s) => s.ms.toFixed(0)).join(', ')}.`,
			],
		});
		rows.push({
			name: '3b. Streaming, memory',
			measure: `peak growth, module / engine`,
			figure: `${fmtSpreadMb(modulePeak)} / ${fmtSpreadMb(enginePeak)}`,
			baseline: `${fmtSpreadMb(parserPeak)} / ${fmtSpreadMb(barePeak)} (parser alone / fetch + parser)`,
			ratio: `${(modulePeak.median / answerBytes).toFixed(2)}× / ${(enginePeak.median / answerBytes).toFixed(2)}× answer`,
			target: `≤ ${MEMORY_TARGET}× answer (${fmtMb(memoryLimit)})`,
			verdict: memoryOk ? 'met' : 'missed',
			why: memoryOk
				? undefined
				: `peak growth ${fmtMb(Math.max(modulePeak.median, enginePeak.median))} is over ${MEMORY_TARGET}× the ${fmtMb(answerBytes)} answer; see "Targets missed"`,
			details: [
				`Peak of heapUsed + external (process.memoryUsage()) above a baseline taken after a full GC (--expose-gc), sampled every 1 ms and at every piece of the stream; garbage not yet collected counts (it is memory the process holds). The pre-built stream bytes exist before the baseline and are not counted.`,
				`Module: the same runs as 3a. Engine: the same runs as 3c (the whole workflow run: n8n-core, the HTTP client, the node; the server's memory is the pre-built buffer).`,
				`Reference: parser + JSON.parse ${fmtSpreadMb(peak('parser + JSON.parse'))}; node decoder (sync) ${fmtSpreadMb(peak('node decoder (sync)'))}.`,
			],
		});
		const engineVerdict = engineRatio <= TIME_TARGET ? 'met' : 'missed';
		rows.push({
			name: '3c. Streaming, engine',
			measure: `Ask with Stream, ${streamMb} SSE over HTTP`,
			figure: fmtSpreadMs(engineTime),
			baseline: `${fmtSpreadMs(bareTime)} (fetch + parser alone)`,
			ratio: fmtRatio(engineRatio),
			target: `≤ ${TIME_TARGET}×`,
			verdict: engineVerdict,
			why:
				engineVerdict === 'missed'
					? `end to end, the node in the engine takes ${fmtRatio(engineRatio)} the time of fetch + eventsource-parser over the same server; see "Targets missed"`
					: undefined,
			details: [
				`Node: one Ask item with Options > Stream in n8n-core's WorkflowExecute (n8n streaming off), against a tiny HTTP server in the bench that writes the pre-built bytes in ${options.pieceBytes / 1024} KiB pieces with backpressure; the output checked equal to the expected answer. The node's whole path is measured: n8n's HTTP client, transport, decoder, assembler, the engine.`,
				`Baseline: \`fetch\` to the same server, the body read with \`for await\`, fed to eventsource-parser alone (as in 3a). Same process, same server, ${options.runs} runs each, alternated.`,
				`Per run (ms): node ${engine.map((s) => s.ms.toFixed(0)).join(', ')}; fetch + parser ${bare.map((s) => s.ms.toFixed(0)).join(', ')}.`,
			],
		});
		const latencyVerdict = latency.p99.median < LATENCY_TARGET_MS ? 'met' : 'missed';
		rows.push({
			name: '3d. Streaming, chunk latency',
			measure: `arrival → sendChunk, n8n streaming on`,
			figure: `p99 ${fmtSpreadMs(latency.p99)}`,
			baseline: `p99 ${fmtSpreadMs(latency.bareP99)} (http + parser)`,
			ratio: fmtRatio(latency.p99.median / latency.bareP99.median),
			target: `p99 < ${LATENCY_TARGET_MS} ms`,
			verdict: latencyVerdict,
			why:
				latencyVerdict === 'missed'
					? `p99 from a chunk's arrival to its sendChunk is ${fmtMs(latency.p99.median)}; see "Targets missed"`
					: undefined,
			details: [
				`The same Ask and server as 3c, with \`streaming: true\` (n8n's streamingEnabled and a sendChunk hook that, as n8n's own does, writes each chunk as a JSON line to the response, here a stream that discards it, and keeps nothing), ${options.latencyRuns} runs. Every text chunk starts with its sequence number (\`#0000123 \`), so each sendChunk is matched to its event and that event's last byte.`,
				`Arrival: when Node's HTTP parser pushed the piece holding the event's last byte into the response stream (a probe on http.IncomingMessage#push, before n8n's HTTP client or the node see it). sendChunk: when n8n-core ran the sendChunk hook (a probe on ExecutionLifecycleHooks#runHook, called synchronously by the node's sendChunk). Both performance.now() in the same process, loopback.`,
				`Baseline: a bare client in the same process reading the same server: node:http (so the same arrival probe applies) into eventsource-parser, each event JSON-parsed for its sequence number; its "sendChunk" is its onEvent. p50 ${fmtMs(latency.bareP50.median)}; per run p99 (ms) ${latency.bareP99.values.map((v) => v.toFixed(2)).join(', ')}.`,
				`All ${stream.events.toLocaleString('en')} chunks matched in every run: ${latency.allMatched ? 'yes' : 'NO'}. Node: p50 ${fmtMs(latency.p50.median)}, max ${fmtMs(latency.max.median)}. Per run p99 (ms): ${latency.p99.values.map((v) => v.toFixed(2)).join(', ')}; p50: ${latency.p50.values.map((v) => v.toFixed(2)).join(', ')}; max: ${latency.max.values.map((v) => v.toFixed(1)).join(', ')}.`,
				`Whole run with n8n streaming on (ms): ${latency.runMs.map((v) => v.toFixed(0)).join(', ')}. Server write → sendChunk p99 (includes time in socket buffers, for reference): ${latency.writeP99.map((v) => v.toFixed(1)).join(', ')} ms.`,
			],
		});
		const stepsVerdict = stepsRatio <= STEPS_TARGET ? 'met' : 'missed';
		rows.push({
			name: '3e. Streaming, steps',
			measure: `the same with Include Steps, a tool call every ${TOOL_EVERY} events`,
			figure: fmtSpreadMs(stepsOn),
			baseline: `${fmtSpreadMs(stepsOff)} (the same stream, steps off)`,
			ratio: fmtRatio(stepsRatio),
			target: `≤ ${STEPS_TARGET}×`,
			verdict: stepsVerdict,
			why:
				stepsVerdict === 'missed'
					? `collecting the steps takes ${fmtRatio(stepsRatio)} the time of the same stream without them; see "Targets missed"`
					: undefined,
			details: [
				`Stream: 3a's stream with a \`FunctionToolCallEvent\` and its \`FunctionToolResultEvent\` after every ${TOOL_EVERY} text events (${toolStream.toolCalls.toLocaleString('en')} tool calls, ${fmtMb(toolStream.bytes.length)} of SSE), fed from memory as in 3a, ${options.runs} runs each, order alternated, full GC before each.`,
				`Node: the module as in 3a, \`StreamAnswer\` with \`steps\` (Ask's Include Steps) against without; the answer checked equal to the expected string, and ${(2 * toolStream.toolCalls).toLocaleString('en')} steps (each call and each result once) checked.`,
				`Per run (ms): steps on ${(stepSamples.get('steps on') ?? []).map((s) => s.ms.toFixed(0)).join(', ')}; steps off ${(stepSamples.get('steps off') ?? []).map((s) => s.ms.toFixed(0)).join(', ')}.`,
			],
		});
		const sourcesVerdict = sourcesRatio <= SOURCES_TARGET ? 'met' : 'missed';
		rows.push({
			name: '3f. Streaming, two sources',
			measure: "every piece of 3a's answer told twice, as a Part delta and as a content delta",
			figure: fmtSpreadMs(twoSources),
			baseline: `${fmtSpreadMs(oneSource)} (3a's stream, one source)`,
			ratio: fmtRatio(sourcesRatio),
			target: `≤ ${SOURCES_TARGET}×`,
			verdict: sourcesVerdict,
			why:
				sourcesVerdict === 'missed'
					? `the same answer told by two sources takes ${fmtRatio(sourcesRatio)} the time of one; see "Targets missed"`
					: undefined,
			details: [
				`Stream: a \`PartStartEvent\` of one text part, then each of 3a's ${options.events.toLocaleString('en')} pieces as a \`PartDeltaEvent\` followed by its FrontendModelResponse \`content\` (${fmtMb(twoSourceStream.bytes.length)} of SSE), fed from memory in ${twoSourceInput.length} pieces of ${options.pieceBytes / 1024} KiB, ${options.runs} runs each, order alternated, full GC before each.`,
				"Node: the module as in 3a; each piece is taken once from the Part deltas and only compared when its content delta follows (docs/api.md#assembling-the-answer). The answer checked equal to 3a's. Twice the events, so about twice the time is the least to expect; a comparison that copied the text taken so far would grow with the square of the answer.",
				`Per run (ms): two sources ${(sourceSamples.get('two sources') ?? []).map((s) => s.ms.toFixed(0)).join(', ')}; one source ${(sourceSamples.get('one source') ?? []).map((s) => s.ms.toFixed(0)).join(', ')}.`,
			],
		});
	} finally {
		await server.close();
	}
	return rows;
}

interface Latency {
	p50: ReturnType<typeof spread>;
	p99: ReturnType<typeof spread>;
	max: ReturnType<typeof spread>;
	bareP99: ReturnType<typeof spread>;
	bareP50: ReturnType<typeof spread>;
	writeP99: number[];
	runMs: number[];
	allMatched: boolean;
}

/** Per event: the time its sendChunk (or onEvent) came after the arrival of its last byte. */
function delaysOf(
	stream: BuiltStream,
	sentAt: Float64Array,
	arrivals: Arrival[],
	writes: WriteRecord[],
) {
	const delays = new Float64Array(stream.events);
	const writeDelays = new Float64Array(stream.events);
	let a = 0;
	let w = 0;
	let matched = 0;
	for (let seq = 0; seq < stream.events; seq++) {
		if (Number.isNaN(sentAt[seq])) continue;
		const end = stream.eventEnds[seq];
		// Stream order: the arrival and write cursors only move forward.
		while (a < arrivals.length && arrivals[a].end < end) a++;
		while (w < writes.length && writes[w].end < end) w++;
		if (a >= arrivals.length || w >= writes.length) throw new Error(`chunk ${seq}: no arrival`);
		delays[seq] = sentAt[seq] - arrivals[a].at;
		writeDelays[seq] = sentAt[seq] - writes[w].at;
		matched++;
	}
	return { delays, writeDelays, matched };
}

/**
 * The bare client for the latency baseline: node:http (so the same arrival probe applies) and
 * eventsource-parser; each event's content is JSON-parsed for its sequence number, the least a
 * client must do to forward it.
 */
function bareStream(baseUrl: string, sentAt: Float64Array): Promise<void> {
	return new Promise((resolve, reject) => {
		const request = http.request(
			`${baseUrl}/assistant/ask`,
			{ method: 'POST', headers: { 'content-type': 'application/json' } },
			(response) => {
				const decoder = new TextDecoder('utf-8');
				const parser = createParser({
					onEvent: (message) => {
						if (message.event !== 'FrontendModelResponse') return;
						const { content } = JSON.parse(message.data) as { content: string };
						sentAt[Number(content.slice(1, SEQ_WIDTH))] = performance.now();
					},
				});
				response.on('data', (piece: Buffer) =>
					parser.feed(decoder.decode(piece, { stream: true })),
				);
				response.on('end', () => resolve());
				response.on('error', reject);
			},
		);
		request.on('error', reject);
		request.end(JSON.stringify({ input: 'Stream me 20 MB', stream: true }));
	});
}

async function chunkLatency(
	stream: BuiltStream,
	credential: ReturnType<typeof emulatorCredential>,
	node: ReturnType<typeof assistantNode>,
	runs: number,
): Promise<Latency> {
	const server = await startSseServer(stream, 64 * 1024);
	const p50: number[] = [];
	const p99: number[] = [];
	const max: number[] = [];
	const bareP50: number[] = [];
	const bareP99: number[] = [];
	const writeP99: number[] = [];
	const runMs: number[] = [];
	let allMatched = true;
	const credentialHere = { ...credential, data: { ...credential.data, baseUrl: server.baseUrl } };
	try {
		for (let i = 0; i <= runs; i++) {
			// sendChunk times by sequence number, in a preallocated array: the probe must not add garbage.
			const sentAt = new Float64Array(stream.events).fill(Number.NaN);
			let others = 0;
			const onChunk = (type: string, content: string | undefined, at: number) => {
				if (type === 'item' && content !== undefined)
					sentAt[Number(content.slice(1, SEQ_WIDTH))] = at;
				else others++;
			};
			collectGarbage();
			const started = performance.now();
			const { value: run, arrivals } = await withProbes(
				async () =>
					await runWithItems([{}], [node], {
						credentials: [credentialHere],
						streaming: true,
						// As n8n does: each chunk written to the response, then dropped.
						keepChunks: false,
					}),
				{ onChunk },
			);
			const ms = performance.now() - started;
			check('engine (streaming on)', run.outputs('Ask')[0].json.output, stream.answer);
			if (run.chunkCount !== stream.events + others)
				throw new Error(`${run.chunkCount} chunks sent, ${stream.events + others} seen`);
			const { delays, writeDelays, matched } = delaysOf(stream, sentAt, arrivals, server.writes);
			if (matched !== stream.events) allMatched = false;

			const bareAt = new Float64Array(stream.events).fill(Number.NaN);
			collectGarbage();
			const bare = await withProbes(async () => await bareStream(server.baseUrl, bareAt));
			const bareDelays = delaysOf(stream, bareAt, bare.arrivals, server.writes);
			if (bareDelays.matched !== stream.events)
				throw new Error(`bare client: ${bareDelays.matched} events`);
			if (i === 0) continue; // warm-up
			p50.push(percentile(delays, 50));
			p99.push(percentile(delays, 99));
			max.push(percentile(delays, 100));
			bareP50.push(percentile(bareDelays.delays, 50));
			bareP99.push(percentile(bareDelays.delays, 99));
			writeP99.push(percentile(writeDelays, 99));
			runMs.push(ms);
		}
	} finally {
		await server.close();
	}
	return {
		p50: spread(p50),
		p99: spread(p99),
		max: spread(max),
		bareP50: spread(bareP50),
		bareP99: spread(bareP99),
		writeP99,
		runMs,
		allMatched,
	};
}
