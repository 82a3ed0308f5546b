import { HnswVectorIndex } from './hnsw-vector-index.js';
import type { VectorIndex } from './vector-index.js';

/**
 * A tag gets an index of its own only while at most this share of the labels
 * hold it: a broader tag is found often enough among the whole index's
 * neighbours (at 1/8, `k` 120), while a narrower one needs `k` in the
 * hundreds, and HNSW's cost grows faster than linearly in `k` (see
 * filtered-search.ts). Tags held by few labels never ask: they are scored
 * exactly (`EXACT_MAX`, `EXACT_SHARE`).
 */
export const TAG_INDEX_MAX_SHARE = 1 / 8;
/**
 * All tag indexes together hold at most this share of the labels when one is
 * made (the least recently searched go first to make room). An entry costs
 * about as much as in the whole index (a byte per dimension, see
 * `Quantization`): ten namespaces of a tenth each all fit, at the memory a
 * quarter of the labels took in float32.
 */
export const TAG_INDEX_BUDGET = 1;
/** At most this many tag indexes are kept (the least recently searched go first). */
export const TAG_INDEX_MAX_COUNT = 16;
/** A tag index makes way for another only after this many lookups (of any tag) without one of its own. */
export const TAG_INDEX_IDLE_LOOKUPS = 64;
/**
 * Labels added to a tag index per step (about 3 ms at 384 dimensions on two
 * cores, stored as bytes): by each background step while any index is
 * behind (one step per turn of the event loop, so a request waits for one
 * step at most), and by a lookup when no background step ran since the
 * previous lookup: searches awaited back to back in one process, with no
 * I/O between them, never give the event loop a turn, so the background
 * steps would wait for ever.
 */
export const TAG_INDEX_STEP = 64;
/** A lookup that finds no more than this many labels left adds them itself (a small tag's index serves its first search). */
export const TAG_INDEX_FINISH = 256;
/**
 * The candidate list of a tag index's searches (the rescored ones, see
 * `Quantization`). On clustered 384-d data, recall@10 and p50 for tags of
 * 625-1,000 labels: 0.980-0.984 at 48, 0.989-0.993 at 64, 0.996 at 96
 * (0.030-0.051 ms); for tags of 6k-10k labels 1.000 at each, 0.050 ms at 48,
 * 0.058 ms at 64, 0.081 ms at 96.
 */
const TAG_EXPANSION_SEARCH = 64;

/** A tag's own index, once it holds every label of the tag. */
export interface TagIndexLookup {
  index: VectorIndex;
  /** Labels it holds: every label holding the tag. */
  size: number;
}

interface TagIndex {
  index: HnswVectorIndex;
  /** Labels holding the tag that the index does not hold yet (their vectors read when added). */
  pending: Set<number>;
  /** When it was last looked up (a counter). */
  used: number;
}

/**
 * Small HNSW indexes over the labels of single tags (a metadata pair, as the
 * caller spells it), for filters on a tag held by a small share of the
 * labels: searching the tag's own index for `keep` neighbours costs less
 * than searching the whole index for `keep / share` of them. An index is
 * made when a search asks for it (`lookup`), filled a step at a time, kept
 * current by `add` and `remove` (called with the caller's posting lists),
 * and dropped when its tag is empty, when it grows broad, or to stay within
 * `TAG_INDEX_BUDGET` and `TAG_INDEX_MAX_COUNT`. Used by the Semantic Layer's
 * mirror and the memory service's cache through `Candidates.tagIndex`.
 *
 * @example
 * const tagIndexes = new TagIndexes({ vector: (label) => slab.row(label) });
 * tagIndexes.add({ label: 7, tags: ['lang\u0000en'] }); // after the posting lists
 * const found = tagIndexes.lookup({ tag: 'lang\u0000en', count, size, members: () => labelsOfTag });
 */
export class TagIndexes {
  readonly #vector: (label: number) => Float32Array;
  readonly #indexes = new Map<string, TagIndex>();
  #clock = 0;
  #step: NodeJS.Immediate | undefined;
  /** Background steps run so far, and as of the previous lookup (equal: the steps are starved). */
  #steps = 0;
  #stepsAtLookup = 0;
  #settledWaiters: Array<() => void> = [];

  /** `vector(label)`: the current unit vector of a label in use (read when the label is added to an index). */
  constructor(options: { vector: (label: number) => Float32Array }) {
    this.#vector = options.vector;
  }

