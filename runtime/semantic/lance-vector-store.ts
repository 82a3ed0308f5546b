import { access, constants, mkdir } from 'node:fs/promises';
import { connect, type Connection, type Table } from '@lancedb/lancedb';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { idWhere, sqlString, tagWhere } from './lance-filter.js';
import { ANN_SEARCH, annIndex, DEFAULT_INDEX_THRESHOLD, indexAction, TRAINED_ROWS_KEY, vectorIndexState } from './lance-index.js';
import { LANCE_TEXT_COLUMNS, lanceSchema, recordsToArrow, rowToHit, rowToStored, rowVector, vectorDimensions, type LanceRow } from './lance-rows.js';
import { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';
import { isValidVector, type CollectionName, type SearchOptions, type StoredRecord, type VectorHit, type VectorRecord, type VectorStore } from './vector-store.js';

const COLLECTIONS: readonly CollectionName[] = ['documents', 'agent_cards'];
const DELETE_CHUNK = 500;

/**
 * The embedded vector store: one LanceDB directory with two tables,
 * `documents` and `agent_cards` (columns `id`, `vector`, `content`, `uri`,
 * `metadata_json`, `metadata_tags`). Search is cosine (`score = 1 - distance`).
 *
 * Below `indexThreshold` rows a table is searched exactly (flat scan). The
 * write that reaches it trains an IVF_HNSW_SQ index (awaited by that
 * `upsert`, logged; searches keep running on the previous version meanwhile);
 * later writes keep the index current (`indexAction` in `lance-index.ts`).
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
  readonly #indexThreshold: number;
  readonly #tables = new Map<CollectionName, Table>();
  readonly #maintenance = new Map<CollectionName, Promise<void>>();
  #dimensions: number | undefined;
  #closed = false;

  private constructor(options: { dir: string; db: Connection; logger: Logger; indexThreshold: number }) {
    this.location = options.dir;
    this.#db = options.db;
    this.#logger = options.logger;
    this.#indexThreshold = options.indexThreshold;
  }

  /**
   * Opens (creating it when missing) the store in `dir`. `indexThreshold`:
   * rows at which a table gets its ANN index (default `DEFAULT_INDEX_THRESHOLD`).
   *
   * @example
   * const store = await LanceVectorStore.open({ dir: '/tmp/vectors', indexThreshold: 300 });
   */
  static async open(options: { dir: string; logger?: Logger; indexThreshold?: number }): Promise<LanceVectorStore> {
    const { dir } = options;
    const logger = options.logger ?? silentLogger;
    const indexThreshold = options.indexThreshold ?? DEFAULT_INDEX_THRESHOLD;
    if (!Number.isInteger(indexThreshold) || indexThreshold < 1) {
      throw new BadRequestError({ code: 'invalid_request', message: `indexThreshold must be a positive integer (got ${indexThreshold}).` });
    }
    let store: LanceVectorStore;
    try {
      await mkdir(dir, { recursive: true });
      store = new LanceVectorStore({ dir, db: await connect(dir), logger, indexThreshold });
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
      }
    });
    logger.info('lancedb vector store opened', { dir, dimensions: store.#dimensions, tables: [...store.#tables.keys()], indexThreshold });
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
    await this.#run(`writing ${unique.length} records to ${collection}`, async () => {
      const table = this.#tables.get(collection) ?? (await this.#createTable(collection, dimensions));
      await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(recordsToArrow({ records: unique, vectors, dimensions }));
    });
    await this.#maintainIndex(collection);
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
    const table = this.#table(collection);
    if (!table) return [];
    const where = tagWhere({ filter: options.filter });
    return this.#run(`searching ${collection}`, async () => {
      // Prefilter (LanceDB's default): the filter applies before the nearest are taken, so `limit` hits come back when enough match.
      let query = table
        .query()
        .nearestTo(Float32Array.from(vector))
        .distanceType('cosine')
        .ef(Math.max(ANN_SEARCH.ef, options.limit))
        .refineFactor(ANN_SEARCH.refineFactor)
        .limit(options.limit)
        .select(LANCE_TEXT_COLUMNS);
      if (where) query = query.where(where);
      const rows = (await query.toArray()) as LanceRow[];
      // A zero vector (older stores) has no cosine distance: never a hit.
      return rows.filter((row) => Number.isFinite(Number(row._distance))).map((row) => rowToHit({ row }));
    });
  }

  async get(collection: CollectionName, id: string): Promise<StoredRecord | undefined> {
    const table = this.#table(collection);
    if (!table) return undefined;
    return this.#run(`reading ${id} from ${collection}`, async () => {
      const [row] = (await table.query().where(`id = ${sqlString({ value: id })}`).limit(1).toArray()) as LanceRow[];
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
    await this.#run(`deleting ${ids.length} records from ${collection}`, async () => {
      for (let at = 0; at < ids.length; at += DELETE_CHUNK) await table.delete(idWhere({ ids: ids.slice(at, at + DELETE_CHUNK) }));
    });
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
    this.#closed = true;
    await Promise.allSettled(this.#maintenance.values());
    for (const table of this.#tables.values()) table.close();
    this.#tables.clear();
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
      throw new BadRequestError({ code: 'invalid_request', message: `The ${collection} table holds ${existing}-dimensional vectors; refused ${dimensions}-dimensional ones.` });
    }
    this.#tables.set(collection, table);
    this.#dimensions ??= dimensions;
    this.#logger.info('lancedb table created', { dir: this.location, collection, dimensions });
    return table;
  }

  /**
   * Runs after each write, one at a time per collection: creates, updates or
   * rebuilds the ANN index (`indexAction`). A failure is logged, not thrown:
   * the records are stored and searches stay correct (flat for unindexed rows).
   */
  async #maintainIndex(collection: CollectionName): Promise<void> {
    const previous = this.#maintenance.get(collection) ?? Promise.resolve();
    const next = previous.then(async () => {
      const table = this.#tables.get(collection);
      if (!table || this.#closed) return;
      try {
        const rows = await table.countRows();
        const index = await vectorIndexState({ table });
        const action = indexAction({ rows, threshold: this.#indexThreshold, ...(index ? { index } : {}) });
        if (action === 'none') return;
        const started = performance.now();
        if (action === 'optimize') {
          await table.optimize();
        } else {
          await table.createIndex('vector', { config: annIndex(), replace: true });
          await table.updateFieldMetadata([{ path: 'vector', metadata: { [TRAINED_ROWS_KEY]: String(rows) } }]);
        }
        const ms = Math.round(performance.now() - started);
        this.#logger.info(`lancedb vector index ${action === 'optimize' ? 'updated' : action === 'create' ? 'created' : 'rebuilt'}`, { dir: this.location, collection, rows, action, ms });
      } catch (cause) {
        this.#logger.error('lancedb vector index maintenance failed', { dir: this.location, collection, error: describe(cause) });
      }
    });
    this.#maintenance.set(collection, next);
    await next;
    if (this.#maintenance.get(collection) === next) this.#maintenance.delete(collection);
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : String(error);
}
