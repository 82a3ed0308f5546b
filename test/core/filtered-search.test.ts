import { beforeAll, describe, expect, it } from 'vitest';
import { ANN_MAX_K, COARSE_ANN_K, COARSE_BYTES, EXACT_MAX, filteredSearch, type FilteredSearch } from '../../runtime/core/vectors/filtered-search.js';
import { Int8Slab } from '../../runtime/core/vectors/int8-slab.js';
import { HnswVectorIndex } from '../../runtime/core/vectors/hnsw-vector-index.js';
import type { VectorIndex } from '../../runtime/core/vectors/vector-index.js';
import { VectorSlab } from '../../runtime/core/vectors/vector-slab.js';
import { clusteredVectors } from '../../bench/support/clustered-vectors.js';

// Large enough that a filter held by 1/10 of the entries (2,400) is over EXACT_MAX and goes through the index.
const N = 24_000;
const DIM = 32;
const QUERIES = 30;

/** A real HNSW index that counts its searches and the neighbours asked for. */
class CountingIndex implements VectorIndex {
  searches: number[] = [];
  constructor(readonly inner: VectorIndex) {}
  get dimensions(): number {
    return this.inner.dimensions;
  }
  get size(): number {
    return this.inner.size;
  }
  add(labels: readonly number[], vectors: Float32Array): void {
    this.inner.add(labels, vectors);
  }
  remove(labels: readonly number[]): void {
    this.inner.remove(labels);
  }
  search(query: Float32Array, k: number): { labels: number[]; distances: number[] } {
    this.searches.push(k);
    return this.inner.search(query, k);
  }
  save(path: string): void {
    this.inner.save(path);
  }
}

