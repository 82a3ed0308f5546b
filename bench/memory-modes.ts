/**
 * System memory search modes and session lookups (issue 24), in process
 * (`SystemMemory`, no HTTP) over the real Redis at KV_URL on a key prefix of
 * its own that is deleted afterwards:
 *
 * - semantic, keyword (BM25, MiniSearch) and hybrid search, p50/p99 over
 *   200 queries, limit 10, recency re-ranking on (AMS's default) and off;
 * - the first keyword search after a write of 1 record (the index catching up);
 * - a session found by its id alone, and a page of the session list.
 *
 *   npm run bench:memory-modes     (BENCH_MEMORY_MODES_SIZES=1000,10000 by default)
 *
 * Texts are 8 words drawn from a 2,000-word vocabulary; vectors come from a
 * hash of the text (a fixed embedder), so the figures are the store's and the
 * ranking's, not the model's. Prints figures; asserts nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Embedder } from '../runtime/llm/embedder.js';
import { CreateMemoriesRequestSchema } from '../runtime/memory/memory-responses.js';
import { KvMemoryStore } from '../runtime/memory/kv-memory-store.js';
import { SearchRequestSchema } from '../runtime/memory/memory-search.js';
import { SystemMemory } from '../runtime/memory/system-memory.js';
import { WorkingMemoryUpdateSchema } from '../runtime/memory/working-memory.js';
import { percentile } from './support/clustered-vectors.js';
import { deletePrefix } from './support/redis-prefix.js';

const KV_URL = process.env.KV_URL ?? 'redis://127.0.0.1:6379';
const SIZES = (process.env.BENCH_MEMORY_MODES_SIZES ?? '1000,10000').split(',').map(Number);
const QUERIES = 200;
const DIM = 384;

/** A deterministic unit-less vector from the text's hash: no model in the measurement. */
class HashEmbedder implements Embedder {
  readonly model = 'bench-hash-384';
  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((text) => {
      const out: number[] = [];
      let block = createHash('sha256').update(text).digest();
      while (out.length < DIM) {
        for (const byte of block) out.push(byte / 255 - 0.5);
        block = createHash('sha256').update(block).digest();
      }
      return out.slice(0, DIM);
    });
  }
}

let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const VOCABULARY = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}`);
const sentence = (words = 8) => Array.from({ length: words }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(' ');

async function timed(runs: number, work: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

async function main(): Promise<void> {
  console.log(
    '| Memories | semantic p50 / p99 | keyword p50 / p99 | hybrid p50 / p99 | semantic, no recency p50 | keyword after 1 write | session by id alone | session list page (20) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const size of SIZES) {
    const prefix = `bench-modes-${randomUUID()}:`;
    const store = new KvMemoryStore({ url: KV_URL, keyPrefix: prefix, embeddingModel: 'bench-hash-384' });
    const memory = new SystemMemory({ store, embedder: new HashEmbedder() });
    try {
      for (let at = 0; at < size; at += 500) {
        const memories = Array.from({ length: Math.min(500, size - at) }, (_, i) => ({ id: `m${at + i}`, text: sentence(), namespace: `ns${(at + i) % 10}` }));
        await memory.createMemories(CreateMemoriesRequestSchema.parse({ memories, deduplicate: false }));
      }
      for (let i = 0; i < 200; i++) {
        await memory.putWorkingMemory({
          sessionId: `s${i}`,
          userId: `u${i % 7}`,
          namespace: 'bench',
          update: WorkingMemoryUpdateSchema.parse({ messages: [{ role: 'user', content: 'hi' }] }),
        });
      }
      const queries = Array.from({ length: QUERIES }, () => sentence(3));
      const run = (mode: string, extra: Record<string, unknown> = {}) => {
        let i = 0;
        return timed(QUERIES, () => memory.search(SearchRequestSchema.parse({ text: queries[i++ % QUERIES], search_mode: mode, limit: 10, ...extra })));
      };
      await run('keyword'); // the first keyword search builds the index
      const semantic = await run('semantic');
      const keyword = await run('keyword');
      const hybrid = await run('hybrid');
      const plain = await run('semantic', { recency_boost: false });
      const afterWrite = await timed(20, async () => {
        await memory.createMemories(CreateMemoriesRequestSchema.parse({ memories: [{ id: randomUUID(), text: sentence() }] }));
        await memory.search(SearchRequestSchema.parse({ text: sentence(3), search_mode: 'keyword', limit: 10 }));
      });
      let s = 0;
      const byId = await timed(200, () => memory.getWorkingMemory({ sessionId: `s${s++ % 200}` }));
      const list = await timed(50, () => memory.listSessions({ namespace: 'bench', limit: 20, offset: 40 }));
      console.log(
        `| ${size.toLocaleString('en')} | ${ms(semantic.p50)} / ${ms(semantic.p99)} | ${ms(keyword.p50)} / ${ms(keyword.p99)} | ${ms(hybrid.p50)} / ${ms(hybrid.p99)} | ${ms(plain.p50)} | ${ms(afterWrite.p50)} (write included) | ${ms(byId.p50)} | ${ms(list.p50)} (200 sessions) |`,
      );
    } finally {
      await store.close();
      await deletePrefix(KV_URL, prefix);
    }
  }
}

await main();
