import { access, constants, mkdir } from 'node:fs/promises';
import type { Connection, Table } from '@lancedb/lancedb';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { idWhere, sqlString } from './lance-filter.js';
import { CollectionMirror, unitVector, type MirroredRecord } from './collection-mirror.js';
import { HnswVectorIndex } from '../core/vectors/hnsw-vector-index.js';
import { loadLanceDb } from './lance-runtime.js';
import {
  LANCE_COLUMNS,
  LANCE_TEXT_COLUMNS,
  lanceSchema,
  recordsToArrow,
  rowMetadata,
  rowToStored,
  rowVector,
  vectorDimensions,
  type LanceRow,
} from './lance-rows.js';
import { readSavedMirror, restoreMirror, saveMirror } from './mirror-file.js';
import { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';
import {
  isValidVector,
  type CollectionName,
  type SearchOptions,
  type StoredRecord,
  type VectorHit,
  type VectorRecord,
  type VectorStore,
} from './vector-store.js';

const COLLECTIONS: readonly CollectionName[] = ['documents', 'agent_cards'];
const DELETE_CHUNK = 500;

/** Quiet time after the last write before the ANN index is saved beside the tables. */
const SAVE_DELAY_MS = 2_000;

/**
 * The embedded vector store: one LanceDB directory with two tables,
 * `documents` and `agent_cards` (columns `id`, `vector`, `content`, `uri`,
 * `metadata_json`, `metadata_tags`), the store of record. Searches are
 * answered in memory by a `CollectionMirror` of each table: an HNSW index
 * (USearch) with the records and an inverted index of metadata pairs, so a
 * search never scans the table. Cosine similarity (`score = 1 - distance`).
 *
 * The mirror is built when the store opens: from the saved index
 * (`<collection>.hnsw`, written a moment after writes stop and on close)
 * when it matches the table's version, else from the table's vectors. Writes
 * go to LanceDB first (a plain append for new ids, a merge for replaced
 * ones), then to the mirror, one at a time per collection.
 * A record whose vector is empty, of the wrong dimension, not finite or all
 * zeros makes `upsert` reject the whole batch with `BadRequestError`
 * (`invalid_request`); LanceDB failures become `VectorStoreUnavailableError`
 * (`store_unavailable`) naming the directory.
 *
 * @example
 * const store = await LanceVectorStore.open({ dir: './data/vectors' });
 * await store.upsert('documents', [{ id: 'a', vector, content: 'Hello', metadata: { lang: 'en' }, uri: '' }]);
 * const hits = await store.search('documents', query, { limit: 5, filter: { lang: 'en' } });
 */
export class LanceVectorStore implements VectorStore {
  readonly kind = 'lancedb';
  readonly location: string;
  readonly #db: Connection;
  readonly #logger: Logger;
  readonly #tables = new Map<CollectionName, Table>();
  readonly #mirrors = new Map<CollectionName, CollectionMirror>();
  /** The last write (or save) of each collection: writes run one after another. */
  readonly #queues = new Map<CollectionName, Promise<unknown>>();
  readonly #saveTimers = new Map<CollectionName, NodeJS.Timeout>();
  #dimensions: number | undefined;
  #closed = false;

  private constructor(options: { dir: string; db: Connection; logger: Logger }) {
    this.location = options.dir;
    this.#db = options.db;
    this.#logger = options.logger;
  }

  /**
   * Opens (creating it when missing) the store in `dir` and builds the
   * in-memory mirror of each table.
   *
   * @example
   * const store = await LanceVectorStore.open({ dir: '/tmp/vectors' });
   */
  static async open(options: { dir: string; logger?: Logger }): Promise<LanceVectorStore> {
    const { dir } = options;
    const logger = options.logger ?? silentLogger;
    // Loaded on use: LanceDB is installed by `framework-cli runtime install`, not with the toolkit.
    const { connect } = await loadLanceDb({ dir });
    let store: LanceVectorStore;
    try {
      await mkdir(dir, { recursive: true });
      store = new LanceVectorStore({ dir, db: await connect(dir), logger });
    } catch (cause) {
      throw unavailable({ dir, detail: `could not open the directory: ${describe(cause)}`, cause });
    }
    await store.#run('reading the existing tables', async () => {
      const names = await store.#db.tableNames();
      for (const collection of COLLECTIONS) {
        if (!names.includes(collection)) continue;
        const table = await store.#db.openTable(collection);
        store.#tables.set(collection, table);
        store.#dimensions ??= vectorDimensions({ schema: await table.schema() });
        if (store.#dimensions !== undefined) await store.#buildMirror(collection, table, store.#dimensions);
      }
    });
    logger.info('lancedb vector store opened', { dir, dimensions: store.#dimensions, tables: [...store.#tables.keys()] });
    return store;
  }

  get dimensions(): number | undefined {
    return this.#dimensions;
  }

  async upsert(collection: CollectionName, records: readonly VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    const dimensions = this.#dimensions ?? records[0]!.vector.length;
    // The last record wins when a batch repeats an id (a merge with duplicate keys is ambiguous).
    const unique = [...new Map(records.map((record) => [record.id, record])).values()];
    const vectors = unique.map((record) => {
      const vector = Float32Array.from(record.vector);
      // Checked as given and as stored: 1e39 overflows float32, 1e-50 becomes 0.
      if (typeof record.id !== 'string' || record.id === '' || !isValidVector(record.vector, dimensions) || !isValidVector(vector as unknown as number[])) {
        throw new BadRequestError({
          code: 'invalid_request',
          message: `Refused to store "${String(record.id)}" in ${collection}: it needs a non-empty id and a vector that is non-empty, finite (as float32), not all zeros and ${dimensions} long (got ${record.vector.length}). Nothing of this batch was written.`,
        });
      }
      return vector;
    });
    await this.#serial(collection, () =>
      this.#run(`writing ${unique.length} records to ${collection}`, async () => {
        const table = this.#tables.get(collection) ?? (await this.#createTable(collection, dimensions));
        const mirror = this.#mirror(collection, dimensions);
        const data = recordsToArrow({ records: unique, vectors, dimensions });
        // New ids are a plain append; a merge (which joins on id) only when some are replaced.
        if (unique.some((record) => mirror.has(record.id))) await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data);
        else await table.add(data);
        const units = new Float32Array(unique.length * dimensions);
        vectors.forEach((vector, i) => units.set(unitVector(vector), i * dimensions));
        mirror.upsert(
          unique.map((record) => ({ id: record.id, content: record.content, metadata: { ...record.metadata }, uri: record.uri })),
          units,
        );
      }),
    );
    this.#scheduleSave(collection);
  }

  async search(collection: CollectionName, vector: readonly number[], options: SearchOptions): Promise<VectorHit[]> {
    if (!isValidVector(vector, this.#dimensions)) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `The query vector must be non-empty, finite, not all zeros${this.#dimensions === undefined ? '' : ` and ${this.#dimensions} long`} (got ${vector.length}).`,
      });
    }
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new BadRequestError({ code: 'invalid_request', message: `The search limit must be a positive integer (got ${options.limit}).` });
    }
    this.#table(collection); // refuses a closed store
    const mirror = this.#mirrors.get(collection);
    if (!mirror) return [];
    return mirror.search(unitVector(vector), { limit: options.limit, ...(options.filter ? { filter: options.filter } : {}) });
  }

  /**
   * Resolves once the per-pair indexes that filtered searches of `collection`
   * started building hold every record of their pair (they are built in
   * small steps between requests; until then such searches take the slower
   * path through the whole index). For a warm-up, or a benchmark of the
   * steady state.
   */
  async settled(collection: CollectionName): Promise<void> {
    await this.#mirrors.get(collection)?.settled();
  }

  async get(collection: CollectionName, id: string): Promise<StoredRecord | undefined> {
    const table = this.#table(collection);
    if (!table) return undefined;
    return this.#run(`reading ${id} from ${collection}`, async () => {
      const [row] = (await table
        .query()
        .where(`id = ${sqlString({ value: id })}`)
        .limit(1)
        .toArray()) as LanceRow[];
      return row ? this.#stored(row) : undefined;
    });
  }

  async list(collection: CollectionName): Promise<StoredRecord[]> {
    const table = this.#table(collection);
    if (!table) return [];
    return this.#run(`listing ${collection}`, async () => ((await table.query().toArray()) as LanceRow[]).map((row) => this.#stored(row)));
  }

  async delete(collection: CollectionName, ids: readonly string[]): Promise<void> {
    const table = this.#table(collection);
    if (!table || ids.length === 0) return;
    await this.#serial(collection, () =>
      this.#run(`deleting ${ids.length} records from ${collection}`, async () => {
        for (let at = 0; at < ids.length; at += DELETE_CHUNK) await table.delete(idWhere({ ids: ids.slice(at, at + DELETE_CHUNK) }));
        this.#mirrors.get(collection)?.remove(ids);
      }),
    );
    this.#scheduleSave(collection);
  }

  async count(collection: CollectionName): Promise<number> {
    const table = this.#table(collection);
    if (!table) return 0;
    return this.#run(`counting ${collection}`, () => table.countRows());
  }

  async ready(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      await access(this.location, constants.R_OK | constants.W_OK);
      await this.#db.tableNames();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    for (const [collection, timer] of this.#saveTimers) {
      clearTimeout(timer);
      await this.#serial(collection, () => this.#save(collection)).catch(() => undefined);
    }
    this.#saveTimers.clear();
    await Promise.allSettled(this.#queues.values());
    this.#closed = true;
    for (const table of this.#tables.values()) table.close();
    this.#tables.clear();
    for (const mirror of this.#mirrors.values()) mirror.close();
    this.#db.close();
  }

  /** The open table of a collection, `undefined` before its first write. */
  #table(collection: CollectionName): Table | undefined {
    if (this.#closed) throw unavailable({ dir: this.location, detail: 'the store was closed' });
    return this.#tables.get(collection);
  }

  async #createTable(collection: CollectionName, dimensions: number): Promise<Table> {
    // existOk: another store on the same directory may have created it since we opened.
    const table = await this.#db.createEmptyTable(collection, lanceSchema({ dimensions }), { mode: 'create', existOk: true });
    const existing = vectorDimensions({ schema: await table.schema() });
    if (existing !== dimensions) {
      throw new BadRequestError({
        code: 'invalid_request',
        message: `The ${collection} table holds ${existing}-dimensional vectors; refused ${dimensions}-dimensional ones.`,
      });
    }
    this.#tables.set(collection, table);
    this.#dimensions ??= dimensions;
    this.#logger.info('lancedb table created', { dir: this.location, collection, dimensions });
    return table;
  }

  /** The mirror of a collection, created empty on its first write. */
  #mirror(collection: CollectionName, dimensions: number): CollectionMirror {
    let mirror = this.#mirrors.get(collection);
    if (!mirror) this.#mirrors.set(collection, (mirror = new CollectionMirror({ index: HnswVectorIndex.create({ dimensions }) })));
    return mirror;
  }

  /**
   * Builds a collection's mirror: from the saved one (graph, unit vectors
   * and labels, see mirror-file.ts) when it matches the table's version,
   * with the records read from the table without their vectors; else from
   * the table's vectors, and saved. A saved mirror that cannot be used is
   * logged with the reason (a warning when its files are damaged). Rows
   * without a valid vector (older stores) are left out: they can never be a
   * search hit.
   */
  async #buildMirror(collection: CollectionName, table: Table, dimensions: number): Promise<void> {
    const started = performance.now();
    const version = await table.version();
    const saved = readSavedMirror({ dir: this.location, collection, version, dimensions });
    let why = 'manifest' in saved ? undefined : saved;
    if ('manifest' in saved) {
      const { records } = await readTable({ table, dimensions, vectors: false });
      const restored = restoreMirror({ saved, records: new Map(records.map((record) => [record.id, record])) });
      if (restored instanceof CollectionMirror) {
        this.#mirrors.set(collection, restored);
        this.#logMirrored({ collection, records: restored.size, index: 'loaded', started });
        return;
      }
      why = { why: restored.why, damaged: true };
    }
    if (why?.damaged) this.#logger.warn('saved vector index not loaded; rebuilding it from the table', { dir: this.location, collection, reason: why.why });
    else if (why && !why.none)
      this.#logger.info('saved vector index out of date; rebuilding it from the table', { dir: this.location, collection, reason: why.why });
    const { records, units } = await readTable({ table, dimensions, vectors: true });
    const mirror = this.#mirror(collection, dimensions);
    mirror.upsert(records, units);
    if (records.length > 0) saveMirror({ dir: this.location, collection, version, mirror });
    this.#logMirrored({ collection, records: records.length, index: 'built', started });
  }

  #logMirrored(options: { collection: CollectionName; records: number; index: 'loaded' | 'built'; started: number }): void {
    const { collection, records, index, started } = options;
    this.#logger.info('lancedb collection mirrored', { dir: this.location, collection, records, index, ms: Math.round(performance.now() - started) });
  }

  /** Runs `operation` after the collection's earlier writes, so the table version and the mirror move together. */
  #serial<T>(collection: CollectionName, operation: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(collection) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    this.#queues.set(
      collection,
      next.catch(() => undefined),
    );
    return next;
  }

  /** Saves the collection's index once writes have been quiet for a moment (and on close). */
  #scheduleSave(collection: CollectionName): void {
    clearTimeout(this.#saveTimers.get(collection));
    const timer = setTimeout(() => {
      this.#saveTimers.delete(collection);
      this.#serial(collection, () => this.#save(collection)).catch((cause: unknown) =>
        this.#logger.warn('could not save the vector index; it will be rebuilt on the next start', { dir: this.location, collection, error: describe(cause) }),
      );
    }, SAVE_DELAY_MS);
    timer.unref();
    this.#saveTimers.set(collection, timer);
  }

  async #save(collection: CollectionName): Promise<void> {
    const table = this.#tables.get(collection);
    const mirror = this.#mirrors.get(collection);
    if (!table || !mirror || this.#closed) return;
    saveMirror({ dir: this.location, collection, version: await table.version(), mirror });
  }

  #stored(row: LanceRow): StoredRecord {
    return rowToStored({ row, hasVector: isValidVector(rowVector({ row }), this.#dimensions) });
  }

  /** Runs one LanceDB operation; anything that is not already ours becomes `store_unavailable` naming the directory. */
  async #run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    if (this.#closed) throw unavailable({ dir: this.location, detail: `${what}: the store was closed` });
    try {
      return await operation();
    } catch (cause) {
      if (FrameworkError.isInstance(cause)) throw cause;
      this.#logger.warn('lancedb operation failed', { dir: this.location, what, error: describe(cause) });
      throw unavailable({ dir: this.location, detail: `${what} failed: ${describe(cause)}`, cause });
    }
  }
}

