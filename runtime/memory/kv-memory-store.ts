import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ConfigError } from '../core/errors/config-error.js';
import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import { FrameworkError } from '../core/framework-error.js';
import { parseJsonOrUndefined } from '../core/json.js';
import { closeKvClient, createKvClient, kvCall, redactUrl } from '../core/kv-client.js';
import type { Logger } from '../core/logger.js';
import { recordFilter } from './memory-filters.js';
import { dedupeHash, memoryKeys, type DocumentKind, type MemoryKeys } from './memory-keys.js';
import { MemoryRecordSchema, type MemoryRecord } from './memory-records.js';
import { ChangeNotices, defineChangeNoticeScripts } from './change-notices.js';
import { defineMemoryScripts, parseDeleteReply, parsePutReply, queueDelete, queuePut, queueTouch, runPipeline } from './memory-scripts.js';
import type { MemoryStore, RecordToStore, StoredOutcome, StoreSearch } from './memory-store.js';
import { findSessions, listSessions, queueIndexSession, queueUnindexSession, type IndexedSession } from './session-index.js';
import { SyncedVectorCache } from './synced-vector-cache.js';
import { snapshotName } from './vector-cache-snapshot.js';
import { compareText, normalize, type ScoredRecord } from './vector-cache.js';
import { WorkingMemorySchema, type SessionRef, type WorkingMemory } from './working-memory.js';

export interface KvMemoryStoreOptions {
  /** Redis URL; the store creates (and on `close()` closes) its own client. */
  url: string;
  /** Prefix of every key; the store writes under `<prefix>mem:`. Default `fw:`. */
  keyPrefix?: string;
  /** The embedding model of the vectors (e.g. `all-minilm`); a store written with another model is refused. */
  embeddingModel: string;
  /** Changes kept in the change stream for replicas that fall behind (about; default 10,000). */
  changeLogLength?: number;
  /**
   * A folder where this process saves its copy of the long-term memories
   * (with its HNSW index) and reads it back at the next start, so a restart
   * does not reload every record and rebuild the index (see
   * vector-cache-snapshot.ts). Default: none.
   */
  snapshotDir?: string;
  /** Milliseconds one Redis command may take; default 2000. */
  commandTimeoutMs?: number;
  logger?: Logger;
}

const DEFAULT_CHANGE_LOG_LENGTH = 10_000;

/**
 * System memory in Redis (7 or newer; no module needed). Working memory is
 * one JSON string per (namespace, user, session) with the session's expiry.
 * A long-term record is a hash holding its JSON and its unit vector as
 * float32 bytes; searches run over an in-process copy of every vector
 * (`SyncedVectorCache`), kept in step with Redis and with other replicas
 * through a change counter and a change stream. Everything is in Redis, so
 * a new process finds all of it.
 *
 * Every call rejects with `StoreUnavailableError` while Redis is down (the
 * client does not queue) and works again once it is back.
 *
 * @example
 * const store = new KvMemoryStore({ url: 'redis://127.0.0.1:6379', embeddingModel: 'all-minilm' });
 * await store.putRecords({ records: [{ record, vector }], deduplicate: true });
 * const { hits } = await store.search({ vector, filters: { namespace: { eq: ['crm'] } }, limit: 5, offset: 0 });
 */
export class KvMemoryStore implements MemoryStore {
  readonly location: string;
  readonly embeddingModel: string;
  readonly #client: Redis;
  readonly #keys: MemoryKeys;
  readonly #cache: SyncedVectorCache;
  readonly #notices: ChangeNotices;
  readonly #logLength: number;