describe('filteredSearch over a real HNSW index', () => {
  const data = new Float32Array(N * DIM);
  const { sample } = clusteredVectors({ seed: 23, dim: DIM, centroids: 40 });
  const queries = Array.from({ length: QUERIES }, () => new Float32Array(DIM));
  let index: CountingIndex;
  let slab: VectorSlab;
  let coarse: Int8Slab;

  beforeAll(() => {
    for (let i = 0; i < N; i++) data.set(sample(), i * DIM);
    for (const query of queries) query.set(sample());
    index = new CountingIndex(HnswVectorIndex.create({ dimensions: DIM }));
    index.add(
      Array.from({ length: N }, (_, i) => i),
      data,
    );
    slab = new VectorSlab({ dim: DIM });
    slab.ensure(N);
    slab.setRows(data, N);
    coarse = new Int8Slab({ dim: DIM });
    coarse.ensure(N);
    for (let i = 0; i < N; i++) coarse.set(i, data.subarray(i * DIM, (i + 1) * DIM));
  });

  /** The `keep` nearest labels that `accept` takes, by a plain loop over every entry. */
  function bruteForce(query: Float32Array, accept: (i: number) => boolean, keep: number): number[] {
    const scored: Array<{ i: number; distance: number }> = [];
    for (let i = 0; i < N; i++) {
      if (!accept(i)) continue;
      let dot = 0;
      for (let d = 0; d < DIM; d++) dot += data[i * DIM + d]! * query[d]!;
      scored.push({ i, distance: 1 - dot });
    }
    return scored
      .sort((a, b) => a.distance - b.distance || a.i - b.i)
      .slice(0, keep)
      .map((entry) => entry.i);
  }

  function search(
    query: Float32Array,
    accept: (i: number) => boolean,
    options: { keep?: number; expected?: number; candidates?: number[]; coarse?: boolean; matching?: boolean } = {},
  ) {
    const labels = options.candidates ?? Array.from({ length: N }, (_, i) => i).filter(accept);
    const request: FilteredSearch = {
      index,
      slab,
      coarse: options.coarse ? coarse : undefined,
      size: N,
      query,
      keep: options.keep ?? 10,
      candidates: { labels, count: labels.length, expected: options.expected, matching: options.matching },
      accept: options.matching
        ? () => {
            throw new Error('accept called for matching candidates');
          }
        : accept,
      indexComplete: true,
    };
    return filteredSearch(request);
  }

  it.each([
    ['1/2', 2],
    ['1/4', 4],
    ['1/8', 8],
    ['1/10', 10],
  ])('finds the exact filtered top 10 through the index when %s of the entries match', (_share, every) => {
    const accept = (i: number) => i % every === 1;
    expect(N / every).toBeGreaterThan(EXACT_MAX);
    let agreed = 0;
    for (const query of queries) {
      index.searches = [];
      const found = search(query, accept);
      expect(found.exact).toBe(false);
      expect(index.searches.length).toBeGreaterThanOrEqual(1);
      expect(found.labels).toHaveLength(10);
      expect(found.labels.every(accept)).toBe(true);
      expect(found.distances).toEqual([...found.distances].sort((a, b) => a - b));
      const exact = new Set(bruteForce(query, accept, 10));
      agreed += found.labels.filter((label) => exact.has(label)).length;
    }
    expect(agreed / (10 * QUERIES)).toBeGreaterThanOrEqual(0.95);
  });

  it('scores a filter with few candidates exactly: the same labels as a brute-force scan', () => {
    const accept = (i: number) => i % 64 === 5;
    for (const query of queries.slice(0, 10)) {
      index.searches = [];
      const found = search(query, accept);
      expect(found.exact).toBe(true);
      expect(index.searches).toEqual([]);
      expect(found.labels).toEqual(bruteForce(query, accept, 10));
    }
  });

  it('returns nothing for a filter that matches nothing, also when its candidates are many', () => {
    expect(search(queries[0]!, () => false, { candidates: [] })).toMatchObject({ labels: [], exact: true });
    // Many candidates (every odd label), none of which passes the second condition.
    const odd = Array.from({ length: N / 2 }, (_, i) => 2 * i + 1);
    index.searches = [];
    const found = search(queries[0]!, (i) => i % 2 === 1 && i % 4 === 0, { candidates: odd });
    expect(found).toMatchObject({ labels: [], distances: [] });
    expect(index.searches.length).toBeLessThanOrEqual(2);
  });

  it('sizes the next search from the share of matches it saw, and scores the candidates exactly rather than asking for thousands of neighbours', () => {
    // The candidates (every odd label, 1/2) overstate the matches (1/200): the first search sees almost none.
    const odd = Array.from({ length: N / 2 }, (_, i) => 2 * i + 1);
    const accept = (i: number) => i % 200 === 1;
    for (const query of queries.slice(0, 10)) {
      index.searches = [];
      const found = search(query, accept, { candidates: odd });
      expect(found.exact).toBe(true);
      expect(found.labels).toEqual(bruteForce(query, accept, 10));
      expect(index.searches.length).toBeLessThanOrEqual(2);
      expect(Math.max(...index.searches)).toBeLessThanOrEqual(ANN_MAX_K);
    }
  });

  it('takes an estimate of the matches to size the first search of a filter of several conditions', () => {
    const quarter = Array.from({ length: N / 4 }, (_, i) => 4 * i + 1);
    // 1/4 of the entries are candidates; 1/2 of those match (i % 8 is 1): 1/8 of the entries.
    const accept = (i: number) => i % 8 === 1;
    let agreed = 0;
    for (const query of queries) {
      index.searches = [];
      const found = search(query, accept, { candidates: quarter, expected: quarter.length / 2 });
      expect(found.exact).toBe(false);
      expect(index.searches[0]).toBeGreaterThanOrEqual(8 * 10);
      expect(found.labels.every(accept)).toBe(true);
      const exact = new Set(bruteForce(query, accept, 10));
      agreed += found.labels.filter((label) => exact.has(label)).length;
    }
    expect(agreed / (10 * QUERIES)).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps a deep page of matches (keep 200) through the index', () => {
    const accept = (i: number) => i % 2 === 0;
    const found = search(queries[1]!, accept, { keep: 200 });
    expect(found.labels).toHaveLength(200);
    expect(found.labels.every(accept)).toBe(true);
    const exact = new Set(bruteForce(queries[1]!, accept, 200));
    expect(found.labels.filter((label) => exact.has(label)).length).toBeGreaterThanOrEqual(190);
  });

  it('with an int8 copy, scores candidates exactly rather than asking the index for more than COARSE_ANN_K neighbours', () => {
    // 1/9 of the entries (2,667): over EXACT_MAX, and 10 matches need about 135 neighbours.
    const accept = (i: number) => i % 9 === 2;
    expect(N / 9).toBeGreaterThan(EXACT_MAX);
    expect(Math.ceil(15 * 9)).toBeGreaterThan(COARSE_ANN_K);
    for (const query of queries.slice(0, 10)) {
      index.searches = [];
      const found = search(query, accept, { coarse: true });
      expect(found.exact).toBe(true);
      expect(index.searches).toEqual([]);
      expect(found.labels).toEqual(bruteForce(query, accept, 10));
      // Without the int8 copy the same filter goes through the index.
      expect(search(query, accept).exact).toBe(false);
    }
  });

  it('with an int8 copy and a distance threshold, scores in float32 and counts the matches within it exactly', () => {
    const accept = (i: number) => i % 16 === 7;
    const query = queries[2]!;
    const labels = Array.from({ length: N }, (_, i) => i).filter(accept);
    const threshold = 1 - dot(query, bruteForce(query, accept, 30).at(-1)!);
    const found = filteredSearch({
      index,
      slab,
      coarse,
      size: N,
      query,
      keep: 10,
      candidates: { labels, count: labels.length },
      accept,
      indexComplete: true,
      distanceThreshold: threshold,
    });
    expect(found.within).toBe(30);
    expect(found.labels).toEqual(bruteForce(query, accept, 10));
  });

  function dot(query: Float32Array, label: number): number {
    let sum = 0;
    for (let d = 0; d < DIM; d++) sum += data[label * DIM + d]! * query[d]!;
    return sum;
  }
});

