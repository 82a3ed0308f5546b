/**
 * An approximate nearest-neighbour index over unit vectors, by cosine
 * distance (`1 - cosine similarity`). Entries are numbered by the caller
 * (`label`, a non-negative integer); the index knows nothing of records.
 * One implementation is used by the Semantic Layer and by the memory service.
 */
export interface VectorIndex {
  readonly dimensions: number;
  /** Entries held. */
  readonly size: number;
  /**
   * Whether `search`'s distances are exact. An index of quantized vectors
   * answers with approximate distances and order: its caller rescores the
   * candidates from the full vectors (see `filteredSearch`).
   */
  readonly exact: boolean;
  /** Adds entries: `vectors` holds `labels.length` rows of `dimensions` floats. A label already held is replaced. */
  add(labels: readonly number[], vectors: Float32Array): void;
  remove(labels: readonly number[]): void;
  /** The `k` nearest entries, nearest first. */
  search(query: Float32Array, k: number): { labels: number[]; distances: number[] };
  /**
   * The whole candidate list a search for `k` walks to (at least `k`
   * entries when the index holds that many), nearest first by the index's
   * distances: an inexact index's caller rescores all of it, since the true
   * nearest may lie anywhere in it. An exact index may answer `search`'s.
   */
  candidatesFor(query: Float32Array, k: number): { labels: number[]; distances: number[] };
  /** Writes the index to `path` (to be opened again with the implementation's `load`). */
  save(path: string): void;
}
