import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { deleteKeys } from './redis-keys.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A test file's share of the real Redis: a unique key prefix, an admin client
 * for assertions, and stores opened by the tests, closed after each test.
 * Every key under the prefix is deleted at the end.
 */
export function redisScope(): { prefix: string; admin: () => Redis; track: <T extends { close(): Promise<void> }>(store: T) => T } {
  const prefix = `fwtest:${randomUUID()}:`;
  const opened: { close(): Promise<void> }[] = [];
  let admin: Redis | undefined;
  beforeAll(() => {
    admin = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    if (!admin) return;
    await deleteKeys(admin, prefix);
    await admin.quit();
  });
  return {
    prefix,
    admin: () => {
      if (!admin) throw new Error('redisScope: the admin client exists only inside tests');
      return admin;
    },
    track: (store) => {
      opened.push(store);
      return store;
    },
  };
}
