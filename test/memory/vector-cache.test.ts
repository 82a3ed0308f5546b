import { describe, expect, it } from 'vitest';
import { MemoryFiltersSchema, recordFilter } from '../../runtime/memory/memory-filters.js';
import { completeRecord, LongTermRecordInputSchema, type MemoryRecord } from '../../runtime/memory/memory-records.js';
import { normalize, VectorCache, type CacheSearch } from '../../runtime/memory/vector-cache.js';

const record = (fields: Record<string, unknown>): MemoryRecord =>
  completeRecord({ record: LongTermRecordInputSchema.parse({ text: 'text', ...fields }), at: '2025-01-01T00:00:00.000Z' });
const all = () => true;

/** The exact nearest ids by brute force, for comparison. */
function exact(vectors: Map<string, Float32Array>, query: Float32Array, k: number): string[] {
  return [...vectors]
    .map(([id, v]) => ({ id, d: 1 - v.reduce((s, x, i) => s + x * query[i]!, 0) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, k)
    .map((e) => e.id);
}

describe('VectorCache', () => {
  it('finds the exact nearest records, pages, thresholds, and reuses the slots of removed ones', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
    const cache = new VectorCache();
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 300; i++) {
      const v = normalize(Array.from({ length: 16 }, random));
      vectors.set(`r${i}`, v);
      cache.upsert(record({ id: `r${i}` }), v);
    }
    for (let i = 0; i < 300; i += 3) {
      cache.remove(`r${i}`);
      vectors.delete(`r${i}`);
    }
    const fresh = normalize(Array.from({ length: 16 }, random));
    cache.upsert(record({ id: 'late' }), fresh);
    vectors.set('late', fresh);
    expect(cache.size).toBe(201);

    const query = normalize(Array.from({ length: 16 }, random));
    const top = cache.search({ vector: query, filter: all, limit: 10, offset: 0 });
    expect(top.total).toBe(201);
    expect(top.hits.map((h) => h.record.id)).toEqual(exact(vectors, query, 10));
    const page = cache.search({ vector: query, filter: all, limit: 5, offset: 5 });
    expect(page.hits.map((h) => h.record.id)).toEqual(exact(vectors, query, 10).slice(5));
    const near = cache.search({ vector: query, filter: all, distanceThreshold: top.hits[2]!.dist, limit: 10, offset: 0 });
    expect(near.hits.map((h) => h.record.id)).toEqual(exact(vectors, query, 3));
    expect(near.total).toBe(3);
    expect(cache.search({ vector: fresh, filter: all, limit: 1, offset: 0 }).hits[0]).toEqual({
      record: expect.objectContaining({ id: 'late' }),
      dist: expect.closeTo(0, 5),
    });
  });

  it('filters before scoring and lists newest first without a query', () => {
    const cache = new VectorCache();
    cache.upsert(record({ id: 'a', namespace: 'x', created_at: '2025-01-01T00:00:00Z' }), normalize([1, 0]));
    cache.upsert(record({ id: 'b', namespace: 'y', created_at: '2025-02-01T00:00:00Z' }), normalize([1, 0]));
    cache.upsert(record({ id: 'c', namespace: 'x', created_at: '2025-03-01T00:00:00Z' }), normalize([0, 1]));
    const inX = recordFilter(MemoryFiltersSchema.parse({ namespace: { eq: 'x' } }));
    expect(cache.search({ vector: normalize([1, 0]), filter: inX, limit: 10, offset: 0 }).hits.map((h) => h.record.id)).toEqual(['a', 'c']);
    expect(cache.search({ vector: undefined, filter: all, limit: 2, offset: 0 })).toEqual({
      hits: [expect.objectContaining({ dist: 0 }), expect.objectContaining({ dist: 0 })],
      total: 3,
    });
    expect(cache.search({ vector: undefined, filter: all, limit: 10, offset: 0 }).hits.map((h) => h.record.id)).toEqual(['c', 'b', 'a']);
  });

  it('refuses vectors of another length and vectors with no direction', () => {
    const cache = new VectorCache();
    cache.upsert(record({ id: 'a' }), normalize([1, 0, 0]));
    expect(() => cache.upsert(record({ id: 'b' }), normalize([1, 0]))).toThrow(/same model/);
    expect(() => cache.search({ vector: normalize([1, 0]), filter: all, limit: 1, offset: 0 })).toThrow(/3 dimensions|2 dimensions/);
    expect(() => normalize([0, 0])).toThrow(/all zeros/);
  });

  it('normalizes to the float32 values of the copy the code before 5 Dec made (Float32Array.from, then a sum over it), bit for bit', () => {
    const reference = (vector: ArrayLike<number>): Float32Array => {
      const unit = Float32Array.from(vector);
      let norm = 0;
      for (const x of unit) norm += x * x;
      norm = Math.sqrt(norm);
      for (let i = 0; i < unit.length; i++) unit[i]! /= norm;
      return unit;
    };
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const scales = [1, 1e-3, 1e3, 1e-30, 1e30, 3.4e38 / 400, 1e-42];
    for (let n = 0; n < 600; n++) {
      const length = 1 + Math.floor(random() * 400);
      const scale = scales[n % scales.length]!;
      // Plain arrays of doubles (as a model runtime's JSON gives), float32 arrays, and -0 among them.
      const values = Array.from({ length }, (_, i) => (i === 0 && n % 5 === 0 ? -0 : (random() - 0.5) * scale * (1 + random())));
      const vector = n % 2 === 0 ? values : Float32Array.from(values);
      let expected: Float32Array | undefined;
      try {
        expected = reference(vector);
      } catch {
        expected = undefined;
      }
      const norm = Math.sqrt(Float32Array.from(vector).reduce((sum, x) => sum + x * x, 0));
      if (!Number.isFinite(norm) || norm === 0) {
        expect(() => normalize(vector)).toThrow(/all zeros or not finite/);
        continue;
      }
      const got = new Uint32Array(normalize(vector).buffer);
      const want = new Uint32Array(expected!.buffer);
      const differs = got.length !== want.length ? 0 : want.findIndex((bits, i) => got[i] !== bits);
      expect(differs, `vector ${n} (length ${length}, scale ${scale})`).toBe(-1);
    }
    expect(() => normalize([1, Number.NaN])).toThrow(/not finite/);
    expect(() => normalize([Number.POSITIVE_INFINITY, 1])).toThrow(/not finite/);
    expect(() => normalize([1e39, 1])).toThrow(/not finite/); // beyond float32: Infinity once copied
    expect(() => normalize([])).toThrow(/all zeros/);
  });
});

