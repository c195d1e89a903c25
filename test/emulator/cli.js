#!/usr/bin/env node
// @ts-check
'use strict';

/**
 * `npm run emulator [-- --port 8787 --dialect 2026 --delay 0 --chunk-delay 0 --quiet]`: runs the
 * Assistant API emulator in the foreground until Ctrl-C. The port can also come from EMULATOR_PORT.
 */

const { startEmulator, DIALECTS } = require('./server');

const USAGE = `Usage: node test/emulator/cli.js [options]
  --port <n>         port to listen on (default: $EMULATOR_PORT or 8787; 0 = any free port)
  --host <addr>      address to bind (default 127.0.0.1)
  --token <value>    bearer token to accept (default: the emulator's fixed fake token)
  --dialect <name>   how streams are shaped: 2026 (default, what the live service sent
                     in 2026), live (the 2025 Part events and End) or documented
                     (the three events of the specification)
  --replay <capture> answer every ask with a capture of test/fixtures/captures/,
                     byte for byte (e.g. 2026-08-09-summarize)
  --delay <ms>       delay before each ask is answered (default 0)
  --chunk-delay <ms> pause between stream chunks (default 0)
  --session-pool <n> the account's sessions: asks beyond n at once are refused as
                     "sessions are busy" (HTTP 503, Retry-After: 1; default: no limit)
  --quiet            do not log requests
  --help             show this text`;

/**
 * @typedef {object} CliOptions
 * @property {number} port
 * @property {string} host
 * @property {string | undefined} token
 * @property {'2026' | 'live' | 'documented'} dialect
 * @property {string | undefined} replay
 * @property {number} delay
 * @property {number} chunkDelay
 * @property {number} sessionPool  0: no limit
 * @property {boolean} quiet
 * @property {boolean} help
 */

/**
 * Accepts `--name value` and `--name=value`.
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {CliOptions}
 */
function parseArgs(argv, env) {
	/** @type {CliOptions} */
	const options = {
		port: toNumber('EMULATOR_PORT', env.EMULATOR_PORT ?? '8787'),
		host: '127.0.0.1',
		token: undefined,
		dialect: '2026',
		replay: undefined,
		delay: 0,
		chunkDelay: 0,
		sessionPool: 0,
		quiet: false,
		help: false,
	};
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split(/=(.*)/s, 2);
		const value = () => inline ?? argv[++i] ?? fail(`${flag} needs a value`);
		if (flag === '--port') options.port = toNumber(flag, value());
		else if (flag === '--host') options.host = value();
		else if (flag === '--token') options.token = value();
		else if (flag === '--dialect') options.dialect = toDialect(value());
		else if (flag === '--replay') options.replay = value();
		else if (flag === '--delay') options.delay = toNumber(flag, value());
		else if (flag === '--chunk-delay') options.chunkDelay = toNumber(flag, value());
		else if (flag === '--session-pool') options.sessionPool = toNumber(flag, value());
		else if (flag === '--quiet') options.quiet = true;
		else if (flag === '--help' || flag === '-h') options.help = true;
		else fail(`unknown option ${argv[i]}`);
	}
	return options;
}

/**
 * @param {string} name
 * @param {string} text
 */
function toNumber(name, text) {
	const n = Number(text);
	if (text.trim() === '' || !Number.isInteger(n) || n < 0)
		fail(`${name} must be a whole number >= 0, got '${text}'`);
	return n;
}

/**
 * @param {string} text
 * @returns {'2026' | 'live' | 'documented'}
 */
function toDialect(text) {
	if (!DIALECTS.includes(text))
		fail(`--dialect must be one of ${DIALECTS.join(', ')}, got '${text}'`);
	return /** @type {'2026' | 'live' | 'documented'} */ (text);
}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
	process.stderr.write(`${message}\n\n${USAGE}\n`);
	process.exit(2);
}

async function main() {
	const options = parseArgs(process.argv.slice(2), process.env);
	if (options.help) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	const emulator = await startEmulator({
		port: options.port,
		host: options.host,
		token: options.token,
		dialect: options.dialect,
		replay: options.replay,
		answerDelayMs: options.delay,
		chunkDelayMs: options.chunkDelay,
		log: !options.quiet,
		sessionPool: options.sessionPool > 0 ? { size: options.sessionPool } : undefined,
	});
	const { baseUrl, token } = emulator;
	process.stdout.write(
		[
			`Assistant API emulator listening on ${baseUrl}`,
			`Token: ${token}`,
			`Streams: the ${options.dialect} dialect (--dialect 2026|live|documented; "#shape=<name>" in an input picks one ask's shape, "#replay=<capture>" answers with a capture)`,
			`Try: curl -s ${baseUrl}/assistant/ask -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '{"input":"Hello, my name is Ada"}'`,
			'Faults: add "#fault=<name>" to an input; stats: GET /__emulator/stats. Ctrl-C stops.',
			'',
		].join('\n'),
	);
	const stop = () => {
		// close() destroys open sockets and should take milliseconds; never hang on Ctrl-C anyway.
		setTimeout(() => process.exit(0), 2000).unref();
		emulator.close().then(() => process.exit(0));
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error) => {
	process.stderr.write(
		`Could not start the emulator: ${error instanceof Error ? error.message : String(error)}\n`,
	);
	process.exit(1);
});
