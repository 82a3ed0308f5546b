import { describe, expect, it } from 'vitest';
import { parseTaskInput } from '../../runtime/index.js';

describe('parseTaskInput', () => {
  it('reads JSON strings and objects with text and context_id', () => {
    expect(parseTaskInput('{"text":"hi","context_id":"c1"}')).toEqual({ text: 'hi', contextId: 'c1' });
    expect(parseTaskInput({ text: 'hi', context_id: 'c2' })).toEqual({ text: 'hi', contextId: 'c2' });
    expect(parseTaskInput({ text: 'hi', contextId: 'c3' })).toEqual({ text: 'hi', contextId: 'c3' });
  });

  it('defaults a missing context id to "default"', () => {
    expect(parseTaskInput('{"text":"hi"}')).toEqual({ text: 'hi', contextId: 'default' });
    expect(parseTaskInput({ text: 'hi', context_id: '' })).toEqual({ text: 'hi', contextId: 'default' });
  });

  it('takes plain text (and text that merely looks like JSON) as the text', () => {
    expect(parseTaskInput('hello')).toEqual({ text: 'hello', contextId: 'default' });
    expect(parseTaskInput('{not json')).toEqual({ text: '{not json', contextId: 'default' });
    expect(parseTaskInput('[1,2]')).toEqual({ text: '[1,2]', contextId: 'default' });
  });

  it('rejects structured input without a string text, and non-string non-objects', () => {
    expect(() => parseTaskInput({ context_id: 'c' })).toThrow(/"text"/);
    expect(() => parseTaskInput('{"text": 3}')).toThrow(/"text"/);
    expect(() => parseTaskInput(42)).toThrow(/string or an object/);
    expect(() => parseTaskInput(null)).toThrow(/null/);
  });
});
