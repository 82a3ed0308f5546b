import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * Wire shapes of system memory, as Redis's Agent Memory Server (AMS) has them
 * in its pydantic models (`MemoryMessage`, `MemoryRecord`, `WorkingMemory`):
 * snake_case fields, ISO 8601 datetimes. Inputs are lenient where AMS's are
 * (unknown fields are dropped, datetimes may be ISO strings or Unix seconds);
 * outputs always carry every field.
 */

/** `episodic`, `semantic` or `message`, as AMS's `MemoryTypeEnum`. */
export const MEMORY_TYPES = ['episodic', 'semantic', 'message'] as const;
export const MemoryTypeSchema = z.enum(MEMORY_TYPES, { error: 'must be "episodic", "semantic" or "message"' });
export type MemoryType = z.infer<typeof MemoryTypeSchema>;

/** Longest id, session id, namespace or user id accepted. */
export const MAX_ID_LENGTH = 256;

/** An id, session id, namespace or user id: 1 to 256 characters. */
export const IdentifierSchema = z.string().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

/** An optional scope (namespace, user id, session id): absent, null and "" all mean "none", as in AMS. */
export const ScopeSchema = z
  .union([IdentifierSchema, z.literal(''), z.null()])
  .optional()
  .transform((value) => (value === '' || value === null ? undefined : value));

const HAS_ZONE = /(Z|[+-]\d\d:?\d\d)$/i;

/**
 * A datetime as AMS accepts it (an ISO 8601 string, a naive one read as UTC,
 * or Unix seconds; milliseconds past 2e10 as pydantic reads them), always
 * given back as an ISO 8601 UTC string.
 */
export const DateTimeSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms =
    typeof value === 'number' ? (Math.abs(value) > 2e10 ? value : value * 1000) : Date.parse(HAS_ZONE.test(value.trim()) ? value.trim() : `${value.trim()}Z`);
  if (!Number.isFinite(ms) || Number.isNaN(new Date(ms).getTime())) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 datetime such as 2025-01-31T12:00:00Z' });
    return z.NEVER;
  }
  return new Date(ms).toISOString();
});

/** Tags (topics, entities, extracted_from): commas are refused, as AMS stores them comma-separated. */
const TagListSchema = z
  .array(
    z
      .string()
      .min(1, 'must not be empty')
      .refine((tag) => !tag.includes(','), 'must not contain a comma'),
  )
  .nullable()
  .optional()
  .transform((value) => value ?? null);

const StrategySchema = z.object({
  strategy: z.enum(['discrete', 'summary', 'preferences', 'custom']).default('discrete'),
  config: z.record(z.string(), z.json()).default({}),
});
export type MemoryStrategyConfig = z.infer<typeof StrategySchema>;
export const MemoryStrategyConfigSchema = StrategySchema.default({ strategy: 'discrete', config: {} });

const now = () => new Date().toISOString();

/** One message of a conversation (AMS `MemoryMessage`). */
export const MemoryMessageSchema = z.object({
  role: z.string().min(1, 'must not be empty'),
  content: z.string().refine((text) => text.trim() !== '', 'must not be empty'),
  id: IdentifierSchema.default(() => randomUUID()),
  created_at: DateTimeSchema.default(now),
  persisted_at: DateTimeSchema.nullable().default(null),
  discrete_memory_extracted: z.enum(['t', 'f']).default('f'),
});
export type MemoryMessage = z.output<typeof MemoryMessageSchema>;
export type MemoryMessageInput = z.input<typeof MemoryMessageSchema>;

/**
 * The fields of a memory record (AMS `MemoryRecord`), defaults of a record
 * kept in working memory (`memory_type` `message`, not yet extracted).
 */
