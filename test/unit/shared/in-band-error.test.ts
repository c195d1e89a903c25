/**
 * A 200 JSON that carries `{"error": …}` instead of an answer (docs/api.md#ask-answer): a failure
 * when its `output` is missing, null or empty and its error says something went wrong; a response
 * model that writes every field with its zero value says nothing went wrong.
 */
import { inBandErrorOf } from '../../../nodes/shared/transport/serverMessage';

test.each([
	[{ error: 'All 4 assistant sessions are busy' }],
	[{ output: null, conversation_id: null, error: 'All 4 assistant sessions are busy' }],
	[{ output: '', error: { message: 'All 4 assistant sessions are busy' } }],
	[{ output: null, error: '', data: { error: 'All 4 assistant sessions are busy' } }],
])('%j is the service’s failure', (body) => {
	expect(inBandErrorOf(body)).toBe('All 4 assistant sessions are busy');
});

test.each([
	[{ output: '', error: '' }],
	[{ output: null, error: '  ' }],
	[{ output: null, error: {} }],
	[{ output: '', error: false }],
	[{ output: null, error: [] }],
	[{ output: null, error: null }],
	[{ output: 'The answer.', error: 'ignored beside an answer' }],
])('%j is no in-band error', (body) => {
	expect(inBandErrorOf(body)).toBeUndefined();
});
