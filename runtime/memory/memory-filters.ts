import { z } from 'zod';
import { DateTimeSchema, MemoryTypeSchema, type MemoryRecord } from './memory-records.js';

/**
 * Search filters in the shapes of AMS: the server's `TagFilter`
 * (`eq`, `ne`, `any`, `all`, `startswith`) and the official client's
 * spellings (`in_`, `not_eq`, `not_in`, `none`) are both understood. Several
 * conditions in one filter must all hold. An unknown key is refused, never
 * ignored: a dropped namespace filter would leak other namespaces' memories.
 */

const nonEmptyList = <T extends z.ZodType>(item: T) => z.array(item).min(1, 'must list at least one value');

const hasCondition = (f: Record<string, unknown>) => Object.values(f).some((v) => v !== undefined);

const TagConditionsSchema = z
  .strictObject({
    eq: z.string().optional(),
    ne: z.string().optional(),
    not_eq: z.string().optional(),
    any: nonEmptyList(z.string()).optional(),
    in_: nonEmptyList(z.string()).optional(),
    all: nonEmptyList(z.string()).optional(),
    none: nonEmptyList(z.string()).optional(),
    not_in: nonEmptyList(z.string()).optional(),
    startswith: z.string().min(1, 'must not be empty').optional(),
  })
  .refine(hasCondition, 'needs a condition such as {"eq": "value"}');
type TagConditions = z.output<typeof TagConditionsSchema>;

/** A filter on a tag field (session_id, namespace, user_id, topics, entities), in canonical form. */
export interface TagFilter {
  eq?: string[];
  ne?: string[];
  any?: string[];
  all?: string[];
  none?: string[];
  startswith?: string;
}

/** Both spellings of a condition, merged: `in_` into `any`, `not_eq` into `ne`, `not_in` into `none`. */
function toTagFilter(f: TagConditions): TagFilter {
  const join = (...lists: Array<string[] | undefined>) => {
    const joined = lists.flatMap((list) => list ?? []);
    return joined.length > 0 ? joined : undefined;
  };
  const result: TagFilter = {};
  const eq = f.eq === undefined ? undefined : [f.eq];
  const ne = join(f.ne === undefined ? undefined : [f.ne], f.not_eq === undefined ? undefined : [f.not_eq]);
  const any = join(f.any, f.in_);
  const none = join(f.none, f.not_in);
  if (eq) result.eq = eq;
  if (ne) result.ne = ne;
  if (any) result.any = any;
  if (f.all) result.all = f.all;
  if (none) result.none = none;
  if (f.startswith !== undefined) result.startswith = f.startswith;
  return result;
}

export const TagFilterSchema = TagConditionsSchema.transform(toTagFilter);

/** A filter on `memory_type`: tag conditions whose values must be memory types. */
export const MemoryTypeFilterSchema = z
  .strictObject({
    eq: MemoryTypeSchema.optional(),
    ne: MemoryTypeSchema.optional(),
    not_eq: MemoryTypeSchema.optional(),
    any: nonEmptyList(MemoryTypeSchema).optional(),
    in_: nonEmptyList(MemoryTypeSchema).optional(),
    all: nonEmptyList(MemoryTypeSchema).optional(),
    none: nonEmptyList(MemoryTypeSchema).optional(),
    not_in: nonEmptyList(MemoryTypeSchema).optional(),
  })
  .refine(hasCondition, 'needs a condition such as {"eq": "semantic"}')
  .transform(toTagFilter);

const INCLUSIVE = ['both', 'neither', 'left', 'right'] as const;

/** A filter on a datetime field (created_at, last_accessed, event_date), compared in whole seconds as AMS does. */
export const DateTimeFilterSchema = z
  .strictObject({
    gt: DateTimeSchema.optional(),
    gte: DateTimeSchema.optional(),
    lt: DateTimeSchema.optional(),
    lte: DateTimeSchema.optional(),
    eq: DateTimeSchema.optional(),
    ne: DateTimeSchema.optional(),
    between: z.tuple([DateTimeSchema, DateTimeSchema]).optional(),
    inclusive: z.enum(INCLUSIVE).default('both'),
  })
  .refine((f) => [f.gt, f.gte, f.lt, f.lte, f.eq, f.ne, f.between].some((v) => v !== undefined), 'needs a condition such as {"gte": "2025-01-01T00:00:00Z"}');
export type DateTimeFilter = z.output<typeof DateTimeFilterSchema>;

