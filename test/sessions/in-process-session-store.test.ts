import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';

describe('InProcessSessionStore', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires at the fixed instant it reported, resolving not refreshing it', async () => {
    let clock = 1_000_000;
    const store = new InProcessSessionStore({ ttlSeconds: 1, now: () => clock });
    const { token, expiresAt } = await store.start();
    expect(expiresAt).toBe(1_001_000);
    clock = expiresAt;
    expect(await store.resolve(token)).toBeDefined();
    clock += 1;
    expect(await store.resolve(token)).toBeUndefined();
    expect(store.entryCounts().sessions).toBe(0);
    await store.close();
  });

  it('evicts the oldest entries beyond maxEntries', async () => {
    const store = new InProcessSessionStore({ ttlSeconds: 60, maxEntries: 2 });
    const [first, second, third] = [await store.start(), await store.start(), await store.start()];
    expect(await store.resolve(first.token)).toBeUndefined();
    expect(await store.resolve(second.token)).toBeDefined();
    expect(await store.resolve(third.token)).toBeDefined();

    await store.updateContext('a', { v: 1 });
    await store.updateContext('b', { v: 1 });
    await store.updateContext('a', { v: 2 }); // refreshed: now the youngest
    await store.updateContext('c', { v: 1 });
    expect(await store.getContext('a')).toEqual({ v: 2 });
    expect(await store.getContext('b')).toEqual({});

    for (const fp of ['x', 'y', 'z']) await store.rememberConversation(fp, `ctx-${fp}`);
    expect(await store.findConversation('x')).toBeUndefined();
    expect(await store.findConversation('z')).toBe('ctx-z');
    expect(store.entryCounts()).toEqual({ sessions: 2, contexts: 2, conversations: 2 });
    await store.close();
  });

  it('sweeps expired entries periodically and stops the timer on close()', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let clock = 1_000_000;
    const store = new InProcessSessionStore({ ttlSeconds: 1, now: () => clock });
    await store.start();
    await store.updateContext('ctx', { a: 1 });
    await store.rememberConversation('fp', 'ctx');
    expect(store.entryCounts()).toEqual({ sessions: 1, contexts: 1, conversations: 1 });

    clock += 1001;
    vi.advanceTimersByTime(1000);
    expect(store.entryCounts()).toEqual({ sessions: 0, contexts: 0, conversations: 0 });

    expect(vi.getTimerCount()).toBe(1);
    await store.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects a TTL that is not a positive whole number of seconds', () => {
    expect(() => new InProcessSessionStore({ ttlSeconds: 0 })).toThrow(ConfigError);
    expect(() => new InProcessSessionStore({ ttlSeconds: Number.NaN })).toThrow(ConfigError);
  });
});
