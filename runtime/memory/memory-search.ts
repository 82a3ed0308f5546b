import { z } from 'zod';
import { MemoryFiltersShape, type MemoryFilters } from './memory-filters.js';
import { DEFAULT_RECENCY, type RecencyParams } from './memory-ranking.js';

/** Largest `limit` of one search, as AMS. */
export const MAX_SEARCH_LIMIT = 100;
/** Largest `offset` accepted. */
export const MAX_SEARCH_OFFSET = 100_000;

/**
 * The body of `POST /v1/long-term-memory/search` (AMS `SearchRequest`):
 * `search_mode` semantic (default), keyword or hybrid (`hybrid_alpha`,
 * default 0.7), and AMS's recency re-ranking (`recency_boost`, on by
 * default as in AMS; `server_side_recency` ranks before paging). See
 * memory-ranking.ts. Unknown fields are refused (see memory-filters.ts).
 */
export const SearchRequestSchema = z
  .strictObject({
    text: z.string().nullable().optional(),
    search_mode: z.enum(['semantic', 'keyword', 'hybrid']).default('semantic'),
    /** Weight of vector similarity in hybrid search (AMS default 0.7); unused in the other modes, as AMS. */
    hybrid_alpha: z.number().min(0).max(1).optional(),
    /** AMS names a Redis scorer (BM25STD by default); every value scores with BM25 here. */
    text_scorer: z.string().optional(),
    ...MemoryFiltersShape,
    distance_threshold: z.number().min(0, 'must be a cosine distance from 0 to 2').nullable().optional(),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(10),
    offset: z.number().int().min(0).max(MAX_SEARCH_OFFSET).default(0),
    recency_boost: z.boolean().nullable().optional(),
    recency_semantic_weight: z.number().nullable().optional(),
    recency_recency_weight: z.number().nullable().optional(),
    recency_freshness_weight: z.number().nullable().optional(),
    recency_novelty_weight: z.number().nullable().optional(),
    recency_half_life_last_access_days: z.number().nullable().optional(),
    recency_half_life_created_days: z.number().nullable().optional(),
    server_side_recency: z.boolean().nullable().optional(),
  })
  .superRefine((request, ctx) => {
    // As AMS: a distance threshold only means something for vectors.
    if (request.search_mode !== 'semantic' && request.distance_threshold !== undefined && request.distance_threshold !== null) {
      ctx.addIssue({ code: 'custom', path: ['distance_threshold'], message: 'distance_threshold is only supported for semantic search mode' });
    }
    for (const key of ['recency_half_life_last_access_days', 'recency_half_life_created_days'] as const) {
      const value = request[key];
      if (value !== undefined && value !== null && !(value > 0)) ctx.addIssue({ code: 'custom', path: [key], message: 'must be a positive number of days' });
    }
  });
export type SearchRequest = z.output<typeof SearchRequestSchema>;

const SEARCH_MODES: ReadonlySet<unknown> = new Set(['semantic', 'keyword', 'hybrid']);

/**
 * `SearchRequestSchema.parse(raw)` for the usual body, at a fraction of the
 * schema's cost (the service's hot route): an object of only `text` (a
 * string or null), `limit`, `offset` and `search_mode`, each valid. Anything
 * else, valid or not, is undefined, and goes to the schema, which gives the
 * errors; so a body this accepts is one the schema accepts, with the same output.
 *
 * @example
 * plainSearchRequest({ text: 'tea', limit: 5 }); // { text: 'tea', search_mode: 'semantic', limit: 5, offset: 0 }
 * plainSearchRequest({ text: 'tea', namespace: { eq: 'crm' } }); // undefined: the schema reads filters
 */
export function plainSearchRequest(raw: unknown): SearchRequest | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const body = raw as Record<string, unknown>;
  let fields = 0;
  for (const key in body) {
    if (!Object.hasOwn(body, key)) return undefined;
    if (key !== 'text' && key !== 'limit' && key !== 'offset' && key !== 'search_mode') return undefined;
    fields++;
  }
  const { text, limit = 10, offset = 0, search_mode: mode = 'semantic' } = body;
  if (Object.getPrototypeOf(body) !== Object.prototype || fields > 4) return undefined;
  if (text !== undefined && text !== null && typeof text !== 'string') return undefined;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_SEARCH_LIMIT) return undefined;
  if (!Number.isSafeInteger(offset) || (offset as number) < 0 || (offset as number) > MAX_SEARCH_OFFSET) return undefined;
  if (!SEARCH_MODES.has(mode)) return undefined;
  const searchMode = mode as SearchRequest['search_mode'];
  // The schema's output, key for key and in its order.
  return 'text' in body
    ? { text: text as string | null, search_mode: searchMode, limit: limit as number, offset: offset as number }
    : { search_mode: searchMode, limit: limit as number, offset: offset as number };
}

/** A search as the store runs it. */
export interface MemoryQuery {
  /** Default semantic. */
  mode?: 'semantic' | 'keyword' | 'hybrid';
  hybridAlpha?: number | undefined;
  /** AMS's recency re-ranking of the page (default on), or of every match before paging (`server_side_recency`). */
  recency?: { params: RecencyParams; serverSide: boolean } | undefined;
  /** Empty or missing text lists the matching records, newest first, with distance 0 (as AMS). */
  text: string;
  filters: MemoryFilters;
  distanceThreshold: number | undefined;
  limit: number;
  offset: number;
  /** Token mode: only the records of this owner (a token's fingerprint) or of none. */
  owner?: string | undefined;
}

/** The filter fields of a search request, listed once (not an `Object.keys` array per search). */
const FILTER_KEYS = Object.keys(MemoryFiltersShape) as ReadonlyArray<keyof MemoryFilters>;

/**
 * The store's query for a search request (in token mode, `owner`'s).
 *
 * @example
 * memoryQuery(SearchRequestSchema.parse({ text: 'tea', namespace: { eq: 'crm' } })).filters.namespace; // { eq: ['crm'] }
 */
export function memoryQuery(request: SearchRequest, options: { owner?: string | undefined } = {}): MemoryQuery {
  const filters: MemoryFilters = {};
  for (const key of FILTER_KEYS) {
    const value = request[key];
    if (value !== undefined) (filters as Record<string, unknown>)[key] = value;
  }
  return {
    text: (request.text ?? '').trim(),
    filters,
    distanceThreshold: request.distance_threshold ?? undefined,
    limit: request.limit,
    offset: request.offset,
    // Named here rather than spread in after (`{...memoryQuery(r), owner}`), which costs a search about 1 µs.
    owner: options.owner,
    mode: request.search_mode,
    hybridAlpha: request.hybrid_alpha,
    recency:
      request.recency_boost === false && request.server_side_recency !== true
        ? undefined
        : {
            serverSide: request.server_side_recency === true,
            params: {
              semanticWeight: request.recency_semantic_weight ?? DEFAULT_RECENCY.semanticWeight,
              recencyWeight: request.recency_recency_weight ?? DEFAULT_RECENCY.recencyWeight,
              freshnessWeight: request.recency_freshness_weight ?? DEFAULT_RECENCY.freshnessWeight,
              noveltyWeight: request.recency_novelty_weight ?? DEFAULT_RECENCY.noveltyWeight,
              halfLifeLastAccessDays: request.recency_half_life_last_access_days ?? DEFAULT_RECENCY.halfLifeLastAccessDays,
              halfLifeCreatedDays: request.recency_half_life_created_days ?? DEFAULT_RECENCY.halfLifeCreatedDays,
            },
          },
  };
}