const recordFields = {
  id: IdentifierSchema,
  text: z.string().refine((text) => text.trim() !== '', 'must not be empty'),
  session_id: ScopeSchema,
  user_id: ScopeSchema,
  namespace: ScopeSchema,
  last_accessed: DateTimeSchema.optional(),
  created_at: DateTimeSchema.optional(),
  updated_at: DateTimeSchema.optional(),
  pinned: z.boolean().default(false),
  access_count: z.number().int().min(0).default(0),
  topics: TagListSchema,
  entities: TagListSchema,
  memory_hash: z.string().nullable().optional(),
  discrete_memory_extracted: z.enum(['t', 'f']).default('f'),
  memory_type: MemoryTypeSchema.default('message'),
  persisted_at: DateTimeSchema.nullable().default(null),
  extracted_from: TagListSchema,
  event_date: DateTimeSchema.nullable().default(null),
  extraction_strategy: z.string().default('discrete'),
  extraction_strategy_config: z.record(z.string(), z.json()).default({}),
};

/** A record as a client sends it inside working memory (AMS `MemoryRecord`). */
export const MemoryRecordInputSchema = z.object(recordFields);

/**
 * A record as a client sends it to `POST /v1/long-term-memory/` (AMS
 * `ExtractedMemoryRecord`): `semantic` and already extracted by default.
 */
export const LongTermRecordInputSchema = z.object({
  ...recordFields,
  discrete_memory_extracted: z.enum(['t', 'f']).default('t'),
  memory_type: MemoryTypeSchema.default('semantic'),
});
export type LongTermRecordInput = z.input<typeof LongTermRecordInputSchema>;

/** A stored record, every field present: what the service answers and keeps in Redis. */
export const MemoryRecordSchema = z.object({
  id: z.string(),
  text: z.string(),
  session_id: z.string().nullable(),
  user_id: z.string().nullable(),
  namespace: z.string().nullable(),
  last_accessed: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  pinned: z.boolean(),
  access_count: z.number(),
  topics: z.array(z.string()).nullable(),
  entities: z.array(z.string()).nullable(),
  memory_hash: z.string().nullable(),
  discrete_memory_extracted: z.enum(['t', 'f']),
  memory_type: MemoryTypeSchema,
  persisted_at: z.string().nullable(),
  extracted_from: z.array(z.string()).nullable(),
  event_date: z.string().nullable(),
  extraction_strategy: z.string(),
  extraction_strategy_config: z.record(z.string(), z.json()),
});
export type MemoryRecord = z.infer<typeof MemoryRecordSchema>;

/**
 * Completes a parsed input record into a stored one: scopes become null,
 * missing timestamps become `at`.
 *
 * @example
 * const record = completeRecord({ record: LongTermRecordInputSchema.parse({ id: 'm1', text: 'Likes tea' }), at: new Date().toISOString() });
 */
export function completeRecord(options: { record: z.output<typeof MemoryRecordInputSchema>; at: string }): MemoryRecord {
  const { record, at } = options;
  return {
    ...record,
    session_id: record.session_id ?? null,
    user_id: record.user_id ?? null,
    namespace: record.namespace ?? null,
    last_accessed: record.last_accessed ?? at,
    created_at: record.created_at ?? at,
    updated_at: record.updated_at ?? at,
    memory_hash: record.memory_hash ?? null,
  };
}

/** A search hit (AMS `MemoryRecordResult`): `dist` is the cosine distance, 0 the best. */
export const MemoryRecordResultSchema = MemoryRecordSchema.extend({
  dist: z.number(),
  score: z.number().nullable(),
  score_type: z.enum(['semantic', 'keyword', 'hybrid']).nullable(),
});
export type MemoryRecordResult = z.infer<typeof MemoryRecordResultSchema>;

/** A page of search hits (AMS `MemoryRecordResults`). */
export const MemoryRecordResultsSchema = z.object({
  memories: z.array(MemoryRecordResultSchema),
  total: z.number().int(),
  next_offset: z.number().int().nullable(),
});
export type MemoryRecordResults = z.infer<typeof MemoryRecordResultsSchema>;
