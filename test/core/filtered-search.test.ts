import { beforeAll, describe, expect, it } from 'vitest';
import { ANN_MAX_K, EXACT_MAX, filteredSearch, type Candidates, type FilteredSearch } from '../../runtime/core/vectors/filtered-search.js';
import { HnswVectorIndex } from '../../runtime/core/vectors/hnsw-vector-index.js';
import { TagIndexes } from '../../runtime/core/vectors/tag-indexes.js';
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
  get exact(): boolean {
    return this.inner.exact;
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
  candidatesFor(query: Float32Array, k: number): { labels: number[]; distances: number[] } {
    this.searches.push(k);
    return this.inner.candidatesFor(query, k);
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
    // Building 24k entries (a candidate list of 128 while adding) takes 1-3 s alone, 20-30 s on a machine at load 25.
  }, 120_000);

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
    options: { keep?: number; expected?: number; candidates?: number[]; tagIndex?: Candidates['tagIndex']; distanceThreshold?: number } = {},
  ) {
    const labels = options.candidates ?? Array.from({ length: N }, (_, i) => i).filter(accept);
    const request: FilteredSearch = {
      index,
      slab,
      size: N,
      query,
      keep: options.keep ?? 10,
      candidates: { labels, count: labels.length, expected: options.expected, tagIndex: options.tagIndex },
      accept,
      distanceThreshold: options.distanceThreshold,
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

  it('rescores what an index of bytes found from the slab: exact distances, nearest first', () => {
    expect(index.exact).toBe(false);
    const dot = (query: Float32Array, i: number) => {
      let sum = 0;
      for (let d = 0; d < DIM; d++) sum += data[i * DIM + d]! * query[d]!;
      return sum;
    };
    let quantizedOff = 0;
    for (const query of queries) {
      const found = search(query, () => true);
      expect(found.exact).toBe(false);
      found.labels.forEach((label, i) => expect(found.distances[i]).toBeCloseTo(1 - dot(query, label), 5));
      expect(found.distances).toEqual([...found.distances].sort((a, b) => a - b));
      // The index's own distances are of bytes: they differ (which is why they are rescored).
      const raw = index.inner.search(query, 10);
      quantizedOff = Math.max(quantizedOff, ...raw.labels.map((label, i) => Math.abs(raw.distances[i]! - (1 - dot(query, label)))));
    }
    expect(quantizedOff).toBeGreaterThan(1e-4);
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

  it('searches the index of the tag every candidate holds once it is complete, alone or with a second condition', async () => {
    // 'ns1': held by every label i % 10 === 1 (2,400: over EXACT_MAX, at most 1/8).
    const tag = (i: number) => i % 10 === 1;
    const members = Array.from({ length: N }, (_, i) => i).filter(tag);
    const tagIndexes = new TagIndexes({ vector: (label) => slab.row(label) });
    const tagIndex = () => tagIndexes.lookup({ tag: 'ns1', count: members.length, size: N, members: () => members });
    // While the tag index is being filled, the whole index answers.
    index.searches = [];
    const first = search(queries[0]!, tag, { tagIndex });
    expect(first).toMatchObject({ exact: false, tagIndex: false });
    expect(index.searches.length).toBeGreaterThanOrEqual(1);
    await tagIndexes.settled();
    expect(tagIndexes.pending).toBe(0);

    let agreed = 0;
    let agreedBoth = 0;
    const both = (i: number) => tag(i) && i % 4 === 1; // i % 20 === 1: half of the tag's labels
    for (const query of queries) {
      index.searches = [];
      const found = search(query, tag, { tagIndex });
      expect(found).toMatchObject({ exact: false, tagIndex: true });
      expect(found.labels.every(tag)).toBe(true);
      agreed += found.labels.filter((label) => bruteForce(query, tag, 10).includes(label)).length;
      const narrower = search(query, both, { candidates: members, expected: members.length / 2, tagIndex });
      expect(narrower.tagIndex).toBe(true);
      expect(narrower.labels).toHaveLength(10);
      expect(narrower.labels.every(both)).toBe(true);
      agreedBoth += narrower.labels.filter((label) => bruteForce(query, both, 10).includes(label)).length;
      expect(index.searches).toEqual([]);
    }
    expect(agreed / (10 * QUERIES)).toBeGreaterThanOrEqual(0.95);
    expect(agreedBoth / (10 * QUERIES)).toBeGreaterThanOrEqual(0.95);

    // A distance threshold that 12 matches are within: the nearest 10, and how many are within.
    const query = queries[3]!;
    const nearest = bruteForce(query, tag, 30);
    const threshold = 1 - data.subarray(nearest[11]! * DIM, (nearest[11]! + 1) * DIM).reduce((sum, x, d) => sum + x * query[d]!, 0);
    const near = search(query, tag, { tagIndex, distanceThreshold: threshold + 1e-6 });
    expect(near.tagIndex).toBe(true);
    expect(near.within).toBe(12);
    expect(near.labels).toEqual(nearest.slice(0, 10));
  });
});
