/**
 * Row 1: per-item overhead. Ask over N items in the real n8n-core engine against the emulator
 * answering at once (in a worker thread, like a remote service: writing the service's stream is
 * the server's work, not the node's, and must not queue on the node's thread), judged against the
 * least an n8n node can do to send the same ask with the same HTTP helper: a minimal n8n node
 * (bench/lib/bareNode.ts) that POSTs the same body in streamed form, as the node sends every ask
 * (docs/api.md#exactly-once), with n8n's authenticated helper (httpRequestWithAuthentication, which
 * the node uses: n8n applies the credential to every request), and returns the event stream's
 * text as it is, in the same engine, one item after another as the node does. What is left is
 * what the node does with the stream and the rest of its code.
 *
 * For information, two more sides: the minimal node asking for a JSON answer instead (the
 * baseline before every ask was streamed: the difference to the streamed one is the service's
 * stream, its size and its pieces, not the node), and a plain loop of fetch calls sending the
 * JSON asks (same bodies, same headers, same bearer token) to the same emulator: what n8n itself
 * costs per item. Two Input variants: an expression (`{{ $json.q }}`, the usual case; n8n
 * evaluates it per item) and a fixed text.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	assistantNode,
	assistantPackage,
	emulatorCredential,
	runWithItems,
} from '../../test/helpers/assistant';
import { chain, itemsNode, manualTrigger, runWorkflow } from '../../test/helpers/engine';
import { BARE_NODE_TYPE, withBareNode } from '../lib/bareNode';
import { startWorkerEmulator } from '../lib/workerEmulator';
import type { Row } from '../lib/report';
import {
	fmtMs,
	fmtRatio,
	fmtSpreadMs,
	mainThreadCpuMs,
	meanDifference,
	spread,
	timed,
	type MeanDifference,
	type Spread,
} from '../lib/stats';

const TOKEN = 'bench-token-0123456789abcdef';
/** Over the minimal n8n node sending the same ask with the same helper. */
const TARGET_RATIO = 1.1;

export interface OverheadOptions {
	items: number;
	runs: number;
	/** The paired measurement (for information): this many rounds of the same items a side. */
	pairedRounds: number;
}

interface Variant {
	key: string;
	label: string;
	/** The Input parameter of both n8n nodes. */
	input: string;
	/** What the fetch loop sends for item i. */
	body(i: number): string;
}

const VARIANTS: Variant[] = [
	{
		key: '1',
		label: 'Input `{{ $json.q }}`',
		input: '={{ $json.q }}',
		body: (i) => `Benchmark question number ${i}`,
	},
	{
		key: '1b',
		label: 'fixed Input',
		input: 'Benchmark question',
		body: () => 'Benchmark question',
	},
];

const us = (ms: number, items: number) => `${((ms / items) * 1000).toFixed(0)} µs`;

