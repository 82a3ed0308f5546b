import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { Logger } from '../../runtime/core/logger.js';
import { recordsToArrow } from '../../runtime/semantic/lance-rows.js';
import { LanceVectorStore } from '../../runtime/semantic/lance-vector-store.js';
import type { VectorRecord } from '../../runtime/semantic/vector-store.js';
import { prng } from '../../bench/support/seeded-random.js';

let dir: string;
let store: LanceVectorStore | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lance-store-'));
});

afterEach(async () => {
  await store?.close();
  store = undefined;
  await rm(dir, { recursive: true, force: true });
});

function doc(options: { id: string; vector: number[]; content?: string; metadata?: Record<string, string>; uri?: string }): VectorRecord {
  return { id: options.id, vector: options.vector, content: options.content ?? `content of ${options.id}`, metadata: options.metadata ?? {}, uri: options.uri ?? '' };
}


function unit(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

function recordingLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  const push = (message: string) => void messages.push(message);
  return { messages, debug: push, info: push, warn: push, error: push };
}

async function rejection(promise: Promise<unknown>): Promise<FrameworkError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!FrameworkError.isInstance(error)) throw new Error(`expected a FrameworkError, got ${String(error)}`);
  return error;
}

describe('LanceVectorStore', () => {
  it('stores and reads back records (round trip)', async () => {
    store = await LanceVectorStore.open({ dir });
    expect(store.kind).toBe('lancedb');
    expect(store.location).toBe(dir);
    expect(store.dimensions).toBeUndefined();
    expect(await store.ready()).toBe(true);
    expect(await store.count('documents')).toBe(0);
    expect(await store.search('documents', [1, 0, 0], { limit: 3 })).toEqual([]);

    await store.upsert('documents', [doc({ id: 'a', vector: [1, 0, 0], content: 'Alpha', metadata: { lang: 'en', source: 'a.md' } })]);
    await store.upsert('agent_cards', [doc({ id: 'weather', vector: [0, 1, 0], content: 'Weather agent', uri: 'file:///cards/weather.json' })]);

    expect(store.dimensions).toBe(3);
    expect(await store.get('documents', 'a')).toEqual({ id: 'a', content: 'Alpha', metadata: { lang: 'en', source: 'a.md' }, uri: '', hasVector: true });
    expect(await store.get('agent_cards', 'weather')).toMatchObject({ uri: 'file:///cards/weather.json', hasVector: true });
    expect(await store.get('documents', 'missing')).toBeUndefined();
    expect(await store.count('documents')).toBe(1);
    expect(await store.count('agent_cards')).toBe(1);
  });

  it('replaces by id: no duplicates across or within batches', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [doc({ id: 'a', vector: [1, 0], content: 'first' }), doc({ id: 'b', vector: [0, 1] })]);
    await store.upsert('documents', [doc({ id: 'a', vector: [0, 1], content: 'second', metadata: { v: '2' } })]);
    await store.upsert('documents', [doc({ id: 'c', vector: [1, 1], content: 'c1' }), doc({ id: 'c', vector: [1, 1], content: 'c2' })]);

    expect(await store.count('documents')).toBe(3);
    expect(await store.get('documents', 'a')).toMatchObject({ content: 'second', metadata: { v: '2' } });
    expect(await store.get('documents', 'c')).toMatchObject({ content: 'c2' });
    const [best] = await store.search('documents', [0, 1], { limit: 1 });
    expect(best?.score).toBeCloseTo(1, 5);
  });

  it('refuses invalid vectors, naming the record, and stores nothing of the batch', async () => {
    store = await LanceVectorStore.open({ dir });
    const bad: Array<[string, number[]]> = [
      ['empty', []],
      ['nan', [1, Number.NaN, 0]],
      ['zero', [0, 0, 0]],
      ['infinite', [1, Number.POSITIVE_INFINITY, 0]],
      ['float32-overflow', [1e39, 0, 0]],
    ];
    for (const [id, vector] of bad) {
      const error = await rejection(store.upsert('documents', [doc({ id: 'good', vector: [1, 0, 0] }), doc({ id, vector })]));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(`"${id}"`);
    }
    expect(await store.count('documents')).toBe(0);
    expect(store.dimensions).toBeUndefined();

    await store.upsert('documents', [doc({ id: 'good', vector: [1, 0, 0] })]);
    const wrong = await rejection(store.upsert('documents', [doc({ id: 'other', vector: [0, 1, 0] }), doc({ id: 'short', vector: [1, 0] })]));
    expect(wrong.code).toBe('invalid_request');
    expect(wrong.message).toContain('"short"');
    expect(wrong.message).toContain('3 long');
    expect(await store.count('documents')).toBe(1);
    expect(await store.get('documents', 'other')).toBeUndefined();

    expect((await rejection(store.search('documents', [0, 0, 0], { limit: 1 }))).code).toBe('invalid_request');
    expect((await rejection(store.search('documents', [1, 0], { limit: 1 }))).code).toBe('invalid_request');
    expect((await rejection(store.search('documents', [1, 0, 0], { limit: 0 }))).code).toBe('invalid_request');
  });

  it('ranks by cosine similarity, best first, with score = 1 - distance', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [
      doc({ id: 'opposite', vector: [-1, 0, 0] }),
      doc({ id: 'orthogonal', vector: [0, 1, 0] }),
      doc({ id: 'same-direction-longer', vector: [3, 0, 0] }),
      doc({ id: 'close', vector: [0.8, 0.6, 0] }),
      doc({ id: 'half', vector: [0.5, 0, Math.sqrt(0.75)] }),
    ]);
    const hits = await store.search('documents', [2, 0, 0], { limit: 5 });
    expect(hits.map((hit) => hit.id)).toEqual(['same-direction-longer', 'close', 'half', 'orthogonal', 'opposite']);
    const scores = hits.map((hit) => hit.score);
    [1, 0.8, 0.5, 0, -1].forEach((expected, i) => expect(scores[i]).toBeCloseTo(expected, 5));
    expect(hits[0]).toEqual({ id: 'same-direction-longer', content: 'content of same-direction-longer', metadata: {}, uri: '', score: expect.any(Number) });
    expect(await store.search('documents', [1, 0, 0], { limit: 2 })).toHaveLength(2);
  });

  it('filters on metadata pairs (ANDed), and a quote in a value cannot break out of the literal', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [
      doc({ id: 'en-faq', vector: [1, 0], metadata: { lang: 'en', kind: 'faq' } }),
      doc({ id: 'en-doc', vector: [0.9, 0.1], metadata: { lang: 'en', kind: 'doc' } }),
      doc({ id: 'fr-faq', vector: [1, 0.05], metadata: { lang: 'fr', kind: 'faq' } }),
      doc({ id: 'quoted', vector: [0, 1], metadata: { author: "O'Brien", path: 'C:\\docs\\a.md' } }),
      doc({ id: 'eq-key', vector: [0.5, 0.5], metadata: { 'a=b': 'c' } }),
    ]);
    const ids = async (filter: Record<string, string>) => (await store!.search('documents', [1, 0], { limit: 10, filter })).map((hit) => hit.id).sort();

    expect(await ids({ lang: 'en' })).toEqual(['en-doc', 'en-faq']);
    expect(await ids({ lang: 'en', kind: 'faq' })).toEqual(['en-faq']);
    expect(await ids({ kind: 'faq' })).toEqual(['en-faq', 'fr-faq']);
    expect(await ids({ lang: 'de' })).toEqual([]);
    expect(await ids({})).toHaveLength(5);
    expect(await ids({ author: "O'Brien" })).toEqual(['quoted']);
    expect(await ids({ path: 'C:\\docs\\a.md' })).toEqual(['quoted']);
    expect(await ids({ 'a=b': 'c' })).toEqual(['eq-key']);
    expect(await ids({ a: 'b=c' })).toEqual([]);
    // Attempts to end the literal and widen the predicate match nothing (and do not fail).
    expect(await ids({ lang: "en') OR true OR array_has(metadata_tags, 'x" })).toEqual([]);
    expect(await ids({ lang: "x' OR '1'='1" })).toEqual([]);
    expect(await ids({ "lang') OR true --": 'en' })).toEqual([]);
  });

  it('lists records with hasVector, including a zero vector written behind the store', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('agent_cards', [doc({ id: 'planner', vector: [0, 1, 0, 0], uri: 'file:///cards/planner.json' })]);
    await store.close();

    // An older store kept cards without a real vector: write one straight through LanceDB.
    const db = await connect(dir);
    const table = await db.openTable('agent_cards');
    const legacy = doc({ id: 'legacy', vector: [0, 0, 0, 0], content: 'Legacy agent', uri: 'file:///cards/legacy.json', metadata: { name: 'legacy' } });
    await table.add(recordsToArrow({ records: [legacy], vectors: [new Float32Array(4)], dimensions: 4 }));
    table.close();
    db.close();

    store = await LanceVectorStore.open({ dir });
    const listed = (await store.list('agent_cards')).sort((a, b) => a.id.localeCompare(b.id));
    expect(listed).toEqual([
      { id: 'legacy', content: 'Legacy agent', metadata: { name: 'legacy' }, uri: 'file:///cards/legacy.json', hasVector: false },
      { id: 'planner', content: 'content of planner', metadata: {}, uri: 'file:///cards/planner.json', hasVector: true },
    ]);
    expect(await store.get('agent_cards', 'legacy')).toMatchObject({ hasVector: false });
    expect((await store.search('agent_cards', [1, 1, 1, 1], { limit: 10 })).map((hit) => hit.id)).toEqual(['planner']);
    expect(await store.list('documents')).toEqual([]);
  });

  it('deletes by id and counts', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', ['a', 'b', "c'd", 'e'].map((id, i) => doc({ id, vector: [1, i] })));
    await store.delete('documents', ['a', "c'd", 'never-stored']);
    expect(await store.count('documents')).toBe(2);
    expect(await store.get('documents', "c'd")).toBeUndefined();
    expect((await store.list('documents')).map((r) => r.id).sort()).toEqual(['b', 'e']);
    await store.delete('documents', []);
    await store.delete('agent_cards', ['x']);
    expect(await store.count('documents')).toBe(2);
  });

  it('persists across reopening the directory', async () => {
    store = await LanceVectorStore.open({ dir });
    await store.upsert('documents', [doc({ id: 'a', vector: [1, 0, 0], metadata: { lang: 'en' } }), doc({ id: 'b', vector: [0, 1, 0] })]);
    await store.close();

    const closed = await rejection(store.count('documents'));
    expect(closed.code).toBe('store_unavailable');
    expect(closed.message).toContain(dir);
    expect(await store.ready()).toBe(false);

    store = await LanceVectorStore.open({ dir });
    expect(store.dimensions).toBe(3);
    expect(await store.count('documents')).toBe(2);
    expect(await store.get('documents', 'a')).toMatchObject({ metadata: { lang: 'en' }, hasVector: true });
    expect((await store.search('documents', [0, 1, 0], { limit: 1 }))[0]?.id).toBe('b');
    const wrong = await rejection(store.upsert('documents', [doc({ id: 'c', vector: [1, 0] })]));
    expect(wrong.code).toBe('invalid_request');
  });

  it('reports an unusable directory as store_unavailable naming it', async () => {
    const file = join(dir, 'not-a-directory');
    await writeFile(file, 'x');
    const error = await rejection(LanceVectorStore.open({ dir: file }));
    expect(error.code).toBe('store_unavailable');
    expect(error.message).toContain(file);
    expect(JSON.stringify(error.toJSON())).not.toContain('    at ');
  });

  it('builds the ANN index when a table crosses indexThreshold, keeps exact answers, and keeps it current', async () => {
    const logger = recordingLogger();
    store = await LanceVectorStore.open({ dir, logger, indexThreshold: 300 });
    const random = prng(7);
    const vectors = Array.from({ length: 380 }, () => unit(Array.from({ length: 32 }, () => random() - 0.5)));
    const records = vectors.map((vector, i) => doc({ id: `d${i}`, vector, metadata: { shard: String(i % 4) } }));
    const indices = async () => {
      const db = await connect(dir);
      const table = await db.openTable('documents');
      try {
        const [index] = await table.listIndices();
        return index ? { ...index, stats: await table.indexStats(index.name) } : undefined;
      } finally {
        table.close();
        db.close();
      }
    };

    await store.upsert('documents', records.slice(0, 299));
    expect(await indices()).toBeUndefined();
    await store.upsert('documents', records.slice(299, 310));
    const index = await indices();
    expect(index).toMatchObject({ columns: ['vector'], indexType: 'IvfHnswSq' });
    expect(index?.stats).toMatchObject({ numIndexedRows: 310, numUnindexedRows: 0, distanceType: 'cosine' });
    expect(logger.messages).toContain('lancedb vector index created');

    const exact = (query: number[], among: number) =>
      vectors
        .slice(0, among)
        .map((v, i) => ({ id: `d${i}`, score: v.reduce((sum, x, k) => sum + x * query[k]!, 0) }))
        .sort((a, b) => b.score - a.score);
    for (const probe of [3, 77, 150, 222, 301]) {
      const query = unit(vectors[probe]!.map((x) => x + (random() - 0.5) * 0.05));
      const hits = await store.search('documents', query, { limit: 5 });
      expect(hits[0]?.id).toBe(exact(query, 310)[0]?.id);
      expect(hits[0]?.score).toBeCloseTo(exact(query, 310)[0]!.score, 4);
    }
    // Prefiltered: `limit` hits when enough match, all matching.
    const filtered = await store.search('documents', vectors[0]!, { limit: 20, filter: { shard: '1' } });
    expect(filtered).toHaveLength(20);
    expect(filtered.every((hit) => hit.metadata.shard === '1')).toBe(true);

    // 70 more rows (≥ 300 / 5): added to the index incrementally, as a second segment.
    await store.upsert('documents', records.slice(310, 380));
    expect((await indices())?.stats).toMatchObject({ numIndexedRows: 380, numUnindexedRows: 0, numIndices: 2 });
    expect(logger.messages).toContain('lancedb vector index updated');
    const newest = await store.search('documents', vectors[355]!, { limit: 1 });
    expect(newest[0]?.id).toBe('d355');
    expect(await store.count('documents')).toBe(380);

    // Doubling the rows the index was trained on (310) retrains it: one segment again.
    const more = Array.from({ length: 260 }, (_, i) => doc({ id: `e${i}`, vector: unit(Array.from({ length: 32 }, () => random() - 0.5)) }));
    await store.upsert('documents', more);
    expect((await indices())?.stats).toMatchObject({ numIndexedRows: 640, numUnindexedRows: 0, numIndices: 1 });
    expect(logger.messages).toContain('lancedb vector index rebuilt');
    expect((await store.search('documents', more[100]!.vector, { limit: 1 }))[0]?.id).toBe('e100');
  });
});
