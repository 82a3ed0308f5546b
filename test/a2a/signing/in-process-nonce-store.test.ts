import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../runtime/core/errors/store-unavailable-error.js';
import { InProcessNonceStore } from '../../../runtime/a2a/signing/in-process-nonce-store.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('InProcessNonceStore', () => {
  it('claims a nonce once per key within its TTL', async () => {
    const store = new InProcessNonceStore();
    expect(await store.claim('k1', 'nonce-aaaaaaaaaaaa', 60)).toBe(true);
    expect(await store.claim('k1', 'nonce-aaaaaaaaaaaa', 60)).toBe(false);
    expect(await store.claim('k2', 'nonce-aaaaaaaaaaaa', 60)).toBe(true);
    // No collision between ("a:b", "c") and ("a", "b:c").
    expect(await store.claim('a:b', 'c', 60)).toBe(true);
    expect(await store.claim('a', 'b:c', 60)).toBe(true);
  });

  it('forgets a nonce after its TTL, not before', async () => {
    const time = clock();
    const store = new InProcessNonceStore({ now: time.now });
    expect(await store.claim('k', 'n', 10)).toBe(true);
    time.advance(10_000);
    expect(await store.claim('k', 'n', 10)).toBe(false);
    time.advance(1);
    expect(await store.claim('k', 'n', 10)).toBe(true);
  });

  it('sweeps expired nonces lazily, so memory stays bounded', async () => {
    const time = clock();
    const store = new InProcessNonceStore({ now: time.now, maxEntries: 100 });
    for (let i = 0; i < 1_000; i++) {
      expect(await store.claim('k', `n${i}`, 1)).toBe(true);
      time.advance(50);
    }
    expect(store.size).toBeLessThanOrEqual(21);
  });

  it('fails closed when full of unexpired nonces instead of evicting one', async () => {
    const time = clock();
    const store = new InProcessNonceStore({ now: time.now, maxEntries: 3 });
    for (const n of ['a', 'b', 'c']) expect(await store.claim('k', n, 60)).toBe(true);
    const error = await store.claim('k', 'd', 60).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).code).toBe('store_unavailable');
    expect((error as Error).message).toMatch(/too many signed requests in the replay window/);
    // Nothing was evicted: every claimed nonce still reads as a replay.
    for (const n of ['a', 'b', 'c']) expect(await store.claim('k', n, 60)).toBe(false);
    // Once they expire there is room again.
    time.advance(60_001);
    expect(await store.claim('k', 'd', 60)).toBe(true);
  });

  it('finds expired entries behind a longer-lived one when full', async () => {
    const time = clock();
    const store = new InProcessNonceStore({ now: time.now, maxEntries: 2 });
    expect(await store.claim('k', 'long', 600)).toBe(true);
    expect(await store.claim('k', 'short', 1)).toBe(true);
    time.advance(2_000);
    expect(await store.claim('k', 'next', 1)).toBe(true);
    expect(await store.claim('k', 'long', 600)).toBe(false);
  });

  it('refuses a TTL that is not positive', async () => {
    const store = new InProcessNonceStore();
    await expect(store.claim('k', 'n', 0)).rejects.toThrow(TypeError);
    expect(() => new InProcessNonceStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});
