import type { TagIndexLookup } from './tag-indexes.js';
import type { VectorIndex } from './vector-index.js';
import type { VectorSlab } from './vector-slab.js';

/**
 * A filtered search whose candidates number at most this many (or at most
 * this share of the entries) scores them exactly with SIMD dot products.
 * Each row is 1.5 KB at 384 dimensions, and in a service the rows are seldom
 * still in the CPU caches from the previous search: in the memory service at
 * 10k, scoring a namespace of 1,000 took 0.17 ms (0.03 ms in a loop over the
 * same rows), more than a search of that namespace's own HNSW index of bytes.
 */
export const EXACT_MAX = 512;
export const EXACT_SHARE = 1 / 64;
/**
 * An ANN search that would need more neighbours than this (or than four
 * times the entries to keep, for deep pages) scores its candidates exactly
 * instead. HNSW's cost grows faster than linearly in `k` past a few hundred
 * (the candidate list spills over the cluster around the query: on
 * bench/semantic's data `k` 960 costs 8-20 times `k` 120), while the
 * candidates of a filter that needs such a `k` are few enough to score.
 */
export const ANN_MAX_K = 512;

/** The labels that may match a search: a superset of the matches, and how many there are. */
export interface Candidates {
  labels: Iterable<number>;
  count: number;
  /**
   * How many of the candidates are expected to match, when fewer than
   * `count` (several tag pairs ANDed: the smallest posting list is walked,
   * the others cut it down): sizes the first ANN search. Default `count`.
   */
  expected?: number | undefined;
  /** Every label listed matches (an exact intersection): the exact scoring then never calls `accept`. */
  matching?: boolean | undefined;
  /**
   * The index of one tag that every candidate holds (the filter's rarest,
   * see `TagIndexes.lookup`), when it has one that is complete: searched
   * instead of the whole index. Called only when the candidates are too many
   * to score exactly.
   */
  tagIndex?: (() => TagIndexLookup | undefined) | undefined;
}

export interface FilteredSearch {
  /** Holds every label in use when `indexComplete` (none yet: undefined). */
  index: VectorIndex | undefined;
  /** The unit vector of every label in use, by label. */
  slab: VectorSlab;
  /** Labels in use. */
  size: number;
  /** Unit query vector. */
  query: Float32Array;
  /** How many of the best to find (a page's offset + limit). */
  keep: number;
  /** Where the matches are (every label in use when the search has no filter). */
  candidates: Candidates;
  /** Whether a label (in use, among the candidates or found by the index) matches the search. */
  accept: (label: number) => boolean;
  /** Keep only entries at most this cosine distance away. */
  distanceThreshold?: number | undefined;
  /** False while some labels in use are not in the index yet: the candidates are then scored exactly. */
  indexComplete: boolean;
}

export interface FilteredResult {
  labels: number[];
  distances: number[];
  /**
   * With a distance threshold: how many matches lie within it (exact after an
   * exact scoring, as found by the index otherwise). Without one: how many
   * matched when the scoring was exact, else undefined (the caller counts).
   */
  within: number | undefined;
  /** Whether the candidates were scored exactly (true) or through an ANN index. */
  exact: boolean;
  /** Whether the ANN index searched was a tag's own (`Candidates.tagIndex`) rather than the whole one. */
  tagIndex: boolean;
}

/**
 * The `keep` nearest matches of a query, nearest first, by the cheaper of
 * two ways: few candidates (or an incomplete index) are scored exactly with
 * SIMD dot products; many are found through an ANN index (the index of a
 * tag every candidate holds, when the candidates offer a complete one; else
 * the whole index), asking for `keep / share` neighbours (the share of its
 * entries expected to match, with a margin) and, when too few of them
 * match, asking again for as many as the share seen so far says are needed
 * (at least twice as many) until `keep` matches (and, with a threshold, the
 * first one beyond it) are seen. A search
 * that would need more than `ANN_MAX_K` neighbours scores its candidates
 * exactly, so a filter never costs more than a few ANN searches and one
 * scoring of its own candidates. Shared by the Semantic Layer's mirror and
 * the memory service's cache.
 *
 * @example
 * const { labels, distances } = filteredSearch({ index, slab, size, query, keep: 10, candidates, accept, indexComplete: true });
 */
