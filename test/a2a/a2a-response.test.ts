import { describe, expect, it } from 'vitest';
import type { A2AChunk } from '../../runtime/a2a/a2a-chunk.js';
import { A2AResponse, NO_RESPONSE } from '../../runtime/a2a/a2a-response.js';

const ids = { taskId: 't1', contextId: 'c1' };
const task = (state: A2AChunk['state'], text?: string): A2AChunk => ({ kind: 'task', ...ids, state, ...(text === undefined ? {} : { text }) });
const status = (state: A2AChunk['state'], text?: string): A2AChunk => ({ kind: 'status', ...ids, state, ...(text === undefined ? {} : { text }) });
const artifact = (fields: { text?: string; data?: Record<string, unknown> }): A2AChunk => ({ kind: 'artifact', ...ids, ...fields });

function outcome(chunks: A2AChunk[]): string {
  return A2AResponse.outcome(A2AResponse.fromResults(chunks));
}

describe('A2AResponse.fromResults', () => {
  it('skips working and submitted statuses and chunks without content', () => {
    const responses = A2AResponse.fromResults([
      task('submitted'),
      status('working'),
      status('working', 'Executing: book'),
      task('working', 'still going'),
      artifact({ text: 'half way' }),
      artifact({ data: { outcome: 'Done' } }),
      status('completed'),
    ]);
    expect(responses.map((r) => [r.text, r.data])).toEqual([
      ['half way', undefined],
      [undefined, { outcome: 'Done' }],
    ]);
  });

  it('keeps final prompts, failures and direct messages as text responses', () => {
    const responses = A2AResponse.fromResults([
      status('input_required', 'Approve the plan?'),
      status('failed', 'the thing broke'),
      { kind: 'message', ...ids, text: 'hello' },
    ]);
    expect(responses.map((r) => r.text)).toEqual(['Approve the plan?', 'the thing broke', 'hello']);
  });

  it('is empty for no chunks', () => {
    expect(A2AResponse.fromResults([])).toEqual([]);
  });
});

describe('A2AResponse.outcome', () => {
  it('takes the outcome key of the first data response', () => {
    expect(outcome([artifact({ data: { outcome: 'Done: book', action: 'book' } }), artifact({ data: { outcome: 'second' } })])).toBe('Done: book');
  });

  it('prefers the first data response over an earlier text', () => {
    expect(outcome([artifact({ text: 'first text' }), artifact({ data: { outcome: 'from data' } })])).toBe('from data');
  });

  it('gives the data as a JSON string when it has no outcome key', () => {
    expect(outcome([artifact({ data: { actions: ['a', 'b'], n: 2 } })])).toBe('{"actions":["a","b"],"n":2}');
  });

  it('gives a non-string outcome as JSON', () => {
    expect(outcome([artifact({ data: { outcome: { ok: true } } })])).toBe('{"ok":true}');
    expect(outcome([artifact({ data: { outcome: 3 } })])).toBe('3');
  });

  it('falls back to the first text', () => {
    expect(outcome([status('working', 'Executing'), artifact({ text: 'first' }), status('completed', 'second')])).toBe('first');
  });

  it('is "no response" when only working statuses came', () => {
    expect(NO_RESPONSE).toBe('no response');
    expect(outcome([task('submitted'), status('working', 'Executing: book'), status('completed')])).toBe('no response');
    expect(A2AResponse.outcome([])).toBe('no response');
  });

  it('keeps an empty text as the outcome rather than "no response"', () => {
    expect(outcome([artifact({ text: '' })])).toBe('');
  });
});
