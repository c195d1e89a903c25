/**
 * A review's finding. docs/security.md: the token is replaced by `[redacted]` in "the pieces a
 * streaming workflow or an AI Agent is given", and "escapes that write some of its characters
 * beside the rest of it are redacted with it".
 *
 * A server whose stream writes the token with one character escaped (`%65` for `e`) right after
 * its first eight characters, and cuts the piece there, got the token's middle out in clear:
 * the escape stopped the hold-back (the text was no longer a plain prefix of the token), and the
 * next piece, redacted on its own, held neither the token's first nor its last eight characters.
 */
import { LiveText } from '../../../nodes/shared/liveText';
import { redactionOf } from '../../../nodes/shared/transport/redaction';

const TOKEN = 'Zo_Sk_Pieces-Token-81aQ-LongMiddlePart-xyz12345';

test('a token written with one escape, split after it, does not leak its middle to the pieces', () => {
	const out: string[] = [];
	const live = new LiveText((piece) => out.push(piece));
	live.redactWith(redactionOf(TOKEN));
	// The token: its first 8 characters, `e` as %65, then the rest, over three pieces.
	const escaped = `${TOKEN.slice(0, 8)}%65${TOKEN.slice(9)}`;
	const pieces = [`Key: ${escaped.slice(0, 11)}`, escaped.slice(11, -8), `${escaped.slice(-8)} ok`];
	for (const piece of pieces) live.forward!(piece);
	live.finish();
	const shown = out.join('');
	// Non-streamed, the same text is redacted whole:
	expect(redactionOf(TOKEN)!.text(`Key: ${escaped} ok`)).toBe('Key: [redacted] ok');
	// Streamed, the middle of the token went out (no longer):
	expect(shown).not.toContain('LongMiddlePart');
	expect(shown).not.toContain(TOKEN.slice(9, -8));
});
