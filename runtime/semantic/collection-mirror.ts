import type { VectorIndex } from '../core/vectors/vector-index.js';
import { filteredSearch, type Candidates } from '../core/vectors/filtered-search.js';
import { TagIndexes } from '../core/vectors/tag-indexes.js';
import { TagPostings } from '../core/vectors/tag-postings.js';
import { VectorSlab } from '../core/vectors/vector-slab.js';
import type { VectorHit } from './vector-store.js';

/** What a mirror keeps of a record besides its vector. */
export interface MirroredRecord {
  id: string;
  content: string;
  metadata: Readonly<Record<string, string>>;
  uri: string;
}

/**
 * The in-memory copy of one collection that searches are answered from:
 * records by label, their unit vectors (a growing slab, for exact filtered
 * scoring), an inverted index of metadata pairs, the ANN index, and small
 * indexes of the pairs that filters ask for and few records hold. The
 * store of record stays on disk; the mirror is rebuilt from it.
 *
 * @example
 * const mirror = new CollectionMirror({ index: HnswVectorIndex.create({ dimensions: 384 }) });
 * mirror.upsert([{ id: 'a', content: 'Hello', metadata: { lang: 'en' }, uri: '' }], vectors);
 * mirror.search(query, { limit: 5, filter: { lang: 'en' } });
 */
export class CollectionMirror {
  readonly index: VectorIndex;
  readonly #dim: number;
  readonly #vectors: VectorSlab;
  readonly #records: Array<MirroredRecord | undefined> = [];
  readonly #labels = new Map<string, number>();
  readonly #tags = new TagPostings();
  readonly #tagIndexes: TagIndexes;
  readonly #free: number[] = [];

  constructor(options: { index: VectorIndex }) {
    this.index = options.index;
    this.#dim = options.index.dimensions;
    this.#vectors = new VectorSlab({ dim: this.#dim });
    this.#tagIndexes = new TagIndexes({ vector: (label) => this.#vectors.row(label) });
  }

  /** The metadata pairs (`key\u0000value`) that have an index of their own now. */
  get indexedPairs(): string[] {
    return this.#tagIndexes.tags;
  }

  /** Resolves once the per-pair indexes being built (first filtered searches start them) hold every record of their pair. */
  settled(): Promise<void> {
    return this.#tagIndexes.settled();
  }

  /** Stops building per-pair indexes (the store closed). */
  close(): void {
    this.#tagIndexes.clear();
  }

  /** Records held. */
  get size(): number {
    return this.#labels.size;
  }

  /** Labels in use, in order, with their record ids (`undefined` for free ones): what `restore` takes back. */
  labelIds(): Array<string | undefined> {
    return this.#records.map((record) => record?.id);
  }

  /** Adds or replaces records; `vectors` holds their unit vectors, `records.length` rows. */
  upsert(records: readonly MirroredRecord[], vectors: Float32Array, options: { indexed?: boolean } = {}): void {
    const labels: number[] = [];
    records.forEach((record, i) => {
      const label = this.#place(record);
      this.#vectors.set(label, vectors.subarray(i * this.#dim, (i + 1) * this.#dim));
      labels.push(label);
    });
    // `indexed`: the ANN index already holds these labels (loaded from its file).
    if (!options.indexed) this.index.add(labels, vectors);
  }