describe('filteredSearch with an int8 copy of many 384-dimension rows', () => {
  const n = 12_000;
  const dim = 384;
  const data = new Float32Array(n * dim);
  const { sample } = clusteredVectors({ seed: 41, dim, centroids: 40 });
  for (let i = 0; i < n; i++) data.set(sample(), i * dim);
  const slab = new VectorSlab({ dim });
  slab.ensure(n);
  slab.setRows(data, n);
  /** An Int8Slab that counts the rows it scored. */
  class CountingInt8Slab extends Int8Slab {
    scored = 0;
    override dots(query: Float32Array, rows: ArrayLike<number>, count: number): Float32Array {
      this.scored += count;
      return super.dots(query, rows, count);
    }
  }
  const coarse = new CountingInt8Slab({ dim });
  coarse.ensure(n);
  for (let i = 0; i < n; i++) coarse.set(i, data.subarray(i * dim, (i + 1) * dim));
  const dot = (query: Float32Array, label: number) => {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += data[label * dim + d]! * query[d]!;
    return sum;
  };
  const bruteForce = (query: Float32Array, labels: number[]) =>
    labels
      .map((label) => ({ label, distance: 1 - dot(query, label) }))
      .sort((a, b) => a.distance - b.distance || a.label - b.label)
      .slice(0, 10);

  it('ranks candidates whose float32 rows pass COARSE_BYTES in int8, rescores the best in float32: the brute-force answer', () => {
    // 1/4 of the rows (3,000, 4.6 MB of float32): all matching, so accept is never called; no index (an incomplete one): exact scoring.
    const labels = Array.from({ length: n / 4 }, (_, i) => 4 * i + 3);
    expect(labels.length * slab.stride * 4).toBeGreaterThan(COARSE_BYTES);
    let agreed = 0;
    const queries = Array.from({ length: 20 }, sample);
    for (const query of queries) {
      coarse.scored = 0;
      const found = filteredSearch({
        index: undefined,
        slab,
        coarse,
        size: n,
        query,
        keep: 10,
        candidates: { labels, count: labels.length, matching: true },
        accept: () => {
          throw new Error('accept called for matching candidates');
        },
        indexComplete: false,
      });
      expect(coarse.scored).toBe(labels.length);
      expect(found).toMatchObject({ exact: true, within: labels.length });
      const exact = bruteForce(query, labels);
      agreed += found.labels.filter((label) => exact.some((e) => e.label === label)).length;
      // Distances are float32 ones (rescored), nearest first.
      expect(found.distances[0]).toBeCloseTo(exact[0]!.distance, 5);
      expect(found.distances).toEqual([...found.distances].sort((a, b) => a - b));
    }
    expect(agreed / (10 * queries.length)).toBeGreaterThanOrEqual(0.99);
  });

  it('scores fewer candidates, and any search with a distance threshold, in float32 alone', () => {
    const query = sample();
    const few = Array.from({ length: 500 }, (_, i) => 7 * i);
    const many = Array.from({ length: n / 2 }, (_, i) => 2 * i);
    const run = (labels: number[], distanceThreshold?: number) =>
      filteredSearch({
        index: undefined,
        slab,
        coarse,
        size: n,
        query,
        keep: 10,
        candidates: { labels, count: labels.length },
        accept: () => true,
        indexComplete: false,
        distanceThreshold,
      });
    coarse.scored = 0;
    expect(run(few).labels).toEqual(bruteForce(query, few).map((e) => e.label));
    const threshold = 1 - dot(query, bruteForce(query, many)[9]!.label);
    const found = run(many, threshold);
    expect(coarse.scored).toBe(0);
    expect(found.within).toBe(10);
    expect(found.labels).toEqual(bruteForce(query, many).map((e) => e.label));
  });
});