export async function overheadRows({ items, runs, pairedRounds }: OverheadOptions): Promise<Row[]> {
	const emulator = await startWorkerEmulator({ token: TOKEN, answerDelayMs: 0 });
	const rows: Row[] = [];
	try {
		const pkg = await assistantPackage();
		const barePkg = withBareNode(pkg);
		const credential = emulatorCredential(emulator.baseUrl, TOKEN);
		const url = `${emulator.baseUrl}/assistant/ask`;
		const inputs: IDataObject[] = Array.from({ length: items }, (_, i) => ({
			q: `Benchmark question number ${i}`,
		}));

		for (const variant of VARIANTS) {
			const expected = (i: number) => `You said: "${variant.body(i)}"`;
			const checkLast = (side: string, last: unknown) => {
				if (typeof last !== 'string' || !last.includes(expected(items - 1))) {
					throw new Error(`${side}: unexpected answer ${JSON.stringify(last)}`);
				}
			};
			// The questions sent: the node asks in streamed form (docs/api.md#exactly-once), the
			// minimal node and the fetch loop as plain JSON, so `stream` is left out of the check.
			// Read after a run only when checked (the warm-up), never inside a timed run.
			const bodies = async () =>
				JSON.stringify(
					(await emulator.stats()).requests.map((r) => ({
						...(r.body as object),
						stream: undefined,
					})),
				);

			const node = assistantNode(pkg, 'Ask', { operation: 'ask', input: variant.input });
			const runNode = async () => {
				await emulator.reset();
				const outputs = (await runWithItems(inputs, [node], { credentials: [credential] })).outputs(
					'Ask',
				);
				if (outputs.length !== items)
					throw new Error(`node: ${outputs.length} outputs for ${items} items`);
				checkLast('node', outputs[items - 1].json.output);
			};

			/** The pieces the body came in, per ask, as the minimal node took it as a stream (its first run). */
			let piecesPerAsk: number | undefined;
			const bareRun = (streamed: boolean, bodyAsStream = false) => {
				const bare = {
					...assistantNode(pkg, 'Bare', { input: variant.input, url, streamed, bodyAsStream }),
					type: BARE_NODE_TYPE,
				};
				return async () => {
					await emulator.reset();
					const workflow = chain(manualTrigger(), itemsNode(inputs), bare);
					const outputs = (
						await runWorkflow(barePkg, workflow, { credentials: [credential] })
					).outputs('Bare');
					if (outputs.length !== items)
						throw new Error(`bare node: ${outputs.length} outputs for ${items} items`);
					const last = outputs[items - 1].json.output;
					if (!streamed) checkLast('bare node (JSON)', last);
					// The stream's text as it came: the question (the request's echo) and its end.
					else if (
						typeof last !== 'string' ||
						!last.includes(variant.body(items - 1)) ||
						!/^event: completed$/m.test(last)
					) {
						throw new Error(`bare node (streamed): unexpected stream ${JSON.stringify(last)}`);
					}
					if (bodyAsStream && piecesPerAsk === undefined) {
						const pieces = outputs.reduce((sum, output) => sum + Number(output.json.pieces), 0);
						piecesPerAsk = pieces / items;
					}
				};
			};
			const runBare = bareRun(true);
			const runBareJson = bareRun(false);
			const runBareBodyStream = bareRun(true, true);

			const runFetch = async () => {
				await emulator.reset();
				let last: unknown;
				for (let i = 0; i < items; i++) {
					const response = await fetch(url, {
						method: 'POST',
						headers: {
							Accept: 'application/json',
							'Content-Type': 'application/json',
							Authorization: `Bearer ${TOKEN}`,
						},
						body: JSON.stringify({ input: variant.body(i) }),
					});
					if (response.status !== 200) throw new Error(`fetch: HTTP ${response.status}`);
					last = ((await response.json()) as { output: unknown }).output;
				}
				checkLast('fetch', last);
			};

			// Warm-up (JIT, the package load), and a check that all sides send the same requests.
			const sides = [runNode, runBare, runBareJson, runFetch, runBareBodyStream];
			const sent: string[] = [];
			for (const side of sides) {
				await side();
				sent.push(await bodies());
			}
			if (sent.some((bodies) => bodies !== sent[sent.length - 1])) {
				throw new Error(
					'The node, the bare nodes and the fetch loop did not send the same request bodies',
				);
			}
			const times: number[][] = sides.map(() => []);
			const cpu: number[][] = sides.map(() => []);
			for (let i = 0; i < runs; i++) {
				// Rotate the order so drift (load, GC, thermal) does not favour one side.
				for (let k = 0; k < sides.length; k++) {
					const side = (i + k) % sides.length;
					const cpuBefore = process.cpuUsage();
					times[side].push((await timed(sides[side])).ms);
					const used = process.cpuUsage(cpuBefore);
					cpu[side].push((used.user + used.system) / 1000);
				}
			}
			const [nodeS, bareS, jsonS, fetchS, bodyStreamS] = times.map(spread) as [
				Spread,
				Spread,
				Spread,
				Spread,
				Spread,
			];
			const cpuPerItem = cpu.map((values) => us(spread(values).median, items));
			const roundRatios = times[0].map((ms, round) => ms / times[1][round]);
			const paired = await measurePaired(runNode, runBare, pairedRounds, items);
			const row = overheadRow(variant, items, runs, nodeS, bareS, jsonS, fetchS);
			row.details.push(
				bodyStreamDetail(nodeS, bareS, bodyStreamS, items, piecesPerAsk),
				`Process CPU time per item (user + system, all threads; less sensitive to other load on the machine than wall time): node ${cpuPerItem[0]}, minimal (streamed) ${cpuPerItem[1]}, minimal (JSON) ${cpuPerItem[2]}, fetch ${cpuPerItem[3]}, minimal (body as a stream) ${cpuPerItem[4]}. The emulator runs in this process, so its CPU time is in every figure.`,
				`Node / minimal node per round (both measured back to back): ${roundRatios.map((r) => r.toFixed(2)).join(', ')}; median ${fmtRatio(spread(roundRatios).median)}.`,
				pairedDetail(paired, pairedRounds, items),
			);
			rows.push(row);
		}
	} finally {
		await emulator.close();
	}
	return rows;
}

