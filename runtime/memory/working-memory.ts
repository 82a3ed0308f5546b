import { z } from 'zod';
import {
  completeRecord,
  DateTimeSchema,
  IdentifierSchema,
  MemoryMessageSchema,
  MemoryRecordInputSchema,
  MemoryRecordSchema,
  MemoryStrategyConfigSchema,
  ScopeSchema,
} from './memory-records.js';

/** Longest `ttl_seconds` accepted (Redis keeps expiries as signed 64-bit milliseconds; a year is plenty). */
export const MAX_TTL_SECONDS = 366 * 24 * 3600;

/**
 * Which working memory: one per (namespace, user id, session id), as AMS
 * keys it, and per owner in token mode: each token has its own sessions, so
 * another token's session of the same id is not found, never overwritten.
 */
export interface SessionRef {
  sessionId: string;
  namespace?: string | undefined;
  userId?: string | undefined;
  /** Fingerprint of the bearer token (token mode); undefined without tokens. */
  owner?: string | undefined;
}

/**
 * The body of `PUT /v1/working-memory/{session_id}` (AMS `UpdateWorkingMemory`;
 * the official client also sends `session_id`, which must then match the path).
 */
export const WorkingMemoryUpdateSchema = z.object({
  session_id: IdentifierSchema.optional(),
  messages: z.array(MemoryMessageSchema).default([]),
  memories: z.array(MemoryRecordInputSchema).default([]),
  data: z.record(z.string(), z.json()).nullable().default(null),
  context: z.string().nullable().default(null),
  user_id: ScopeSchema,
  namespace: ScopeSchema,
  tokens: z.number().int().min(0).default(0),
  long_term_memory_strategy: MemoryStrategyConfigSchema,
  ttl_seconds: z.number().int().positive('must be a positive whole number of seconds').max(MAX_TTL_SECONDS).nullable().default(null),
  last_accessed: DateTimeSchema.optional(),
  created_at: DateTimeSchema.optional(),
  updated_at: DateTimeSchema.optional(),
});
export type WorkingMemoryUpdate = z.output<typeof WorkingMemoryUpdateSchema>;

/** Working memory as stored in Redis, every field present (AMS `WorkingMemory`). */
export const WorkingMemorySchema = z.object({
  messages: z.array(MemoryMessageSchema),
  memories: z.array(MemoryRecordSchema),
  data: z.record(z.string(), z.json()),
  context: z.string().nullable(),
  user_id: z.string().nullable(),
  tokens: z.number(),
  session_id: z.string(),
  namespace: z.string().nullable(),
  long_term_memory_strategy: MemoryStrategyConfigSchema,
  ttl_seconds: z.number().nullable(),
  last_accessed: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WorkingMemory = z.infer<typeof WorkingMemorySchema>;

/** What the working-memory routes answer (AMS `WorkingMemoryResponse`); the context percentages are null unless `model_name` or `context_window_max` is given. */
export const WorkingMemoryResponseSchema = WorkingMemorySchema.extend({
  context_percentage_total_used: z.number().nullable(),
  context_percentage_until_summarization: z.number().nullable(),
});
export type WorkingMemoryResponse = z.infer<typeof WorkingMemoryResponseSchema>;

/**
 * The working memory a PUT stores: the body with the session from the path,
 * `updated_at` set to `at`, and the session's scope given to each structured
 * memory that has none (so promoting it keeps it inside the namespace).
 *
 * @example
 * const memory = workingMemoryFromUpdate({ sessionId: 's1', update: WorkingMemoryUpdateSchema.parse({ messages: [] }), at: new Date().toISOString() });
 */
export function workingMemoryFromUpdate(options: { sessionId: string; update: WorkingMemoryUpdate; at: string }): WorkingMemory {
  const { sessionId, update, at } = options;
  const namespace = update.namespace ?? null;
  const userId = update.user_id ?? null;
  return {
    messages: update.messages,
    memories: update.memories.map((record) =>
      completeRecord({
        record: {
          ...record,
          session_id: record.session_id ?? sessionId,
          namespace: record.namespace ?? update.namespace,
          user_id: record.user_id ?? update.user_id,
        },
        at,
      }),
    ),
    data: update.data ?? {},
    context: update.context,
    user_id: userId,
    tokens: update.tokens,
    session_id: sessionId,
    namespace,
    long_term_memory_strategy: update.long_term_memory_strategy,
    ttl_seconds: update.ttl_seconds,
    last_accessed: update.last_accessed ?? at,
    created_at: update.created_at ?? at,
    updated_at: at,
  };
}

/**
 * The answer of a working-memory route: the most recent `recentMessagesLimit`
 * messages by `created_at` when a limit is given (as AMS's
 * `recent_messages_limit`), and the context percentages null (SystemMemory
 * fills them when a context window is given).
 *
 * @example
 * workingMemoryResponse({ memory, recentMessagesLimit: 10 }).messages.length; // at most 10
 */
export function workingMemoryResponse(options: { memory: WorkingMemory; recentMessagesLimit?: number | undefined }): WorkingMemoryResponse {
  const { memory, recentMessagesLimit } = options;
  const messages =
    recentMessagesLimit === undefined
      ? memory.messages
      : [...memory.messages].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at)).slice(-recentMessagesLimit);
  return { ...memory, messages, context_percentage_total_used: null, context_percentage_until_summarization: null };
}
