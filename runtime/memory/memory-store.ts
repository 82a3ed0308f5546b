import type { MemoryFilters } from './memory-filters.js';
import type { MemoryRecord } from './memory-records.js';
import type { DocumentKind } from './memory-keys.js';
import type { IndexedSession } from './session-index.js';
import type { ScoredRecord } from './vector-cache.js';
import type { SessionRef, WorkingMemory } from './working-memory.js';

/** A long-term memory to store with its embedding (any length; the store keeps it unit-length). */
export interface RecordToStore {
  record: MemoryRecord;
  vector: ArrayLike<number>;
}

/** Where a record to store ended up: under its own id, or the existing duplicate's. */
export interface StoredOutcome {
  id: string;
  deduplicated: boolean;
  /** The record as stored (the duplicate's when `deduplicated`). */
  record: MemoryRecord;
}

export interface StoreSearch {
  /** The query's embedding; undefined lists the matching records, newest first. */
  vector: ArrayLike<number> | undefined;
  filters: MemoryFilters;
  distanceThreshold?: number | undefined;
  /** Token mode: only records of this owner match (not those of no owner: fail closed). */
  owner?: string | undefined;
  limit: number;
  offset: number;
}

/**
 * Where system memory lives: working memory per session (with an expiry)
 * and long-term records with their embeddings, searched by similarity.
 * Every call rejects with `StoreUnavailableError` while the store cannot be
 * reached, and works again once it is back.
 */
export interface MemoryStore {
  /** The store's address without credentials, for messages. */
  readonly location: string;
  /** The embedding model whose vectors this store holds; vectors of another model are refused. */
  readonly embeddingModel: string;

  getWorkingMemory(ref: SessionRef): Promise<WorkingMemory | undefined>;
  /** Replaces the session's working memory (of `owner`, token mode); it expires after `ttl_seconds` when set, else never. */
  putWorkingMemory(memory: WorkingMemory, options?: { owner?: string | undefined }): Promise<void>;
  deleteWorkingMemory(ref: SessionRef): Promise<void>;
  /** The live sessions of `ref.owner` with this id whose namespace and user match the given ones (an absent one matches any). */
  findSessions(ref: SessionRef): Promise<SessionRef[]>;
  /** A page of the sessions of `owner` (oldest first) matching the namespace and user when given, and how many match in all. */
  listSessions(options: { namespace?: string | undefined; userId?: string | undefined; owner?: string | undefined; limit: number; offset: number }): Promise<{
    total: number;
    sessions: IndexedSession[];
  }>;
  /** Long-term records by id, in order; undefined for an id not stored. */
  getRecords(ids: readonly string[]): Promise<Array<MemoryRecord | undefined>>;
  /** Owners (token fingerprints) of records by id, in order; undefined for none. */
  getOwners(ids: readonly string[]): Promise<Array<string | undefined>>;

  /**
   * Stores long-term records, owned by `owner` (token mode) in the same
   * atomic write. A record whose id exists replaces it when it has the same
   * owner (else a `conflict`); with `deduplicate`, a record whose text
   * (trimmed) is already stored in the same namespace, for the same user and
   * by the same owner is not stored again.
   */
  putRecords(options: { records: readonly RecordToStore[]; deduplicate: boolean; owner?: string | undefined }): Promise<StoredOutcome[]>;
  /** Matching records, nearest first, with the number that matched in all. */
  search(search: StoreSearch): Promise<{ hits: ScoredRecord[]; total: number }>;
  /** Deletes records by id (and their owners); answers how many existed. */
  deleteRecords(ids: readonly string[]): Promise<number>;
  /** The stored unit vectors of records by id, in order; undefined for an id not stored. */
  getVectors(ids: readonly string[]): Promise<Array<Float32Array | undefined>>;
  /**
   * AMS's `update_last_accessed`: records by id not accessed in the last
   * `minIntervalMs` get `last_accessed = at` and one more `access_count`;
   * answers how many changed. A record edited meanwhile is left as it is.
   */
  touchRecords(options: { ids: readonly string[]; at: string; minIntervalMs: number }): Promise<number>;

  /** Service documents (summary views, their partition results, tasks) as JSON by id. */
  getDocument(kind: DocumentKind, id: string): Promise<string | undefined>;
  /** Every document of a kind but `task` (tasks expire and are not listed). */
  listDocuments(kind: DocumentKind): Promise<Array<{ id: string; json: string }>>;
  /** Stores a document; with `ttlSeconds` it expires (tasks: AMS keeps them 7 days). */
  putDocument(options: { kind: DocumentKind; id: string; json: string; ttlSeconds?: number }): Promise<void>;
  /** Answers whether it existed. */
  deleteDocument(kind: DocumentKind, id: string): Promise<boolean>;

  /** Rejects with `StoreUnavailableError` when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