/** Every filter a search takes, by the record field it looks at. */
export const MemoryFiltersShape = {
  session_id: TagFilterSchema.optional(),
  namespace: TagFilterSchema.optional(),
  user_id: TagFilterSchema.optional(),
  topics: TagFilterSchema.optional(),
  entities: TagFilterSchema.optional(),
  memory_type: MemoryTypeFilterSchema.optional(),
  created_at: DateTimeFilterSchema.optional(),
  last_accessed: DateTimeFilterSchema.optional(),
  event_date: DateTimeFilterSchema.optional(),
};
export const MemoryFiltersSchema = z.strictObject(MemoryFiltersShape);
export type MemoryFilters = z.output<typeof MemoryFiltersSchema>;

const TAG_FIELDS = ['session_id', 'namespace', 'user_id', 'topics', 'entities', 'memory_type'] as const;
const DATE_FIELDS = ['created_at', 'last_accessed', 'event_date'] as const;

/** Whether a tag field (one value, a list, or none) holds `tag`; no allocation, as it runs once per record per search. */
function has(value: string | readonly string[] | null, tag: string): boolean {
  if (value === null) return false;
  return typeof value === 'string' ? value === tag : value.includes(tag);
}

function startsWith(value: string | readonly string[] | null, prefix: string): boolean {
  if (value === null) return false;
  return typeof value === 'string' ? value.startsWith(prefix) : value.some((tag) => tag.startsWith(prefix));
}

function matchesTags(value: string | readonly string[] | null, f: TagFilter): boolean {
  if (f.eq && !f.eq.every((v) => has(value, v))) return false;
  if (f.ne?.some((v) => has(value, v))) return false;
  if (f.any && !f.any.some((v) => has(value, v))) return false;
  if (f.all && !f.all.every((v) => has(value, v))) return false;
  if (f.none?.some((v) => has(value, v))) return false;
  if (f.startswith !== undefined && !startsWith(value, f.startswith)) return false;
  return true;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function matchesDate(value: string | null, f: DateTimeFilter): boolean {
  if (value === null) return f.ne !== undefined && [f.gt, f.gte, f.lt, f.lte, f.eq, f.between].every((v) => v === undefined);
  const s = seconds(value);
  if (f.gt !== undefined && !(s > seconds(f.gt))) return false;
  if (f.gte !== undefined && !(s >= seconds(f.gte))) return false;
  if (f.lt !== undefined && !(s < seconds(f.lt))) return false;
  if (f.lte !== undefined && !(s <= seconds(f.lte))) return false;
  if (f.eq !== undefined && s !== seconds(f.eq)) return false;
  if (f.ne !== undefined && s === seconds(f.ne)) return false;
  if (f.between) {
    const [from, to] = [seconds(f.between[0]), seconds(f.between[1])];
    const left = f.inclusive === 'both' || f.inclusive === 'left' ? s >= from : s > from;
    const right = f.inclusive === 'both' || f.inclusive === 'right' ? s <= to : s < to;
    if (!left || !right) return false;
  }
  return true;
}

/**
 * A predicate that tells whether a record passes every filter; no filters
 * pass everything.
 *
 * @example
 * const keep = recordFilter(MemoryFiltersSchema.parse({ namespace: { eq: 'crm' }, topics: { any: ['billing'] } }));
 * records.filter(keep);
 */
export function recordFilter(filters: MemoryFilters): (record: MemoryRecord) => boolean {
  // The usual search names no filter: nothing to build (each search made nine arrays to find that out).
  if (!hasFilter(filters)) return passesAll;
  const tagChecks = TAG_FIELDS.flatMap((field) => {
    const f = filters[field];
    return f ? [(record: MemoryRecord) => matchesTags(record[field], f)] : [];
  });
  const dateChecks = DATE_FIELDS.flatMap((field) => {
    const f = filters[field];
    return f ? [(record: MemoryRecord) => matchesDate(record[field], f)] : [];
  });
  const checks = [...tagChecks, ...dateChecks];
  if (checks.length === 0) return passesAll;
  if (checks.length === 1) return checks[0]!;
  return (record) => checks.every((check) => check(record));
}

const passesAll = (_record: MemoryRecord): boolean => true;

/** Whether `filters` sets any field `recordFilter` checks. */
function hasFilter(filters: MemoryFilters): boolean {
  for (const field of TAG_FIELDS) if (filters[field]) return true;
  for (const field of DATE_FIELDS) if (filters[field]) return true;
  return false;
}
