import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import {
  createThreadMemory,
  getDefaultThreadMemory,
  readThreadMemoryConfig,
  setDefaultThreadMemory,
} from '../../runtime/llm/create-thread-memory.js';
import { KvThreadMemory } from '../../runtime/llm/kv-thread-memory.js';
import { MemoryThreadMemory } from '../../runtime/llm/memory-thread-memory.js';

describe('createThreadMemory', () => {
  it('builds the backend the configuration names, with llmHistoryMessages as the cap', async () => {
    const memory = createThreadMemory({ sessionBackend: 'memory', sessionKvUrl: undefined, llmHistoryMessages: 6 });
    expect(memory).toBeInstanceOf(MemoryThreadMemory);
    expect(memory.maxMessages).toBe(6);
    const kv = createThreadMemory({ sessionBackend: 'kv', sessionKvUrl: 'redis://127.0.0.1:6379', llmHistoryMessages: 8 });
    try {
      expect(kv).toBeInstanceOf(KvThreadMemory);
      expect(kv.maxMessages).toBe(8);
      expect(await kv.load(`never-${Date.now()}`)).toEqual([]);
    } finally {
      await kv.close();
    }
  });

  it('kv without a URL is a ConfigError naming SESSION_KV_URL', () => {
    expect(() => createThreadMemory({ sessionBackend: 'kv', sessionKvUrl: undefined, llmHistoryMessages: 6 })).toThrow(
      /SESSION_KV_URL/,
    );
  });
});

describe('readThreadMemoryConfig', () => {
  it('applies the defaults without needing AGENT_NAME', () => {
    expect(readThreadMemoryConfig({})).toEqual({ sessionBackend: 'memory', sessionKvUrl: undefined, llmHistoryMessages: 40, kvKeyPrefix: 'fw:' });
  });

  it('reads SESSION_BACKEND, SESSION_KV_URL falling back to KV_URL, and LLM_HISTORY_MESSAGES', () => {
    expect(
      readThreadMemoryConfig({ SESSION_BACKEND: ' KV ', KV_URL: 'redis://kv:6379', LLM_HISTORY_MESSAGES: '12' }),
    ).toEqual({ sessionBackend: 'kv', sessionKvUrl: 'redis://kv:6379', llmHistoryMessages: 12, kvKeyPrefix: 'fw:' });
    expect(
      readThreadMemoryConfig({ SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://a:1', KV_URL: 'redis://b:2' }).sessionKvUrl,
    ).toBe('redis://a:1');
  });

  it('names every bad variable in one ConfigError', () => {
    const error = (() => {
      try {
        readThreadMemoryConfig({ SESSION_BACKEND: 'disk', LLM_HISTORY_MESSAGES: '-3' });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable).sort()).toEqual(['LLM_HISTORY_MESSAGES', 'SESSION_BACKEND']);
    expect(() => readThreadMemoryConfig({ SESSION_BACKEND: 'kv' })).toThrow(/SESSION_KV_URL/);
  });
});

describe('the default thread memory', () => {
  afterEach(() => {
    setDefaultThreadMemory(undefined);
    vi.unstubAllEnvs();
  });

  it('is built from the environment at first use, not at import, then reused', () => {
    vi.stubEnv('SESSION_BACKEND', 'not-a-backend');
    expect(() => getDefaultThreadMemory()).toThrow(ConfigError);
    vi.stubEnv('SESSION_BACKEND', 'memory');
    vi.stubEnv('LLM_HISTORY_MESSAGES', '5');
    const memory = getDefaultThreadMemory();
    expect(memory.backend).toBe('memory');
    expect(memory.maxMessages).toBe(5);
    expect(getDefaultThreadMemory()).toBe(memory);
  });

  it('builds a kv memory from SESSION_BACKEND=kv and KV_URL, closed when replaced', async () => {
    vi.stubEnv('SESSION_BACKEND', 'kv');
    vi.stubEnv('SESSION_KV_URL', '');
    vi.stubEnv('KV_URL', 'redis://127.0.0.1:6379');
    const memory = getDefaultThreadMemory();
    expect(memory).toBeInstanceOf(KvThreadMemory);
    const close = vi.spyOn(memory, 'close');
    setDefaultThreadMemory(undefined);
    expect(close).toHaveBeenCalledOnce();
  });

  it('setDefaultThreadMemory installs a host-owned memory and never closes it', () => {
    const owned = new MemoryThreadMemory({ maxMessages: 3 });
    const close = vi.spyOn(owned, 'close');
    setDefaultThreadMemory(owned);
    expect(getDefaultThreadMemory()).toBe(owned);
    setDefaultThreadMemory(undefined);
    expect(close).not.toHaveBeenCalled();
  });
});
