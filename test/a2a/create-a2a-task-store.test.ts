import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2ATaskStore } from '../../runtime/a2a/create-a2a-task-store.js';
import { MemoryTaskStore } from '../../runtime/a2a/memory-task-store.js';
import { KvTaskStore } from '../../runtime/a2a/kv-task-store.js';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { StoreUnavailableError } from '../../runtime/core/errors/store-unavailable-error.js';
import { deleteKeys, scanKeys } from '../support/redis-keys.js';
import { makeTask, planner } from './task-fixtures.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `fwtest:${randomUUID()}:`;
let admin: Redis;

beforeAll(() => {
  admin = new Redis(REDIS_URL);
});

afterAll(async () => {
  await deleteKeys(admin, prefix);
  await admin.quit();
});

describe('createA2ATaskStore', () => {
  it('builds the bounded in-memory store for memory, with the session TTL, touching no Redis', async () => {
    const store = createA2ATaskStore({ sessionBackend: 'memory', kvKeyPrefix: prefix, sessionTtlSeconds: 60 });
    expect(store).toBeInstanceOf(MemoryTaskStore);
    expect((store as MemoryTaskStore).ttlSeconds).toBe(60);
    await store.save(makeTask({ id: 'mem' }), planner);
    expect((await store.load('mem', planner))?.id).toBe('mem');
    await store.close();
    expect(await scanKeys(admin, prefix)).toEqual([]);
  });

  it('builds a KvTaskStore on the configured Redis and closes its client', async () => {
    const store = createA2ATaskStore({ sessionBackend: 'kv', sessionKvUrl: REDIS_URL, kvKeyPrefix: prefix, sessionTtlSeconds: 60 });
    expect(store).toBeInstanceOf(KvTaskStore);
    expect((store as KvTaskStore).location).toBe(REDIS_URL);
    await store.save(makeTask({ id: 'kv' }), planner);
    expect(await admin.pttl(`${prefix}a2a:task::planner:kv`)).toBeLessThanOrEqual(60_000);
    expect((await store.load('kv', planner))?.id).toBe('kv');
    await store.close();
    const error = await store.load('kv', planner).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
  });

  it('names the missing variable when kv has no URL', () => {
    const build = () => createA2ATaskStore({ sessionBackend: 'kv', kvKeyPrefix: prefix, sessionTtlSeconds: 60 });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/SESSION_KV_URL/);
  });
});
