import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../runtime/core/error-codes.js';
import { InvalidModelOutputError } from '../../runtime/core/errors/invalid-model-output-error.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { cleanLlmJson } from '../../runtime/planning/clean-llm-json.js';

function failure(raw: string): InvalidModelOutputError {
  try {
    cleanLlmJson(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidModelOutputError);
    return error as InvalidModelOutputError;
  }
  throw new Error(`cleanLlmJson accepted ${JSON.stringify(raw)}`);
}

describe('cleanLlmJson', () => {
  it('parses a bare object', () => {
    expect(cleanLlmJson('{"methodology": "WBS", "rationale": "many parts"}')).toEqual({ methodology: 'WBS', rationale: 'many parts' });
    expect(cleanLlmJson('  \uFEFF{"a": 1}\n')).toEqual({ a: 1 });
  });

  it('takes the object out of a code fence, with or without a language tag', () => {
    expect(cleanLlmJson('Here you go:\n```json\n{"actions": ["Book a venue"]}\n```\nAnything else?')).toEqual({ actions: ['Book a venue'] });
    expect(cleanLlmJson('```\n{"a": true}\n```')).toEqual({ a: true });
    expect(cleanLlmJson('```JSON {"a": 2}```')).toEqual({ a: 2 });
  });

  it('prefers a fenced object over braces in the surrounding prose', () => {
    const raw = 'Use {curly braces} for sets.\n```json\n{"picked": "fenced"}\n```';
    expect(cleanLlmJson(raw)).toEqual({ picked: 'fenced' });
  });

  it('skips leading and trailing prose, and prose braces that are not JSON', () => {
    expect(cleanLlmJson('Sure! The plan is {"actions": ["a", "b"]}. Hope this helps {:}')).toEqual({ actions: ['a', 'b'] });
    expect(cleanLlmJson('Sets look like {a, b}; the answer: {"ok": 1}')).toEqual({ ok: 1 });
  });

  it('ignores braces and quotes inside strings when matching', () => {
    const raw = 'Result: {"text": "a } brace, a { brace and a \\"quote}\\"", "n": {"deep": [1, {"x": "}"}]}} trailing';
    expect(cleanLlmJson(raw)).toEqual({ text: 'a } brace, a { brace and a "quote}"', n: { deep: [1, { x: '}' }] } });
  });

  it('keeps arrays and nested objects inside the object', () => {
    expect(cleanLlmJson('{"actions": ["one", "two"], "meta": {"tags": [[1], {"k": []}]}}')).toEqual({
      actions: ['one', 'two'],
      meta: { tags: [[1], { k: [] }] },
    });
  });

  it('returns the first object when there are several', () => {
    expect(cleanLlmJson('{"first": 1} and then {"second": 2}')).toEqual({ first: 1 });
  });

  it('tolerates trailing commas, but not inside strings', () => {
    expect(cleanLlmJson('{"actions": ["a", "b",],}')).toEqual({ actions: ['a', 'b'] });
    expect(cleanLlmJson('{"text": "x,}", "list": [1, 2 , ] }')).toEqual({ text: 'x,}', list: [1, 2] });
  });

  it('throws invalid_model_output with an excerpt when there is no object', () => {
    const error = failure('I am sorry, I cannot help with planning today.');
    expect(FrameworkError.isInstance(error)).toBe(true);
    expect(error.code).toBe('invalid_model_output');
    expect(error.reason).toBe('No JSON object found in the model reply');
    expect(error.excerpt).toBe('I am sorry, I cannot help with planning today.');
    expect(error.message).toContain('reply began: "I am sorry');
    expect(ERROR_CODES.invalid_model_output).toEqual({ httpStatus: 502, jsonRpcCode: -32012 });
  });

  it('names an empty reply, a truncated object, an array and a scalar', () => {
    expect(failure('  ').reason).toBe('The model reply is empty');
    expect(failure('Plan: {"actions": ["a", {"b": 1}').reason).toMatch(/never closed/);
    expect(failure('```json\n[{"a": 1}]\n```').reason).toMatch(/not an object \(an array\)/);
    expect(failure('42').reason).toMatch(/not an object \(number\)/);
    expect(failure('{not json at all}').reason).toBe('No JSON object found in the model reply');
  });

  it('keeps the excerpt short and on one line', () => {
    const error = failure(`no json here\n\n${'word '.repeat(100)}`);
    expect(error.excerpt.length).toBeLessThanOrEqual(121);
    expect(error.excerpt).not.toContain('\n');
    expect(error.excerpt.endsWith('…')).toBe(true);
  });
});
