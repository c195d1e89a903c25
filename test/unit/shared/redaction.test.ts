/**
 * The token taken out of what the node shows (docs/security.md): whole or cut, in any letter
 * case, in escapes however often escaped (up to four layers), in texts, JSON values and
 * everything n8n shows of an error; the rest of a text as it was written.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { redacted, redactionOf } from '../../../nodes/shared/transport/redaction';
import { fakeNode } from '../../helpers/fake-node';

const TOKEN = 'Zo_Sk_Redaction-Token-4f9A2c';
const redaction = redactionOf(TOKEN)!;
const node = fakeNode({ id: '1' });

const code = (c: string) => c.charCodeAt(0);
/** Every character as %XX. */
const percent = (text: string) =>
	[...text].map((c) => `%${code(c).toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** Every character as a decimal, or a hexadecimal, character reference. */
const decimalReferences = (text: string) => [...text].map((c) => `&#${code(c)};`).join('');
const hexReferences = (text: string) =>
	[...text].map((c) => `&#x${code(c).toString(16)};`).join('');
/** The text escaped again as a URL's part (`%` as `%25`, `&` as `%26`, `#` as `%23`, …). */
const urlEncoded = encodeURIComponent;
/** The text escaped again as an HTML page escapes text (`&` as `&amp;`). */
const htmlEscaped = (text: string) => text.replace(/&/g, '&amp;');

describe('texts', () => {
	test('every occurrence, in any letter case', () => {
		expect(redaction.text(`a ${TOKEN} b ${TOKEN.toLowerCase()} c ${TOKEN.toUpperCase()}`)).toBe(
			'a [redacted] b [redacted] c [redacted]',
		);
	});

	test('a token cut by a clip: its beginning, up to where the text ends or differs', () => {
		expect(redaction.text(`said: ${TOKEN.slice(0, 15)}…`)).toBe('said: [redacted]…');
		expect(redaction.text(`said: ${TOKEN.slice(0, 9)}`)).toBe('said: [redacted]');
		expect(redaction.text(`${TOKEN.slice(0, 10)}XYZ`)).toBe('[redacted]XYZ');
	});

	test('fewer than its first eight characters are left alone', () => {
		expect(redaction.text(`${TOKEN.slice(0, 7)}…`)).toBe(`${TOKEN.slice(0, 7)}…`);
	});

	test('a text without it is the same string', () => {
		const text = 'nothing secret here'.repeat(100);
		expect(redaction.text(text)).toBe(text);
	});

	test('letters that change length when lower-cased before it do not shift the cut', () => {
		expect(redaction.text(`İİİ ${TOKEN}!`)).toBe('İİİ [redacted]!');
	});

	test('no secret, or one too short to look for, redacts nothing', () => {
		expect(redactionOf(undefined)).toBeUndefined();
		expect(redactionOf('abc')).toBeUndefined();
		expect(redacted(`x ${TOKEN}`, undefined)).toBe(`x ${TOKEN}`);
		expect(redacted(`x ${TOKEN}`, redaction)).toBe('x [redacted]');
	});
});

describe('texts written partly or wholly escaped', () => {
	test('its end, when its beginning is escaped: the escapes too', () => {
		expect(redaction.text(`at /api/%5A${TOKEN.slice(1)}/x`)).toBe('at /api/[redacted]/x');
		expect(redaction.text(`no \\u005a${TOKEN.slice(1)}`)).toBe('no [redacted]');
		expect(redaction.text(`at %5a%6F_${TOKEN.slice(3)}`)).toBe('at [redacted]');
	});

	test('its beginning, when its end is escaped: the escapes too', () => {
		const [last, beforeLast] = [TOKEN.at(-1)!, TOKEN.at(-2)!];
		const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
		expect(redaction.text(`${TOKEN.slice(0, -2)}%${hex(beforeLast)}%${hex(last)}!`)).toBe(
			'[redacted]!',
		);
		expect(redaction.text(`${TOKEN.slice(0, -1)}\\u00${hex(last)} end`)).toBe('[redacted] end');
	});

	test('its end, back through an escape of a digit (whose last character is that digit)', () => {
		const digits = redactionOf('Zo_Sk_Digits-Leading-Part-81aQ-xyz12345')!;
		expect(digits.text('said Digits-Leading-Part-8%31aQ-xyz12345.')).toBe('said [redacted].');
		expect(digits.text('said Digits-Leading-Part-8\\u0031aQ-xyz12345.')).toBe('said [redacted].');
	});

	test('escapes beside it that spell other characters stay', () => {
		expect(redaction.text(`%41${TOKEN.slice(1)}`)).toBe('%41[redacted]');
	});

	test('percent-encoded as a URL writes it', () => {
		const odd = redactionOf('Zo_Sk_Echo+Tok/en=7Fq2Lm9X')!;
		expect(
			odd.text(`GET /conversations/${encodeURIComponent('Zo_Sk_Echo+Tok/en=7Fq2Lm9X')} failed`),
		).toBe('GET /conversations/[redacted] failed');
	});

	test('every character escaped: those escapes go, the rest of the text stays', () => {
		expect(redaction.text(`to /api/${percent(TOKEN)}/x`)).toBe('to /api/[redacted]/x');
		const unicode = [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
		expect(redaction.text(`said ${unicode.join('')}.`)).toBe('said [redacted].');
		expect(redaction.text(`said ${decimalReferences(TOKEN)}.`)).toBe('said [redacted].');
		expect(redaction.text(`said ${hexReferences(TOKEN)}.`)).toBe('said [redacted].');
	});

	test('`\\U` with its u upper-case, as the redaction before escapes.ts read it (6dce1cc)', () => {
		// 6dce1cc read `\\uXXXX` in any letter case (its `/\\u…/i`): these were redacted whole.
		const upper = (text: string) =>
			[...text].map((c) => `\\U${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
		expect(redaction.text(`said ${upper(TOKEN.slice(0, 8))} %20`)).not.toContain('\\U005a');
		expect(redaction.text(`at /api/%5CU005Ao_Sk_Re`)).not.toContain('%5CU005Ao_Sk_Re');
		expect(redaction.text(`said ${upper(TOKEN)} \\u0020`)).toBe('said [redacted] \\u0020');
	});

	test('escapes that spell something else leave the text as it is', () => {
		const text = 'a 100%25 sure \\u0041nswer at /api/%7Euser';
		expect(redaction.text(text)).toBe(text);
	});
});

describe('texts escaped more than once', () => {
	test.each([
		['percent-encoded twice', urlEncoded(percent(TOKEN))],
		['percent-encoded three times', urlEncoded(urlEncoded(percent(TOKEN)))],
		['decimal references escaped again', htmlEscaped(decimalReferences(TOKEN))],
		['hexadecimal references escaped again', htmlEscaped(hexReferences(TOKEN))],
		[
			'hexadecimal references in capitals escaped twice (`&amp;amp;#x5A;`)',
			htmlEscaped(htmlEscaped(hexReferences(TOKEN).toUpperCase().replace(/&#X/g, '&#x'))),
		],
		[
			'a chain of `&amp;`, four layers',
			htmlEscaped(htmlEscaped(htmlEscaped(decimalReferences(TOKEN)))),
		],
		['references inside percent-encoding (`%26%2390%3B`)', urlEncoded(decimalReferences(TOKEN))],
		['percent-encoding inside references (`&#37;5A`)', percent(TOKEN).replace(/%/g, '&#37;')],
		['each character of its %XX a reference', decimalReferences(percent(TOKEN))],
		[
			'references escaped again, then percent-encoded',
			urlEncoded(htmlEscaped(hexReferences(TOKEN))),
		],
		[
			'\\u escapes inside references',
			[...TOKEN].map((c) => `&#92;u00${code(c).toString(16)}`).join(''),
		],
		[
			'\\u escapes percent-encoded twice',
			urlEncoded([...TOKEN].map((c) => `%5Cu00${code(c).toString(16)}`).join('')),
		],
	])('%s: the run that writes it is redacted, the rest stays as written', (_, written) => {
		const text = `Bad token "${written}" & 100%25 more &amp; less &#90;.`;
		expect(redaction.text(text)).toBe('Bad token "[redacted]" & 100%25 more &amp; less &#90;.');
	});

	test('a token split between plain and encoded characters, at any depth', () => {
		const [head, middle, end] = [TOKEN.slice(0, 5), TOKEN.slice(5, 17), TOKEN.slice(17)];
		for (const written of [
			`${TOKEN.slice(0, 10)}${urlEncoded(percent(TOKEN.slice(10)))}`,
			`${urlEncoded(percent(head))}${TOKEN.slice(5)}`,
			`${head}${htmlEscaped(decimalReferences(middle))}${end}`,
			`${urlEncoded(percent(head))}${middle}${htmlEscaped(htmlEscaped(hexReferences(end)))}`,
			[...TOKEN]
				.map(
					(c, i) => [c, percent(c), urlEncoded(percent(c)), htmlEscaped(hexReferences(c))][i % 4],
				)
				.join(''),
		]) {
			expect(redaction.text(`key=${written}&next=1`)).toBe('key=[redacted]&next=1');
		}
	});

	test('cut short and encoded twice: its beginning, or its end, is redacted', () => {
		expect(redaction.text(`said ${urlEncoded(percent(TOKEN.slice(0, 12)))}…`)).toBe(
			'said [redacted]…',
		);
		expect(redaction.text(`…${htmlEscaped(decimalReferences(TOKEN.slice(-10)))} end`)).toBe(
			'…[redacted] end',
		);
	});

	test('escapes that spell something else, however deep, leave the text as it is', () => {
		const text = `a %252541 b &amp;amp;lt; c &#37;41 d %26%2390%3B e ${urlEncoded(percent(TOKEN.slice(0, 7)))}`;
		expect(redaction.text(text)).toBe(text);
	});

	test('four layers are read, no more: what a text costs stays bounded', () => {
		const four = urlEncoded(urlEncoded(urlEncoded(percent(TOKEN))));
		expect(redaction.text(`a ${four} b`)).toBe('a [redacted] b');
		// A fifth layer is text; so is a body of countless layers, read four times, not to its end.
		const fifth = urlEncoded(four);
		expect(redaction.text(`a ${fifth} b`)).toBe(`a ${fifth} b`);
		const countless = `${'%25'.repeat(200_000)}5A`;
		expect(redaction.text(countless)).toBe(countless);
	});
});

describe('HTML character references a browser reads', () => {
	/** One of the project's tokens whose `_`, `+`, `/` and `=` have named references. */
	const ODD = 'Zo_Sk_Echo+Tok/en=7Fq2Lm9X-Middle~Part';
	/** One whose first and last eight characters each hold a `_`. */
	const UNDERSCORED = 'Zo_Sk_Named_Reference_Token_4f9A_2c';
	const named = (token: string) =>
		token
			.replace(/_/g, '&lowbar;')
			.replace(/\+/g, '&plus;')
			.replace(/\//g, '&sol;')
			.replace(/=/g, '&equals;');

	test.each([
		['`_`, `+`, `/`, `=` as named references (`&lowbar;`, `&plus;`, …)', ODD, named(ODD)],
		['every `_` as `&lowbar;`', UNDERSCORED, named(UNDERSCORED)],
		['`_` as `&UnderBar;`', UNDERSCORED, UNDERSCORED.replace(/_/g, '&UnderBar;')],
		[
			'decimal references with leading zeros past ten digits (`&#000000000090;`)',
			TOKEN,
			[...TOKEN].map((c) => `&#${String(code(c)).padStart(12, '0')};`).join(''),
		],
		[
			'hexadecimal references with leading zeros past ten digits (`&#x00000000005a;`)',
			TOKEN,
			[...TOKEN].map((c) => `&#x${code(c).toString(16).padStart(12, '0')};`).join(''),
		],
		[
			'percent-encoding inside named references (`&percnt;5A`, as `&#37;5A`)',
			TOKEN,
			percent(TOKEN).replace(/%/g, '&percnt;'),
		],
		[
			'references whose `#` is a named reference (`&&num;90;`)',
			TOKEN,
			[...TOKEN].map((c) => `&&num;${code(c)};`).join(''),
		],
		[
			'\\u escapes whose `\\` is a named reference (`&bsol;u005a`)',
			TOKEN,
			[...TOKEN].map((c) => `&bsol;u${code(c).toString(16).padStart(4, '0')}`).join(''),
		],
		[
			'references escaped again in capitals (`&AMP;#90;`)',
			TOKEN,
			decimalReferences(TOKEN).replace(/&/g, '&AMP;'),
		],
		[
			'references escaped again without the `;` browsers let go (`&amp#90;`)',
			TOKEN,
			decimalReferences(TOKEN).replace(/&/g, '&amp'),
		],
	])('%s: the token is redacted', (_, token, written) => {
		expect(redactionOf(token)!.text(`Bad key "${written}" & more.`)).toBe(
			'Bad key "[redacted]" & more.',
		);
	});

	test('a number past seven significant digits is text after them; past U+10FFFF, no character', () => {
		// `&#00000000090` is Z; `&#90000000` is the replacement character and a `0`.
		expect(redaction.text(`a &#0000000000${code('Z')}o_Sk_Redaction-Token b`)).toBe(
			'a [redacted] b',
		);
		expect(redaction.text(`a &#${code('Z')}000000o_Sk_Redaction-Token b`)).toBe(
			`a &#${code('Z')}000000o_Sk_Redaction-Token b`,
		);
	});
});

describe('pieces going out one by one', () => {
	test('what may be part of the token, in any form, waits; the rest can go out', () => {
		expect(redaction.readyPart('Hello Zo_S').ready).toBe(6);
		expect(redaction.readyPart('Hello zO_s').ready).toBe(6);
		expect(redaction.readyPart('Hello Zx').ready).toBe(8);
		expect(redaction.readyPart('Hello!').ready).toBe(6);
		// Its `o` may be the token's second character, which its end would take with it:
		expect(redaction.readyPart('Hello').ready).toBe(4);
		expect(redaction.readyPart(TOKEN.slice(0, -1)).ready).toBe(0);
		expect(redaction.readyPart(`said ${TOKEN.slice(5, 15)}`).ready).toBe(5);
	});

	test('escapes: written characters of the token, and escapes not yet complete, wait', () => {
		expect(redaction.readyPart(`at ${TOKEN.slice(0, 7)}%65d`).ready).toBe(3);
		expect(redaction.readyPart('at %5A%6F').ready).toBe(3);
		expect(redaction.readyPart('at \\u005a%6f_').ready).toBe(3);
		expect(redaction.readyPart('100%').ready).toBe(3);
		expect(redaction.readyPart('100%2').ready).toBe(3);
		expect(redaction.readyPart('a \\u00').ready).toBe(2);
		expect(redaction.readyPart('a %5Cu00').ready).toBe(2);
		expect(redaction.readyPart('100%25!').ready).toBe(7);
	});

	test('escapes of escapes and character references: what may write the token waits', () => {
		expect(redaction.readyPart('at %255A%256F').ready).toBe(3);
		expect(redaction.readyPart('at &amp;#90;&amp;#111;').ready).toBe(3);
		expect(redaction.readyPart('at %26%2390%3B').ready).toBe(3);
		// A `%` decoded from `%25` may begin an escape with what follows:
		expect(redaction.readyPart('at %25').ready).toBe(3);
		expect(redaction.readyPart('at %254').ready).toBe(3);
		// References not yet complete, or whose digits may go on:
		expect(redaction.readyPart('Q&').ready).toBe(1);
		expect(redaction.readyPart('a &am').ready).toBe(2);
		expect(redaction.readyPart('a &#9').ready).toBe(2);
		expect(redaction.readyPart('a &#x5').ready).toBe(2);
		expect(redaction.readyPart('Q&A!').ready).toBe(4);
		expect(redaction.readyPart('rock &amp; roll').ready).toBe(15);
	});
});

describe('JSON values', () => {
	test('strings at any depth and keys, copied only where they held it', () => {
		const clean = { list: [1, 'two', { three: true }] };
		const value = {
			clean,
			conversation_id: TOKEN,
			steps: [{ type: 'text', text: `echo ${TOKEN}` }, clean],
			[`key ${TOKEN}`]: 1,
		};
		const shown = redaction.json(value);
		expect(shown).toEqual({
			clean,
			conversation_id: '[redacted]',
			steps: [{ type: 'text', text: 'echo [redacted]' }, clean],
			'key [redacted]': 1,
		});
		expect(shown.clean).toBe(clean);
		expect(shown.steps[1]).toBe(clean);
		expect(value.conversation_id).toBe(TOKEN);
	});

	test('a value without it is the same object', () => {
		const value = { answer: 'hello', steps: [{ a: 1 }] };
		expect(redaction.json(value)).toBe(value);
	});

	test('a value nested deeper than it is walked: whole, when it holds the token', () => {
		let deep: unknown = TOKEN;
		let clean: unknown = 'nothing';
		for (let i = 0; i < 70; i++) {
			deep = { a: deep };
			clean = { a: clean };
		}
		const shown = JSON.stringify(redaction.json({ deep }));
		expect(shown).toContain('"[redacted]"');
		expect(shown).not.toContain(TOKEN.slice(-8));
		const value = { clean };
		expect(redaction.json(value)).toBe(value);
	});

	test('objects that are not plain JSON pass as they are', () => {
		const date = new Date(0);
		const map = new Map([['k', TOKEN]]);
		expect(redaction.json({ date, map }).map).toBe(map);
	});
});

describe('errors', () => {
	test('a NodeApiError: message, description, messages, context, cause, stack', () => {
		const error = new NodeApiError(
			node,
			{ message: `said ${TOKEN}` },
			{ message: `failed: ${TOKEN}`, description: `wait ${TOKEN}`, httpCode: '429', itemIndex: 2 },
		);
		error.messages = [`m ${TOKEN}`];
		error.context.where = `at ${TOKEN.toLowerCase()}`;
		const shown = redaction.error(error);
		expect(shown).toBe(error);
		expect(shown.message).toBe('failed: [redacted]');
		expect(shown.description).toBe('wait [redacted]');
		expect(shown.messages).toEqual(['m [redacted]']);
		expect(shown.context).toEqual({ itemIndex: 2, where: 'at [redacted]' });
		expect(shown.context.itemIndex).toBe(2);
		expect(shown.errorResponse).toEqual({ message: 'said [redacted]' });
		expect(shown.stack ?? '').not.toContain(TOKEN);
		expect(shown.httpCode).toBe('429');
	});

	test('a NodeOperationError made from an error: its cause too', () => {
		const error = new NodeOperationError(node, new Error(`raw ${TOKEN}`), { itemIndex: 0 });
		const shown = redaction.error(error);
		expect(shown.message).toBe('raw [redacted]');
		expect((shown.cause as Error).message).toBe('raw [redacted]');
		expect((shown.cause as Error).stack ?? '').not.toContain(TOKEN);
	});

	test('anything else is left as it is', () => {
		const error = new Error(`raw ${TOKEN}`);
		expect(redaction.error(error).message).toBe(`raw ${TOKEN}`);
	});
});
