/**
 * A posting list is kept as a bitset (one bit per label) once at least
 * 1/`DENSE_SHARE` of the labels are in it, and as a `Set` below half that
 * share: the bitset then takes at most 4 bytes per member (a `Set` takes
 * more), tests a label with one load, and ANDs with another list 32 labels
 * at a time.
 */
export const DENSE_SHARE = 32;
/** Lists shorter than this stay `Set`s whatever the share (a bitset of a few labels saves nothing). */
const DENSE_MIN = 64;

/** The labels that hold every tag of a filter. */
export interface TagMatch {
  /** How many labels match (exact). */
  readonly count: number;
  /** Whether `label` matches. */
  has(label: number): boolean;
  /** The matching labels (ascending when the lists were bitsets); computed on first call. */
  labels(): Int32Array;
}

const EMPTY: TagMatch = { count: 0, has: () => false, labels: () => new Int32Array(0) };

/**
 * Posting lists of labels by tag (a metadata pair, as the caller spells it),
 * with the exact intersection of several: bitsets for lists that hold a
 * large share of the labels, `Set`s for the others (see `DENSE_SHARE`).
 *
 * @example
 * const postings = new TagPostings();
 * postings.add({ label: 0, tags: ['lang=en', 'kind=doc'] });
 * postings.match({ tags: ['lang=en', 'kind=doc'] }).labels(); // Int32Array [0]
 */
export class TagPostings {
  readonly #lists = new Map<string, PostingList>();
  /** One past the highest label added: the bitsets' span. */
  #span = 0;

  add(options: { label: number; tags: Iterable<string> }): void {
    const { label } = options;
    if (!Number.isInteger(label) || label < 0) throw new RangeError(`a label is a non-negative integer, got ${label}`);
    if (label >= this.#span) this.#span = label + 1;
    for (const tag of options.tags) {
      let list = this.#lists.get(tag);
      if (!list) this.#lists.set(tag, (list = new PostingList()));
      list.add(label, this.#span);
    }
  }

  remove(options: { label: number; tags: Iterable<string> }): void {
    for (const tag of options.tags) {
      const list = this.#lists.get(tag);
      if (!list) continue;
      list.delete(options.label, this.#span);
      if (list.size === 0) this.#lists.delete(tag);
    }
  }

  /** How many labels hold `tag`. */
  size(tag: string): number {
    return this.#lists.get(tag)?.size ?? 0;
  }

  /** The labels holding every one of `tags` (none given: no label). */
  match(options: { tags: readonly string[] }): TagMatch {
    const lists: PostingList[] = [];
    for (const tag of new Set(options.tags)) {
      const list = this.#lists.get(tag);
      if (!list) return EMPTY;
      lists.push(list);
    }
    if (lists.length === 0) return EMPTY;
    lists.sort((a, b) => a.size - b.size);
    if (lists.length === 1) return listMatch(lists[0]!);
    const bits = lists.map((list) => list.bits).filter((b) => b !== undefined);
    if (bits.length === lists.length) return bitsMatch(andBits(bits));
    return walkMatch(lists);
  }
}

class PostingList {
  size = 0;
  set: Set<number> | undefined = new Set();
  bits: Uint32Array | undefined;

  add(label: number, span: number): void {
    if (this.bits) {
      if (label >>> 5 >= this.bits.length) this.bits = grown(this.bits, span);
      const word = label >>> 5;
      const bit = 1 << (label & 31);
      if ((this.bits[word]! & bit) === 0) {
        this.bits[word]! |= bit;
        this.size++;
      }
      return;
    }
    const set = this.set!;
    set.add(label);
    this.size = set.size;
    if (this.size >= DENSE_MIN && this.size * DENSE_SHARE >= span) {
      const bits = new Uint32Array(Math.ceil(span / 32));
      for (const held of set) bits[held >>> 5]! |= 1 << (held & 31);
      this.bits = bits;
      this.set = undefined;
    }
  }

  delete(label: number, span: number): void {
    if (this.set) {
      this.set.delete(label);
      this.size = this.set.size;
      return;
    }
    const bits = this.bits!;
    const word = label >>> 5;
    const bit = 1 << (label & 31);
    if (word >= bits.length || (bits[word]! & bit) === 0) return;
    bits[word]! &= ~bit;
    this.size--;
    if (this.size * DENSE_SHARE * 2 < span) {
      this.set = new Set(bitLabels(bits, this.size));
      this.bits = undefined;
    }
  }

  has(label: number): boolean {
    if (this.set) return this.set.has(label);
    const word = label >>> 5;
    return word < this.bits!.length && (this.bits![word]! & (1 << (label & 31))) !== 0;
  }
}

function grown(bits: Uint32Array, span: number): Uint32Array {
  const next = new Uint32Array(Math.max(Math.ceil(span / 32), 2 * bits.length));
  next.set(bits);
  return next;
}

function listMatch(list: PostingList): TagMatch {
  if (list.bits) return bitsMatch({ bits: list.bits, count: list.size });
  const set = list.set!;
  return { count: set.size, has: (label) => set.has(label), labels: () => Int32Array.from(set) };
}

function bitsMatch(options: { bits: Uint32Array; count: number }): TagMatch {
  const { bits, count } = options;
  let labels: Int32Array | undefined;
  return {
    count,
    has: (label) => label >>> 5 < bits.length && (bits[label >>> 5]! & (1 << (label & 31))) !== 0,
    labels: () => (labels ??= bitLabels(bits, count)),
  };
}

/** The AND of bitsets, and how many bits it has set. */
function andBits(lists: Uint32Array[]): { bits: Uint32Array; count: number } {
  const length = Math.min(...lists.map((b) => b.length));
  const out = lists[0]!.slice(0, length);
  for (let l = 1; l < lists.length; l++) {
    const other = lists[l]!;
    for (let w = 0; w < length; w++) out[w]! &= other[w]!;
  }
  let count = 0;
  for (let w = 0; w < length; w++) count += popcount(out[w]!);
  return { bits: out, count };
}

/** The smallest list walked, each label checked against the others. */
function walkMatch(lists: PostingList[]): TagMatch {
  const [smallest, ...rest] = lists;
  const source = smallest!.set ?? bitLabels(smallest!.bits!, smallest!.size);
  const labels = new Int32Array(smallest!.size);
  let count = 0;
  outer: for (const label of source) {
    for (const list of rest) if (!list.has(label)) continue outer;
    labels[count++] = label;
  }
  const found = labels.subarray(0, count);
  return { count, has: (label) => lists.every((list) => list.has(label)), labels: () => found };
}

function bitLabels(bits: Uint32Array, count: number): Int32Array {
  const labels = new Int32Array(count);
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const low = word & -word;
      labels[n++] = (w << 5) | (31 - Math.clz32(low));
      word ^= low;
    }
  }
  return labels;
}

function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
