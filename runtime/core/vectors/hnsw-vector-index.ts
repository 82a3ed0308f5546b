import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
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
 * 32 at 10k entries, 64 at 100k. A candidate list of 128 while adding (64
 * before) makes a graph good enough that a search's shorter list still finds
 * recall@10 ≥ 0.99 at 100k whatever the two-thread build: on bench/semantic's
 * data at 100k (load about 25, each build once), efConstruction 64 with 96
 * gave 0.988 and 0.9885 in two builds and 0.995 in a third; 128 with 64 gave
 * 0.9975 for 0.77× the CPU per search; 128 with 96, 0.9995; degree 24 with
 * 64, 0.9985 for more CPU than degree 16. The price is the time to add.
 */
export const HNSW_SETTINGS = { connectivity: 16, expansionAdd: 128, expansionSearch: { at10k: 32, at100k: 64 } } as const;

/**
 * The candidate list a search keeps in an index of `size` entries: 32 up to
 * 10k, doubling with every tenfold growth (64 at 100k), at most 256. An index
 * of bytes hands the whole list to its caller to rescore (`candidatesFor`),
 * so the list need not be longer than the recall asks: on bench/semantic's
 * data, recall@10 1.000 at 10k with 32 (0.9995 with 48, for 1.5 times the
 * CPU), 0.9975 at 100k with 64 (see `HNSW_SETTINGS`).
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

/**
 * How the native index compares vectors. `ip` (every new index): the inner
 * product, which is the cosine of the unit vectors this index holds (the
 * `VectorIndex` contract), so its byte kernel multiplies each pair of bytes
 * once where `cos` also sums both squares and divides. `cos`: an index saved
 * before `ip` was the default; `load` reads the metric from the file, so it
 * keeps comparing as it was built.
 */
export type Metric = 'ip' | 'cos';
export const DEFAULT_METRIC: Metric = 'ip';

/** The candidate list the native index is made with: every search asks for at least this many neighbours (USearch keeps max(this, k) candidates). */
const NATIVE_EXPANSION = 16;

/**
 * The `VectorIndex` of USearch (a native HNSW library, prebuilt for
 * linux-x64 in its npm package) of unit vectors: cosine distances (compared
 * by inner product, see `Metric`), vectors stored as bytes (`i8`,
 * approximate distances) or float32 (see `Quantization`).
 *
 * @example
 * const index = HnswVectorIndex.create({ dimensions: 384 });
 * index.add([0, 1], vectors);
 * const { labels, distances } = index.search(query, 10);
 */
