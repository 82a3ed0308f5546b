import type { MemoryFilters, TagFilter } from './memory-filters.js';
import type { MemoryQuery } from './memory-search.js';

/**
 * AMS's soft-filter fallback (api.py `search_long_term_memory`): a semantic
 * search with text whose strict filters on topics, entities, memory type or
 * event date matched nothing is run again without them, their values added
 * to the query text as hints (`"... (topics: a, b; type: semantic)"`).
 *
 * We differ on purpose: AMS also drops the namespace filter; here namespace,
 * user and session filters are always kept, so a fallback never reaches
 * another tenant's memories.
 */

/** The filters AMS relaxes (its `extraction_strategy` filter we do not have; `namespace` we keep). */
const SOFT = ['topics', 'entities', 'memory_type', 'event_date'] as const;

const values = (filter: TagFilter | undefined): string[] => [...(filter?.eq ?? []), ...(filter?.any ?? []), ...(filter?.all ?? [])];
const hint = (label: string, list: string[]) => (list.length > 0 ? `${label}: ${[...new Set(list)].sort().join(', ')}` : undefined);

/**
 * The relaxed query, or undefined when the fallback does not apply (not a
 * semantic search with text, recency ranked server-side, or no soft filter).
 *
 * @example
 * softenedQuery({ text: 'tea', filters: { topics: { eq: ['drinks'] } }, ... })?.text; // 'tea (topics: drinks)'
 */
export function softenedQuery(query: MemoryQuery): MemoryQuery | undefined {
  if ((query.mode ?? 'semantic') !== 'semantic' || query.text === '' || query.recency?.serverSide) return undefined;
  if (!SOFT.some((key) => query.filters[key] !== undefined)) return undefined;
  const filters: MemoryFilters = { ...query.filters };
  for (const key of SOFT) delete filters[key];
  const hints = [
    hint('topics', values(query.filters.topics)),
    hint('entities', values(query.filters.entities)),
    hint('type', values(query.filters.memory_type)),
  ].filter((h): h is string => h !== undefined);
  const text = hints.length > 0 ? `${query.text} (${hints.join('; ')})` : query.text;
  return { ...query, text: text.trim(), filters };
}
