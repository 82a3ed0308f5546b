import type { Redis } from 'ioredis';
import { z } from 'zod';
import { StoreUnavailableError } from '../core/errors/store-unavailable-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { parseJsonOrUndefined } from '../core/json.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MemoryKeys } from './memory-keys.js';
import { MemoryRecordSchema, type MemoryRecord } from './memory-records.js';
import { runPipeline, type AppliedChange } from './memory-scripts.js';
import { NO_EPOCH, type ChangeNotices } from './change-notices.js';
import { VectorCache, type CacheSearch, type ScoredRecord } from './vector-cache.js';
import { readSnapshot, writeSnapshot } from './vector-cache-snapshot.js';

/** Milliseconds after the last change before the copy is saved to its snapshot (also on close). */
const SAVE_DELAY_MS = 30_000;

/** How many ids or changes one Redis round trip reads while loading or following. */
const BATCH = 1000;
/** Full loads in a row before giving up (only when the store changes faster than it loads). */
const MAX_LOADS = 3;

interface Meta {
  epoch: string | undefined;
  ver: number;
  last: string | undefined;
  model: string | undefined;
  dim: string | undefined;
}

const EntrySchema = z.tuple([z.string(), z.array(z.string())]).transform(([streamId, fields]) => {
  const value = (name: string) => {
    const at = fields.indexOf(name);
    return at < 0 ? undefined : fields[at + 1];
  };
  return { streamId, ver: Number(value('v')), op: value('op'), id: value('id') };
});

/**
 * Decodes a stored record (`doc` JSON, `vec` float32 bytes); undefined when either is missing or malformed.
 *
 * @example
 * const [doc, vec] = await client.hmgetBuffer(keys.record('m1'), 'doc', 'vec');
 * decodeStored(doc, vec)?.vector.length; // 384
 */
export function decodeStored(doc: Buffer | null | undefined, vec: Buffer | null | undefined): { record: MemoryRecord; vector: Float32Array } | undefined {
  if (!doc || !vec || vec.byteLength % 4 !== 0) return undefined;
  const parsed = MemoryRecordSchema.safeParse(parseJsonOrUndefined(doc.toString('utf8')));
  if (!parsed.success) return undefined;
  const vector = new Float32Array(vec.byteLength / 4);
  new Uint8Array(vector.buffer).set(vec);
  return { record: parsed.data, vector };
}

/**
 * A `VectorCache` kept equal to the records in Redis, also when other
 * replicas write. Before a search it needs the store's change counter:
 * from the change notices while its read lease holds (no Redis call; see
 * change-notices.ts), else read from `meta` (one HMGET). Unchanged means the cache is current; ahead means it
 * reads the changes since its last one from the change stream and applies
 * them; anything else (a new `epoch` because Redis came back empty or was
 * flushed, a counter behind ours because Redis came back from an older
 * snapshot, changes trimmed from the stream before we read them) means a
 * full reload. Changes are applied by re-reading the record, so applying one
 * twice is harmless. This process's own writes are applied at once when they
 * are the next change.
 *
 * @example
 * const cache = new SyncedVectorCache({ keys: memoryKeys('fw:'), embeddingModel: 'all-minilm', location, call: (fn) => kvCall(location, client, fn) });
 * const { hits } = await cache.search({ vector, filter: () => true, limit: 10, offset: 0 });
 */
