import { ConfigError } from '../core/errors/config-error.js';
import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import { filteredSearch, type Candidates } from '../core/vectors/filtered-search.js';
import { HnswVectorIndex } from '../core/vectors/hnsw-vector-index.js';
import { TagIndexes } from '../core/vectors/tag-indexes.js';
import { VectorSlab } from '../core/vectors/vector-slab.js';
import type { MemoryFilters } from './memory-filters.js';
import type { MemoryRecord } from './memory-records.js';

/** A record found by a search, with its cosine distance to the query (0 for a listing). */
export interface ScoredRecord {
  record: MemoryRecord;
  dist: number;
}

/** A cache's content by slot (holes null or undefined), as a snapshot holds it. */
export interface VectorCacheState {
  dim: number;
  records: ReadonlyArray<MemoryRecord | null | undefined>;
  /** The owner of each slot's record (token mode); null or undefined for none. */
  owners: ReadonlyArray<string | null | undefined>;
  /**
   * Row by slot, `dim` floats each; to `fromState` also a function that
   * fills the rows it is given (a file read straight into the cache).
   */
  vectors: Float32Array | ((rows: Float32Array) => void);
  /** 1 for the slots whose vector the index holds. */
  indexed: Uint8Array;
  index: HnswVectorIndex | undefined;
  /**
   * The inverted index (tag key to the slots holding it) as `exportState`
   * gave it; without it `fromState` rebuilds it from the records.
   */
  tags?: ReadonlyMap<string, Iterable<number>> | undefined;
}

export interface CacheSearch {
  /** Unit query vector; undefined lists the matching records, newest first. */
  vector: Float32Array | undefined;
  filter: (record: MemoryRecord) => boolean;
  /**
   * The filters `filter` was made from, when there are some: their tag
   * conditions (eq, any, all) pick the candidates from an inverted index
   * instead of testing every record. `filter` is applied all the same.
   */
  filters?: MemoryFilters | undefined;
  /**
   * Token mode: only records owned by this owner (a token's fingerprint)
   * match. Records of no owner (written without tokens) are no token's:
   * failing closed, they match no owner's search (they stay stored).
   */
  owner?: string | undefined;
  /** Keep only records at most this cosine distance away. */
  distanceThreshold?: number | undefined;
  limit: number;
  offset: number;
}

/**
 * A unit-length float32 copy of `vector`; a vector with no length (all zeros)
 * or a non-finite component cannot be compared and is an error.
 *
 * @example
 * normalize([3, 4]); // Float32Array [0.6, 0.8]
 */
