/**
 * The pieces a streaming workflow is given (nodes/shared/liveText.ts): never the token, also when
 * it is split between pieces; the rest of the answer whole and at once, and `sent` as the service
 * gave it (the recovery's rest is reckoned from it).
 */
import { LiveText } from '../../../nodes/shared/liveText';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ';

function live() {
	const out: string[] = [];
	const text = new LiveText((piece) => out.push(piece));
	text.redactWith(redactionOf(TOKEN));
	return { text, out };
}

test('a token split anywhere between pieces never goes out', () => {
	const answer = `Hello ${TOKEN} and ${TOKEN.toLowerCase()}, bye`;
	for (let cut = 1; cut < answer.length; cut++) {
		for (let second = cut + 1; second < answer.length; second += 7) {
			const { text, out } = live();
			text.passOn(answer.slice(0, cut));
			text.passOn(answer.slice(cut, second));
			text.passOn(answer.slice(second));
			text.finish();
			expect(out.join('')).toBe('Hello [redacted] and [redacted], bye');
			expect(text.sent).toBe(answer);
		}
	}
});

test('text that cannot begin the token goes out at once', () => {
	const { text, out } = live();
	text.passOn('Hello there');
	expect(out).toEqual(['Hello there']);
	text.passOn(' and Z');
	expect(out).toEqual(['Hello there', ' and ']);
	text.passOn('ebra');
	expect(out).toEqual(['Hello there', ' and ', 'Zebra']);
});

test('without a token known, pieces go out as they are', () => {
	const out: string[] = [];
	const text = new LiveText((piece) => out.push(piece));
	text.passOn(`a ${TOKEN}`);
	expect(out).toEqual([`a ${TOKEN}`]);
});

test('with nobody taking pieces, nothing is passed on', () => {
	const text = new LiveText(undefined);
	expect(text.forward).toBeUndefined();
	text.passOn('x');
	expect(text.sent).toBe('');
});
