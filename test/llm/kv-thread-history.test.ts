import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../runtime/core/errors/store-unavailable-error.js';
import { KvThreadHistory } from '../../runtime/llm/kv-thread-history.js';
import type { ChatMessage } from '../../runtime/llm/thread-history.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('KvThreadHistory on a real Redis', () => {
  const prefix = `fw-test-${randomUUID()}:`;
  let admin: Redis;
  const opened: KvThreadHistory[] = [];
  const open = (options: Partial<ConstructorParameters<typeof KvThreadHistory>[0]> = {}) => {
    const memory = new KvThreadHistory({ url: REDIS_URL, maxMessages: 10, keyPrefix: prefix, ...options });
    opened.push(memory);
    return memory;
  };

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((m) => m.close()));
  });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it('stores a thread as a Redis list under <prefix>thread:<id>', async () => {
    const memory = open();
    expect(memory.backend).toBe('kv');
    await memory.append('t1', [user('hi'), assistant('hello')]);
    expect(await admin.lrange(`${prefix}thread:t1`, 0, -1)).toEqual([JSON.stringify(user('hi')), JSON.stringify(assistant('hello'))]);
    expect(await memory.load('t1')).toEqual([user('hi'), assistant('hello')]);
    expect(await memory.load('never-seen')).toEqual([]);
  });

  it('survives a restart: a new instance on the same Redis sees the history', async () => {
    const first = open();
    await first.append('restart', [user('my name is Ada'), assistant('Hi Ada')]);
    await first.close();
    const second = open();
    expect(await second.load('restart')).toEqual([user('my name is Ada'), assistant('Hi Ada')]);
  });

  it('keeps only the last maxMessages and sets the TTL on every append', async () => {
    const memory = open({ maxMessages: 3, ttlSeconds: 120 });
    for (let i = 1; i <= 5; i++) await memory.append('capped', [user(String(i))]);
    expect((await memory.load('capped')).map((m) => m.content)).toEqual(['3', '4', '5']);
    expect(await admin.llen(`${prefix}thread:capped`)).toBe(3);
    const ttl = await admin.ttl(`${prefix}thread:capped`);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('uses a 7-day TTL by default', async () => {
    const memory = open();
    await memory.append('ttl-default', [user('x')]);
    expect(await admin.ttl(`${prefix}thread:ttl-default`)).toBeGreaterThan(7 * 24 * 3600 - 10);
  });

  it('skips corrupt entries instead of failing', async () => {
    const memory = open();
    const key = `${prefix}thread:corrupt`;
    await admin.rpush(key, JSON.stringify(user('good 1')), '{not json', JSON.stringify({ role: 'robot', content: 1 }), JSON.stringify(assistant('good 2')));
    expect(await memory.load('corrupt')).toEqual([user('good 1'), assistant('good 2')]);
  });

  it('stores and loads tool calls and tool results, dropping keys outside the message shape', async () => {
    const memory = open();
    const call: ChatMessage = { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'lookup', arguments: { word: 'agent', n: [1, 2] } }] };
    const result: ChatMessage = { role: 'tool', content: '{"found":true}', tool_call_id: 'c1', name: 'lookup' };
    await memory.append('tools', [user('define agent'), call, { ...result, extra: 'not stored' } as ChatMessage, assistant('An agent is...')]);
    expect(JSON.parse((await admin.lindex(`${prefix}thread:tools`, 2))!)).toEqual(result);
    expect(await open().load('tools')).toEqual([user('define agent'), call, result, assistant('An agent is...')]);
  });

  it('skips stored tool entries of the wrong shape', async () => {
    const memory = open();
    const key = `${prefix}thread:bad-tools`;
    await admin.rpush(
      key,
      JSON.stringify({ role: 'assistant', content: '', tool_calls: [{ id: 1, name: 'x' }] }),
      JSON.stringify({ role: 'tool', content: 'ok', tool_call_id: 7 }),
      JSON.stringify({ role: 'tool', content: 'ok', tool_call_id: 'c', name: 'x' }),
    );
    expect(await memory.load('bad-tools')).toEqual([{ role: 'tool', content: 'ok', tool_call_id: 'c', name: 'x' }]);
  });

  it('clear() deletes the thread', async () => {
    const memory = open();
    await memory.append('gone', [user('x')]);
    await memory.clear('gone');
    expect(await memory.load('gone')).toEqual([]);
    expect(await admin.exists(`${prefix}thread:gone`)).toBe(0);
  });

  it('leaves a caller-owned client open on close()', async () => {
    const client = new Redis(REDIS_URL);
    try {
      const memory = new KvThreadHistory({ client, maxMessages: 4, keyPrefix: prefix });
      await memory.append('owned', [user('x')]);
      await memory.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });

  it('rejects with StoreUnavailableError when Redis cannot be reached, without the password', async () => {
    const memory = open({ url: 'redis://:s3cret@127.0.0.1:1' });
    const error = await memory.load('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).code).toBe('store_unavailable');
    expect((error as Error).message).toContain('127.0.0.1:1');
    expect((error as Error).message).not.toContain('s3cret');
    await expect(memory.append('t', [user('x')])).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('needs a url or a client', () => {
    expect(() => new KvThreadHistory({ maxMessages: 4 })).toThrow(/url/);
  });
});
