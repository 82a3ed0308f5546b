import { z } from 'zod';
import { DateTimeSchema, IdentifierSchema, MemoryTypeSchema, ScopeSchema, type MemoryRecord } from './memory-records.js';

/**
 * Shapes of the by-id and listing routes AMS has beside search:
 * `GET|PATCH /v1/long-term-memory/{id}` and `GET /v1/working-memory/`.
 */

const TagsSchema = z.array(
  z
    .string()
    .min(1, 'must not be empty')
    .refine((tag) => !tag.includes(','), 'must not contain a comma'),
);

/**
 * The body of `PATCH /v1/long-term-memory/{id}` (AMS `EditMemoryRecordRequest`):
 * the fields to change; null or absent leaves a field as it is (as AMS drops
 * None values). Unknown fields are refused; a body changing nothing is a 400.
 */
export const EditMemoryRequestSchema = z
  .strictObject({
    text: z
      .string()
      .refine((text) => text.trim() !== '', 'must not be empty')
      .nullable()
      .optional(),
    topics: TagsSchema.nullable().optional(),
    entities: TagsSchema.nullable().optional(),
    memory_type: MemoryTypeSchema.nullable().optional(),
    namespace: IdentifierSchema.nullable().optional(),
    user_id: IdentifierSchema.nullable().optional(),
    session_id: IdentifierSchema.nullable().optional(),
    event_date: DateTimeSchema.nullable().optional(),
    pinned: z.boolean().nullable().optional(),
  })
  .refine((edit) => Object.values(edit).some((value) => value !== undefined && value !== null), 'No fields provided for update');
export type EditMemoryRequest = z.output<typeof EditMemoryRequestSchema>;

/** The query of `GET /v1/working-memory/` (AMS `GetSessionsQuery`: limit 1–100, default 20). */
export const ListSessionsQuerySchema = z.strictObject({
  limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1).max(100).default(20),
  offset: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0).default(0),
  namespace: ScopeSchema,
  user_id: ScopeSchema,
});

/** AMS `SessionListResponse`. */
export const SessionListResponseSchema = z.object({ sessions: z.array(z.string()), total: z.number().int() });
export type SessionListResponse = z.infer<typeof SessionListResponseSchema>;

/** Who asks, for the by-id routes: the caller's token fingerprint (token mode) and an explicit namespace / user. */
export interface MemoryAccess {
  /** Fingerprint of the bearer token of the request (token mode); a record owned by another token is not the caller's. */
  owner?: string | undefined;
  namespace?: string | undefined;
  userId?: string | undefined;
}

/** The scope query of the by-id routes (`?namespace=&user_id=`), our addition; AMS clients send none. */
export const RecordScopeQuerySchema = z.strictObject({ namespace: ScopeSchema, user_id: ScopeSchema });

/**
 * Whether `record` (owned by `owner`) is within `access`: same owner when
 * the caller has a token, and the namespace / user when given. A record of
 * no owner (written without tokens) is no token's: failing closed, no token
 * reaches it (it stays stored, served again without tokens).
 */
export function withinAccess(record: MemoryRecord, owner: string | undefined, access: MemoryAccess): boolean {
  if (access.owner !== undefined && owner !== access.owner) return false;
  if (access.namespace !== undefined && record.namespace !== access.namespace) return false;
  if (access.userId !== undefined && record.user_id !== access.userId) return false;
  return true;
}

/** A long-term record as AMS answers it: its tag lists `[]` when empty (AMS decodes stored tags to lists), never null. */
export function withListsAsEmpty<R extends MemoryRecord>(record: R): R {
  return { ...record, topics: record.topics ?? [], entities: record.entities ?? [], extracted_from: record.extracted_from ?? [] };
}
