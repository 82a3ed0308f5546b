import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';
import type { SessionStore } from '../../runtime/sessions/session-store.js';
import { deleteKeys } from '../support/redis-keys.js';

// The contract both backends share. Backend-specific checks live in their own files.

const REDIS_URL = 'redis://127.0.0.1:6379';
const prefix = `fwtest:${randomUUID()}:`;
const opened: SessionStore[] = [];

interface Backend {
  name: 'memory' | 'kv';
  location: string;
  create(options: { ttlSeconds: number }): SessionStore;
  /** Lets `ms` pass for the store: a fake clock for memory, real time for Redis expiry. */
  elapse(ms: number): Promise<void>;
}

let clock = Date.now();
const backends: Backend[] = [
  {
    name: 'memory',
    location: 'memory',
    create: ({ ttlSeconds }) => new InProcessSessionStore({ ttlSeconds, now: () => clock }),
    elapse: async (ms) => {
      clock += ms;
    },
  },
  {
    name: 'kv',
    location: REDIS_URL,
    create: ({ ttlSeconds }) => new KvSessionStore({ url: REDIS_URL, ttlSeconds, keyPrefix: prefix }),
    elapse: (ms) => sleep(ms),
  },
];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

afterAll(async () => {
  const admin = new Redis(REDIS_URL);
  await deleteKeys(admin, prefix);
  await admin.quit();
});

describe.each(backends)('SessionStore contract ($name)', (backend) => {
  const open = (ttlSeconds = 60): SessionStore => {
    const store = backend.create({ ttlSeconds });
    opened.push(store);
    return store;
  };

  it('describes itself', () => {
    const store = open(42);
    expect(store.backend).toBe(backend.name);
    expect(store.location).toBe(backend.location);
    expect(store.ttlSeconds).toBe(42);
  });

  it('starts a session that resolves to the same context id', async () => {
    const store = open();
    const started = await store.start();
    expect(started.contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.expiresAt - started.createdAt).toBe(60_000);
    expect(await store.resolve(started.token)).toEqual({
      contextId: started.contextId,
      createdAt: started.createdAt,
      expiresAt: started.expiresAt,
    });

    const bound = await store.start({ contextId: 'ctx-given' });
    expect((await store.resolve(bound.token))?.contextId).toBe('ctx-given');
    expect(bound.token).not.toBe(started.token);
  });

  it('issues base64url tokens of at least 256 bits', async () => {
    const store = open();
    const { token } = await store.start();
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(32);
  });

  it('treats unknown and malformed tokens as unknown', async () => {
    const store = open();
    const { token } = await store.start();
    expect(await store.resolve(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(await store.resolve('')).toBeUndefined();
    expect(await store.resolve('x'.repeat(100_000))).toBeUndefined();
    expect(await store.resolve(`${token} `)).toBeUndefined();
  });

  it('expires a session after its TTL', async () => {
    const store = open(1);
    const { token } = await store.start();
    expect(await store.resolve(token)).toBeDefined();
    await backend.elapse(1100);
    expect(await store.resolve(token)).toBeUndefined();
  });

  it('returns {} for a context never written', async () => {
    expect(await open().getContext(randomUUID())).toEqual({});
  });

  it('merges updates key by key; undefined removes a key', async () => {
    const store = open();
    const id = randomUUID();
    expect(await store.updateContext(id, { a: 1, b: { nested: ['x'] } })).toEqual({ a: 1, b: { nested: ['x'] } });
    expect(await store.updateContext(id, { c: 'three', a: 2 })).toEqual({ a: 2, b: { nested: ['x'] }, c: 'three' });
    expect(await store.updateContext(id, { b: undefined, missing: undefined })).toEqual({ a: 2, c: 'three' });
    expect(await store.getContext(id)).toEqual({ a: 2, c: 'three' });
    expect(await store.updateContext(id, { a: undefined, c: undefined })).toEqual({});
    expect(await store.getContext(id)).toEqual({});
  });

  it('stores values in their JSON form, and __proto__ as a plain key', async () => {
    const store = open();
    const id = randomUUID();
    const when = new Date('2024-01-02T03:04:05.000Z');
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "when": null}') as Record<string, unknown>;
    patch.when = when;
    const merged = await store.updateContext(id, patch);
    expect(merged.when).toBe('2024-01-02T03:04:05.000Z');
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged).sort()).toEqual(['__proto__', 'when']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(await store.getContext(id)).sort()).toEqual(['__proto__', 'when']);
  });

  it('hands out copies that callers cannot use to change stored state', async () => {
    const store = open();
    const id = randomUUID();
    const patch = { list: [1, 2], obj: { k: 'v' } };
    const merged = await store.updateContext(id, patch);
    patch.list.push(3);
    merged.extra = true;
    (merged.obj as Record<string, unknown>).k = 'changed';
    const first = await store.getContext(id);
    first.more = 1;
    (first.list as number[]).push(99);
    expect(await store.getContext(id)).toEqual({ list: [1, 2], obj: { k: 'v' } });
  });

  it('keeps every one of 50 concurrent updates of different keys', async () => {
    const store = open();
    const id = randomUUID();
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.updateContext(id, { [`key${i}`]: i })));
    const context = await store.getContext(id);
    expect(Object.keys(context)).toHaveLength(50);
    for (let i = 0; i < 50; i++) expect(context[`key${i}`]).toBe(i);
  });

  it('expires a context after TTL of inactivity; an update refreshes it', async () => {
    const store = open(1);
    const id = randomUUID();
    await store.updateContext(id, { a: 1 });
    await backend.elapse(600);
    await store.updateContext(id, { b: 2 });
    await backend.elapse(600);
    expect(await store.getContext(id)).toEqual({ a: 1, b: 2 });
    await backend.elapse(1100);
    expect(await store.getContext(id)).toEqual({});
  });

  it('remembers conversation fingerprints', async () => {
    const store = open();
    const fingerprint = `fp-${randomUUID()}`;
    expect(await store.findConversation(fingerprint)).toBeUndefined();
    await store.rememberConversation(fingerprint, 'ctx-1');
    expect(await store.findConversation(fingerprint)).toBe('ctx-1');
    await store.rememberConversation(fingerprint, 'ctx-2');
    expect(await store.findConversation(fingerprint)).toBe('ctx-2');
    expect(await store.findConversation(`fp-${randomUUID()}`)).toBeUndefined();
  });

  it('forgets fingerprints after the TTL', async () => {
    const store = open(1);
    const fingerprint = `fp-${randomUUID()}`;
    await store.rememberConversation(fingerprint, 'ctx-1');
    await backend.elapse(1100);
    expect(await store.findConversation(fingerprint)).toBeUndefined();
  });
});