export function normalize(vector: ArrayLike<number>): Float32Array {
  // Copied and summed in one indexed pass (the sum over the float32 values, as stored).
  const length = vector.length;
  const unit = new Float32Array(length);
  let norm = 0;
  for (let i = 0; i < length; i++) {
    unit[i] = vector[i]!;
    const x = unit[i]!;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  if (!Number.isFinite(norm) || norm === 0) {
    throw new InvalidModelOutputError({
      message: 'The embedding model gave a vector that is all zeros or not finite; it cannot be compared',
      output: JSON.stringify(Array.from(vector).slice(0, 8)),
    });
  }
  for (let i = 0; i < unit.length; i++) unit[i]! /= norm;
  return unit;
}

/** The pseudo tag field of a record's owner ('' for none) in the inverted index. */
const OWNER_TAG = '\u0001owner';

/** Tag fields of a record that the inverted index holds. */
const TAG_FIELDS = ['session_id', 'namespace', 'user_id', 'topics', 'entities', 'memory_type'] as const;
/** Records added to the ANN index per step of the background indexing (one step blocks the event loop ~0.1 s at 100k). */
const INDEX_STEP = 1000;
/** A search adds up to this many records still waiting for the index itself, rather than scoring everything exactly. */
const INDEX_ON_SEARCH = 2000;

/**
 * The in-process copy of every long-term memory of one store: records with
 * their unit vectors in one growing `VectorSlab`, an HNSW index over them
 * (the `HnswVectorIndex` the Semantic Layer uses), and an inverted index of
 * tag values (namespace, user, session, topics, entities, memory type). A
 * search takes its candidates from the inverted index and runs
 * `filteredSearch` (core/vectors): few candidates are scored exactly with
 * SIMD dot products, many through the HNSW index (recall@10 ≥ 0.95, see
 * bench/memory), or through the small index of a tag that the filters
 * require and few records hold (core/vectors/tag-indexes.ts). New records are added to the HNSW index in the background,
 * a step at a time; until it has caught up (more than `INDEX_ON_SEARCH`
 * behind), searches score their candidates exactly, so an answer never
 * misses a record.
 *
 * @example
 * const cache = new VectorCache();
 * cache.upsert(record, normalize(embedding));
 * const { hits, total } = cache.search({ vector: normalize(query), filter: () => true, limit: 5, offset: 0 });
 */
export class VectorCache {
  #dim: number | undefined;
  #slab: VectorSlab | undefined;
  #index: HnswVectorIndex | undefined;
  #records: Array<MemoryRecord | undefined> = [];
  /** The owner of each slot's record (token mode), undefined for none. */
  #owners: Array<string | undefined> = [];
  readonly #slots = new Map<string, number>();
  #free: number[] = [];
  readonly #tags = new Map<string, Set<number>>();
  /** Indexes of single tags (the same keys as `#tags`) that searches asked for. */
  readonly #tagIndexes = new TagIndexes({ vector: (label) => this.#slab!.row(label) });
  /** 1 for the labels whose current vector is in the HNSW index. */
  #indexed: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  /** Labels whose vector is not in the index yet (may repeat, or be stale: checked when indexed). */
  #pending: number[] = [];
  #indexing: NodeJS.Immediate | undefined;
  #waiters: Array<() => void> = [];
  #closed = false;
  readonly #counts = { ann: 0, exact: 0, tagIndex: 0 };

  /**
   * Searches with a query vector so far, by how they were answered: through
   * an HNSW index (`tagIndex` of them through a tag's own), or by exact scoring.
   */
  get searches(): { readonly ann: number; readonly exact: number; readonly tagIndex: number } {
    return { ...this.#counts };
  }

  /** Number of records held. */
  get size(): number {
    return this.#slots.size;
  }

  /** Length of the vectors held, once one was added. */
  get dim(): number | undefined {
    return this.#dim;
  }

  /** Records not yet in the HNSW index (searches score exactly while this is above `INDEX_ON_SEARCH`). */
  get unindexed(): number {
    return this.#pending.length;
  }

  /** The record held under `id`, if any. */
  get(id: string): MemoryRecord | undefined {
    const slot = this.#slots.get(id);
    return slot === undefined ? undefined : this.#records[slot];
  }

  /** The unit vector held for `id` (a view into the cache: copy it to keep it), if any. */
  vector(id: string): Float32Array | undefined {
    const slot = this.#slots.get(id);
    return slot === undefined ? undefined : this.#slab!.row(slot);
  }

  /** Adds or replaces the record `record.id` with its unit vector. */
  upsert(record: MemoryRecord, vector: Float32Array): void {
    this.#dim ??= vector.length;
    if (vector.length !== this.#dim) {
      throw dimensionError(`memory ${record.id} has a vector of ${vector.length} dimensions where the others have ${this.#dim}`);
    }
    let slot = this.#slots.get(record.id);
    if (slot !== undefined && sameVector(this.#slab!.row(slot), vector)) {
      // Only the record changed (an edit of its fields, `last_accessed` on search): the indexes keep its vector.
      const before = tagKeys(this.#records[slot]!);
      const after = tagKeys(record);
      this.#tag(slot, this.#records[slot]!, -1);
      this.#records[slot] = record;
      this.#tag(slot, record, +1);
      this.#tagIndexes.remove({ label: slot, tags: before.filter((key) => !after.includes(key)) });
      this.#tagIndexes.add({ label: slot, tags: after.filter((key) => !before.includes(key)) });
      return;
    }
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#records.length;
      if (slot === this.#records.length) this.#records.push(undefined);
      this.#slots.set(record.id, slot);
      this.#owners[slot] = undefined;
      this.#tagOwner(slot, +1);
      this.#slab ??= new VectorSlab({ dim: vector.length });
      this.#slab.ensure(slot + 1);
    } else {
      this.#tag(slot, this.#records[slot]!, -1);
      this.#tagIndexes.remove({ label: slot, tags: tagKeys(this.#records[slot]!) });
    }
    this.#records[slot] = record;
    this.#tag(slot, record, +1);
    this.#tagIndexes.add({ label: slot, tags: tagKeys(record) });
    this.#slab!.set(slot, vector);
    if (this.#indexed.length <= slot) this.#indexed = grown(this.#indexed, this.#slab!.capacity);
    this.#indexed[slot] = 0;
    this.#pending.push(slot);
    this.#scheduleIndexing();
  }

  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#tag(slot, this.#records[slot]!, -1);
    this.#tagIndexes.remove({ label: slot, tags: tagKeys(this.#records[slot]!) });
    this.#tagOwner(slot, -1);
    this.#owners[slot] = undefined;
    this.#slots.delete(id);
    this.#records[slot] = undefined;
    // Also when not indexed: the index may still hold the vector this record had before a replacement.
    this.#index?.remove([slot]);
    this.#indexed[slot] = 0;
    this.#free.push(slot);
  }

  /** Sets the owner of record `id` (undefined: none); nothing when it is not held. */
  setOwner(id: string, owner: string | undefined): void {
    const slot = this.#slots.get(id);
    if (slot === undefined || this.#owners[slot] === owner) return;
    this.#tagOwner(slot, -1);
    this.#owners[slot] = owner;
    this.#tagOwner(slot, +1);
  }

  clear(): void {
    this.#slots.clear();
    this.#records = [];
    this.#owners = [];
    this.#free = [];
    this.#slab = undefined;
    this.#index = undefined;
    this.#tags.clear();
    this.#tagIndexes.clear();
    this.#indexed = new Uint8Array(0);
    this.#pending = [];
    this.#dim = undefined;
    this.#settle();
  }

  /** Resolves once every record held is in the HNSW index, and in the per-tag indexes being built (see `TagIndexes`). */
  async indexed(): Promise<void> {
    if (this.#pending.length > 0 && !this.#closed) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    await this.#tagIndexes.settled();
  }

  /**
   * What a snapshot holds (see vector-cache-snapshot.ts): the records by
   * slot (holes undefined), their vectors row by row (a copy), which slots
   * the HNSW index holds, and the index itself to save.
   */
  exportState(): (VectorCacheState & { vectors: Float32Array }) | undefined {
    if (this.#dim === undefined || this.#slab === undefined) return undefined;
    const slots = this.#records.length;
    const vectors = new Float32Array(slots * this.#dim);
    for (let slot = 0; slot < slots; slot++) if (this.#records[slot] !== undefined) vectors.set(this.#slab.row(slot), slot * this.#dim);
    const owners = Array.from({ length: slots }, (_, slot) => this.#owners[slot]);
    return { dim: this.#dim, records: this.#records, owners, vectors, indexed: this.#indexed.slice(0, slots), index: this.#index, tags: this.#tags };
  }

  /**
   * A cache from a snapshot's state: the same slots, the HNSW index as saved
   * (labels are slots), and the slots it did not hold yet indexed in the
   * background as after any load.
   */
  static fromState(state: VectorCacheState): VectorCache {
    const cache = new VectorCache();
    const slots = state.records.length;
    if (
      (typeof state.vectors !== 'function' && state.vectors.length !== slots * state.dim) ||
      state.indexed.length !== slots ||
      state.owners.length !== slots
    ) {
      throw new RangeError('a snapshot whose vectors, owners or flags do not match its records');
    }
    cache.#dim = state.dim;
    cache.#slab = new VectorSlab({ dim: state.dim });
    cache.#slab.ensure(Math.max(slots, 1));
    cache.#indexed = new Uint8Array(cache.#slab.capacity);
    cache.#index = state.index;
    // Holes hold zeros; they are never candidates.
    if (typeof state.vectors !== 'function') cache.#slab.setRows(state.vectors, slots);
    else {
      const rows = cache.#slab.contiguousRows(slots);
      if (rows) state.vectors(rows);
      else {
        const vectors = new Float32Array(slots * state.dim);
        state.vectors(vectors);
        cache.#slab.setRows(vectors, slots);
      }
    }
    // A saved inverted index is taken as it is (the snapshot's checksum vouches for it).
    if (state.tags) for (const [key, labels] of state.tags) cache.#tags.set(key, new Set(labels));
    for (let slot = 0; slot < slots; slot++) {
      const record = state.records[slot];
      cache.#records.push(record ?? undefined);
      cache.#owners.push(undefined);
      if (!record) {
        cache.#free.push(slot);
        continue;
      }
      cache.#slots.set(record.id, slot);
      cache.#owners[slot] = state.owners[slot] ?? undefined;
      if (!state.tags) {
        cache.#tag(slot, record, +1);
        cache.#tagOwner(slot, +1);
      }
      if (state.indexed[slot] === 1 && state.index !== undefined) cache.#indexed[slot] = 1;
      else cache.#pending.push(slot);
    }
    cache.#free.reverse();
    if (cache.#pending.length > 0) cache.#scheduleIndexing();
    return cache;
  }

  /** Stops the background indexing (a cache replaced by a fresh load). */
  close(): void {
    this.#closed = true;
    this.#tagIndexes.clear();
    if (this.#indexing) clearImmediate(this.#indexing);
    this.#indexing = undefined;
    this.#settle();
  }

  /** The matching records, best first, `offset` to `offset + limit`, and how many matched in all. */
  search(search: CacheSearch): { hits: ScoredRecord[]; total: number } {
    if (search.vector === undefined) return this.#list(search);
    if (this.#dim !== undefined && search.vector.length !== this.#dim) {
      throw dimensionError(`the query vector has ${search.vector.length} dimensions but the stored memories have ${this.#dim}`);
    }
    if (this.#slab === undefined || this.size === 0) return { hits: [], total: 0 };
    if (this.#pending.length > 0 && this.#pending.length <= INDEX_ON_SEARCH) this.#indexPending(this.#pending.length);
    const records = this.#records;
    const { candidates, exactTags } = this.#candidates(search.filters, search.owner);
    const inTags = candidates.inTags;
    // Without a residual condition, a candidate (from the intersected posting lists) matches.
    const accept = exactTags
      ? (label: number) => records[label] !== undefined && inTags(label)
      : (label: number) => {
          const record = records[label];
          return record !== undefined && inTags(label) && search.filter(record);
        };
    const found = filteredSearch({
      index: this.#index,
      slab: this.#slab,
      size: this.size,
      query: search.vector,
      keep: Math.min(search.offset + search.limit, this.size),
      candidates,
      accept,
      distanceThreshold: search.distanceThreshold,
      indexComplete: this.#pending.length === 0 && this.#index !== undefined,
    });
    this.#counts[found.exact ? 'exact' : 'ann']++;
    if (found.tagIndex) this.#counts.tagIndex++;
    let total = found.within;
    if (total === undefined) {
      if (exactTags && candidates.exactCount !== undefined) total = candidates.exactCount;
      else {
        total = 0;
        for (const label of candidates.labels) if (accept(label)) total++;
      }
    }
    const hits = found.labels.slice(search.offset).map((label, i) => ({ record: records[label]!, dist: Math.max(0, found.distances[search.offset + i]!) }));
    return { hits, total };
  }

  /**
   * The labels a search may match: those in every posting list of the
   * filters' eq/any/all tag conditions (the smallest list walked, the others
   * checked per label), or every label. `exactTags` when the filters have no
   * other condition, so a candidate that passes `inTags` matches.
   */
  #candidates(
    filters: MemoryFilters | undefined,
    owner: string | undefined,
  ): {
    candidates: Candidates & { inTags: (label: number) => boolean; exactCount: number | undefined };
    exactTags: boolean;
  } {
    // `key`: the clause is one tag's posting list (an eq or all value), which may have an index of its own.
    const clauses: Array<{ labels: Set<number>; key?: string }> = [];
    let exactTags = filters !== undefined;
    if (owner !== undefined) clauses.push({ labels: this.#tags.get(tagKey(OWNER_TAG, owner)) ?? new Set() });
    for (const [field, condition] of Object.entries(filters ?? {}) as Array<[string, Record<string, unknown> | undefined]>) {
      if (condition === undefined) continue;
      if (!(TAG_FIELDS as readonly string[]).includes(field)) {
        exactTags = false;
        continue;
      }
      const f = condition as { eq?: string[]; any?: string[]; all?: string[]; ne?: string[]; none?: string[]; startswith?: string };
      if (f.ne !== undefined || f.none !== undefined || f.startswith !== undefined) exactTags = false;
      for (const value of [...(f.eq ?? []), ...(f.all ?? [])]) {
        const key = tagKey(field, value);
        clauses.push({ labels: this.#tags.get(key) ?? new Set(), key });
      }
      if (f.any) clauses.push({ labels: union(f.any.map((value) => this.#tags.get(tagKey(field, value)))) });
    }
    if (clauses.length === 0) {
      const all = { labels: this.#slots.values(), count: this.size, inTags: () => true, exactCount: this.size };
      return { candidates: all, exactTags };
    }
    const [first, ...others] = clauses.sort((a, b) => a.labels.size - b.labels.size);
    const smallest = first!.labels;
    const rest = others.map((clause) => clause.labels);
    const inTags = rest.length === 0 ? (label: number) => smallest.has(label) : (label: number) => smallest.has(label) && rest.every((set) => set.has(label));
    const key = first!.key;
    const tagIndex =
      key === undefined ? undefined : () => this.#tagIndexes.lookup({ tag: key, count: smallest.size, size: this.size, members: () => smallest });
    return { candidates: { labels: smallest, count: smallest.size, inTags, exactCount: rest.length === 0 ? smallest.size : undefined, tagIndex }, exactTags };
  }

  #list(search: CacheSearch): { hits: ScoredRecord[]; total: number } {
    const owner = search.owner;
    const matches = this.#records.filter(
      (record, slot): record is MemoryRecord => record !== undefined && (owner === undefined || this.#owners[slot] === owner) && search.filter(record),
    );
    // Code-unit order (ISO dates sort by time): localeCompare cost ~40 ms per 10k records (issue 23).
    matches.sort((a, b) => compareText(b.created_at, a.created_at) || compareText(a.id, b.id));
    const hits = matches.slice(search.offset, search.offset + search.limit).map((record) => ({ record, dist: 0 }));
    return { hits, total: matches.length };
  }

  #scheduleIndexing(): void {
    if (this.#indexing !== undefined || this.#closed) return;
    this.#indexing = setImmediate(() => {
      this.#indexing = undefined;
      if (this.#closed) return;
      this.#indexPending(INDEX_STEP);
      if (this.#pending.length > 0) this.#scheduleIndexing();
    });
  }

  /** Adds up to `count` waiting records to the HNSW index. */
  #indexPending(count: number): void {
    const batch = this.#pending.splice(Math.max(0, this.#pending.length - count));
    const labels: number[] = [];
    for (const label of batch) {
      if (this.#records[label] === undefined || this.#indexed[label] === 1) continue;
      this.#indexed[label] = 1;
      labels.push(label);
    }
    if (labels.length > 0) {
      const dim = this.#dim!;
      this.#index ??= HnswVectorIndex.create({ dimensions: dim });
      const vectors = new Float32Array(labels.length * dim);
      labels.forEach((label, i) => vectors.set(this.#slab!.row(label), i * dim));
      this.#index.add(labels, vectors);
    }
    if (this.#pending.length === 0) this.#settle();
  }

  #settle(): void {
    if (this.#pending.length > 0 && !this.#closed) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  #tagOwner(label: number, change: 1 | -1): void {
    this.#tagKey(tagKey(OWNER_TAG, this.#owners[label] ?? ''), label, change);
  }

  /** Adds `label` to (or removes it from) the set under `key`; an emptied set goes. */
  #tagKey(key: string, label: number, change: 1 | -1): void {
    let set = this.#tags.get(key);
    if (change > 0) {
      if (!set) this.#tags.set(key, (set = new Set()));
      set.add(label);
    } else if (set) {
      set.delete(label);
      if (set.size === 0) this.#tags.delete(key);
    }
  }

  #tag(label: number, record: MemoryRecord, change: 1 | -1): void {
    for (const key of tagKeys(record)) this.#tagKey(key, label, change);
  }
}

/** -1, 0 or 1 by UTF-16 code units: a total order, and many times faster than `localeCompare`. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The inverted index's keys of a record's tag fields. */
function tagKeys(record: MemoryRecord): string[] {
  const keys: string[] = [];
  for (const field of TAG_FIELDS) {
    const value = record[field];
    if (value === null || value === undefined) continue;
    for (const tag of typeof value === 'string' ? [value] : value) keys.push(tagKey(field, tag));
  }
  return keys;
}

function tagKey(field: string, value: string): string {
  return `${field}\u0000${value}`;
}

function union(sets: Array<Set<number> | undefined>): Set<number> {
  const present = sets.filter((set): set is Set<number> => set !== undefined);
  if (present.length === 1) return present[0]!;
  const all = new Set<number>();
  for (const set of present) for (const label of set) all.add(label);
  return all;
}

function grown(flags: Uint8Array<ArrayBuffer>, capacity: number): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(Math.max(capacity, flags.length * 2, 64));
  bigger.set(flags);
  return bigger;
}

/** Vectors of two lengths cannot be compared: they come from two embedding models. */
function dimensionError(what: string): ConfigError {
  return new ConfigError({
    context: 'Every memory of one store must be embedded with the same model',
    issues: [{ variable: 'EMBEDDING_MODEL', message: `${what}; use the model the memories were stored with, or another KV_PREFIX` }],
  });
}