  /**
   * Takes back records under the labels they had when the index was saved
   * (`ids[label]`; null: a free label), without adding them to the index
   * again: `records` by id, and `readRows` writes the saved unit vectors,
   * row by label, into the view it is given (`ids.length` rows of the
   * index's dimensions; straight into the slab when its rows lie end to
   * end). An empty mirror only. Throws when a label's id has no record or
   * two labels name one id, or what `readRows` throws: the mirror is then
   * unusable (build another).
   */
  restore(options: { ids: ReadonlyArray<string | null>; records: ReadonlyMap<string, MirroredRecord>; readRows: (rows: Float32Array) => void }): void {
    const { ids, records } = options;
    if (this.#records.length > 0) throw new Error('restore fills an empty mirror only');
    this.#grow(ids.length);
    const rows = this.#vectors.contiguousRows(ids.length);
    if (rows) options.readRows(rows);
    else {
      const copy = new Float32Array(ids.length * this.#dim);
      options.readRows(copy);
      this.#vectors.setRows(copy, ids.length);
    }
    ids.forEach((id, label) => {
      if (id === null) {
        this.#free.push(label);
        return;
      }
      const record = records.get(id);
      if (record === undefined) throw new RangeError(`label ${label} names "${id}", which is not among the records`);
      if (this.#labels.has(id)) throw new RangeError(`labels ${this.#labels.get(id)} and ${label} both name "${id}"`);
      this.#records[label] = record;
      this.#labels.set(record.id, label);
      this.#tag(label, record, +1);
    });
  }

  /**
   * Every label's unit vector, row after row (`labelIds().length` rows; the
   * rows of free labels hold whatever they last held): a view of the slab
   * when its rows lie end to end, which the next write invalidates, else a copy.
   */
  vectorRows(): Float32Array {
    const count = this.#records.length;
    const rows = this.#vectors.contiguousRows(count);
    if (rows) return rows;
    const copy = new Float32Array(count * this.#dim);
    for (let label = 0; label < count; label++) copy.set(this.#vectors.row(label), label * this.#dim);
    return copy;
  }

  remove(ids: readonly string[]): void {
    const labels: number[] = [];
    for (const id of ids) {
      const label = this.#labels.get(id);
      if (label === undefined) continue;
      this.#tag(label, this.#records[label]!, -1);
      this.#labels.delete(id);
      this.#records[label] = undefined;
      this.#free.push(label);
      labels.push(label);
    }
    this.index.remove(labels);
  }

  has(id: string): boolean {
    return this.#labels.has(id);
  }

  /**
   * The `limit` records nearest to the unit vector `query` among those whose
   * metadata has every pair of `filter` (see core/vectors/filtered-search.ts:
   * few matches are scored exactly, many through the ANN index, or through
   * the index of the filter's rarest pair when it has one, see tag-indexes.ts).
   */
  search(query: Float32Array, options: { limit: number; filter?: Readonly<Record<string, string>> }): VectorHit[] {
    const pairs = Object.entries(options.filter ?? {});
    const records = this.#records;
    let candidates: Candidates;
    let accept: (label: number) => boolean;
    if (pairs.length === 0) {
      candidates = { labels: this.#labels.values(), count: this.size };
      accept = (label) => records[label] !== undefined;
    } else {
      // The exact set of matches: posting lists intersected (bitsets ANDed for frequent pairs), listed only if scored exactly.
      const tags = pairs.map(([key, value]) => tagKey(key, value));
      const match = this.#tags.match({ tags });
      const rarest = tags.reduce((a, b) => (this.#tags.size(b) < this.#tags.size(a) ? b : a));
      const tagIndex = () =>
        this.#tagIndexes.lookup({ tag: rarest, count: this.#tags.size(rarest), size: this.size, members: () => this.#tags.match({ tags: [rarest] }).labels() });
      candidates = { labels: { [Symbol.iterator]: () => match.labels()[Symbol.iterator]() }, count: match.count, matching: true, tagIndex };
      accept = (label) => match.has(label);
    }
    const found = filteredSearch({
      index: this.index,
      slab: this.#vectors,
      size: this.size,
      query,
      keep: options.limit,
      candidates,
      accept,
      indexComplete: true,
    });
    return found.labels.map((label, i) => hit(records[label]!, found.distances[i]!));
  }

  #place(record: MirroredRecord): number {
    const existing = this.#labels.get(record.id);
    if (existing !== undefined) {
      this.#tag(existing, this.#records[existing]!, -1);
      this.#records[existing] = record;
      this.#tag(existing, record, +1);
      return existing;
    }
    const label = this.#free.pop() ?? this.#records.length;
    this.#grow(label + 1);
    this.#records[label] = record;
    this.#labels.set(record.id, label);
    this.#tag(label, record, +1);
    return label;
  }

  #grow(labels: number): void {
    if (this.#records.length < labels) this.#records.length = labels;
    this.#vectors.ensure(labels);
  }

  #tag(label: number, record: MirroredRecord, change: 1 | -1): void {
    const tags = Object.entries(record.metadata).map(([key, value]) => tagKey(key, value));
    // A label tagged again (a replaced record) may have a new vector: its tag indexes take it again.
    if (change > 0) {
      this.#tags.add({ label, tags });
      this.#tagIndexes.add({ label, tags });
    } else {
      this.#tags.remove({ label, tags });
      this.#tagIndexes.remove({ label, tags });
    }
  }
}

function tagKey(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

function hit(record: MirroredRecord, distance: number): VectorHit {
  return { id: record.id, content: record.content, metadata: record.metadata, uri: record.uri, score: 1 - distance };
}

/**
 * A unit-length float32 copy of `vector` (cosine = dot product of unit vectors).
 *
 * @example
 * unitVector([3, 4]); // Float32Array [0.6, 0.8]
 */
export function unitVector(vector: ArrayLike<number>): Float32Array {
  const unit = Float32Array.from(vector);
  let norm = 0;
  for (let i = 0; i < unit.length; i++) norm += unit[i]! * unit[i]!;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < unit.length; i++) unit[i]! *= scale;
  return unit;
}