describe('recordFilter', () => {
  const r = record({ id: 'r', namespace: 'crm', user_id: null, topics: ['billing', 'eu'], created_at: '2025-01-01T12:00:00Z' });
  const keeps = (filters: Record<string, unknown>) => recordFilter(MemoryFiltersSchema.parse(filters))(r);

  it('reads the server and the client spellings of tag conditions', () => {
    expect(keeps({ namespace: { eq: 'crm' } })).toBe(true);
    expect(keeps({ namespace: { ne: 'crm' } })).toBe(false);
    expect(keeps({ namespace: { not_eq: 'crm' } })).toBe(false);
    expect(keeps({ namespace: { in_: ['a', 'crm'] } })).toBe(true);
    expect(keeps({ namespace: { not_in: ['crm'] } })).toBe(false);
    expect(keeps({ namespace: { startswith: 'cr' } })).toBe(true);
    expect(keeps({ user_id: { eq: 'someone' } })).toBe(false);
    expect(keeps({ user_id: { ne: 'someone' } })).toBe(true);
    expect(keeps({ topics: { all: ['billing', 'eu'] } })).toBe(true);
    expect(keeps({ topics: { all: ['billing', 'us'] } })).toBe(false);
    expect(keeps({ topics: { eq: 'eu', none: ['us'] } })).toBe(true);
  });

  it('keeps every record when no field is filtered, with one shared predicate (no checks built per search)', () => {
    const none = recordFilter(MemoryFiltersSchema.parse({}));
    expect(none(r)).toBe(true);
    expect(none(record({ id: 'other', namespace: 'x', user_id: 'u', topics: [] }))).toBe(true);
    expect(recordFilter({})).toBe(none);
    // A filter of only an absent field (undefined) filters nothing either.
    expect(recordFilter({ namespace: undefined })).toBe(none);
    expect(recordFilter(MemoryFiltersSchema.parse({ namespace: { eq: 'crm' } }))).not.toBe(none);
  });

  it('compares dates in whole seconds, with between and its inclusive ends', () => {
    expect(keeps({ created_at: { eq: '2025-01-01T12:00:00.900Z' } })).toBe(true);
    expect(keeps({ created_at: { between: ['2025-01-01T12:00:00Z', '2025-02-01T00:00:00Z'] } })).toBe(true);
    expect(keeps({ created_at: { between: ['2025-01-01T12:00:00Z', '2025-02-01T00:00:00Z'], inclusive: 'right' } })).toBe(false);
    expect(keeps({ created_at: { gt: 1735732800 } })).toBe(false);
    expect(keeps({ event_date: { gte: '2020-01-01' } })).toBe(false);
  });
});

