import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { completeRecord, LongTermRecordInputSchema } from '../../runtime/memory/memory-records.js';
import { privateRedis } from './support.js';

// Replicas of one store keep their caches current without a Redis call per
// search (change-notices.ts): a replica holding its read lease searches its
// cache as it is, and a write is acknowledged only once every replica with a
// lease has heard of it. These tests check what that must never break: a
// search that starts after a write was acknowledged on another replica sees
// it. A private Redis, so that MONITOR shows this file's commands only.

const redis = privateRedis();
const stores: KvMemoryStore[] = [];
let admin: Redis;
let monitor: Awaited<ReturnType<Redis['monitor']>>;
/** Commands sent by clients (not run inside scripts), as MONITOR shows them. */
const sent: string[][] = [];
beforeAll(async () => {
  admin = new Redis(redis().url);
  monitor = await admin.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') sent.push(args);
  });
});
afterAll(async () => {
  for (const store of stores) await store.close();
  monitor.disconnect();
  admin.disconnect();
});

const DIM = 8;
/** A unit-ish vector of its own for each seed: searching it finds its record first. */
const vector = (seed: number) => Array.from({ length: DIM }, (_, i) => Math.sin(seed * 1.7 + i * 0.9) + (i === seed % DIM ? 3 : 0));
const record = (id: string) => completeRecord({ record: LongTermRecordInputSchema.parse({ id, text: `memory ${id}` }), at: new Date().toISOString() });
const nearest = async (store: KvMemoryStore, seed: number) =>
  (await store.search({ vector: vector(seed), filters: {}, limit: 1, offset: 0 })).hits[0]?.record.id;

function open(keyPrefix: string): KvMemoryStore {
  const store = new KvMemoryStore({ url: redis().url, keyPrefix, embeddingModel: 'test-8' });
  stores.push(store);
  return store;
}

/** Reads of the change counter (`meta`) that clients sent while `action` ran (a PING brackets them: MONITOR is asynchronous). */
async function counterReads(keyPrefix: string, action: () => Promise<void>): Promise<number> {
  const mark = async (name: string) => {
    await admin.echo(name);
    await expect.poll(() => sent.some((args) => args[0] === 'echo' && args[1] === name)).toBe(true);
    return sent.findIndex((args) => args[0] === 'echo' && args[1] === name);
  };
  const from = await mark(`${keyPrefix}from:${Math.random()}`);
  await action();
  const to = await mark(`${keyPrefix}to:${Math.random()}`);
  return sent.slice(from, to).filter((args) => args[0] === 'hmget' && args[1] === `${keyPrefix}mem:meta`).length;
}

describe('replicas kept current by change notices and read leases', () => {
  it('a replica holding its lease searches with no Redis call, and a write acknowledged on another replica is in its very next search', async () => {
    const keyPrefix = 'leases:';
    const a = open(keyPrefix);
    const b = open(keyPrefix);
    await a.putRecords({ records: [0, 1, 2].map((i) => ({ record: record(`base${i}`), vector: vector(i) })), deduplicate: false });
    expect(await nearest(b, 1)).toBe('base1');
    // Once its lease holds (renewed every half second), B's searches ask Redis nothing.
    await expect.poll(() => counterReads(keyPrefix, async () => void (await nearest(b, 2))), { timeout: 5000, interval: 100 }).toBe(0);
    expect(await counterReads(keyPrefix, async () => void (await Promise.all([0, 1, 2, 0, 1, 2].map((i) => nearest(b, i)))))).toBe(0);

    // The race: each write (on either replica) is searched for on the other at once, before any timer or I/O of its own.
    for (let i = 0; i < 40; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const seed = 10 + i;
      await writer.putRecords({ records: [{ record: record(`w${i}`), vector: vector(seed) }], deduplicate: false });
      expect(await nearest(reader, seed)).toBe(`w${i}`);
      if (i % 4 === 3) {
        await reader.deleteRecords([`w${i}`]);
        expect(await nearest(writer, seed)).not.toBe(`w${i}`);
      }
    }
  });

  it('a replica whose subscriber connection dropped trusts no lease until it is renewed, and misses no write made meanwhile', async () => {
    const keyPrefix = 'dropped:';
    const a = open(keyPrefix);
    const b = open(keyPrefix);
    await a.putRecords({ records: [{ record: record('d0'), vector: vector(0) }], deduplicate: false });
    expect(await nearest(b, 0)).toBe('d0');
    await expect.poll(() => counterReads(keyPrefix, async () => void (await nearest(b, 0))), { timeout: 5000, interval: 100 }).toBe(0);
    for (let i = 1; i <= 3; i++) {
      // Every subscriber connection goes (the notice of the write below may be lost); they reconnect by themselves.
      await admin.client('KILL', 'TYPE', 'pubsub');
      await a.putRecords({ records: [{ record: record(`d${i}`), vector: vector(i) }], deduplicate: false });
      expect(await nearest(b, i)).toBe(`d${i}`);
    }
  });

  it('a replica gone without giving its lease back delays writes until that lease runs out, no longer', async () => {
    const keyPrefix = 'ghost:';
    const a = open(keyPrefix);
    const b = open(keyPrefix);
    await a.putRecords({ records: [{ record: record('g0'), vector: vector(0) }], deduplicate: false });
    expect(await nearest(b, 0)).toBe('g0');
    // A lease of a replica that will never answer, as a crashed process leaves it (expiry by Redis's clock).
    const [seconds] = await admin.time();
    await admin.hset(`${keyPrefix}mem:readers`, 'ghost', String(Number(seconds) * 1000 + 1500));
    await a.putRecords({ records: [{ record: record('g1'), vector: vector(1) }], deduplicate: false });
    expect(await nearest(b, 1)).toBe('g1');
    // Run-out leases are dropped at the next renewal; a closed replica gives its own back.
    await expect.poll(() => admin.hexists(`${keyPrefix}mem:readers`, 'ghost'), { timeout: 5000 }).toBe(0);
    await expect.poll(() => admin.hlen(`${keyPrefix}mem:readers`), { timeout: 5000 }).toBe(2);
    await b.close();
    expect(await admin.hlen(`${keyPrefix}mem:readers`)).toBe(1);
  });
});