function unavailable(options: { dir: string; detail: string; cause?: unknown }): VectorStoreUnavailableError {
  return new VectorStoreUnavailableError({ kind: 'lancedb', location: options.dir, detail: options.detail, cause: options.cause });
}

/**
 * The table's records, the first of a repeated id winning (a table written
 * by something else), and with `vectors` their unit vectors (`units`, row
 * after row in the records' order), leaving out rows without a valid one.
 * Without `vectors` the vector column is not read (at 100k: 0.15 s of CPU
 * instead of 0.44 s, before the vectors are normalised and copied).
 */
async function readTable(options: { table: Table; dimensions: number; vectors: boolean }): Promise<{ records: MirroredRecord[]; units: Float32Array }> {
  const { table, dimensions } = options;
  const data = await table
    .query()
    .select(options.vectors ? [...LANCE_COLUMNS] : LANCE_TEXT_COLUMNS)
    .toArrow();
  // With vectors: all unit vectors in one buffer, row by row as kept.
  const units = new Float32Array(options.vectors ? data.numRows * dimensions : 0);
  const records: MirroredRecord[] = [];
  const seen = new Set<string>();
  for (const batch of data.batches) {
    const column = (name: string) => batch.getChild(name);
    const [ids, contents, uris, metadata, tags] = [column('id'), column('content'), column('uri'), column('metadata_json'), column('metadata_tags')];
    // The vectors of a batch are one contiguous float32 buffer (a fixed-size list column).
    const vectorData = options.vectors ? column('vector')?.data[0] : undefined;
    const values = vectorData?.children[0]?.values as Float32Array | undefined;
    if (options.vectors && (!vectorData || !values)) continue;
    for (let i = 0; i < batch.numRows; i++) {
      const id = String(ids?.get(i));
      if (seen.has(id)) continue;
      if (vectorData && values) {
        if (!vectorData.getValid(i)) continue;
        if (!writeUnit(values, (vectorData.offset + i) * dimensions, dimensions, units, records.length * dimensions)) continue;
      }
      seen.add(id);
      // The tags (a list per row, the dearest column to decode) are read only when rowMetadata falls back to them.
      const row: LanceRow = {
        metadata_json: metadata?.get(i),
        get metadata_tags(): unknown {
          return tags?.get(i);
        },
      };
      records.push({ id, content: textOf(contents?.get(i)), metadata: rowMetadata({ row }), uri: textOf(uris?.get(i)) });
    }
  }
  return { records, units: units.subarray(0, records.length * dimensions) };
}

/**
 * Writes the unit vector of `source[from..from+dim]` to `target[to..]`;
 * false (nothing usable) when it is all zeros or not finite.
 */
function writeUnit(source: Float32Array, from: number, dim: number, target: Float32Array, to: number): boolean {
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    const x = source[from + j]!;
    norm += x * x;
  }
  if (!Number.isFinite(norm) || norm === 0) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let j = 0; j < dim; j++) target[to + j] = source[from + j]! * scale;
  return true;
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : String(error);
}
