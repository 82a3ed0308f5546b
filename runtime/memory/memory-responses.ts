import { z } from 'zod';
import { LongTermRecordInputSchema } from './memory-records.js';

/**
 * `GET /v1/health` (and `/health`): AMS's `{now}` (milliseconds since the
 * epoch) plus the key-value store's state; 503 with `status: 'degraded'`
 * while Redis cannot be reached.
 */
export const MemoryHealthSchema = z.object({
  now: z.number(),
  status: z.enum(['ok', 'degraded']),
  kv_store: z.enum(['up', 'down']),
  /** The store's address without credentials, only when it is down. */
  kv_url: z.string().optional(),
});
export type MemoryHealth = z.infer<typeof MemoryHealthSchema>;

/** AMS `AckResponse`. */
export const AckResponseSchema = z.object({ status: z.string() });
export type AckResponse = z.infer<typeof AckResponseSchema>;

/** The body of `POST /v1/long-term-memory/` (AMS `CreateMemoryRecordRequest`). */
export const CreateMemoriesRequestSchema = z.object({
  memories: z.array(LongTermRecordInputSchema),
  /** Keep one record per identical text within a namespace and user (default true). */
  deduplicate: z.boolean().default(true),
});
export type CreateMemoriesRequest = z.output<typeof CreateMemoriesRequestSchema>;

/**
 * The answer of `POST /v1/long-term-memory/`: AMS's `{status: "ok"}`, plus
 * (our addition, which AMS clients ignore) for each sent memory, in order,
 * the id it is stored under: its own, or the existing record's when it was a
 * duplicate.
 */
export const CreateMemoriesResponseSchema = AckResponseSchema.extend({
  ids: z.array(z.string()),
  deduplicated: z.array(z.boolean()),
});
export type CreateMemoriesResponse = z.infer<typeof CreateMemoriesResponseSchema>;

/** An error answer: our `{code, message}`, plus FastAPI's `detail` (the same message) that AMS clients read. */
export const MemoryErrorBodySchema = z.object({
  code: z.string().optional(),
  message: z.string().optional(),
  detail: z.unknown().optional(),
});