  /** The tags that have an index (complete or being filled). */
  get tags(): string[] {
    return [...this.#indexes.keys()];
  }

  /** Labels held or waiting, over every tag index. */
  get entries(): number {
    let entries = 0;
    for (const held of this.#indexes.values()) entries += held.index.size + held.pending.size;
    return entries;
  }

  /** Labels waiting to be added, over every tag index. */
  get pending(): number {
    let pending = 0;
    for (const held of this.#indexes.values()) pending += held.pending.size;
    return pending;
  }

  /** `label` now holds `tags`, with its current vector (also after a new vector: `remove` its tags first). */
  add(options: { label: number; tags: Iterable<string> }): void {
    if (this.#indexes.size === 0) return;
    let behind = false;
    for (const tag of options.tags) {
      const held = this.#indexes.get(tag);
      if (!held) continue;
      held.pending.add(options.label);
      behind = true;
    }
    if (behind) this.#schedule();
  }

  /** `label` no longer holds `tags` (or goes, or its vector changes); a tag index left empty is dropped. */
  remove(options: { label: number; tags: Iterable<string> }): void {
    if (this.#indexes.size === 0) return;
    for (const tag of options.tags) {
      const held = this.#indexes.get(tag);
      if (!held) continue;
      if (!held.pending.delete(options.label)) held.index.remove([options.label]);
      if (held.index.size + held.pending.size === 0) this.#indexes.delete(tag);
    }
  }

  /**
   * The index of `tag` (held by `count` of the `size` labels in use;
   * `members()` lists them) when the tag qualifies and its index holds every
   * label: made on the first lookup and filled by background steps of
   * `TAG_INDEX_STEP` labels (the last `TAG_INDEX_FINISH` by a lookup, so a
   * small tag's index serves its first search). Undefined while
   * it is behind, or when the tag is too broad for one (an index it had is
   * dropped) or would not fit the budget.
   */
  lookup(options: { tag: string; count: number; size: number; members: () => Iterable<number> }): TagIndexLookup | undefined {
    const { tag, count, size } = options;
    let held = this.#indexes.get(tag);
    if (count === 0 || count > size * TAG_INDEX_MAX_SHARE) {
      this.#indexes.delete(tag);
      return undefined;
    }
    const now = ++this.#clock;
    if (!held) {
      // Room first: a tag that gets no index costs its search nothing (its members are listed only for a new index).
      if (!this.#makeRoom({ count, size })) return undefined;
      const pending = new Set(options.members());
      const first = pending.values().next();
      if (first.done === true) return undefined;
      const index = HnswVectorIndex.create({ dimensions: this.#vector(first.value).length, expansionSearch: TAG_EXPANSION_SEARCH });
      this.#indexes.set(tag, (held = { index, pending, used: now }));
    }
    held.used = now;
    // A step scheduled before and not run since the previous lookup: nothing gives the event loop a turn.
    const starved = this.#step !== undefined && this.#steps === this.#stepsAtLookup;
    this.#stepsAtLookup = this.#steps;
    // What is left in one step is added at once (a small tag's index is ready for this search); more is left to the background steps, off the search's path,
    // unless they are starved: then each lookup adds a small step itself.
    if (held.pending.size > 0 && held.pending.size <= TAG_INDEX_FINISH) this.#fill(held, TAG_INDEX_FINISH);
    else if (held.pending.size > 0 && starved) this.#fill(held, TAG_INDEX_STEP);
    if (held.pending.size > 0) {
      this.#schedule();
      return undefined;
    }
    return { index: held.index, size: held.index.size };
  }

  /** Resolves once no tag index is behind (at once when none is): after it, a lookup of a tag that has an index finds it complete. */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    this.#schedule();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /** Drops every tag index and stops filling them. */
  clear(): void {
    this.#indexes.clear();
    if (this.#step) clearImmediate(this.#step);
    this.#step = undefined;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#settledWaiters;
    this.#settledWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Makes room for an index of `count` labels by dropping the least recently
   * searched indexes that have been idle for `TAG_INDEX_IDLE_LOOKUPS`
   * lookups; false (nothing dropped) when that is not enough. Filters that
   * alternate between more tags than fit (ten namespaces searched in turn)
   * then keep the indexes they have instead of rebuilding them one after
   * another; the other tags are searched through the whole index.
   */
  #makeRoom(options: { count: number; size: number }): boolean {
    const budget = options.size * TAG_INDEX_BUDGET;
    if (options.count > budget) return false;
    let entries = this.entries;
    let indexes = this.#indexes.size;
    const fits = () => entries + options.count <= budget && indexes < TAG_INDEX_MAX_COUNT;
    const dropped: string[] = [];
    const idle = [...this.#indexes.entries()].filter(([, held]) => this.#clock - held.used >= TAG_INDEX_IDLE_LOOKUPS).sort((a, b) => a[1].used - b[1].used);
    for (const [tag, held] of idle) {
      if (fits()) break;
      entries -= held.index.size + held.pending.size;
      indexes--;
      dropped.push(tag);
    }
    if (!fits()) return false;
    for (const tag of dropped) this.#indexes.delete(tag);
    return true;
  }

  /** Adds up to `count` waiting labels of `held` to its index. */
  #fill(held: TagIndex, count: number): void {
    const labels: number[] = [];
    for (const label of held.pending) {
      if (labels.length >= count) break;
      labels.push(label);
    }
    const dims = held.index.dimensions;
    const vectors = new Float32Array(labels.length * dims);
    labels.forEach((label, i) => {
      held.pending.delete(label);
      vectors.set(this.#vector(label), i * dims);
    });
    held.index.add(labels, vectors);
  }

  /**
   * Fills the tag indexes that are behind, a step per turn of the event
   * loop. The step is a referenced immediate: an unreferenced one lets the
   * loop sleep in its poll phase until some other event comes, so an idle
   * process built nothing and a busy one only a step per request. It keeps
   * the process alive until the indexes are full (seconds at most; `clear`,
   * called when the owner closes, stops it).
   */
  #schedule(): void {
    if (this.#step !== undefined) return;
    this.#step = setImmediate(() => {
      this.#step = undefined;
      this.#steps++;
      let budget = TAG_INDEX_STEP;
      const behind = [...this.#indexes.values()].filter((held) => held.pending.size > 0).sort((a, b) => b.used - a.used);
      for (const held of behind) {
        if (budget <= 0) break;
        const before = held.pending.size;
        this.#fill(held, budget);
        budget -= before - held.pending.size;
      }
      if (behind.some((held) => held.pending.size > 0)) this.#schedule();
      else this.#wake();
    });
  }
}
