import { describe, expect, it } from 'vitest';
import {
  TAG_INDEX_BUDGET,
  TAG_INDEX_FINISH,
  TAG_INDEX_MAX_COUNT,
  TAG_INDEX_IDLE_LOOKUPS,
  TAG_INDEX_MAX_SHARE,
  TAG_INDEX_STEP,
  TagIndexes,
  type TagIndexLookup,
} from '../../runtime/core/vectors/tag-indexes.js';
import { VectorSlab } from '../../runtime/core/vectors/vector-slab.js';
import { clusteredVectors } from '../../bench/support/clustered-vectors.js';

const DIM = 16;

/** Labels 0..n-1 with seeded clustered vectors in a slab, their tags by label, and the `TagIndexes` over them. */
function store(options: { n: number; tags: (label: number) => string[]; seed?: number }) {
  const { sample } = clusteredVectors({ seed: options.seed ?? 5, dim: DIM, centroids: 12 });
  const slab = new VectorSlab({ dim: DIM });
  slab.ensure(options.n);
  const tags = new Map<number, string[]>();
  const indexes = new TagIndexes({ vector: (label) => slab.row(label) });
  const members = (tag: string) => [...tags].filter(([, held]) => held.includes(tag)).map(([label]) => label);
  const put = (label: number, vector: Float32Array, held: string[]) => {
    slab.ensure(label + 1);
    slab.set(label, vector);
    tags.set(label, held);
    indexes.add({ label, tags: held });
  };
  for (let label = 0; label < options.n; label++) put(label, sample(), options.tags(label));
  const lookup = (tag: string): TagIndexLookup | undefined => indexes.lookup({ tag, count: members(tag).length, size: tags.size, members: () => members(tag) });
  /** The `k` labels holding `tag` nearest `query`, by a plain loop. */
  const exact = (tag: string, query: Float32Array, k: number) =>
    members(tag)
      .map((label) => ({ label, distance: 1 - slab.row(label).reduce((sum, x, d) => sum + x * query[d]!, 0) }))
      .sort((a, b) => a.distance - b.distance || a.label - b.label)
      .slice(0, k)
      .map((entry) => entry.label);
  return { slab, tags, indexes, put, lookup, exact, members, sample };
}

