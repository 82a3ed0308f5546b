import { prng } from './seeded-random.js';

/** Scales `v` to unit length in place. */
export function normalise(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** The `p` quantile (0..1) of ascending `sorted`. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/**
 * Seeded synthetic embeddings: unit vectors around `centroids` random
 * centroids with Gaussian noise (cosine to their centroid about 0.7), so they
 * cluster a little as real embeddings do; the same seed gives the same data.
 *
 * @example
 * const { sample } = clusteredVectors({ seed: 1, dim: 384, centroids: 200 });
 * const v = sample(); // a Float32Array of length 384, unit length
 */
export function clusteredVectors(options: { seed: number; dim: number; centroids: number }): {
  random: () => number;
  gauss: () => number;
  sample: () => Float32Array;
} {
  const { dim } = options;
  const random = prng(options.seed);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centroids = Array.from({ length: options.centroids }, () => normalise(Float32Array.from({ length: dim }, gauss)));
  /** A point near a random centroid: noise of norm ~1 around a unit centroid. */
  const sample = () => {
    const centroid = centroids[Math.floor(random() * options.centroids)]!;
    return normalise(Float32Array.from(centroid, (x) => x + gauss() / Math.sqrt(dim)));
  };
  return { random, gauss, sample };
}

/**
 * The indexes of the `k` rows of `data` ([n, dim], unit rows) nearest `query`
 * by cosine (dot product), nearest first; only rows `keep` accepts, when given.
 */
export function exactTopK(options: { data: Float32Array; n: number; query: Float32Array; k: number; keep?: (i: number) => boolean }): number[] {
  const { data, n, query, k, keep } = options;
  const dim = query.length;
  const best: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < n; i++) {
    if (keep && !keep(i)) continue;
    let s = 0;
    const o = i * dim;
    for (let j = 0; j < dim; j++) s += query[j]! * data[o + j]!;
    if (best.length < k || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > k) best.pop();
    }
  }
  return best.map((b) => b.i);
}
