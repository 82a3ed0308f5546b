import { describe, expect, it } from 'vitest';
import { EXACT_MAX } from '../../runtime/core/vectors/filtered-search.js';
import { HnswVectorIndex } from '../../runtime/core/vectors/hnsw-vector-index.js';
import { CollectionMirror, type MirroredRecord } from '../../runtime/semantic/collection-mirror.js';
import { clusteredVectors } from '../../bench/support/clustered-vectors.js';

const DIM = 32;

describe('CollectionMirror filtered search', () => {
  it('keeps tag filters correct through replaced tags, deletes and new records, on the index path and the exact one', () => {
    const { sample } = clusteredVectors({ seed: 51, dim: DIM, centroids: 30 });
    /** The mirror's records as they should be now, with their vectors. */
    const state = new Map<string, { record: MirroredRecord; vector: Float32Array }>();
    const mirror = new CollectionMirror({ index: HnswVectorIndex.create({ dimensions: DIM }) });
    const put = (entries: Array<{ record: MirroredRecord; vector: Float32Array }>) => {
      const vectors = new Float32Array(entries.length * DIM);
      entries.forEach((entry, i) => vectors.set(entry.vector, i * DIM));
      mirror.upsert(
        entries.map((entry) => entry.record),
        vectors,
      );
      for (const entry of entries) state.set(entry.record.id, entry);
    };
    const record = (id: string, i: number, half = String(i % 2)): MirroredRecord => ({ id, content: id, uri: '', metadata: { half, ns: String(i % 10) } });
    // 6,000 records: half '1' is held by 3,000 (over EXACT_MAX: searched through the index), ns '3' by 600 (scored exactly).
    put(Array.from({ length: 6_000 }, (_, i) => ({ record: record(`d${i}`, i), vector: sample() })));
    expect(3_000).toBeGreaterThan(EXACT_MAX);

    const bruteForce = (query: Float32Array, filter: Record<string, string>, keep: number) =>
      [...state.values()]
        .filter((entry) => Object.entries(filter).every(([key, value]) => entry.record.metadata[key] === value))
        .map((entry) => ({ id: entry.record.id, score: entry.vector.reduce((sum, x, d) => sum + x * query[d]!, 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, keep)
        .map((entry) => entry.id);
    const queries = Array.from({ length: 20 }, sample);
    const check = () => {
      let agreed = 0;
      let agreedPairs = 0;
      for (const query of queries) {
        const hits = mirror.search(query, { limit: 10, filter: { half: '1' } });
        expect(hits).toHaveLength(10);
        for (const hit of hits) expect(state.get(hit.id)?.record.metadata.half).toBe('1');
        const exact = new Set(bruteForce(query, { half: '1' }, 10));
        agreed += hits.filter((hit) => exact.has(hit.id)).length;
        // Two pairs: every hit holds both. The rarer pair's list (about 600) is past EXACT_MAX, so once its own
        // index is complete (built step by step by these very searches) it is searched approximately, like the rest.
        const pairHits = mirror.search(query, { limit: 10, filter: { half: '1', ns: '3' } });
        expect(pairHits).toHaveLength(10);
        for (const hit of pairHits) expect(state.get(hit.id)?.record.metadata).toMatchObject({ half: '1', ns: '3' });
        const exactPairs = new Set(bruteForce(query, { half: '1', ns: '3' }, 10));
        agreedPairs += pairHits.filter((hit) => exactPairs.has(hit.id)).length;
      }
      expect(agreed / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
      expect(agreedPairs / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
    };
    check();

    // d0..d398 (even) move to half '1' with their vectors; the odd d1..d799 go; 200 new records join half '1'.
    put(Array.from({ length: 200 }, (_, j) => ({ record: record(`d${2 * j}`, 2 * j, '1'), vector: state.get(`d${2 * j}`)!.vector })));
    const gone = Array.from({ length: 400 }, (_, j) => `d${2 * j + 1}`);
    mirror.remove(gone);
    for (const id of gone) state.delete(id);
    put(Array.from({ length: 200 }, (_, j) => ({ record: record(`n${j}`, 6_000 + j, '1'), vector: sample() })));
    expect(mirror.size).toBe(6_000 - 400 + 200);
    check();

    // A moved record is found under its new tag only; a removed one under none.
    const moved = state.get('d0')!.vector;
    expect(mirror.search(moved, { limit: 1, filter: { half: '1' } })[0]?.id).toBe('d0');
    expect(mirror.search(moved, { limit: 10, filter: { half: '0' } }).map((hit) => hit.id)).not.toContain('d0');
    expect(mirror.search(queries[0]!, { limit: 50, filter: { half: '1' } }).filter((hit) => gone.includes(hit.id))).toEqual([]);
    // Filters that match nothing: an unknown value, and two pairs that no record holds together.
    expect(mirror.search(queries[0]!, { limit: 10, filter: { half: '2' } })).toEqual([]);
    expect(mirror.search(queries[0]!, { limit: 10, filter: { half: '0', ns: '3' } })).toEqual([]);
    expect(mirror.search(queries[0]!, { limit: 10, filter: { half: '1', ns: 'none' } })).toEqual([]);
  });

  it('answers a pair held by 1/8 through its own index once a search made it, kept current through changes', () => {
    const { sample } = clusteredVectors({ seed: 52, dim: DIM, centroids: 30 });
    const state = new Map<string, { metadata: Record<string, string>; vector: Float32Array }>();
    const mirror = new CollectionMirror({ index: HnswVectorIndex.create({ dimensions: DIM }) });
    const put = (entries: Array<{ id: string; metadata: Record<string, string>; vector: Float32Array }>) => {
      const vectors = new Float32Array(entries.length * DIM);
      entries.forEach((entry, i) => vectors.set(entry.vector, i * DIM));
      mirror.upsert(
        entries.map(({ id, metadata }) => ({ id, metadata, content: id, uri: '' })),
        vectors,
      );
      for (const { id, metadata, vector } of entries) state.set(id, { metadata, vector });
    };
    // 20,000 records: shard '3' is held by 2,500 (over EXACT_MAX, and 1/8: its own index).
    put(Array.from({ length: 20_000 }, (_, i) => ({ id: `d${i}`, metadata: { shard: String(i % 8), half: String(i % 2) }, vector: sample() })));
    const bruteForce = (query: Float32Array, filter: Record<string, string>) =>
      [...state]
        .filter(([, entry]) => Object.entries(filter).every(([key, value]) => entry.metadata[key] === value))
        .map(([id, entry]) => ({ id, score: entry.vector.reduce((sum, x, d) => sum + x * query[d]!, 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10)
        .map((entry) => entry.id);
    const queries = Array.from({ length: 20 }, sample);
    const check = (filter: Record<string, string>) => {
      let agreed = 0;
      for (const query of queries) {
        const hits = mirror.search(query, { limit: 10, filter });
        expect(hits).toHaveLength(10);
        for (const hit of hits) expect(Object.entries(filter).every(([key, value]) => state.get(hit.id)?.metadata[key] === value)).toBe(true);
        const exact = new Set(bruteForce(query, filter));
        agreed += hits.filter((hit) => exact.has(hit.id)).length;
      }
      expect(agreed / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
    };
    expect(mirror.indexedPairs).toEqual([]);
    check({ shard: '3' });
    expect(mirror.indexedPairs).toEqual(['shard\u00003']);
    // Two pairs: the rarer one's index, the other checked per label; a broad pair alone has none.
    check({ shard: '3', half: '1' });
    check({ half: '0' });
    expect(mirror.indexedPairs).toEqual(['shard\u00003']);

    // 300 records leave shard '3' (to shard '4'), 300 go, 300 new ones join it; one takes a new vector.
    put(Array.from({ length: 300 }, (_, j) => ({ id: `d${8 * j + 3}`, metadata: { shard: '4', half: '1' }, vector: state.get(`d${8 * j + 3}`)!.vector })));
    const gone = Array.from({ length: 300 }, (_, j) => `d${8 * (j + 300) + 3}`);
    mirror.remove(gone);
    for (const id of gone) state.delete(id);
    put(Array.from({ length: 300 }, (_, j) => ({ id: `n${j}`, metadata: { shard: '3', half: String(j % 2) }, vector: sample() })));
    const renewed = sample();
    put([{ id: 'd2403', metadata: { shard: '3', half: '1' }, vector: renewed }]);
    check({ shard: '3' });
    check({ shard: '3', half: '1' });
    expect(mirror.search(renewed, { limit: 1, filter: { shard: '3' } })[0]?.id).toBe('d2403');
    expect(mirror.search(state.get('n7')!.vector, { limit: 1, filter: { shard: '3' } })[0]?.id).toBe('n7');
    expect(mirror.search(state.get('d3')!.vector, { limit: 10, filter: { shard: '3' } }).map((hit) => hit.id)).not.toContain('d3');
    expect(mirror.search(queries[0]!, { limit: 50, filter: { shard: '3' } }).filter((hit) => gone.includes(hit.id))).toEqual([]);
  }, 60_000); // Builds a pair index in background steps: 20 s at load 25 even before indexes took 128 candidates while adding.
});
