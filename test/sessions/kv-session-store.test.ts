import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { StoreUnavailableError } from '../../runtime/core/errors/store-unavailable-error.js';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import { hashToken } from '../../runtime/sessions/tokens.js';
import { freePort } from '../support/redis-process.js';
import { scanKeys } from '../support/redis-keys.js';
import { redisScope, REDIS_URL } from '../support/redis-scope.js';

const { prefix, admin, track } = redisScope();

function open(options: { ttlSeconds?: number } = {}): KvSessionStore {
  return track(new KvSessionStore({ url: REDIS_URL, ttlSeconds: options.ttlSeconds ?? 60, keyPrefix: prefix }));
}

describe('KvSessionStore', () => {
  it('keeps only token hashes: the plain token is nowhere in the keyspace', async () => {
    const store = open();
    const started = await Promise.all([store.start(), store.start(), store.start({ contextId: 'c' })]);
    await store.updateContext('c', { note: 'hello' });
    await store.rememberConversation('fp', 'c');
    const keys = await scanKeys(admin(), prefix);
    expect(keys).toContain(`${prefix}session:${hashToken(started[0]!.token)}`);
    const stored: string[] = [];
    for (const key of keys) {
      const type = await admin().type(key);
      if (type === 'string') stored.push(key, (await admin().get(key)) ?? '');
      else if (type === 'zset') stored.push(key, ...(await admin().zrange(key, 0, -1)));
      else stored.push(key, ...Object.entries(await admin().hgetall(key)).flat());
    }
    for (const { token } of started) {
      for (const text of stored) expect(text).not.toContain(token);
    }
  });

  it('lays out keys with the prefix and lets Redis expire them', async () => {
    const store = open({ ttlSeconds: 1 });
    const { token, contextId } = await store.start();
    const sessionKey = `${prefix}session:${hashToken(token)}`;
    await store.updateContext(contextId, { a: 1 });
    await store.rememberConversation('fp-expiry', contextId);

    for (const key of [sessionKey, `${prefix}context:${contextId}`, `${prefix}conv:fp-expiry`, `${prefix}index:sessions`]) {
      const pttl = await admin().pttl(key);
      expect(pttl, key).toBeGreaterThan(0);
      expect(pttl, key).toBeLessThanOrEqual(1000);
    }
    expect(await admin().type(`${prefix}context:${contextId}`)).toBe('hash');
    expect(await admin().hget(`${prefix}context:${contextId}`, 'a')).toBe('1');
    expect(await store.resolve(token)).toBeDefined();

    await sleep(1100);
    expect(await admin().exists(sessionKey)).toBe(0);
    expect(await store.resolve(token)).toBeUndefined();
  });

  it('answers each of the lookups sent in one turn (one write to Redis) with its own session, and reads Redis every time', async () => {
    const store = open();
    const started = await Promise.all(Array.from({ length: 40 }, () => store.start()));
    const lookups = [...started.map((s) => s.token), 'x'.repeat(43), `${started[0]!.token}A`];
    const resolved = await Promise.all(lookups.map((token) => store.resolve(token)));
    expect(resolved.map((s) => s?.contextId)).toEqual([...started.map((s) => s.contextId), undefined, undefined]);
    // A session removed from Redis (revoked by an operator, or expired) is refused by the very next lookup: nothing is cached.
    await admin().del(`${prefix}session:${hashToken(started[1]!.token)}`);
    const again = await Promise.all([store.resolve(started[0]!.token), store.resolve(started[1]!.token), store.resolve(started[2]!.token)]);
    expect(again.map((s) => s?.contextId)).toEqual([started[0]!.contextId, undefined, started[2]!.contextId]);
  });

  it('treats a corrupt session as unknown and a corrupt context field as absent', async () => {
    const store = open();
    const { token } = await store.start();
    const sessionKey = `${prefix}session:${hashToken(token)}`;
    await admin().set(sessionKey, '{not json', 'EX', 60);
    expect(await store.resolve(token)).toBeUndefined();
    await admin().set(sessionKey, JSON.stringify({ contextId: 42 }), 'EX', 60);
    expect(await store.resolve(token)).toBeUndefined();
    // Hostile records: a number JSON cannot hold, a wrong type, a stolen prototype; extra keys are dropped.
    const later = Date.now() + 60_000;
    for (const hostile of [
      `{"contextId":"c","createdAt":1,"expiresAt":1e999}`,
      `{"contextId":"c","createdAt":1,"expiresAt":"${later}"}`,
      `{"__proto__":{"contextId":"c"},"createdAt":1,"expiresAt":${later}}`,
      `[{"contextId":"c","createdAt":1,"expiresAt":${later}}]`,
    ]) {
      await admin().set(sessionKey, hostile, 'EX', 60);
      expect(await store.resolve(token), hostile).toBeUndefined();
    }
    await admin().set(sessionKey, `{"contextId":"c","createdAt":1,"expiresAt":${later},"admin":true}`, 'EX', 60);
    expect(await store.resolve(token)).toStrictEqual({ contextId: 'c', createdAt: 1, expiresAt: later });

    const id = randomUUID();
    await store.updateContext(id, { good: 'yes' });
    await admin().hset(`${prefix}context:${id}`, 'bad', '{oops');
    expect(await store.getContext(id)).toEqual({ good: 'yes' });
    expect(await store.updateContext(id, { more: 1 })).toEqual({ good: 'yes', more: 1 });
    expect(await store.updateContext(id, { bad: 'fixed' })).toEqual({ good: 'yes', more: 1, bad: 'fixed' });
  });

  it('rejects a value JSON cannot encode without touching the store', async () => {
    const store = open();
    const id = randomUUID();
    await expect(store.updateContext(id, { n: 1n })).rejects.toThrow(TypeError);
    expect(await admin().exists(`${prefix}context:${id}`)).toBe(0);
  });

  it('works from the first call, while the connection is still being made', async () => {
    const store = open();
    const { token, contextId } = await store.start();
    expect((await store.resolve(token))?.contextId).toBe(contextId);
  });

  it('uses a client it is given and leaves it open on close()', async () => {
    const client = new Redis(REDIS_URL);
    const store = new KvSessionStore({ client, ttlSeconds: 60, keyPrefix: prefix });
    expect(store.location).toBe(REDIS_URL);
    const { token, contextId } = await store.start();
    expect((await store.resolve(token))?.contextId).toBe(contextId);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });

  it('never shows a password in its location or errors', async () => {
    const port = await freePort(); // nothing listens there
    const store = new KvSessionStore({ url: `redis://user:s3cret@127.0.0.1:${port}`, ttlSeconds: 60 });
    track(store);
    expect(store.location).toBe(`redis://127.0.0.1:${port}`);
    const error = await store.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).code).toBe('store_unavailable');
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('refuses to start without a URL or client, or with a bad TTL', () => {
    expect(() => new KvSessionStore({ ttlSeconds: 60 })).toThrow(ConfigError);
    expect(() => new KvSessionStore({ url: REDIS_URL, ttlSeconds: 0 })).toThrow(ConfigError);
    expect(() => new KvSessionStore({ url: REDIS_URL, ttlSeconds: 1.5 })).toThrow(/SESSION_TTL or options.ttlSeconds/);
  });
});