export class SyncedVectorCache {
  #cache = new VectorCache();
  #loaded = false;
  #epoch: string | undefined;
  #ver = 0;
  #last: string | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;
  /** The snapshot was tried (it is read once, before the first load). */
  #snapshotTried = false;
  /** Changed since the last snapshot. */
  #dirty = false;
  #saveTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      keys: MemoryKeys;
      embeddingModel: string;
      /** Runs a Redis call, turning connection failures into `StoreUnavailableError`. */
      call: <T>(call: (client: Redis) => Promise<T>) => Promise<T>;
      location: string;
      logger?: Logger;
      /**
       * The read lease and change notices of this replica: while the lease
       * holds and no notice is ahead of the cache, a search asks Redis
       * nothing (see change-notices.ts). Without it every search reads the
       * change counter.
       */
      notices?: ChangeNotices;
      /**
       * Where this copy is saved and read back at the next start (see
       * vector-cache-snapshot.ts): `dir` and this store's `name`. Without it
       * every start loads every record from Redis and rebuilds the index.
       */
      snapshot?: { dir: string; name: string };
    },
  ) {}

  /** Records held (after the last sync). */
  get size(): number {
    return this.#cache.size;
  }

  /** Brings the cache up to date with Redis; concurrent callers share one sync and never see one started before they called. */
  sync(): Promise<void> {
    if (this.#running === undefined) {
      this.#running = this.#syncNow().finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#next ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.sync();
      });
    return this.#next;
  }

  /** The record `id` as of the last sync (undefined when not held). */
  cached(id: string): MemoryRecord | undefined {
    return this.#cache.get(id);
  }

  /** Resolves once every record loaded so far is in the HNSW index (searches are exact, and slower at 100k, until then). */
  indexed(): Promise<void> {
    return this.#cache.indexed();
  }

  /** Saves the copy to its snapshot when it changed since the last save, then stops indexing in the background. */
  close(): void {
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    if (this.#running === undefined) this.saveSnapshot();
    this.#cache.close();
  }

  /** Writes the snapshot now when the copy changed since the last one (a failure is logged: the next start just loads from Redis). */
  saveSnapshot(): void {
    const snapshot = this.options.snapshot;
    if (!snapshot || !this.#dirty || !this.#loaded || this.#epoch === undefined) return;
    try {
      const at = performance.now();
      const position = { epoch: this.#epoch, ver: this.#ver, last: this.#last, model: this.options.embeddingModel };
      if (writeSnapshot({ ...snapshot, cache: this.#cache, position })) {
        this.#dirty = false;
        this.#log().info('long-term memory snapshot saved', {
          dir: snapshot.dir,
          count: this.#cache.size,
          ver: this.#ver,
          ms: Math.round(performance.now() - at),
        });
      }
    } catch (error) {
      this.#log().warn('long-term memory snapshot not saved; the next start loads from Redis', { dir: snapshot.dir, error: (error as Error).message });
    }
  }

  #log(): Logger {
    return this.options.logger ?? silentLogger;
  }

  /** Marks the copy changed and saves it once changes stop for a while. */
  #changed(): void {
    if (!this.options.snapshot) return;
    this.#dirty = true;
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      // Saved once a sync is over and the index holds everything (else the next start indexes the rest itself).
      if (this.#running === undefined && this.#cache.unindexed === 0) this.saveSnapshot();
      else this.#changed();
    }, SAVE_DELAY_MS);
    this.#saveTimer.unref();
  }

  /** Replaces the (empty) copy with the snapshot's, at its position in the change history; false when there is none usable. */
  #restoreSnapshot(): boolean {
    const snapshot = this.options.snapshot;
    if (!snapshot || this.#snapshotTried || this.#loaded) return false;
    this.#snapshotTried = true;
    const at = performance.now();
    const read = readSnapshot({ ...snapshot, model: this.options.embeddingModel });
    if ('why' in read) {
      this.#log().info('long-term memories load from Redis', { snapshot: read.why });
      return false;
    }
    this.#cache.close();
    this.#cache = read.cache;
    this.#loaded = true;
    this.#epoch = read.position.epoch;
    this.#ver = read.position.ver;
    this.#last = read.position.last;
    this.#log().info('long-term memory snapshot read', { count: read.cache.size, ver: read.position.ver, ms: Math.round(performance.now() - at) });
    return true;
  }

  /**
   * Searches the cache as Redis holds it now. While this replica's read
   * lease holds and no change notice is ahead of the cache (see
   * change-notices.ts), the cache is searched with no Redis call. Else, once
   * loaded and idle, the change counter is asked for first and the cache searched while its answer
   * travels (the round trip hidden behind the search); the answer is served
   * only when the counter shows the cache was current, else the cache syncs
   * and searches again. The same guarantee as syncing first: every change
   * acknowledged before the call is in the answer.
   */
  async search(search: CacheSearch): Promise<{ hits: ScoredRecord[]; total: number }> {
    if (this.#loaded && this.#running === undefined && this.#current()) return this.#cache.search(search);
    if (!this.#loaded || this.#running !== undefined) {
      await this.sync();
      return this.#cache.search(search);
    }
    const at = { cache: this.#cache, epoch: this.#epoch, ver: this.#ver, last: this.#last };
    const asked = this.#readMeta();
    let found: { hits: ScoredRecord[]; total: number };
    try {
      found = this.#cache.search(search);
    } catch (error) {
      asked.catch(() => undefined);
      throw error;
    }
    const meta = await asked;
    this.checkModel(meta.model, meta.dim);
    const unchanged = at.cache === this.#cache && at.epoch === this.#epoch && at.ver === this.#ver && at.last === this.#last;
    if (unchanged && meta.epoch === at.epoch && meta.ver === at.ver && meta.last === at.last) return found;
    await this.sync();
    return this.#cache.search(search);
  }

  /** Applies a put this process just made (the record with its owner), when it is the next change and no sync is under way (else the next sync reads it). */
  applyOwnPut(options: { change: AppliedChange; record: MemoryRecord; vector: Float32Array; owner: string | undefined }): void {
    const { change } = options;
    if (this.#isNext(change)) {
      this.#cache.upsert(options.record, options.vector);
      this.#cache.setOwner(options.record.id, options.owner);
      this.#advance(change);
      this.#changed();
    }
  }

  /**
   * Applies a `last_accessed` touch this process just made, like
   * `applyOwnPut`, keeping the record's cached vector: the next search then
   * finds the cache current instead of syncing and searching twice.
   */
  applyOwnTouch(change: AppliedChange, record: MemoryRecord): void {
    const vector = this.#cache.vector(change.id);
    if (vector !== undefined && this.#isNext(change)) {
      this.#cache.upsert(record, vector);
      this.#advance(change);
      this.#changed();
    }
  }

  /** Applies a delete this process just made, like `applyOwnPut`. */
  applyOwnDelete(change: AppliedChange): void {
    if (this.#isNext(change)) {
      this.#cache.remove(change.id);
      this.#advance(change);
      this.#changed();
    }
  }

  /** Refuses a store whose vectors come from another embedding model. */
  checkModel(model: string | undefined, dim: string | undefined): void {
    if (model === undefined || model === this.options.embeddingModel) return;
    throw new ConfigError({
      context: `The long-term memories at ${this.options.location} (${this.options.keys.meta}) were embedded with model "${model}" (${dim ?? '?'} dimensions)`,
      issues: [
        {
          variable: 'EMBEDDING_MODEL',
          message: `is "${this.options.embeddingModel}"; set EMBEDDING_MODEL=${model}, or use another key prefix (KV_PREFIX) for the new model`,
        },
      ],
    });
  }

  /** The lease holds and no change is known beyond the cache's: it is what Redis holds now. */
  #current(): boolean {
    const known = this.options.notices?.current();
    return known !== undefined && known.epoch === (this.#epoch ?? NO_EPOCH) && known.ver <= this.#ver;
  }

  #isNext(change: AppliedChange): boolean {
    return this.#loaded && this.#running === undefined && change.epoch === this.#epoch && change.ver === this.#ver + 1;
  }

  #advance(change: { ver: number; streamId: string }): void {
    this.#ver = change.ver;
    this.#last = change.streamId;
  }

  async #syncNow(): Promise<void> {
    // A snapshot only sets where to start: the checks below follow the change stream from it, or reload.
    this.#restoreSnapshot();
    for (let load = 0; load < MAX_LOADS; load++) {
      const meta = await this.#readMeta();
      this.checkModel(meta.model, meta.dim);
      if (this.#loaded && meta.epoch === this.#epoch && meta.ver >= this.#ver) {
        if (meta.ver === this.#ver && meta.last === this.#last) return;
        if (meta.ver > this.#ver && (await this.#follow())) return;
      }
      await this.#load(meta);
      // Catch up with what was written while loading.
      if (await this.#follow()) return;
    }
    throw new StoreUnavailableError({
      store: this.options.location,
      cause: new Error(`the long-term memories changed faster than they could be loaded (${MAX_LOADS} tries)`),
    });
  }

  async #readMeta(): Promise<Meta> {
    const [epoch, ver, last, model, dim] = await this.options.call((c) => c.hmget(this.options.keys.meta, 'epoch', 'ver', 'last', 'model', 'dim'));
    return { epoch: epoch ?? undefined, ver: Number(ver ?? 0), last: last ?? undefined, model: model ?? undefined, dim: dim ?? undefined };
  }

  /** Reads every record (ids from the id set), replacing the cache, at the state of `meta` or later. */
  async #load(meta: Meta): Promise<void> {
    const { keys } = this.options;
    const fresh = new VectorCache();
    let cursor = '0';
    try {
      do {
        const [next, ids] = await this.options.call((c) => c.sscan(keys.ids, cursor, 'COUNT', BATCH));
        cursor = next;
        const rows = await this.#readRecords(ids);
        rows.forEach((row, i) => {
          if (row.stored) {
            fresh.upsert(row.stored.record, row.stored.vector);
            fresh.setOwner(row.stored.record.id, row.owner);
          }
          // One deleted since the scan is not an error; one that cannot be read is.
          else if (row.present) this.options.logger?.warn('skipping an unreadable long-term memory', { id: ids[i] });
        });
      } while (cursor !== '0');
    } catch (error) {
      fresh.close();
      throw error;
    }
    this.#cache.close();
    this.#cache = fresh;
    this.#loaded = true;
    this.#epoch = meta.epoch;
    this.#ver = meta.ver;
    this.#last = meta.last;
    this.#changed();
    (this.options.logger ?? silentLogger).debug('long-term memories loaded', { count: fresh.size, ver: meta.ver });
  }

  /**
   * Applies the changes after ours from the stream; false when they do not
   * follow on from ours (trimmed away, or a different history).
   */
  async #follow(): Promise<boolean> {
    const { keys } = this.options;
    for (;;) {
      const start = this.#last === undefined ? '-' : `(${this.#last}`;
      const raw = await this.options.call((c) => c.xrange(keys.log, start, '+', 'COUNT', BATCH));
      const entries = z.array(EntrySchema).parse(raw);
      if (entries.length === 0) {
        const meta = await this.#readMeta();
        return meta.ver === this.#ver && meta.epoch === this.#epoch;
      }
      if (entries.some((entry, i) => entry.ver !== this.#ver + 1 + i)) return false;
      const puts = [...new Set(entries.filter((e) => e.op === 'put' && e.id).map((e) => e.id!))];
      const rows = await this.#readRecords(puts);
      const fetched = new Map(puts.map((id, i) => [id, rows[i]?.stored ? { stored: rows[i].stored, owner: rows[i].owner } : undefined]));
      for (const entry of entries) {
        if (entry.id === undefined) continue;
        const row = entry.op === 'put' ? fetched.get(entry.id) : undefined;
        if (row) {
          this.#cache.upsert(row.stored.record, row.stored.vector);
          this.#cache.setOwner(entry.id, row.owner);
        } else this.#cache.remove(entry.id);
      }
      this.#advance(entries.at(-1)!);
      this.#changed();
      if (entries.length < BATCH) return true;
    }
  }

  /** Each record decoded (`stored`), its owner (token mode), and whether it was there at all. */
  async #readRecords(ids: readonly string[]): Promise<Array<{ stored: ReturnType<typeof decodeStored>; owner: string | undefined; present: boolean }>> {
    if (ids.length === 0) return [];
    const { keys } = this.options;
    const replies = await this.options.call((c) => {
      const pipeline = c.pipeline();
      for (const id of ids) pipeline.hmgetBuffer(keys.record(id), 'doc', 'vec');
      pipeline.hmget(keys.owners, ...ids);
      return runPipeline(pipeline);
    });
    const [ownersError, owners] = replies.at(-1)!;
    if (ownersError) throw ownersError;
    return ids.map((_, i) => {
      const [error, reply] = replies[i]!;
      if (error) throw error;
      const [doc, vec] = reply as Array<Buffer | null>;
      return { stored: decodeStored(doc, vec), owner: (owners as Array<string | null>)[i] ?? undefined, present: doc !== null || vec !== null };
    });
  }
}