  constructor(options: KvMemoryStoreOptions) {
    this.location = redactUrl(options.url);
    this.embeddingModel = options.embeddingModel;
    this.#logLength = options.changeLogLength ?? DEFAULT_CHANGE_LOG_LENGTH;
    this.#keys = memoryKeys(options.keyPrefix ?? 'fw:');
    this.#client = createKvClient({
      url: options.url,
      ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
      onStateChange: (state, error) => {
        if (state === 'down') options.logger?.warn('key-value store unreachable', { store: this.location, error: error?.message });
        else options.logger?.info('key-value store reachable again', { store: this.location });
      },
    });
    defineMemoryScripts(this.#client);
    defineChangeNoticeScripts(this.#client);
    this.#notices = new ChangeNotices({ url: options.url, keys: this.#keys, call: (call) => this.#call(call), logger: options.logger });
    this.#notices.start();
    this.#cache = new SyncedVectorCache({
      notices: this.#notices,
      keys: this.#keys,
      embeddingModel: options.embeddingModel,
      call: (call) => this.#call(call),
      location: this.location,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.snapshotDir ? { snapshot: { dir: options.snapshotDir, name: snapshotName(options.keyPrefix ?? 'fw:') } } : {}),
    });
  }

  /** Long-term records in this process's cache (as of the last search or `load`). */
  get cachedRecords(): number {
    return this.#cache.size;
  }

  /** Loads (or refreshes) the in-process copy of the long-term memories now rather than at the first search. */
  load(): Promise<void> {
    return this.#cache.sync();
  }

  /** Resolves once the in-process copy's HNSW index holds every memory loaded (built in the background after a load). */
  indexed(): Promise<void> {
    return this.#cache.indexed();
  }

  async getWorkingMemory(ref: SessionRef): Promise<WorkingMemory | undefined> {
    const raw = await this.#call((c) => c.get(this.#keys.working(ref)));
    if (raw === null) return undefined;
    const parsed = WorkingMemorySchema.safeParse(parseJsonOrUndefined(raw));
    if (!parsed.success) {
      throw new FrameworkError({
        code: 'internal_error',
        message: `The working memory of session "${ref.sessionId}" in ${this.location} is not valid; delete it (DELETE /v1/working-memory/${ref.sessionId}) and write it again.`,
      });
    }
    return parsed.data;
  }

  async putWorkingMemory(memory: WorkingMemory, options: { owner?: string | undefined } = {}): Promise<void> {
    const ref = { sessionId: memory.session_id, namespace: memory.namespace ?? undefined, userId: memory.user_id ?? undefined, owner: options.owner };
    const key = this.#keys.working(ref);
    const json = JSON.stringify(memory);
    await this.#call((c) => {
      const multi = c.multi();
      if (memory.ttl_seconds === null) multi.set(key, json);
      else multi.set(key, json, 'EX', memory.ttl_seconds);
      queueIndexSession(multi, this.#keys, ref, Date.parse(memory.created_at) || Date.now());
      return multi.exec();
    });
  }

  async deleteWorkingMemory(ref: SessionRef): Promise<void> {
    await this.#call((c) => {
      const multi = c.multi().del(this.#keys.working(ref));
      queueUnindexSession(multi, this.#keys, ref);
      return multi.exec();
    });
  }

  findSessions(ref: SessionRef): Promise<SessionRef[]> {
    return this.#call((c) => findSessions(c, this.#keys, ref));
  }

  listSessions(options: { namespace?: string | undefined; userId?: string | undefined; owner?: string | undefined; limit: number; offset: number }): Promise<{
    total: number;
    sessions: IndexedSession[];
  }> {
    return this.#call((c) => listSessions(c, this.#keys, options));
  }

  async getRecords(ids: readonly string[]): Promise<Array<MemoryRecord | undefined>> {
    if (ids.length === 0) return [];
    const docs = await this.#call((c) => {
      const pipeline = c.pipeline();
      for (const id of ids) pipeline.hget(this.#keys.record(id), 'doc');
      return runPipeline(pipeline);
    });
    return docs.map(([error, doc]) => {
      if (error) throw error;
      return typeof doc === 'string' ? parseRecord(doc) : undefined;
    });
  }

  async getOwners(ids: readonly string[]): Promise<Array<string | undefined>> {
    if (ids.length === 0) return [];
    const owners = await this.#call((c) => c.hmget(this.#keys.owners, ...ids));
    return owners.map((owner) => owner ?? undefined);
  }

  async putRecords(options: { records: readonly RecordToStore[]; deduplicate: boolean; owner?: string | undefined }): Promise<StoredOutcome[]> {
    if (options.records.length === 0) return [];
    const owner = options.owner;
    const prepared = options.records.map(({ record, vector }) => {
      const hash = dedupeHash(record, owner);
      return { record: { ...record, memory_hash: hash }, vector: normalize(vector), hash };
    });
    const dim = String(prepared[0]!.vector.length);
    if (prepared.some(({ vector }) => String(vector.length) !== dim)) {
      throw new InvalidModelOutputError({
        message: 'The embedding model gave vectors of different lengths in one batch',
        output: prepared.map(({ vector }) => vector.length).join(', '),
      });
    }
    const epoch = randomUUID();
    const keys = this.#keys;
    await this.#notices.listening();
    const replies = await this.#call((c) => {
      const pipeline = c.pipeline();
      for (const { record, vector, hash } of prepared) {
        queuePut(
          pipeline,
          [keys.record(record.id), keys.dedupe(hash), keys.meta, keys.log, keys.ids, keys.owners],
          [
            record.id,
            JSON.stringify(record),
            Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
            hash,
            options.deduplicate ? '1' : '0',
            epoch,
            this.embeddingModel,
            dim,
            this.#logLength,
            keys.recordPrefix,
            keys.dedupePrefix,
            JSON.stringify([record.namespace, record.user_id]),
            owner ?? '',
          ],
        );
      }
      this.#notices.queueNotify(pipeline);
      return runPipeline(pipeline);
    });
    // Acknowledged only once every replica knows of it (see change-notices.ts).
    await this.#notices.settle(replies.at(-1));
    return prepared.map(({ record, vector }, i): StoredOutcome => {
      const [error, raw] = replies[i] ?? [new Error('no reply'), undefined];
      if (error) throw error;
      const reply = parsePutReply(raw);
      if (reply.kind === 'model') {
        this.#cache.checkModel(reply.model, reply.dim);
        throw new ConfigError({
          context: `The long-term memories at ${this.location} have ${reply.dim} dimensions`,
          issues: [
            {
              variable: 'EMBEDDING_MODEL',
              message: `"${this.embeddingModel}" gives ${dim}-dimensional vectors; use another key prefix (KV_PREFIX) for this model`,
            },
          ],
        });
      }
      if (reply.kind === 'scope') {
        throw new FrameworkError({
          code: 'conflict',
          message: `Memory id "${reply.id}" is already used in another namespace or by another user; choose another id (a record is never replaced from another scope).`,
        });
      }
      if (reply.kind === 'owner') {
        throw new FrameworkError({
          code: 'conflict',
          message: `Memory id "${reply.id}" is already used by another caller; choose another id (a record is never replaced by a caller that does not own it).`,
        });
      }
      if (reply.kind === 'dup') return { id: reply.id, deduplicated: true, record: parseRecord(reply.doc) };
      this.#cache.applyOwnPut({ change: reply, record, vector, owner });
      return { id: record.id, deduplicated: false, record };
    });
  }

  search(search: StoreSearch): Promise<{ hits: ScoredRecord[]; total: number }> {
    return this.#cache.search({
      owner: search.owner,
      vector: search.vector === undefined ? undefined : normalize(search.vector),
      filter: recordFilter(search.filters),
      filters: search.filters,
      distanceThreshold: search.distanceThreshold,
      limit: search.limit,
      offset: search.offset,
    });
  }

  async deleteRecords(ids: readonly string[]): Promise<number> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return 0;
    const keys = this.#keys;
    const epoch = randomUUID();
    await this.#notices.listening();
    const replies = await this.#call((c) => {
      const pipeline = c.pipeline();
      for (const id of unique)
        queueDelete(pipeline, [keys.record(id), keys.meta, keys.log, keys.ids, keys.owners], [id, epoch, this.#logLength, keys.dedupePrefix]);
      this.#notices.queueNotify(pipeline);
      return runPipeline(pipeline);
    });
    await this.#notices.settle(replies.at(-1));
    let deleted = 0;
    for (const [error, raw] of replies.slice(0, unique.length)) {
      if (error) throw error;
      const change = parseDeleteReply(raw);
      if (change === undefined) continue;
      deleted++;
      this.#cache.applyOwnDelete(change);
    }
    return deleted;
  }

  async getVectors(ids: readonly string[]): Promise<Array<Float32Array | undefined>> {
    if (ids.length === 0) return [];
    const replies = await this.#call((c) => {
      const pipeline = c.pipeline();
      for (const id of ids) pipeline.hgetBuffer(this.#keys.record(id), 'vec');
      return runPipeline(pipeline);
    });
    return replies.map(([error, vec]) => {
      if (error) throw error;
      if (!Buffer.isBuffer(vec) || vec.byteLength % 4 !== 0) return undefined;
      const vector = new Float32Array(vec.byteLength / 4);
      new Uint8Array(vector.buffer).set(vec);
      return vector;
    });
  }

  async touchRecords(options: { ids: readonly string[]; at: string; minIntervalMs: number }): Promise<number> {
    const at = Date.parse(options.at);
    // The copy was synced by the search that asks: a record it shows accessed
    // within the interval is not read from Redis again (at worst a record
    // rewritten since with an older last_accessed waits for a later search).
    // Repeated searches of the same records stay off Redis.
    const ids = [...new Set(options.ids)].filter((id) => {
      const cached = this.#cache.cached(id);
      return cached === undefined || !(at - Date.parse(cached.last_accessed) < options.minIntervalMs);
    });
    if (ids.length === 0) return 0;
    const keys = this.#keys;
    const docs = await this.#call((c) => {
      const pipeline = c.pipeline();
      for (const id of ids) pipeline.hget(keys.record(id), 'doc');
      return runPipeline(pipeline);
    });
    const due: Array<{ id: string; before: string; after: string; touched: MemoryRecord }> = [];
    docs.forEach(([error, doc], i) => {
      if (error) throw error;
      if (typeof doc !== 'string') return;
      const record = parseRecord(doc);
      if (at - Date.parse(record.last_accessed) < options.minIntervalMs) return;
      const touched = { ...record, last_accessed: options.at, access_count: record.access_count + 1 };
      due.push({ id: ids[i]!, before: doc, after: JSON.stringify(touched), touched });
    });
    if (due.length === 0) return 0;
    const epoch = randomUUID();
    await this.#notices.listening();
    const replies = await this.#call((c) => {
      const pipeline = c.pipeline();
      for (const { id, before, after } of due) queueTouch(pipeline, [keys.record(id), keys.meta, keys.log], [id, before, after, epoch, this.#logLength]);
      this.#notices.queueNotify(pipeline);
      return runPipeline(pipeline);
    });
    await this.#notices.settle(replies.at(-1));
    let touched = 0;
    replies.slice(0, due.length).forEach(([error, raw], i) => {
      if (error) throw error;
      const change = parseDeleteReply(raw);
      if (change === undefined) return;
      touched++;
      // Applied to the cache at once when it is the next change (else the next sync reads it from the change stream).
      this.#cache.applyOwnTouch(change, due[i]!.touched);
    });
    return touched;
  }

  async getDocument(kind: DocumentKind, id: string): Promise<string | undefined> {
    return (await this.#call((c) => c.get(this.#keys.document(kind, id)))) ?? undefined;
  }

  async listDocuments(kind: DocumentKind): Promise<Array<{ id: string; json: string }>> {
    const ids = (await this.#call((c) => c.smembers(this.#keys.documentIndex(kind)))).sort(compareText);
    if (ids.length === 0) return [];
    const docs = await this.#call((c) => c.mget(...ids.map((id) => this.#keys.document(kind, id))));
    return ids.flatMap((id, i) => (docs[i] === null || docs[i] === undefined ? [] : [{ id, json: docs[i]! }]));
  }

  async putDocument(options: { kind: DocumentKind; id: string; json: string; ttlSeconds?: number }): Promise<void> {
    const key = this.#keys.document(options.kind, options.id);
    await this.#call((c) => {
      const multi = c.multi();
      if (options.ttlSeconds === undefined) multi.set(key, options.json).sadd(this.#keys.documentIndex(options.kind), options.id);
      else multi.set(key, options.json, 'EX', options.ttlSeconds);
      return multi.exec();
    });
  }

  async deleteDocument(kind: DocumentKind, id: string): Promise<boolean> {
    const [[, deleted] = [null, 0]] =
      (await this.#call((c) => c.multi().del(this.#keys.document(kind, id)).srem(this.#keys.documentIndex(kind), id).exec())) ?? [];
    return deleted === 1;
  }

  async ping(): Promise<void> {
    await this.#call((c) => c.ping());
  }

  async close(): Promise<void> {
    this.#cache.close();
    await this.#notices.close();
    await closeKvClient(this.#client);
  }

  #call<T>(call: (client: Redis) => Promise<T>): Promise<T> {
    return kvCall(this.location, this.#client, call);
  }
}

function parseRecord(doc: string): MemoryRecord {
  return MemoryRecordSchema.parse(parseJsonOrUndefined(doc));
}
