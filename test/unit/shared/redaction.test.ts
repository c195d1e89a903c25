/**
 * The token taken out of what the node shows (docs/security.md): whole or cut,
 * in any letter case, in texts, JSON values and everything n8n shows of an error.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { redacted, redactionOf } from '../../../nodes/shared/transport/redaction';
import { fakeNode } from '../../helpers/fake-node';

const TOKEN = 'Zo_Sk_Redaction-Token-4f9A2c';
const redaction = redactionOf(TOKEN)!;
const node = fakeNode({ id: '1' });

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

	test('every character escaped: the whole text goes', () => {
		const encoded = [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
		expect(redaction.text(`to /api/${encoded}/x`)).toBe(
			'[redacted: the text held the access token]',
		);
		const unicode = [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
		expect(redaction.text(`said ${unicode.join('')}`)).toBe(
			'[redacted: the text held the access token]',
		);
	});

	test('escapes that spell something else leave the text as it is', () => {
		const text = 'a 100%25 sure \\u0041nswer at /api/%7Euser';
		expect(redaction.text(text)).toBe(text);
	});
});

describe('pieces going out one by one', () => {
	test('what may be part of the token, in any form, waits; the rest can go out', () => {
		expect(redaction.safeLength('Hello Zo_S')).toBe(6);
		expect(redaction.safeLength('Hello zO_s')).toBe(6);
		expect(redaction.safeLength('Hello Zx')).toBe(8);
		expect(redaction.safeLength('Hello!')).toBe(6);
		// Its `o` may be the token's second character, which its end would take with it:
		expect(redaction.safeLength('Hello')).toBe(4);
		expect(redaction.safeLength(TOKEN.slice(0, -1))).toBe(0);
		expect(redaction.safeLength(`said ${TOKEN.slice(5, 15)}`)).toBe(5);
	});

	test('escapes: written characters of the token, and escapes not yet complete, wait', () => {
		expect(redaction.safeLength(`at ${TOKEN.slice(0, 7)}%65d`)).toBe(3);
		expect(redaction.safeLength('at %5A%6F')).toBe(3);
		expect(redaction.safeLength('at \\u005a%6f_')).toBe(3);
		expect(redaction.safeLength('100%')).toBe(3);
		expect(redaction.safeLength('100%2')).toBe(3);
		expect(redaction.safeLength('a \\u00')).toBe(2);
		expect(redaction.safeLength('a %5Cu00')).toBe(2);
		expect(redaction.safeLength('100%25!')).toBe(7);
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
