import { createRequire } from 'node:module';
import type { Index as UsearchIndex } from 'usearch';
import type { VectorIndex } from './vector-index.js';

// usearch is a native addon published as CommonJS; loaded on first use so the
// processes that never search (the CLI) never load it.
const require = createRequire(import.meta.url);
let usearch: typeof import('usearch') | undefined;
function loadUsearch(): typeof import('usearch') {
  usearch ??= require('usearch') as typeof import('usearch');
  return usearch;
}

/**
 * HNSW settings: graph degree, the candidate list kept while adding, and the
 * one kept while searching, which grows with the index (see `expansionFor`):
 * 48 at 10k entries, 96 at 100k.
 */
export const HNSW_SETTINGS = { connectivity: 16, expansionAdd: 64, expansionSearch: { at10k: 48, at100k: 96 } } as const;

/**
 * The candidate list a search keeps in an index of `size` entries: 48 up to
 * 10k, doubling with every tenfold growth (96 at 100k), at most 256. Measured
 * on bench/memory's data (200 clusters, 384 dims): recall@10 0.999-1.000 at
 * 10k with 48 (2.5× faster than with 96), and at 100k 0.957 with 48 but
 * 0.991 with 96; bench/semantic's data needs no more.
 */
export function expansionFor(size: number): number {
  const { at10k, at100k } = HNSW_SETTINGS.expansionSearch;
  if (size <= 10_000) return at10k;
  return Math.min(256, Math.round(at10k * (size / 10_000) ** Math.log10(at100k / at10k)));
}

/**
 * How the index stores its vectors. `i8` (the default): a byte per
 * dimension, so the graph walk reads a quarter of the memory and adds
 * twice as fast; its distances are approximate, so the caller rescores the
 * candidates from the full vectors (`filteredSearch` does, from its slab).
 * Measured on bench/memory's data at 100k: a search 0.17-0.21 ms with
 * rescoring against 0.30-0.35 ms for `f32`, recall@10 0.98-0.997 for both;
 * an insert of 100k in 4.5 s against 10-11 s.
 */
export type Quantization = 'i8' | 'f32';
export const DEFAULT_QUANTIZATION: Quantization = 'i8';

/** The candidate list the native index is made with: every search asks for at least this many neighbours (USearch keeps max(this, k) candidates). */
const NATIVE_EXPANSION = 16;

/**
 * The `VectorIndex` of USearch (a native HNSW library, prebuilt for
 * linux-x64 in its npm package): cosine metric, vectors stored as bytes
 * (`i8`, approximate distances) or float32 (see `Quantization`).
 *
 * @example
 * const index = HnswVectorIndex.create({ dimensions: 384 });
 * index.add([0, 1], vectors);
 * const { labels, distances } = index.search(query, 10);
 */
export class HnswVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly quantization: Quantization;
  readonly #index: UsearchIndex;
  readonly #threads: number;
  readonly #expansion: number | undefined;

  private constructor(options: { dimensions: number; quantization: Quantization; index: UsearchIndex; threads: number; expansion: number | undefined }) {
    this.dimensions = options.dimensions;
    this.quantization = options.quantization;
    this.#index = options.index;
    this.#threads = options.threads;
    this.#expansion = options.expansion;
  }

  /**
   * An empty index. `threads` used to add batches (default 2; searches use
   * one); `expansionSearch` the candidate list of a search (default
   * `expansionFor` the index's size; a search for more neighbours uses more);
   * `quantization` how vectors are stored (default `DEFAULT_QUANTIZATION`).
   */
  static create(options: { dimensions: number; threads?: number; expansionSearch?: number; quantization?: Quantization }): HnswVectorIndex {
    const { Index, MetricKind, ScalarKind } = loadUsearch();
    const quantization = options.quantization ?? DEFAULT_QUANTIZATION;
    const index = new Index({
      dimensions: options.dimensions,
      metric: MetricKind.Cos,
      quantization: quantization === 'i8' ? ScalarKind.I8 : ScalarKind.F32,
      connectivity: HNSW_SETTINGS.connectivity,
      expansion_add: HNSW_SETTINGS.expansionAdd,
      // Searches ask for their candidate list as k (USearch keeps max(expansion_search, k) candidates), so it can follow the size.
      expansion_search: options.expansionSearch ?? NATIVE_EXPANSION,
      multi: false,
    });
    return new HnswVectorIndex({ dimensions: options.dimensions, quantization, index, threads: options.threads ?? 2, expansion: options.expansionSearch });
  }

  /**
   * The index saved at `path` by `save`, made with `quantization` (the file
   * holds its own, which USearch adopts: callers record it beside the file).
   * Throws when the file is missing or not an index of `dimensions`.
   */
  static load(options: { path: string; dimensions: number; quantization: Quantization; threads?: number }): HnswVectorIndex {
    const index = HnswVectorIndex.create(options);
    index.#index.load(options.path);
    if (index.#index.dimensions() !== options.dimensions)
      throw new Error(`${options.path} holds ${index.#index.dimensions()}-dimensional vectors, not ${options.dimensions}`);
    return index;
  }

  get size(): number {
    return this.#index.size();
  }

  /** Distances of float32 vectors are exact; of bytes, approximate (rescore them). */
  get exact(): boolean {
    return this.quantization === 'f32';
  }

  add(labels: readonly number[], vectors: Float32Array): void {
    if (labels.length === 0) return;
    if (vectors.length !== labels.length * this.dimensions)
      throw new RangeError(`${labels.length} labels need ${labels.length * this.dimensions} floats, got ${vectors.length}`);
    const keys = BigUint64Array.from(labels, (label) => BigInt(label));
    const present = this.#index.contains(keys);
    const replaced = (Array.isArray(present) ? present : [present]).map((held, i) => (held ? keys[i]! : undefined)).filter((key) => key !== undefined);
    if (replaced.length > 0) this.#index.remove(BigUint64Array.from(replaced));
    this.#index.add(keys, vectors, labels.length > 1 ? this.#threads : 1);
  }

  remove(labels: readonly number[]): void {
    if (labels.length > 0) this.#index.remove(BigUint64Array.from(labels, (label) => BigInt(label)));
  }

  search(query: Float32Array, k: number): { labels: number[]; distances: number[] } {
    const size = this.#index.size();
    if (size === 0 || k < 1) return { labels: [], distances: [] };
    const keep = Math.min(k, size);
    // The candidate list (at least `keep`) asked for as neighbours; the nearest `keep` of them are the answer.
    const matches = this.#index.search(query, Math.min(size, Math.max(keep, this.#expansion ?? expansionFor(size))), 1);
    const n = Math.min(keep, matches.keys.length);
    const labels = new Array<number>(n);
    const distances = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      labels[i] = Number(matches.keys[i]!);
      distances[i] = matches.distances[i]!;
    }
    return { labels, distances };
  }

  save(path: string): void {
    this.#index.save(path);
  }
}