export function filteredSearch(search: FilteredSearch): FilteredResult {
  const { candidates, keep } = search;
  if (keep < 1 || candidates.count === 0) return { labels: [], distances: [], within: 0, exact: true, tagIndex: false };
  const small = candidates.count <= EXACT_MAX || candidates.count <= search.size * EXACT_SHARE;
  if (small) return exactSearch(search);
  const tagIndex = candidates.tagIndex?.();
  if (tagIndex !== undefined) {
    const found = annSearch({ ...search, size: tagIndex.size }, tagIndex.index);
    return found ? { ...found, tagIndex: true } : exactSearch(search);
  }
  if (!search.indexComplete || search.index === undefined) return exactSearch(search);
  return annSearch(search, search.index) ?? exactSearch(search);
}

/**
 * An index of quantized vectors (`VectorIndex.exact` false) hands over its
 * whole candidate list (`candidatesFor`), the head of its matches rescored
 * exactly from the slab (`RESCORE_DEPTH_MIN`): the quantized order is right only roughly, so the true
 * nearest may lie a little further down its list. A filtered search asks it
 * for this many times the neighbours it needs (1.5 gave recall@10 0.988 at a
 * 1/4 filter at 10k on bench/semantic's data, 2 gives 0.992-0.993); an
 * unfiltered one asks for what it needs, since its search list
 * (`expansionFor`) is longer and its head is rescored.
 */
const RESCORE_WIDEN = 2;

/**
 * How many of an inexact index's matches are rescored: the nearest
 * max(RESCORE_DEPTH_MIN, RESCORE_DEPTH_PER_KEPT × keep) by its own order;
 * the rest are dropped (kept, with all rescored, under a distance
 * threshold, which counts them). Past them the byte order is right enough:
 * on bench/semantic's data at 100k (search list 64) rescoring the first 24
 * of the list gave recall@10 0.9965, the first 32 0.9975, all 64 the same
 * 0.9975 (10k, list 32: 0.9995 from 20 on), while each row rescored is a
 * scattered read of 1.5 KB that costs about as much as its dot product.
 */
const RESCORE_DEPTH_MIN = 32;
const RESCORE_DEPTH_PER_KEPT = 3;

/**
 * The found labels that match the search, nearest first, with their
 * distances (exact ones, rescored from the slab, when the index's are not:
 * see `RESCORE_DEPTH_MIN`), and how many of the found matched (`matched`,
 * rescored or not).
 */
function acceptedOf(
  search: FilteredSearch,
  index: VectorIndex,
  found: { labels: number[]; distances: number[] },
): { labels: number[]; distances: number[]; matched: number } {
  const labels: number[] = [];
  const distances: number[] = [];
  for (let i = 0; i < found.labels.length; i++) {
    const label = found.labels[i]!;
    if (!search.accept(label)) continue;
    labels.push(label);
    distances.push(found.distances[i]!);
  }
  const matched = labels.length;
  if (index.exact || matched === 0) return { labels, distances, matched };
  const depth = search.distanceThreshold === undefined ? Math.min(matched, Math.max(RESCORE_DEPTH_MIN, RESCORE_DEPTH_PER_KEPT * search.keep)) : matched;
  const dots = search.slab.dots(search.query, labels, depth);
  const order = Array.from({ length: depth }, (_, i) => i).sort((a, b) => dots[b]! - dots[a]! || labels[a]! - labels[b]!);
  return { labels: order.map((i) => labels[i]!), distances: order.map((i) => 1 - dots[i]!), matched };
}

/** Neighbours to ask for so that `keep` of them match at `share`: half as many again as the mean, for the spread of a sample. */
function neighboursFor(keep: number, share: number): number {
  return Math.max(keep + 10, Math.ceil((keep * 1.5) / share));
}