describe('TagIndexes', () => {
  it('makes a tag index on the first lookup, and it finds the filtered top 10 of a small tag', () => {
    const s = store({ n: 2_000, tags: (label) => [`ns${label % 10}`, `half${label % 2}`] });
    expect(s.indexes.tags).toEqual([]);
    const found = s.lookup('ns3');
    expect(found?.size).toBe(200);
    expect(s.indexes.tags).toEqual(['ns3']);
    // An approximate index, its graph built on two threads (not the same every run): nearly all of the exact top 10, only the tag's labels.
    let agreed = 0;
    for (let q = 0; q < 20; q++) {
      const query = s.sample();
      const labels = found!.index.search(query, 10).labels;
      expect(labels.every((label) => label % 10 === 3)).toBe(true);
      agreed += labels.filter((label) => s.exact('ns3', query, 10).includes(label)).length;
    }
    expect(agreed / 200).toBeGreaterThanOrEqual(0.95);
  });

  it('fills a large tag index in background steps, off the searches, answering nothing until it is complete', async () => {
    // 2,500 labels hold 'ns1' (1/10): ceil(2,500 / TAG_INDEX_STEP) steps.
    const s = store({ n: 25_000, tags: (label) => [`ns${label % 10}`] });
    const steps = Math.ceil(2_500 / TAG_INDEX_STEP);
    expect(steps).toBeGreaterThan(2);
    // A lookup adds nothing while more than a step is left: that is left to the background steps.
    expect(s.lookup('ns1')).toBeUndefined();
    expect(s.indexes.pending).toBe(2_500);
    // Another before any step ran (searches awaited back to back, no I/O between them): the steps are starved, so it adds a small step itself.
    expect(s.lookup('ns1')).toBeUndefined();
    expect(s.indexes.pending).toBe(2_500 - TAG_INDEX_STEP);
    // A step per turn of the event loop; a lookup after a step ran adds nothing itself.
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.indexes.pending).toBe(2_500 - 2 * TAG_INDEX_STEP);
    expect(s.lookup('ns1')).toBeUndefined();
    expect(s.indexes.pending).toBe(2_500 - 2 * TAG_INDEX_STEP);
    // The lookup that finds no more than TAG_INDEX_FINISH left completes it.
    while (s.indexes.pending > TAG_INDEX_FINISH) await new Promise((resolve) => setImmediate(resolve));
    expect(s.indexes.pending).toBeGreaterThan(0);
    expect(s.lookup('ns1')?.size).toBe(2_500);

    // Another tag, left to the background steps after the first lookup.
    expect(s.lookup('ns2')).toBeUndefined();
    for (let turn = 0; turn < steps + 2 && s.indexes.pending > 0; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(s.indexes.pending).toBe(0);
    const found = s.lookup('ns2')!;
    expect(found.size).toBe(2_500);
    let agreed = 0;
    for (let q = 0; q < 20; q++) {
      const query = s.sample();
      const labels = found.index.search(query, 10).labels;
      expect(labels.every((label) => label % 10 === 2)).toBe(true);
      agreed += labels.filter((label) => s.exact('ns2', query, 10).includes(label)).length;
    }
    expect(agreed / 200).toBeGreaterThanOrEqual(0.95);
  });

  it('settles once every index being built holds its tag (for a warm-up or a benchmark of the steady state)', async () => {
    const s = store({ n: 25_000, tags: (label) => [`ns${label % 10}`] });
    await s.indexes.settled();
    expect(s.lookup('ns3')).toBeUndefined();
    expect(s.lookup('ns4')).toBeUndefined();
    expect(s.indexes.pending).toBeGreaterThan(2 * TAG_INDEX_FINISH);
    await s.indexes.settled();
    expect(s.indexes.pending).toBe(0);
    expect(s.lookup('ns3')?.size).toBe(2_500);
    expect(s.lookup('ns4')?.size).toBe(2_500);
  });

  it('is kept current through new labels, removals, new vectors and moved tags', () => {
    const s = store({ n: 2_000, tags: (label) => [`ns${label % 10}`] });
    expect(s.lookup('ns0')?.size).toBe(200);
    const nearest = (vector: Float32Array) => s.lookup('ns0')!.index.search(vector, 3);

    // A new label holding the tag: found at distance 0 from its vector.
    const fresh = s.sample();
    s.put(2_000, fresh, ['ns0']);
    expect(s.indexes.pending).toBe(1);
    expect(nearest(fresh).labels[0]).toBe(2_000);
    expect(nearest(fresh).distances[0]).toBeCloseTo(0, 5);
    expect(s.lookup('ns0')?.size).toBe(201);

    // A label that goes is never found again.
    const gone = Float32Array.from(s.slab.row(10));
    s.indexes.remove({ label: 10, tags: ['ns0'] });
    s.tags.delete(10);
    expect(nearest(gone).labels).not.toContain(10);
    expect(s.lookup('ns0')?.size).toBe(200);

    // A new vector for label 20: its tags removed, the vector set, its tags added again.
    const old = Float32Array.from(s.slab.row(20));
    const moved = s.sample();
    s.indexes.remove({ label: 20, tags: ['ns0'] });
    s.put(20, moved, ['ns0']);
    expect(nearest(moved).labels[0]).toBe(20);
    expect(nearest(moved).distances[0]).toBeCloseTo(0, 5);
    expect(nearest(old).labels[0]).not.toBe(20);

    // Label 30 moves to another tag: gone from this index.
    const thirty = Float32Array.from(s.slab.row(30));
    s.indexes.remove({ label: 30, tags: ['ns0'] });
    s.put(30, thirty, ['ns5']);
    expect(nearest(thirty).labels).not.toContain(30);
    expect(s.lookup('ns0')?.size).toBe(s.members('ns0').length);

    // A tag left empty loses its index.
    for (const label of s.members('ns0')) {
      s.indexes.remove({ label, tags: ['ns0'] });
      s.tags.delete(label);
    }
    expect(s.indexes.tags).toEqual([]);
    expect(s.indexes.entries).toBe(0);
  });

  it('gives no index to a broad tag, and drops one whose tag grew broad', () => {
    const s = store({ n: 2_000, tags: (label) => [`ns${label % 10}`, `quarter${label % 4}`] });
    expect(1 / 4).toBeGreaterThan(TAG_INDEX_MAX_SHARE);
    expect(s.lookup('quarter1')).toBeUndefined();
    expect(s.indexes.tags).toEqual([]);
    expect(s.lookup('ns4')?.size).toBe(200);
    // 'ns4' now held by 600 of 2,000 (over 1/8).
    for (let label = 0; label < 400; label++) {
      if (label % 10 === 4) continue;
      s.indexes.remove({ label, tags: s.tags.get(label)! });
      s.put(label, Float32Array.from(s.slab.row(label)), ['ns4']);
    }
    expect(s.lookup('ns4')).toBeUndefined();
    expect(s.indexes.tags).toEqual([]);
  });

  it('keeps within its budget of entries and count of indexes, dropping only indexes idle for a while, least recently searched first', () => {
    // 2,000 labels: a budget of 2,000 entries; 'a*' tags held by 250 each (eight fill the budget), 'c*' by 222-223, 'b*' by 20.
    const s = store({ n: 2_000, tags: (label) => [`a${label % 8}`, `c${label % 9}`, `b${label % 100}`] });
    expect(2_000 * TAG_INDEX_BUDGET).toBe(2_000);
    for (let a = 0; a < 8; a++) expect(s.lookup(`a${a}`)?.size).toBe(250);
    // No room, and all were just searched: 'c0' gets none (it is searched through the whole index), nothing is dropped.
    expect(s.lookup('c0')).toBeUndefined();
    expect(s.indexes.tags.sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
    // A tag that gets no index costs its search nothing: its members are not even listed.
    let listed = 0;
    const members = () => {
      listed++;
      return s.members('c1');
    };
    expect(s.indexes.lookup({ tag: 'c1', count: 222, size: 2_000, members })).toBeUndefined();
    expect(listed).toBe(0);
    // Once the others have been idle long enough, the least recently searched ('a1') makes way, and only it.
    for (let i = 0; i < TAG_INDEX_IDLE_LOOKUPS; i++) s.lookup('a0');
    expect(s.lookup('c0')?.size).toBe(223);
    expect(s.indexes.tags.sort()).toEqual(['a0', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'c0']);
    expect(s.indexes.entries).toBeLessThanOrEqual(2_000);

    // Tags searched in turn, more than fit: the first ones keep their indexes, the rest get none.
    s.indexes.clear();
    for (let round = 0; round < 3; round++) for (let b = 0; b < TAG_INDEX_MAX_COUNT + 4; b++) s.lookup(`b${b}`);
    expect(s.indexes.tags.sort()).toEqual(Array.from({ length: TAG_INDEX_MAX_COUNT }, (_, b) => `b${b}`).sort());
    // Idle ones make way, least recently searched first.
    for (let i = 0; i < TAG_INDEX_IDLE_LOOKUPS; i++) s.lookup(`b${i % 2}`);
    expect(s.lookup(`b${TAG_INDEX_MAX_COUNT + 3}`)?.size).toBe(20);
    expect(s.indexes.tags).toHaveLength(TAG_INDEX_MAX_COUNT);
    expect(s.indexes.tags).toContain('b0');
    expect(s.indexes.tags).toContain('b1');
    expect(s.indexes.tags).not.toContain('b2');
    expect(s.indexes.entries).toBeLessThanOrEqual(2_000);

    s.indexes.clear();
    expect(s.indexes.tags).toEqual([]);
  });
});
