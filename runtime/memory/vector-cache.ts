import { ConfigError } from '../core/errors/config-error.js';
import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import type { MemoryRecord } from './memory-records.js';
import { VectorSlab } from '../semantic/vector-slab.js';

/** A record found by a search, with its cosine distance to the query (0 for a listing). */
export interface ScoredRecord {
  record: MemoryRecord;
  dist: number;
}

export interface CacheSearch {
  /** Unit query vector; undefined lists the matching records, newest first. */
  vector: Float32Array | undefined;
  filter: (record: MemoryRecord) => boolean;
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
  const unit = Float32Array.from(vector);
  let norm = 0;
  for (const x of unit) norm += x * x;
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

/**
 * The in-process copy of every long-term memory of one store: records with
 * their unit vectors in one growing `VectorSlab`, so a search filters the
 * records first, then scores the rest by dot product (= cosine, SIMD) without
 * touching Redis. Exact (flat) search.
 *
 * @example
 * const cache = new VectorCache();
 * cache.upsert(record, normalize(embedding));
 * const { hits, total } = cache.search({ vector: normalize(query), filter: () => true, limit: 5, offset: 0 });
 */
export class VectorCache {
  #dim: number | undefined;
  #slab: VectorSlab | undefined;
  #candidates = new Int32Array(0);
  #records: Array<MemoryRecord | undefined> = [];
  readonly #slots = new Map<string, number>();
  #free: number[] = [];

  /** Number of records held. */
  get size(): number {
    return this.#slots.size;
  }

  /** Length of the vectors held, once one was added. */
  get dim(): number | undefined {
    return this.#dim;
  }

  /** Adds or replaces the record `record.id` with its unit vector. */
  upsert(record: MemoryRecord, vector: Float32Array): void {
    this.#dim ??= vector.length;
    if (vector.length !== this.#dim) {
      throw dimensionError(`memory ${record.id} has a vector of ${vector.length} dimensions where the others have ${this.#dim}`);
    }
    let slot = this.#slots.get(record.id);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#records.length;
      if (slot === this.#records.length) this.#records.push(undefined);
      this.#slots.set(record.id, slot);
      this.#slab ??= new VectorSlab({ dim: vector.length });
      this.#slab.ensure(slot + 1);
    }
    this.#records[slot] = record;
    this.#slab!.set(slot, vector);
  }

  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    this.#records[slot] = undefined;
    this.#free.push(slot);
  }

  clear(): void {
    this.#slots.clear();
    this.#records = [];
    this.#free = [];
    this.#slab = undefined;
    this.#candidates = new Int32Array(0);
    this.#dim = undefined;
  }

  /** The matching records, best first, `offset` to `offset + limit`, and how many matched in all. */
  search(search: CacheSearch): { hits: ScoredRecord[]; total: number } {
    if (search.vector === undefined) return this.#list(search);
    if (this.#dim !== undefined && search.vector.length !== this.#dim) {
      throw dimensionError(`the query vector has ${search.vector.length} dimensions but the stored memories have ${this.#dim}`);
    }
    const keep = Math.min(search.offset + search.limit, this.#slots.size);
    const best = new TopK(keep);
    const threshold = search.distanceThreshold ?? Number.POSITIVE_INFINITY;
    if (this.#candidates.length < this.#records.length) this.#candidates = new Int32Array(this.#slab?.capacity ?? 0);
    const candidates = this.#candidates;
    let count = 0;
    for (let slot = 0; slot < this.#records.length; slot++) {
      const record = this.#records[slot];
      if (record !== undefined && search.filter(record)) candidates[count++] = slot;
    }
    const dots = count === 0 ? new Float32Array(0) : this.#slab!.dots(search.vector, candidates, count);
    let total = 0;
    for (let i = 0; i < count; i++) {
      const dist = 1 - dots[i]!;
      if (dist > threshold) continue;
      total++;
      best.offer(candidates[i]!, dist);
    }
    const hits = best
      .sorted()
      .slice(search.offset)
      .map(({ slot, dist }) => ({ record: this.#records[slot]!, dist: Math.max(0, dist) }));
    return { hits, total };
  }

  #list(search: CacheSearch): { hits: ScoredRecord[]; total: number } {
    const matches = this.#records.filter((record): record is MemoryRecord => record !== undefined && search.filter(record));
    matches.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
    const hits = matches.slice(search.offset, search.offset + search.limit).map((record) => ({ record, dist: 0 }));
    return { hits, total: matches.length };
  }
}

/** Vectors of two lengths cannot be compared: they come from two embedding models. */
function dimensionError(what: string): ConfigError {
  return new ConfigError({
    context: 'Every memory of one store must be embedded with the same model',
    issues: [{ variable: 'EMBEDDING_MODEL', message: `${what}; use the model the memories were stored with, or another KV_PREFIX` }],
  });
}

/** The `size` smallest distances offered, in a max-heap on typed arrays. */
class TopK {
  readonly #dist: Float64Array;
  readonly #slot: Int32Array;
  #count = 0;

  constructor(readonly size: number) {
    this.#dist = new Float64Array(size);
    this.#slot = new Int32Array(size);
  }

  offer(slot: number, dist: number): void {
    if (this.size === 0) return;
    if (this.#count < this.size) {
      let i = this.#count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.#dist[parent]! >= dist) break;
        this.#dist[i] = this.#dist[parent]!;
        this.#slot[i] = this.#slot[parent]!;
        i = parent;
      }
      this.#dist[i] = dist;
      this.#slot[i] = slot;
      return;
    }
    if (dist >= this.#dist[0]!) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.#count) break;
      const right = left + 1;
      const child = right < this.#count && this.#dist[right]! > this.#dist[left]! ? right : left;
      if (this.#dist[child]! <= dist) break;
      this.#dist[i] = this.#dist[child]!;
      this.#slot[i] = this.#slot[child]!;
      i = child;
    }
    this.#dist[i] = dist;
    this.#slot[i] = slot;
  }

  sorted(): Array<{ slot: number; dist: number }> {
    const out = Array.from({ length: this.#count }, (_, i) => ({ slot: this.#slot[i]!, dist: this.#dist[i]! }));
    return out.sort((a, b) => a.dist - b.dist || a.slot - b.slot);
  }
}
