/**
 * An HTML error page as the error's words (docs/api.md#errors, docs/security.md): its text, its
 * tags left out and its character references decoded once, before the token is redacted from it,
 * so that a token the page spells in references is redacted as one written plainly; a token in
 * references the page escaped again (`&amp;#90;`), or percent-encoded inside them, is redacted
 * from what the page shows too.
 */
import { parseJsonAnswer } from '../../../nodes/shared/transport/jsonCall';
import { statusFailure, type FailureScope } from '../../../nodes/shared/transport/failures';
import { redactionOf } from '../../../nodes/shared/transport/redaction';
import { stripHtml } from '../../../nodes/shared/transport/serverMessage';
import { fakeNode } from '../../helpers/fake-node';

const TOKEN = 'Zo_Sk_Html-Token-Q8w3Er7T';
const scope: FailureScope = {
	node: fakeNode({ id: '1' }),
	request: { method: 'GET', path: '/models/available', authenticated: true },
	redaction: redactionOf(TOKEN),
};

const decimal = (text: string) => [...text].map((c) => `&#${c.charCodeAt(0)};`).join('');
const hex = (text: string) => [...text].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');

test('a page’s character references are decoded, once', () => {
	expect(
		stripHtml('<p>&#90;&#x6f;&#X5F; &lt;b&gt; &quot;a&quot; &amp;amp; &#39;&apos; &#0;</p>'),
	).toBe('Zo_ <b> "a" &amp; \'\' \ufffd');
	// Text that is not a page is as it is.
	expect(stripHtml('a &#90; b')).toBe('a &#90; b');
});

const escapedAgain = (text: string) => text.replace(/&/g, '&amp;');

test.each([
	['decimal references', decimal(TOKEN)],
	['decimal references escaped again (`&amp;#90;`)', escapedAgain(decimal(TOKEN))],
	[
		'hexadecimal references escaped twice (`&amp;amp;#x5a;`)',
		escapedAgain(escapedAgain(hex(TOKEN))),
	],
	[
		'references of its percent-encoding (`&#37;5A`)',
		encodeURIComponent(decimal(TOKEN)).replace(/%/g, '&#37;'),
	],
	['hexadecimal references', hex(TOKEN)],
	['references among plain letters', [...TOKEN].map((c, i) => (i % 3 ? c : decimal(c))).join('')],
])('the token in %s: redacted from an error status’s page and a 200’s', (_what, written) => {
	const page = `<html><body><p>Bad token ${written}</p></body></html>`;
	const said = statusFailure(scope, 502, {}, page).shown.message;
	expect(said).toContain('(HTTP 502): Bad token [redacted]');
	const notJson = (() => {
		try {
			parseJsonAnswer(scope, 200, {}, page);
		} catch (error) {
			return (error as { shown: { message: string } }).shown.message;
		}
		return '';
	})();
	expect(notJson).toContain('Bad token [redacted]');
	for (const shown of [said, notJson]) {
		expect(shown.toLowerCase()).not.toContain(TOKEN.toLowerCase().slice(0, 8));
		expect(shown.toLowerCase()).not.toContain(TOKEN.toLowerCase().slice(-8));
		expect(shown).not.toContain(written.slice(0, 24));
	}
});
