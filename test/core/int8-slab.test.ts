import { describe, expect, it } from 'vitest';
import { Int8Slab } from '../../runtime/core/vectors/int8-slab.js';
import { clusteredVectors } from '../../bench/support/clustered-vectors.js';

describe('Int8Slab', () => {
  it.each([384, 37, 8])('approximates float32 dot products of unit vectors (%i dimensions, padded to 16) and keeps rows through growth', (dim) => {
    const { sample } = clusteredVectors({ seed: dim, dim, centroids: 5 });
    const slab = new Int8Slab({ dim });
    const rows = Array.from({ length: 300 }, sample);
    slab.ensure(10);
    rows.slice(0, 10).forEach((row, i) => slab.set(i, row));
    // Growing past the first capacity must keep the rows (and scales) already written.
    slab.ensure(300);
    rows.slice(10).forEach((row, i) => slab.set(i + 10, row));
    expect(slab.capacity).toBeGreaterThanOrEqual(300);
    expect(slab.stride % 16).toBe(0);
    const query = sample();
    const order = [299, 0, 5, 150, 9, 10, 42];
    const rough = slab.dots(query, order, order.length);
    expect(rough).toHaveLength(order.length);
    order.forEach((row, i) => {
      const exact = rows[row]!.reduce((sum, x, d) => sum + x * query[d]!, 0);
      // int8 rows (step max/127) against an int16 query: well under 0.02 off for a unit vector.
      expect(Math.abs(rough[i]! - exact)).toBeLessThan(0.02);
    });
  });

  it('scores a zero row as 0, a zero query as 0, and no rows as an empty answer', () => {
    const slab = new Int8Slab({ dim: 16 });
    slab.ensure(2);
    slab.set(0, new Float32Array(16));
    slab.set(
      1,
      Float32Array.from({ length: 16 }, (_, i) => (i === 3 ? 1 : 0)),
    );
    expect([
      ...slab.dots(
        Float32Array.from({ length: 16 }, () => 0.25),
        [0, 1],
        2,
      ),
    ]).toEqual([0, expect.closeTo(0.25, 3)]);
    expect([...slab.dots(new Float32Array(16), [1], 1)]).toEqual([0]);
    expect(slab.dots(new Float32Array(16), [], 0)).toHaveLength(0);
  });

  it('stays exact in sign and order for the largest int16 query over many dimensions (no i32 overflow)', () => {
    const dim = 4096;
    const slab = new Int8Slab({ dim });
    slab.ensure(2);
    const ones = new Float32Array(dim).fill(1 / Math.sqrt(dim));
    slab.set(0, ones);
    slab.set(
      1,
      ones.map((x) => -x),
    );
    const [same, opposite] = slab.dots(ones, [0, 1], 2);
    expect(same).toBeCloseTo(1, 2);
    expect(opposite).toBeCloseTo(-1, 2);
  });
});
