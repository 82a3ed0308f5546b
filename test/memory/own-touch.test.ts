import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { completeRecord, LongTermRecordInputSchema } from '../../runtime/memory/memory-records.js';
import { privateRedis } from './support.js';

// A search's recency touch (AMS's last_accessed update) is a change in Redis
// like any write. The process that made it applies it to its own cache at
// once, so its next search finds the cache current: no read of the change
// stream, no second search. Other replicas still get it from the stream.
// A private Redis, so that its command counts are this test's alone.

const redis = privateRedis();
const stores: KvMemoryStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

const DIM = 8;
const vector = (seed: number) => Array.from({ length: DIM }, (_, i) => Math.sin(seed * 3.1 + i * 0.7));
const record = (id: string, at: string) => completeRecord({ record: LongTermRecordInputSchema.parse({ id, text: `memory ${id}` }), at });

function open(): KvMemoryStore {
  const store = new KvMemoryStore({ url: redis().url, keyPrefix: 'touch:', embeddingModel: 'test-8' });
  stores.push(store);
  return store;
}

/** How many times the server ran XRANGE (the change stream read a sync makes). */
async function streamReads(): Promise<number> {
  const client = new Redis(redis().url);
  try {
    const stats = await client.info('commandstats');
    return Number(/cmdstat_xrange:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  } finally {
    client.disconnect();
  }
}

describe("a search's recency touch", () => {
  it('is applied to the toucher’s cache at once (its next search needs no sync) and reaches a replica through the change stream', async () => {
    const written = '2026-01-01T00:00:00.000Z';
    const store = open();
    await store.putRecords({ records: [1, 2, 3].map((i) => ({ record: record(`t${i}`, written), vector: vector(i) })), deduplicate: false });
    const search = (s: KvMemoryStore) => s.search({ vector: vector(1), filters: {}, limit: 3, offset: 0 });
    expect((await search(store)).hits).toHaveLength(3);

    const at = new Date().toISOString();
    expect(await store.touchRecords({ ids: ['t1', 't2'], at, minIntervalMs: 60_000 })).toBe(2);
    const before = await streamReads();
    const { hits } = await search(store);
    expect(Object.fromEntries(hits.map((h) => [h.record.id, h.record.last_accessed]))).toEqual({ t1: at, t2: at, t3: written });
    expect(hits.find((h) => h.record.id === 't1')!.record.access_count).toBe(1);
    expect(await streamReads()).toBe(before);

    // Touched again within the interval: nothing is written.
    expect(await store.touchRecords({ ids: ['t1'], at, minIntervalMs: 60_000 })).toBe(0);

    const replica = open();
    const seen = await search(replica);
    expect(seen.hits.find((h) => h.record.id === 't2')!.record.last_accessed).toBe(at);
  });
});
