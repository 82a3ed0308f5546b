import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filteredSearch } from '../../runtime/core/vectors/filtered-search.js';
import { expansionFor, HNSW_SETTINGS, HnswVectorIndex } from '../../runtime/core/vectors/hnsw-vector-index.js';
import { VectorSlab } from '../../runtime/core/vectors/vector-slab.js';
import { clusteredVectors } from '../../bench/support/clustered-vectors.js';

const DIM = 24;

function unitRows(n: number, seed: number): Float32Array {
  const { sample } = clusteredVectors({ seed, dim: DIM, centroids: 20 });
  const rows = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    const v = sample();
    const norm = Math.hypot(...v);
    rows.set(
      v.map((x) => x / norm),
      i * DIM,
    );
  }
  return rows;
}

function exactTop(rows: Float32Array, n: number, query: Float32Array, k: number): number[] {
  const scored = Array.from({ length: n }, (_, i) => {
    let dot = 0;
    for (let j = 0; j < DIM; j++) dot += rows[i * DIM + j]! * query[j]!;
    return { i, dot };
  });
  return scored
    .sort((a, b) => b.dot - a.dot)
    .slice(0, k)
    .map((s) => s.i);
}

describe('HnswVectorIndex', () => {
  it('keeps a candidate list that grows with the index: 32 up to 10k, 64 at 100k, at most 256', () => {
    expect(expansionFor(0)).toBe(HNSW_SETTINGS.expansionSearch.at10k);
    expect(expansionFor(10_000)).toBe(32);
    expect(expansionFor(100_000)).toBe(64);
    expect(expansionFor(31_623)).toBeGreaterThan(32);
    expect(expansionFor(31_623)).toBeLessThan(64);
    expect(expansionFor(100_000_000)).toBe(256);
  });

  it('answers exactly k neighbours, nearest first, whatever the candidate list it searched', () => {
    const n = 3_000;
    const rows = unitRows(n, 11);
    const index = HnswVectorIndex.create({ dimensions: DIM });
    index.add(
      Array.from({ length: n }, (_, i) => i),
      rows,
    );
    const queries = unitRows(20, 12);
    let agreed = 0;
    for (let q = 0; q < 20; q++) {
      const query = queries.subarray(q * DIM, (q + 1) * DIM);
      for (const k of [1, 10, 60]) {
        const found = index.search(query, k);
        expect(found.labels).toHaveLength(k);
        expect(found.distances).toHaveLength(k);
        expect([...found.distances].sort((a, b) => a - b)).toEqual(found.distances);
        if (k === 10) agreed += found.labels.filter((label) => exactTop(rows, n, query, 10).includes(label)).length;
      }
    }
    // An approximate index (its graph built on two threads, so not the same every run): most of the exact top 10.
    expect(agreed / 200).toBeGreaterThanOrEqual(0.85);
    // More than it holds: all of them.
    const tiny = HnswVectorIndex.create({ dimensions: DIM });
    tiny.add([5, 6], rows.subarray(0, 2 * DIM));
    expect(tiny.search(queries.subarray(0, DIM), 10).labels.sort()).toEqual([5, 6]);
  });

  it('stores bytes by default (approximate distances) and float32 on request (exact ones); a saved index reopens as it was made', () => {
    const n = 500;
    const rows = unitRows(n, 13);
    const query = unitRows(1, 14);
    const exactDistance = (i: number) => 1 - rows.subarray(i * DIM, (i + 1) * DIM).reduce((sum, x, j) => sum + x * query[j]!, 0);
    const labels = Array.from({ length: n }, (_, i) => i);
    const bytes = HnswVectorIndex.create({ dimensions: DIM });
    const floats = HnswVectorIndex.create({ dimensions: DIM, quantization: 'f32' });
    bytes.add(labels, rows);
    floats.add(labels, rows);
    expect([bytes.quantization, bytes.exact, floats.quantization, floats.exact]).toEqual(['i8', false, 'f32', true]);
    const off = (index: HnswVectorIndex) => {
      const found = index.search(query, 10);
      return Math.max(...found.labels.map((label, i) => Math.abs(found.distances[i]! - exactDistance(label))));
    };
    expect(off(floats)).toBeLessThan(1e-5);
    expect(off(bytes)).toBeGreaterThan(1e-4);
    const dir = mkdtempSync(join(tmpdir(), 'fw-hnsw-'));
    try {
      bytes.save(join(dir, 'bytes.hnsw'));
      const reopened = HnswVectorIndex.load({ path: join(dir, 'bytes.hnsw'), dimensions: DIM, quantization: 'i8' });
      expect(reopened.search(query, 10)).toEqual(bytes.search(query, 10));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('compares by inner product by default, with the ranking and distances of cosine on unit vectors', () => {
    const n = 400;
    const rows = unitRows(n, 15);
    const queries = unitRows(20, 16);
    const labels = Array.from({ length: n }, (_, i) => i);
    const slab = new VectorSlab({ dim: DIM });
    slab.ensure(n);
    slab.setRows(rows, n);
    const exactDistance = (i: number, query: Float32Array) => 1 - rows.subarray(i * DIM, (i + 1) * DIM).reduce((sum, x, j) => sum + x * query[j]!, 0);
    for (const quantization of ['f32', 'i8'] as const) {
      // One thread: each graph is built in the same order.
      const byProduct = HnswVectorIndex.create({ dimensions: DIM, quantization, threads: 1 });
      const byCosine = HnswVectorIndex.create({ dimensions: DIM, quantization, threads: 1, metric: 'cos' });
      expect([byProduct.metric, byCosine.metric]).toEqual(['ip', 'cos']);
      byProduct.add(labels, rows);
      byCosine.add(labels, rows);
      for (let q = 0; q < 20; q++) {
        const query = queries.subarray(q * DIM, (q + 1) * DIM);
        // What a caller gets: through filteredSearch, which rescores an index of bytes from the float rows.
        const answer = (index: HnswVectorIndex) =>
          filteredSearch({ index, slab, size: n, query, keep: 10, candidates: { labels, count: n }, accept: () => true, indexComplete: true });
        const product = answer(byProduct);
        const cosine = answer(byCosine);
        expect(product.labels).toEqual(cosine.labels);
        expect(product.labels).toEqual(exactTop(rows, n, query, 10));
        product.distances.forEach((distance, i) => {
          expect(distance).toBeCloseTo(cosine.distances[i]!, 5);
          expect(distance).toBeCloseTo(exactDistance(product.labels[i]!, query), 5);
        });
        // The index's own distances: cosine ones, exact for floats; for bytes within the rounding of 24 bytes (not USearch's 1 - byte inner product).
        const own = byProduct.search(query, 10);
        const tolerance = quantization === 'f32' ? 1e-5 : 0.05;
        own.labels.forEach((label, i) => expect(Math.abs(own.distances[i]! - exactDistance(label, query))).toBeLessThan(tolerance));
      }
    }
  });

  it("hands a byte index's caller its whole candidate list to rescore, not only the k it asked for", () => {
    const n = 2_000;
    const rows = unitRows(n, 17);
    const query = unitRows(1, 18);
    const index = HnswVectorIndex.create({ dimensions: DIM, expansionSearch: 40 });
    index.add(
      Array.from({ length: n }, (_, i) => i),
      rows,
    );
    const candidates = index.candidatesFor(query, 10);
    expect(candidates.labels).toHaveLength(40);
    expect(candidates.labels.slice(0, 10)).toEqual(index.search(query, 10).labels);
    expect(index.candidatesFor(query, 60).labels).toHaveLength(60);
    expect(HnswVectorIndex.create({ dimensions: DIM }).candidatesFor(query, 10).labels).toEqual([]);
  });

  it('loads an index saved with the cosine metric (before inner product was the default) as cosine', () => {
    // Written by this class before the change: 60 rows of unitRows(60, 31), bytes, cosine.
    const path = fileURLToPath(new URL('fixtures/cosine-i8-before-ip.usearch', import.meta.url));
    const n = 60;
    const rows = unitRows(n, 31);
    const reopened = HnswVectorIndex.load({ path, dimensions: DIM, quantization: 'i8' });
    expect([reopened.metric, reopened.quantization, reopened.size]).toEqual(['cos', 'i8', n]);
    const queries = unitRows(5, 32);
    for (let q = 0; q < 5; q++) {
      const query = queries.subarray(q * DIM, (q + 1) * DIM);
      const found = reopened.search(query, 10);
      expect(found.labels.filter((label) => exactTop(rows, n, query, 10).includes(label)).length).toBeGreaterThanOrEqual(8);
      // Cosine distances of bytes: close to the exact ones (read as inner product they would be about 1).
      found.labels.forEach((label, i) => {
        const exact = 1 - rows.subarray(label * DIM, (label + 1) * DIM).reduce((sum, x, j) => sum + x * query[j]!, 0);
        expect(Math.abs(found.distances[i]! - exact)).toBeLessThan(0.05);
      });
    }
    // Saved again, it stays cosine; a new index saved and loaded stays inner product.
    const dir = mkdtempSync(join(tmpdir(), 'fw-hnsw-'));
    try {
      reopened.save(join(dir, 'again.usearch'));
      expect(HnswVectorIndex.load({ path: join(dir, 'again.usearch'), dimensions: DIM, quantization: 'i8' }).metric).toBe('cos');
      const fresh = HnswVectorIndex.create({ dimensions: DIM, quantization: 'f32' });
      fresh.add([0, 1, 2], rows.subarray(0, 3 * DIM));
      fresh.save(join(dir, 'fresh.usearch'));
      const loaded = HnswVectorIndex.load({ path: join(dir, 'fresh.usearch'), dimensions: DIM, quantization: 'f32' });
      expect(loaded.metric).toBe('ip');
      expect(loaded.search(rows.subarray(0, DIM), 3)).toEqual(fresh.search(rows.subarray(0, DIM), 3));
      writeFileSync(join(dir, 'junk.usearch'), Buffer.alloc(64, 7));
      expect(() => HnswVectorIndex.load({ path: join(dir, 'junk.usearch'), dimensions: DIM, quantization: 'i8' })).toThrow(/not a USearch index/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