/**
 * For information: what taking the body as a stream costs in n8n's helper by itself. The node
 * must take it so (to read it within a bound as it arrives, and to know the conversation before
 * the answer is whole: docs/api.md#exactly-once); the minimal node above takes it as text.
 */
function bodyStreamDetail(
	node: Spread,
	bare: Spread,
	bodyStream: Spread,
	items: number,
	piecesPerAsk: number | undefined,
): string {
	const signed = (ms: number) => `${ms >= 0 ? '+' : '−'}${us(Math.abs(ms), items)}`;
	// The emulator writes the stream an event at a time; what arrives depends on the sockets.
	const pieces =
		piecesPerAsk === undefined
			? ''
			: `; here the body came in ${piecesPerAsk.toFixed(1)} pieces per ask`;
	return `For information: the minimal node taking the body as a stream (\`encoding: 'stream'\`, as the node takes it, its pieces joined by 'data' events, nothing decoded): ${fmtSpreadMs(bodyStream)}, ${signed(bodyStream.median - bare.median)} per item against the body as text (n8n's helper hands a streamed body on through an async generator, a few promises per piece${pieces}); the node over it: ${fmtRatio(node.median / bodyStream.median)}, ${signed(node.median - bodyStream.median)} per item.`;
}

interface PairedRounds {
	wall: MeanDifference;
	cpu?: MeanDifference;
	/** The minimal node's mean wall time per item over the rounds, in µs. */
	bareWall: number;
}

/**
 * The node against the minimal node over the same items, alternated run by run (which goes first
 * alternates too), so that the machine's drift, which moves single runs by a fifth, falls on both
 * sides alike: per item, the mean of the rounds' differences and its standard error, for the wall
 * time and for the main thread's CPU time.
 */
async function measurePaired(
	node: () => Promise<void>,
	bare: () => Promise<void>,
	rounds: number,
	items: number,
): Promise<PairedRounds> {
	const sides = [node, bare];
	const wall: number[][] = [[], []];
	const cpu: number[][] = [[], []];
	for (let round = 0; round < rounds; round++) {
		for (let k = 0; k < 2; k++) {
			const side = (round + k) % 2;
			const cpuBefore = mainThreadCpuMs();
			const { ms } = await timed(sides[side]);
			const cpuAfter = mainThreadCpuMs();
			wall[side].push((ms * 1000) / items);
			if (cpuBefore !== undefined && cpuAfter !== undefined) {
				cpu[side].push(((cpuAfter - cpuBefore) * 1000) / items);
			}
		}
	}
	return {
		wall: meanDifference(wall[0], wall[1]),
		cpu: cpu[0].length === rounds ? meanDifference(cpu[0], cpu[1]) : undefined,
		bareWall: wall[1].reduce((sum, value) => sum + value, 0) / rounds,
	};
}

