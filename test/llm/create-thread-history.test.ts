import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { createThreadHistory, getDefaultThreadHistory, readThreadHistoryConfig, setDefaultThreadHistory } from '../../runtime/llm/create-thread-history.js';
import { KvThreadHistory } from '../../runtime/llm/kv-thread-history.js';
import { InProcessThreadHistory } from '../../runtime/llm/in-process-thread-history.js';

describe('createThreadHistory', () => {
  it('builds the backend the configuration names, with llmHistoryMessages as the cap', async () => {
    const memory = createThreadHistory({ sessionBackend: 'memory', sessionKvUrl: undefined, llmHistoryMessages: 6 });
    expect(memory).toBeInstanceOf(InProcessThreadHistory);
    expect(memory.maxMessages).toBe(6);
    const kv = createThreadHistory({ sessionBackend: 'kv', sessionKvUrl: 'redis://127.0.0.1:6379', llmHistoryMessages: 8 });
    try {
      expect(kv).toBeInstanceOf(KvThreadHistory);
      expect(kv.maxMessages).toBe(8);
      expect(await kv.load(`never-${Date.now()}`)).toEqual([]);
    } finally {
      await kv.close();
    }
  });

  it('kv without a URL is a ConfigError naming SESSION_KV_URL', () => {
    expect(() => createThreadHistory({ sessionBackend: 'kv', sessionKvUrl: undefined, llmHistoryMessages: 6 })).toThrow(/SESSION_KV_URL/);
  });
});

describe('readThreadHistoryConfig', () => {
  it('applies the defaults without needing AGENT_NAME', () => {
    expect(readThreadHistoryConfig({})).toEqual({ sessionBackend: 'memory', sessionKvUrl: undefined, llmHistoryMessages: 40, kvKeyPrefix: 'fw:' });
  });

  it('reads SESSION_BACKEND, SESSION_KV_URL falling back to KV_URL, and LLM_HISTORY_MESSAGES', () => {
    expect(readThreadHistoryConfig({ SESSION_BACKEND: ' KV ', KV_URL: 'redis://kv:6379', LLM_HISTORY_MESSAGES: '12' })).toEqual({
      sessionBackend: 'kv',
      sessionKvUrl: 'redis://kv:6379',
      llmHistoryMessages: 12,
      kvKeyPrefix: 'fw:',
    });
    expect(readThreadHistoryConfig({ SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://a:1', KV_URL: 'redis://b:2' }).sessionKvUrl).toBe('redis://a:1');
  });

  it('names every bad variable in one ConfigError', () => {
    const error = (() => {
      try {
        readThreadHistoryConfig({ SESSION_BACKEND: 'disk', LLM_HISTORY_MESSAGES: '-3' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable).sort()).toEqual(['LLM_HISTORY_MESSAGES', 'SESSION_BACKEND']);
    expect(() => readThreadHistoryConfig({ SESSION_BACKEND: 'kv' })).toThrow(/SESSION_KV_URL/);
  });
});

describe('the default thread memory', () => {
  afterEach(() => {
    setDefaultThreadHistory(undefined);
    vi.unstubAllEnvs();
  });

  it('is built from the environment at first use, not at import, then reused', () => {
    vi.stubEnv('SESSION_BACKEND', 'not-a-backend');
    expect(() => getDefaultThreadHistory()).toThrow(ConfigError);
    vi.stubEnv('SESSION_BACKEND', 'memory');
    vi.stubEnv('LLM_HISTORY_MESSAGES', '5');
    const memory = getDefaultThreadHistory();
    expect(memory.backend).toBe('memory');
    expect(memory.maxMessages).toBe(5);
    expect(getDefaultThreadHistory()).toBe(memory);
  });

  it('builds a kv memory from SESSION_BACKEND=kv and KV_URL, closed when replaced', async () => {
    vi.stubEnv('SESSION_BACKEND', 'kv');
    vi.stubEnv('SESSION_KV_URL', '');
    vi.stubEnv('KV_URL', 'redis://127.0.0.1:6379');
    const memory = getDefaultThreadHistory();
    expect(memory).toBeInstanceOf(KvThreadHistory);
    const close = vi.spyOn(memory, 'close');
    setDefaultThreadHistory(undefined);
    expect(close).toHaveBeenCalledOnce();
  });

  it('setDefaultThreadHistory installs a host-owned memory and never closes it', () => {
    const owned = new InProcessThreadHistory({ maxMessages: 3 });
    const close = vi.spyOn(owned, 'close');
    setDefaultThreadHistory(owned);
    expect(getDefaultThreadHistory()).toBe(owned);
    setDefaultThreadHistory(undefined);
    expect(close).not.toHaveBeenCalled();
  });
});
