import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { createSessionStore } from '../../runtime/sessions/create-session-store.js';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';

describe('createSessionStore', () => {
  it('builds a memory store', async () => {
    const store = createSessionStore({ sessionBackend: 'memory', sessionKvUrl: undefined, sessionTtlSeconds: 120 });
    expect(store).toBeInstanceOf(InProcessSessionStore);
    expect(store.backend).toBe('memory');
    expect(store.ttlSeconds).toBe(120);
    await store.close();
  });

  it('builds a kv store on the configured Redis', async () => {
    const store = createSessionStore({
      sessionBackend: 'kv',
      sessionKvUrl: 'redis://127.0.0.1:6379',
      sessionTtlSeconds: 120,
    });
    expect(store).toBeInstanceOf(KvSessionStore);
    expect(store.backend).toBe('kv');
    expect(store.location).toBe('redis://127.0.0.1:6379');
    // A read only: this store writes under the default prefix, shared with other users of this Redis.
    expect(await store.findConversation(`absent-${Date.now()}`)).toBeUndefined();
    await store.close();
  });

  it('names the missing variable when kv has no URL', () => {
    const build = () => createSessionStore({ sessionBackend: 'kv', sessionKvUrl: undefined, sessionTtlSeconds: 60 });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/SESSION_KV_URL/);
  });
});
