import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expansionFor, HNSW_SETTINGS, HnswVectorIndex } from '../../runtime/core/vectors/hnsw-vector-index.js';
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
  it('keeps a candidate list that grows with the index: 48 up to 10k, 96 at 100k, at most 256', () => {
    expect(expansionFor(0)).toBe(HNSW_SETTINGS.expansionSearch.at10k);
    expect(expansionFor(10_000)).toBe(48);
    expect(expansionFor(100_000)).toBe(96);
    expect(expansionFor(31_623)).toBeGreaterThan(48);
    expect(expansionFor(31_623)).toBeLessThan(96);
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
});
