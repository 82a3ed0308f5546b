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

/** HNSW settings: graph degree, and the candidate lists kept while adding and searching (recall ≥ 0.95 at 100k in bench/semantic). */
export const HNSW_SETTINGS = { connectivity: 16, expansionAdd: 64, expansionSearch: 96 } as const;

/**
 * The `VectorIndex` of USearch (a native HNSW library, prebuilt for
 * linux-x64 in its npm package): cosine metric, float32 vectors.
 *
 * @example
 * const index = HnswVectorIndex.create({ dimensions: 384 });
 * index.add([0, 1], vectors);
 * const { labels, distances } = index.search(query, 10);
 */
export class HnswVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly #index: UsearchIndex;
  readonly #threads: number;

  private constructor(options: { dimensions: number; index: UsearchIndex; threads: number }) {
    this.dimensions = options.dimensions;
    this.#index = options.index;
    this.#threads = options.threads;
  }

  /**
   * An empty index. `threads` used to add batches (default 2; searches use
   * one); `expansionSearch` the candidate list of a search (default
   * `HNSW_SETTINGS.expansionSearch`; a search for more neighbours uses more).
   */
  static create(options: { dimensions: number; threads?: number; expansionSearch?: number }): HnswVectorIndex {
    const { Index, MetricKind, ScalarKind } = loadUsearch();
    const index = new Index({
      dimensions: options.dimensions,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      connectivity: HNSW_SETTINGS.connectivity,
      expansion_add: HNSW_SETTINGS.expansionAdd,
      expansion_search: options.expansionSearch ?? HNSW_SETTINGS.expansionSearch,
      multi: false,
    });
    return new HnswVectorIndex({ dimensions: options.dimensions, index, threads: options.threads ?? 2 });
  }

  /** The index saved at `path` by `save`. Throws when the file is missing or not an index of `dimensions`. */
  static load(options: { path: string; dimensions: number; threads?: number }): HnswVectorIndex {
    const index = HnswVectorIndex.create(options);
    index.#index.load(options.path);
    if (index.#index.dimensions() !== options.dimensions)
      throw new Error(`${options.path} holds ${index.#index.dimensions()}-dimensional vectors, not ${options.dimensions}`);
    return index;
  }

  get size(): number {
    return this.#index.size();
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
    const matches = this.#index.search(query, Math.min(k, size), 1);
    return { labels: Array.from(matches.keys, Number), distances: Array.from(matches.distances) };
  }

  save(path: string): void {
    this.#index.save(path);
  }
}
