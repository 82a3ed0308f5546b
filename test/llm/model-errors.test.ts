import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../runtime/core/errors/aborted-error.js';
import { ModelRuntimeError } from '../../runtime/llm/errors/model-runtime-error.js';
import { displayUrl, isConnectionFailure, mentionsMissingModel, normalizeModelError } from '../../runtime/llm/model-errors.js';

const address = { baseUrl: 'http://runtime:11434', setting: 'OLLAMA_HOST or llmConfig.base_url' };

function fetchFailure(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ${code} runtime`), { code }) });
}

describe('model error mapping', () => {
  it('recognises connection failures by their cause codes', () => {
    expect(isConnectionFailure(fetchFailure('ENOTFOUND'))).toBe(true);
    expect(isConnectionFailure(fetchFailure('ECONNREFUSED'))).toBe(true);
    expect(isConnectionFailure(new TypeError('terminated', { cause: { code: 'UND_ERR_SOCKET' } }))).toBe(true);
    expect(isConnectionFailure(new Error('model exploded'))).toBe(false);
  });

  it('an unknown host becomes model_runtime_unavailable naming the code, the address and the setting', () => {
    const error = normalizeModelError(fetchFailure('ENOTFOUND'), address, undefined);
    expect(error).toBeInstanceOf(ModelRuntimeError);
    expect((error as ModelRuntimeError).code).toBe('model_runtime_unavailable');
    expect(error.message).toContain('http://runtime:11434 (ENOTFOUND)');
    expect(error.message).toContain('OLLAMA_HOST or llmConfig.base_url');
  });

  it('a fired signal wins over any other error', () => {
    const controller = new AbortController();
    controller.abort();
    expect(normalizeModelError(fetchFailure('ECONNRESET'), address, controller.signal)).toBeInstanceOf(AbortedError);
  });

  it('other errors become model_error with their message', () => {
    const error = normalizeModelError(new Error('context window exceeded'), address, undefined);
    expect((error as ModelRuntimeError).code).toBe('model_error');
    expect(error.message).toContain('context window exceeded');
  });

  it('tells a missing model from a missing path', () => {
    expect(mentionsMissingModel(`model 'x' not found, try pulling it first`)).toBe(true);
    expect(mentionsMissingModel('The model `x` does not exist or you do not have access to it.')).toBe(true);
    expect(mentionsMissingModel('404 page not found')).toBe(false);
  });

  it('displays URLs without credentials or a trailing slash', () => {
    expect(displayUrl('https://user:secret@example.com/v1/')).toBe('https://example.com/v1');
  });
});
