import { z } from 'zod';
import { MemoryFiltersShape, type MemoryFilters } from './memory-filters.js';

/** Largest `limit` of one search, as AMS. */
export const MAX_SEARCH_LIMIT = 100;
/** Largest `offset` accepted. */
export const MAX_SEARCH_OFFSET = 100_000;

const unsupported = (what: string) => `${what} is not supported by this memory server`;

/**
 * The body of `POST /v1/long-term-memory/search` (AMS `SearchRequest`).
 * Only semantic search is done: `search_mode` `keyword` or `hybrid`, and the
 * recency re-ranking options, are refused with a 400 rather than answered
 * with something else. Unknown fields are refused too (see memory-filters.ts).
 */
export const SearchRequestSchema = z
  .strictObject({
    text: z.string().nullable().optional(),
    search_mode: z.enum(['semantic', 'keyword', 'hybrid']).default('semantic'),
    /** Only meaningful for hybrid search; accepted and unused, as AMS does in semantic mode. */
    hybrid_alpha: z.number().min(0).max(1).optional(),
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
    if (request.search_mode !== 'semantic') {
      ctx.addIssue({ code: 'custom', path: ['search_mode'], message: `${unsupported(`"${request.search_mode}" search`)}; use "semantic"` });
    }
    if (request.recency_boost === true || request.server_side_recency === true) {
      ctx.addIssue({
        code: 'custom',
        path: [request.recency_boost === true ? 'recency_boost' : 'server_side_recency'],
        message: `${unsupported('recency re-ranking')}; results are ordered by distance`,
      });
    }
    for (const key of Object.keys(request) as Array<keyof typeof request>) {
      if (key.startsWith('recency_') && key !== 'recency_boost' && request[key] !== undefined && request[key] !== null) {
        ctx.addIssue({ code: 'custom', path: [key], message: `${unsupported('recency re-ranking')}; leave it out` });
      }
    }
  });
export type SearchRequest = z.output<typeof SearchRequestSchema>;

/** A search as the store runs it. */
export interface MemoryQuery {
  /** Empty or missing text lists the matching records, newest first, with distance 0 (as AMS). */
  text: string;
  filters: MemoryFilters;
  distanceThreshold: number | undefined;
  limit: number;
  offset: number;
}

/**
 * The store's query for a search request.
 *
 * @example
 * memoryQuery(SearchRequestSchema.parse({ text: 'tea', namespace: { eq: 'crm' } })).filters.namespace; // { eq: ['crm'] }
 */
export function memoryQuery(request: SearchRequest): MemoryQuery {
  const filters: MemoryFilters = {};
  for (const key of Object.keys(MemoryFiltersShape) as Array<keyof MemoryFilters>) {
    const value = request[key];
    if (value !== undefined) (filters as Record<string, unknown>)[key] = value;
  }
  return {
    text: (request.text ?? '').trim(),
    filters,
    distanceThreshold: request.distance_threshold ?? undefined,
    limit: request.limit,
    offset: request.offset,
  };
}