function pairedDetail(paired: PairedRounds, rounds: number, items: number): string {
	const perItem = ({ mean, standardError }: MeanDifference) =>
		`${mean >= 0 ? '+' : '−'}${Math.abs(mean).toFixed(0)} ± ${standardError.toFixed(0)} µs`;
	const ratio = 1 + paired.wall.mean / paired.bareWall;
	const cpu = paired.cpu ? `, main-thread CPU time ${perItem(paired.cpu)}` : '';
	return `Paired rounds, for information (the verdict is the runs' above): ${rounds} rounds of ${items} items, the node and the minimal node (streamed) alternated round by round; per item over the minimal node, mean ± standard error: wall time ${perItem(paired.wall)}${cpu}. The node's mean time per item over the minimal node's: ${fmtRatio(ratio)} (± ${((2 * paired.wall.standardError) / paired.bareWall).toFixed(2)} for two standard errors).`;
}

function overheadRow(
	variant: Variant,
	items: number,
	runs: number,
	node: Spread,
	bare: Spread,
	bareJson: Spread,
	base: Spread,
): Row {
	const ratio = node.median / bare.median;
	const added = node.median - bare.median;
	const verdict = ratio <= TARGET_RATIO ? 'met' : 'missed';
	const streamCost = bare.median - bareJson.median;
	return {
		name: `${variant.key}. Per-item overhead`,
		measure: `Ask ×${items}, ${variant.label}, engine vs the minimal n8n node sending the same ask`,
		figure: `${fmtSpreadMs(node)}; +${us(added, items)}/item`,
		baseline: `${fmtSpreadMs(bare)}; asking for JSON ${fmtMs(bareJson.median)} (node ${fmtRatio(node.median / bareJson.median)})`,
		ratio: fmtRatio(ratio),
		target: `≤ ${TARGET_RATIO}×`,
		verdict,
		why:
			verdict === 'missed'
				? `${fmtRatio(ratio)} the minimal n8n node's time for the same ask with the same helper, ${us(added, items)} more per item added by the node's code; see "Targets missed"`
				: undefined,
		details: [
			`Node: one Ask node (${variant.label}, text answer, Stream off: streamed on the wire, as every ask) over ${items} items in n8n-core's WorkflowExecute (Manual Trigger → test.items → Ask), emulator answering at once (answerDelayMs 0); wall time of the whole workflow run, ${runs} runs, the order of the sides rotated each run.`,
			`Baseline: the minimal n8n node (bench/lib/bareNode.ts: reads Input, POSTs the same body in streamed form with \`helpers.httpRequestWithAuthentication\` as the node does, returns the event stream's text as it came, nothing decoded) in the same engine over the same items: ${fmtSpreadMs(bare)}. The bodies the emulator received were checked identical for all sides before timing, but for \`stream\`.`,
			`For information: the minimal node asking for a JSON answer (\`stream\` left out; the baseline before every ask went in streamed form): ${fmtSpreadMs(bareJson)}; the streamed ask costs it ${us(streamCost, items)} more per item (the service's stream: ${fmtRatio(bare.median / bareJson.median)}), the node is ${fmtRatio(node.median / bareJson.median)} its time. A sequential loop of \`fetch\` (Node's built-in undici) POSTing the JSON asks with the same headers: ${fmtSpreadMs(base)}; minimal node (JSON) / fetch loop ${fmtRatio(bareJson.median / base.median)}.`,
			`Per item: fetch ${us(base.median, items)}, minimal n8n node ${us(bareJson.median, items)} (JSON) / ${us(bare.median, items)} (streamed), Assistant node ${us(node.median, items)}. Added by n8n's path (minimal node, JSON − fetch) ${us(bareJson.median - base.median, items)}, by the stream (minimal node, streamed − JSON) ${us(streamCost, items)}, by the node's code (node − minimal node, streamed) ${us(added, items)}.`,
			`Per run: node ${node.values.map(fmtMs).join(', ')}; minimal (streamed) ${bare.values.map(fmtMs).join(', ')}; minimal (JSON) ${bareJson.values.map(fmtMs).join(', ')}; fetch ${base.values.map(fmtMs).join(', ')}.`,
		],
	};
}
