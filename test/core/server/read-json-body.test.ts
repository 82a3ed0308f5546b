import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJsonBodyText } from '../../../runtime/core/server/read-json-body.js';

function failure(text: string, options: { wellFormedText?: boolean } = {}): { code: string; message: string } | undefined {
  try {
    parseJsonBodyText(text, options);
    return undefined;
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

describe('parseJsonBodyText', () => {
  it('accepts a flat body of strings as is (the fast path), __proto__ key included as a plain key', () => {
    expect(parseJsonBodyText('{"query":"hi","context_id":"c","event_format":"json"}')).toEqual({ query: 'hi', context_id: 'c', event_format: 'json' });
    const odd = parseJsonBodyText('{"__proto__":"x","query":"q"}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.hasOwn(odd, '__proto__')).toBe(true);
    expect(parseJsonBodyText('{}')).toEqual({});
  });

  it('still walks everything that is not flat strings: huge numbers, depth, lone surrogates when asked', () => {
    expect(failure('{"query":"hi","n":1e400}')).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('at n;') });
    expect(failure('{"query":"hi","__proto__":1e400}')).toMatchObject({ code: 'invalid_request' });
    expect(failure('1e400')).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('its top level') });
    expect(failure(`{"a":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`)).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('deep'),
    });
    expect(failure('{"query":"\\ud800"}', { wellFormedText: true })).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('surrogate') });
    expect(failure('{"\\udc00":"x"}', { wellFormedText: true })).toMatchObject({ code: 'invalid_request' });
    expect(parseJsonBodyText('{"query":"\\ud800"}')).toEqual({ query: '\ud800' });
    expect(failure('')).toMatchObject({ code: 'invalid_json' });
    expect(failure('{"query":')).toMatchObject({ code: 'invalid_json' });
    expect(parseJsonBodyText('["a","b"]')).toEqual(['a', 'b']);
  });
});