function annSearch(search: FilteredSearch, index: VectorIndex): FilteredResult | undefined {
  const threshold = search.distanceThreshold ?? Number.POSITIVE_INFINITY;
  const limit = Math.max(ANN_MAX_K, 4 * search.keep);
  const expected = Math.min(search.candidates.expected ?? search.candidates.count, search.candidates.count);
  let k = neighboursFor(search.keep, Math.min(1, expected / Math.max(1, search.size)));
  const widen = expected < search.size ? RESCORE_WIDEN : 1;
  while (k <= limit) {
    const found = index.exact ? index.search(search.query, k) : index.candidatesFor(search.query, Math.min(limit, Math.ceil(k * widen)));
    const accepted = acceptedOf(search, index, found);
    const labels: number[] = [];
    const distances: number[] = [];
    const { matched } = accepted;
    let within = 0;
    let beyond = false;
    for (let i = 0; i < accepted.labels.length; i++) {
      const label = accepted.labels[i]!;
      const distance = accepted.distances[i]!;
      if (distance > threshold) {
        beyond = true;
        continue;
      }
      within++;
      if (labels.length < search.keep) {
        labels.push(label);
        distances.push(distance);
      }
    }
    const exhausted = found.labels.length < k;
    const enough = labels.length >= search.keep && (search.distanceThreshold === undefined || beyond);
    if (exhausted || enough) return { labels, distances, within: search.distanceThreshold === undefined ? undefined : within, exact: false, tagIndex: false };
    // Too few matched: the share seen sizes the next round (none seen: guess half of 1/k, which usually means exact scoring).
    const seen = matched === 0 ? 1 / (2 * found.labels.length) : matched / found.labels.length;
    k = Math.max(2 * k, neighboursFor(search.keep, seen));
  }
  return undefined;
}

function exactSearch(search: FilteredSearch): FilteredResult {
  const threshold = search.distanceThreshold ?? Number.POSITIVE_INFINITY;
  const rows = new Int32Array(search.candidates.count);
  let count = 0;
  const matching = search.candidates.matching === true;
  for (const label of search.candidates.labels) if (matching || search.accept(label)) rows[count++] = label;
  const dots = count === 0 ? new Float32Array(0) : search.slab.dots(search.query, rows, count);
  const best = new TopK(search.keep);
  let within = 0;
  for (let i = 0; i < count; i++) {
    const distance = 1 - dots[i]!;
    if (distance > threshold) continue;
    within++;
    best.offer(rows[i]!, distance);
  }
  const sorted = best.sorted();
  return { labels: sorted.map((e) => e.label), distances: sorted.map((e) => e.distance), within, exact: true, tagIndex: false };
}

/** The `size` smallest distances offered, in a max-heap on typed arrays. */
export class TopK {
  readonly #distance: Float64Array;
  readonly #label: Int32Array;
  #count = 0;

  constructor(readonly size: number) {
    this.#distance = new Float64Array(size);
    this.#label = new Int32Array(size);
  }

  offer(label: number, distance: number): void {
    if (this.size === 0) return;
    if (this.#count < this.size) {
      let i = this.#count++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.#distance[parent]! >= distance) break;
        this.#distance[i] = this.#distance[parent]!;
        this.#label[i] = this.#label[parent]!;
        i = parent;
      }
      this.#distance[i] = distance;
      this.#label[i] = label;
      return;
    }
    if (distance >= this.#distance[0]!) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.#count) break;
      const right = left + 1;
      const child = right < this.#count && this.#distance[right]! > this.#distance[left]! ? right : left;
      if (this.#distance[child]! <= distance) break;
      this.#distance[i] = this.#distance[child]!;
      this.#label[i] = this.#label[child]!;
      i = child;
    }
    this.#distance[i] = distance;
    this.#label[i] = label;
  }

  /** The entries kept, nearest first (ties by label). */
  sorted(): Array<{ label: number; distance: number }> {
    const out = Array.from({ length: this.#count }, (_, i) => ({ label: this.#label[i]!, distance: this.#distance[i]! }));
    return out.sort((a, b) => a.distance - b.distance || a.label - b.label);
  }
}
