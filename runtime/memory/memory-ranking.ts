import MiniSearch from 'minisearch';
import type { MemoryRecord } from './memory-records.js';

/**
 * Ranking beside vector similarity, as Redis's Agent Memory Server (AMS
 * 0.15.2) ranks: keyword (BM25 through MiniSearch, since plain Redis 7 has
 * no RediSearch), hybrid (AMS/RedisVL `AggregateHybridQuery`:
 * `alpha * (2 - dist) / 2 + (1 - alpha) * text_score`), scores normalised by
 * the best one, and AMS's recency re-ranking (`utils/recency.py`).
 */

/** AMS's default `hybrid_alpha` (weight of vector similarity in hybrid search). */
export const DEFAULT_HYBRID_ALPHA = 0.7;

/** AMS's recency parameters (`_build_recency_params`), with its defaults. */
export interface RecencyParams {
  semanticWeight: number;
  recencyWeight: number;
  freshnessWeight: number;
  noveltyWeight: number;
  halfLifeLastAccessDays: number;
  halfLifeCreatedDays: number;
}

export const DEFAULT_RECENCY: RecencyParams = {
  semanticWeight: 0.8,
  recencyWeight: 0.2,
  freshnessWeight: 0.6,
  noveltyWeight: 0.4,
  halfLifeLastAccessDays: 7,
  halfLifeCreatedDays: 30,
};

const DAY_MS = 86_400_000;

/** Timestamps already read by `Date.parse` (NaN for one it cannot read); emptied when full. */
const parsedTimes = new Map<string, number>();
const PARSED_TIMES_MAX = 4096;

/**
 * `Date.parse(iso)`, remembered: a re-ranked page reads two timestamps per
 * hit (and the recency touch one more), the same records come back search
 * after search, and a lookup of the record's own string costs a tenth of
 * parsing it again.
 *
 * @example
 * parsedTime('2026-12-04T21:30:00.000Z'); // 1796419800000
 */
export function parsedTime(iso: string): number {
  let ms = parsedTimes.get(iso);
  if (ms === undefined) {
    ms = Date.parse(iso);
    if (parsedTimes.size >= PARSED_TIMES_MAX) parsedTimes.clear();
    parsedTimes.set(iso, ms);
  }
  return ms;
}

/**
 * AMS's `score_recency`: `freshness_weight * 2^(-days since last access / half-life)
 * + novelty_weight * 2^(-days since created / half-life)`, clamped to [0, 1].
 *
 * @example
 * recencyScore({ last_accessed: now.toISOString(), created_at: now.toISOString() }, now, DEFAULT_RECENCY); // 1
 */
export function recencyScore(record: Pick<MemoryRecord, 'last_accessed' | 'created_at'>, now: Date, params: RecencyParams): number {
  const days = (iso: string) => {
    const ms = parsedTime(iso);
    return Number.isFinite(ms) ? Math.max((now.getTime() - ms) / DAY_MS, 0) : Number.POSITIVE_INFINITY;
  };
  const accessRate = Math.LN2 / Math.max(params.halfLifeLastAccessDays, 0.001);
  const createdRate = Math.LN2 / Math.max(params.halfLifeCreatedDays, 0.001);
  const freshness = Math.exp(-accessRate * days(record.last_accessed));
  const novelty = Math.exp(-createdRate * days(record.created_at));
  return Math.min(Math.max(params.freshnessWeight * freshness + params.noveltyWeight * novelty, 0), 1);
}

/**
 * AMS's `rerank_with_recency`: sorted by `semantic_weight * (1 - dist) +
 * recency_weight * recency` (descending, stable); scores and distances are kept.
 */
export function rerankWithRecency<R extends MemoryRecord & { dist: number }>(results: readonly R[], now: Date, params: RecencyParams): R[] {
  const scored = results.map((result, i) => ({
    result,
    i,
    score: params.semanticWeight * (1 - result.dist) + params.recencyWeight * recencyScore(result, now, params),
  }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.map(({ result }) => result);
}

/** AMS's `_normalize_rank_scores`: each score over the best one, clamped to [0, 1]; all 0 when none is positive. */
export function normalizeScores(scores: readonly number[]): number[] {
  const best = Math.max(0, ...scores);
  return scores.map((score) => (best <= 0 ? 0 : Math.min(Math.max(score / best, 0), 1)));
}

/**
 * A full-text (BM25) index of long-term memory texts, kept in step with the
 * records it is shown: `sync` adds, replaces and drops records by id and
 * text, so repeated searches only index what changed.
 *
 * @example
 * const index = new KeywordIndex();
 * index.sync(records, { complete: true });
 * index.scores('green tea', new Set(records.map((r) => r.id))); // Map id → BM25 score, only records sharing a word
 */
export class KeywordIndex {
  readonly #search = new MiniSearch<{ id: string; text: string }>({
    fields: ['text'],
    idField: 'id',
    // Stop words are kept, as AMS disables Redis's stop-word filtering for keyword and hybrid search.
    processTerm: (term) => term.toLowerCase(),
  });
  readonly #texts = new Map<string, string>();

  get size(): number {
    return this.#texts.size;
  }

  /**
   * Adds or re-indexes `records` (by id and text). With `complete` (the
   * records are every stored one) it also drops the ids not among them;
   * otherwise a deleted record lingers in the index until then, never
   * answered since searches only keep the ids they are given.
   */
  sync(records: readonly MemoryRecord[], options: { complete: boolean }): void {
    const seen = new Set<string>();
    for (const { id, text } of records) {
      seen.add(id);
      const known = this.#texts.get(id);
      if (known === text) continue;
      if (known !== undefined) this.#search.discard(id);
      this.#search.add({ id, text });
      this.#texts.set(id, text);
    }
    if (!options.complete) return;
    for (const id of [...this.#texts.keys()]) {
      if (seen.has(id)) continue;
      this.#search.discard(id);
      this.#texts.delete(id);
    }
  }

  /** BM25 scores of the records among `ids` sharing at least one word with `text` (any word, as AMS's OR query). */
  scores(text: string, ids: ReadonlySet<string>): Map<string, number> {
    const found = this.#search.search(text, { combineWith: 'OR', filter: (result) => ids.has(result.id as string) });
    return new Map(found.map((result) => [result.id as string, result.score]));
  }
}