describe('VectorCache over many records (HNSW)', () => {
  const DIM = 16;
  const N = 20_000;
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  const centroids = Array.from({ length: 40 }, () => Array.from({ length: DIM }, random));
  const near = (c: number[]) => normalize(c.map((x) => x + 0.4 * random()));
  const vectors = new Map<string, Float32Array>();
  const namespaceOf = (i: number) => `ns${Math.floor(i / 40) % 8}`; // independent of the centroid (i % 40)
  const cache = new VectorCache();
  for (let i = 0; i < N; i++) {
    const v = near(centroids[i % centroids.length]!);
    vectors.set(`r${i}`, v);
    cache.upsert(record({ id: `r${i}`, namespace: namespaceOf(i), topics: [`t${i % 2}`] }), v);
  }
  const queries = Array.from({ length: 20 }, (_, q) => near(centroids[(q * 7) % centroids.length]!));
  const subset = (keep: (id: string) => boolean) => new Map([...vectors].filter(([id]) => keep(id)));
  const recall = (found: string[], expected: string[]) => found.filter((id) => expected.includes(id)).length / expected.length;
  const searchWith = (filters: Record<string, unknown>, query: Float32Array, extra: Partial<CacheSearch> = {}) => {
    const parsed = MemoryFiltersSchema.parse(filters);
    return cache.search({ vector: query, filter: recordFilter(parsed), filters: parsed, limit: 10, offset: 0, ...extra });
  };
  /** Every query filtered on namespace `ns`: each answer holds only its records and the exact total; the mean recall@10 against `inNs`. */
  const namespaceRecall = (ns: string, inNs: Map<string, Float32Array>) => {
    const recalls = queries.map((query) => {
      const found = searchWith({ namespace: { eq: ns } }, query);
      expect(found.total).toBe(inNs.size);
      expect(found.hits.every((h) => h.record.namespace === ns)).toBe(true);
      return recall(
        found.hits.map((h) => h.record.id),
        exact(inNs, query, 10),
      );
    });
    return recalls.reduce((a, b) => a + b, 0) / recalls.length;
  };

  it('scores exactly while the index is being built, then answers through it with recall@10 ≥ 0.9', async () => {
    expect(cache.unindexed).toBeGreaterThan(2000);
    const before = cache.search({ vector: queries[0]!, filter: all, limit: 10, offset: 0 });
    expect(before.hits.map((h) => h.record.id)).toEqual(exact(vectors, queries[0]!, 10));
    expect(cache.searches).toEqual({ ann: 0, exact: 1, tagIndex: 0 });

    await cache.indexed();
    expect(cache.unindexed).toBe(0);
    const recalls = queries.map((query) => {
      const found = cache.search({ vector: query, filter: all, limit: 10, offset: 0 });
      expect(found.total).toBe(N);
      return recall(
        found.hits.map((h) => h.record.id),
        exact(vectors, query, 10),
      );
    });
    expect(cache.searches.ann).toBe(queries.length);
    expect(recalls.reduce((a, b) => a + b, 0) / recalls.length).toBeGreaterThanOrEqual(0.9);
  }, 60_000); // Indexing in the background: 20 s at load 25 with a candidate list of 128 while adding.

  it('answers a broad tag filter (1/8) through the index, with only matching records and the exact total', async () => {
    await cache.indexed();
    const ann = cache.searches.ann;
    const inNs3 = subset((id) => namespaceOf(Number(id.slice(1))) === 'ns3');
    expect(namespaceRecall('ns3', inNs3)).toBeGreaterThanOrEqual(0.9);
    expect(cache.searches.ann).toBe(ann + queries.length);

    // Two tag conditions (the other list checked per label), `any`, and a condition the index cannot answer (ne).
    const both = searchWith({ namespace: { eq: 'ns3' }, topics: { any: ['t1'] } }, queries[0]!);
    expect(both.total).toBe(subset((id) => inNs3.has(id) && Number(id.slice(1)) % 2 === 1).size);
    const none = searchWith({ namespace: { eq: 'ns3' }, topics: { eq: 'nobody' } }, queries[0]!);
    expect(none).toEqual({ hits: [], total: 0 });
    const notNs0 = searchWith({ namespace: { ne: 'ns0' } }, queries[1]!);
    expect(notNs0.total).toBe(subset((id) => namespaceOf(Number(id.slice(1))) !== 'ns0').size);
    expect(notNs0.hits.every((h) => h.record.namespace !== 'ns0')).toBe(true);
    expect(notNs0.hits).toHaveLength(10);
  });

  it('answers a namespace held by at most 1/8 through its own index, kept current through edits', async () => {
    await cache.indexed();
    const inNs5 = subset((id) => namespaceOf(Number(id.slice(1))) === 'ns5');
    expect(inNs5.size).toBe(2_480);
    // The first search starts the namespace's own index, filled by background steps (answered through the whole index meanwhile).
    expect(searchWith({ namespace: { eq: 'ns5' } }, queries[0]!).hits).toHaveLength(10);
    // indexed() also waits for the indexes being built.
    await cache.indexed();
    const { ann, tagIndex } = cache.searches;
    expect(namespaceRecall('ns5', inNs5)).toBeGreaterThanOrEqual(0.95);
    expect(cache.searches.ann).toBe(ann + queries.length);
    expect(cache.searches.tagIndex).toBe(tagIndex + queries.length);

    // A record edited with the same vector stays found; one moved to another namespace is found there only; a new one at once.
    const [kept, left] = searchWith({ namespace: { eq: 'ns5' } }, queries[5]!).hits.map((h) => h.record);
    cache.upsert({ ...kept!, last_accessed: '2026-01-01T00:00:00.000Z' }, vectors.get(kept!.id)!);
    cache.upsert({ ...left!, namespace: 'ns6' }, vectors.get(left!.id)!);
    const fresh = near(centroids[3]!);
    cache.upsert(record({ id: 'fresh5', namespace: 'ns5' }), fresh);
    const before = cache.searches.tagIndex;
    expect(searchWith({ namespace: { eq: 'ns5' } }, vectors.get(kept!.id)!).hits[0]?.record.id).toBe(kept!.id);
    expect(searchWith({ namespace: { eq: 'ns5' } }, vectors.get(left!.id)!).hits.map((h) => h.record.id)).not.toContain(left!.id);
    expect(searchWith({ namespace: { eq: 'ns6' } }, vectors.get(left!.id)!).hits[0]?.record.id).toBe(left!.id);
    expect(searchWith({ namespace: { eq: 'ns5' } }, fresh).hits[0]?.record.id).toBe('fresh5');
    // ns6's first search starts its index: answered through the whole one.
    expect(cache.searches.tagIndex).toBe(before + 3);
    cache.upsert(left!, vectors.get(left!.id)!);
    cache.remove('fresh5');
  });

  it('pages and thresholds through the index, and sees removals and replacements at once', async () => {
    await cache.indexed();
    const query = queries[2]!;
    const top = cache.search({ vector: query, filter: all, limit: 10, offset: 0 });
    const page = cache.search({ vector: query, filter: all, limit: 5, offset: 5 });
    expect(page.hits.map((h) => h.record.id)).toEqual(top.hits.slice(5).map((h) => h.record.id));
    const near5 = cache.search({ vector: query, filter: all, distanceThreshold: top.hits[4]!.dist, limit: 10, offset: 0 });
    expect(near5.hits.map((h) => h.record.id)).toEqual(top.hits.slice(0, 5).map((h) => h.record.id));
    expect(near5.total).toBe(5);

    const first = top.hits[0]!.record.id;
    cache.remove(first);
    expect(cache.search({ vector: query, filter: all, limit: 10, offset: 0 }).hits.map((h) => h.record.id)).not.toContain(first);
    const second = top.hits[1]!.record;
    cache.upsert({ ...second, namespace: 'moved' }, normalize(Array.from({ length: DIM }, (_, i) => (i === 0 ? 1 : 0))));
    const moved = cache.search({ vector: query, filter: all, limit: 10, offset: 0 });
    expect(moved.hits.map((h) => h.record.id)).not.toContain(second.id);
    expect(cache.unindexed).toBe(0);
    expect(searchWith({ namespace: { eq: 'moved' } }, query)).toMatchObject({ total: 1, hits: [{ record: { id: second.id } }] });
    cache.close();
  });
});