export class HnswVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly quantization: Quantization;
  readonly metric: Metric;
  readonly #index: UsearchIndex;
  readonly #threads: number;
  readonly #expansion: number | undefined;

  private constructor(options: {
    dimensions: number;
    quantization: Quantization;
    metric: Metric;
    index: UsearchIndex;
    threads: number;
    expansion: number | undefined;
  }) {
    this.dimensions = options.dimensions;
    this.quantization = options.quantization;
    this.metric = options.metric;
    this.#index = options.index;
    this.#threads = options.threads;
    this.#expansion = options.expansion;
  }

  /**
   * An empty index. `threads` used to add batches (default 2; searches use
   * one); `expansionSearch` the candidate list of a search (default
   * `expansionFor` the index's size; a search for more neighbours uses more);
   * `quantization` how vectors are stored (default `DEFAULT_QUANTIZATION`);
   * `metric` how they are compared (default `DEFAULT_METRIC`).
   */
  static create(options: { dimensions: number; threads?: number; expansionSearch?: number; quantization?: Quantization; metric?: Metric }): HnswVectorIndex {
    const { Index, MetricKind, ScalarKind } = loadUsearch();
    const quantization = options.quantization ?? DEFAULT_QUANTIZATION;
    const metric = options.metric ?? DEFAULT_METRIC;
    const index = new Index({
      dimensions: options.dimensions,
      metric: metric === 'ip' ? MetricKind.IP : MetricKind.Cos,
      quantization: quantization === 'i8' ? ScalarKind.I8 : ScalarKind.F32,
      connectivity: HNSW_SETTINGS.connectivity,
      expansion_add: HNSW_SETTINGS.expansionAdd,
      // Searches ask for their candidate list as k (USearch keeps max(expansion_search, k) candidates), so it can follow the size.
      expansion_search: options.expansionSearch ?? NATIVE_EXPANSION,
      multi: false,
    });
    return new HnswVectorIndex({
      dimensions: options.dimensions,
      quantization,
      metric,
      index,
      threads: options.threads ?? 2,
      expansion: options.expansionSearch,
    });
  }

  /**
   * The index saved at `path` by `save`, made with `quantization` (the file
   * holds its own, which USearch adopts: callers record it beside the file),
   * comparing by the metric it was built with (read from the file: indexes
   * saved before `ip` keep `cos`). Throws when the file is missing or not an
   * index of `dimensions`.
   */
  static load(options: { path: string; dimensions: number; quantization: Quantization; threads?: number }): HnswVectorIndex {
    const index = HnswVectorIndex.create({ ...options, metric: savedMetric(options.path) });
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
    return this.#answer(query, matches, Math.min(keep, matches.keys.length));
  }

  /**
   * Every entry of the candidate list a search for `k` keeps (max(k, the
   * candidate list of `expansionFor` the size), up to the size), nearest
   * first by the index's distances: what a caller of an index of bytes
   * rescores, since the true nearest `k` may lie anywhere in that list.
   */
  candidatesFor(query: Float32Array, k: number): { labels: number[]; distances: number[] } {
    const size = this.#index.size();
    if (size === 0 || k < 1) return { labels: [], distances: [] };
    const matches = this.#index.search(query, Math.min(size, Math.max(k, this.#expansion ?? expansionFor(size))), 1);
    return this.#answer(query, matches, matches.keys.length);
  }

  /** The first `n` matches as labels and cosine distances (those of bytes compared by inner product brought back to it, see `byteSquare`). */
  #answer(query: Float32Array, matches: { keys: BigUint64Array; distances: Float32Array }, n: number): { labels: number[]; distances: number[] } {
    const labels = new Array<number>(n);
    const distances = new Array<number>(n);
    const square = this.metric === 'ip' && this.quantization === 'i8' ? byteSquare(query) : 0;
    for (let i = 0; i < n; i++) {
      labels[i] = Number(matches.keys[i]!);
      // USearch answers 1 - the byte inner product.
      distances[i] = square === 0 ? matches.distances[i]! : 1 - (1 - matches.distances[i]!) / square;
    }
    return { labels, distances };
  }

  save(path: string): void {
    this.#index.save(path);
  }
}

/**
 * The metric of the USearch index saved at `path`, from its head: a dense
 * index file starts with its vectors (rows and bytes per row as two 32-bit
 * words, then the rows), then the head: `usearch`, three 16-bit version
 * numbers, the metric's letter (`i` inner product, `c` cosine).
 */
function savedMetric(path: string): Metric {
  const fd = openSync(path, 'r');
  try {
    const sizes = Buffer.alloc(8);
    if (readSync(fd, sizes, 0, 8, 0) !== 8) throw new Error(`${path} is not a USearch index (too short)`);
    const head = Buffer.alloc(14);
    const at = 8 + sizes.readUInt32LE(0) * sizes.readUInt32LE(4);
    if (at + 14 > fstatSync(fd).size || readSync(fd, head, 0, 14, at) !== 14 || head.toString('latin1', 0, 7) !== 'usearch')
      throw new Error(`${path} is not a USearch index (no head after its vectors)`);
    const letter = String.fromCharCode(head[13]!);
    if (letter === 'i') return 'ip';
    if (letter === 'c') return 'cos';
    throw new Error(`${path} holds a USearch index of metric "${letter}", neither inner product nor cosine`);
  } finally {
    closeSync(fd);
  }
}

/**
 * The inner product of `vector`'s bytes with themselves, as USearch makes
 * them (each component scaled by 127 over the vector's norm, rounded toward
 * zero): the byte inner product of two unit vectors over it is about their
 * cosine (exactly 1 for the vector itself; the rounding shrinks every byte
 * vector about alike), so an index of bytes compared by inner product still
 * answers approximate cosine distances. 0 for a zero vector.
 */
function byteSquare(vector: Float32Array): number {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  if (!(norm > 0)) return 0;
  const scale = 127 / Math.sqrt(norm);
  let square = 0;
  for (let i = 0; i < vector.length; i++) {
    const byte = Math.trunc(Math.max(-127, Math.min(127, vector[i]! * scale)));
    square += byte * byte;
  }
  return square;
}
