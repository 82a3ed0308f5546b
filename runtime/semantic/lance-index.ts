import { Index, type Table } from '@lancedb/lancedb';

/**
 * Rows at which a table gets its ANN index. Below it a search is an exact
 * flat scan: about 7-9 ms for 10,000 384-d vectors on two cores (the
 * Semantic Layer bench), growing linearly (about 80 ms at 100,000), so past
 * this size the index pays for itself.
 */
export const DEFAULT_INDEX_THRESHOLD = 10_000;

/**
 * Search-time knobs for the IVF_HNSW_SQ index. `ef` is the HNSW candidate
 * list; `refineFactor: 2` re-ranks the 2×limit best (8-bit SQ) candidates
 * with the full float32 vectors, which lifts recall@10 from about 0.97 to
 * about 0.99+ for ~1-2 ms and makes the returned distances exact. Both are
 * ignored by a flat search.
 */
export const ANN_SEARCH = { ef: 80, refineFactor: 2 } as const;

/**
 * The ANN index: IVF_HNSW_SQ with one partition (one HNSW graph over 8-bit
 * scalar-quantised vectors), cosine. At 100,000 384-d vectors it builds in
 * about 15 s on two cores and answers in 3-5 ms with recall@10 ≥ 0.99 (with
 * `ANN_SEARCH`); IVF_PQ needs many more probes and a bigger refine for the
 * same recall. One graph of a million vectors takes about 1.5 GB to train;
 * past that, more partitions (and `nprobes`) would be the next step.
 *
 * @example
 * await table.createIndex('vector', { config: annIndex(), replace: true });
 */
export function annIndex(): Index {
  return Index.hnswSq({ distanceType: 'cosine', numPartitions: 1, m: 20, efConstruction: 150 });
}

/** What to do with a table's vector index after a write. */
export type IndexAction = 'none' | 'create' | 'optimize' | 'rebuild';

/** Segments (the trained index plus incremental deltas) at which the index is retrained. */
export const MAX_SEGMENTS = 4;

/** Field metadata key on `vector`: how many rows the current index was trained on. */
export const TRAINED_ROWS_KEY = 'framework_core.index_trained_rows';

/**
 * The index maintenance strategy, a pure decision made after each write:
 * - no index and `rows >= threshold` → `create` (train the index on all rows);
 * - an index whose rows have doubled since it was trained, or that has
 *   `MAX_SEGMENTS` segments → `rebuild` (retrain over everything, replacing it);
 * - an index, and rows written since (unindexed: scanned flat by every
 *   search, about 1.2 ms per 1,000 rows) reach
 *   `max(min(2,000, threshold / 5), indexed / 40)` → `optimize`: LanceDB
 *   adds them to the index incrementally (one more segment, no retraining)
 *   and compacts files.
 *
 * Each segment is searched on its own (about 0.7 ms each at 100,000 rows),
 * so segments are capped; a delta of `indexed / 40` makes a rebuild happen
 * after about 7.5 % growth, so rebuilding stays a bounded multiple of the
 * rows written at a given size. Measured by `npm run bench:semantic`.
 *
 * @example
 * indexAction({ rows: 12_000, threshold: 10_000 }); // 'create'
 * indexAction({ rows: 12_000, threshold: 10_000, index: { indexed: 10_000, unindexed: 2_000, trainedRows: 10_000, segments: 1 } }); // 'optimize'
 */
export function indexAction(options: {
  rows: number;
  threshold: number;
  index?: { indexed: number; unindexed: number; trainedRows: number; segments: number };
}): IndexAction {
  const { rows, threshold, index } = options;
  if (!index) return rows >= threshold ? 'create' : 'none';
  if (rows >= 2 * Math.max(index.trainedRows, 1) || index.segments >= MAX_SEGMENTS) return 'rebuild';
  const optimizeAfter = Math.max(1, Math.min(2_000, Math.floor(threshold / 5)), Math.floor(index.indexed / 40));
  return index.unindexed >= optimizeAfter ? 'optimize' : 'none';
}

/**
 * The vector index of a table as `indexAction` needs it; `undefined` when
 * there is none. `trainedRows` comes from the `vector` field metadata the
 * store writes after training (the indexed rows for an index built elsewhere).
 *
 * @example
 * const state = await vectorIndexState({ table });
 */
export async function vectorIndexState(options: { table: Table }): Promise<
  { name: string; indexed: number; unindexed: number; trainedRows: number; segments: number } | undefined
> {
  const { table } = options;
  const index = (await table.listIndices()).find((config) => config.columns.includes('vector'));
  if (!index) return undefined;
  const stats = await table.indexStats(index.name);
  const indexed = stats?.numIndexedRows ?? 0;
  const recorded = Number((await table.schema()).fields.find((field) => field.name === 'vector')?.metadata.get(TRAINED_ROWS_KEY));
  return {
    name: index.name,
    indexed,
    unindexed: stats?.numUnindexedRows ?? 0,
    trainedRows: Number.isFinite(recorded) && recorded > 0 ? recorded : indexed,
    segments: stats?.numIndices ?? 1,
  };
}
