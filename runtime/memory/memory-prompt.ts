import { z } from 'zod';
import { IdentifierSchema, MemoryRecordResultSchema, ScopeSchema, type MemoryRecordResults } from './memory-records.js';
import { SearchRequestSchema } from './memory-search.js';
import type { WorkingMemory } from './working-memory.js';

/** The session part of a prompt request (AMS `WorkingMemoryRequest`). */
export const PromptSessionSchema = z.strictObject({
  session_id: IdentifierSchema,
  namespace: ScopeSchema,
  user_id: ScopeSchema,
  /** As AMS: the session's messages are truncated to this model's context window (see memory-model.ts). */
  model_name: z
    .string()
    .min(1)
    .nullable()
    .optional()
    .transform((v) => v ?? undefined),
  context_window_max: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .transform((v) => v ?? undefined),
  long_term_memory_strategy: z.unknown().optional(),
});

/**
 * The body of `POST /v1/memory/prompt` (AMS `MemoryPromptRequest`): the
 * query, and the session whose working memory to include and/or a long-term
 * search (`true` for the defaults, or a search request whose `text` is
 * replaced by the query). At least one of the two.
 */
export const MemoryPromptRequestSchema = z
  .strictObject({
    query: z.string().refine((query) => query.trim() !== '', 'must not be empty'),
    session: PromptSessionSchema.nullable().optional(),
    long_term_search: z.union([z.boolean(), SearchRequestSchema]).nullable().optional(),
  })
  .refine((request) => Boolean(request.session) || Boolean(request.long_term_search), {
    message: 'send a session, a long_term_search, or both',
  });
export type MemoryPromptRequest = z.output<typeof MemoryPromptRequestSchema>;

/** A message to send to a model, in the MCP shape AMS answers with. */
export const PromptMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.object({ type: z.literal('text'), text: z.string() }),
});
export type PromptMessage = z.infer<typeof PromptMessageSchema>;

/** The answer of `POST /v1/memory/prompt` (AMS `MemoryPromptResponse`). */
export const MemoryPromptResponseSchema = z.object({
  messages: z.array(PromptMessageSchema),
  long_term_memories: z.array(MemoryRecordResultSchema).nullable(),
});
export type MemoryPromptResponse = z.infer<typeof MemoryPromptResponseSchema>;

const text = (role: PromptMessage['role'], body: string): PromptMessage => ({ role, content: { type: 'text', text: body } });

/**
 * The messages of a memory prompt, in AMS's order and wording: the session's
 * summary (`context`) as a system message, its messages (roles other than
 * user become assistant), the related long-term memories as a system message
 * (or a line saying none were found), then the query as the user's message.
 *
 * @example
 * promptMessages({ query: 'What do I drink?', longTerm: { memories: [], total: 0, next_offset: null } }).at(-1);
 * // { role: 'user', content: { type: 'text', text: 'What do I drink?' } }
 */
export function promptMessages(options: {
  query: string;
  workingMemory?: WorkingMemory | undefined;
  longTerm?: MemoryRecordResults | undefined;
}): PromptMessage[] {
  const messages: PromptMessage[] = [];
  const memory = options.workingMemory;
  if (memory?.context) messages.push(text('system', `## A summary of the conversation so far:\n${memory.context}`));
  for (const message of memory?.messages ?? []) messages.push(text(message.role === 'user' ? 'user' : 'assistant', message.content));
  if (options.longTerm) {
    const found = options.longTerm.memories.map((m) => `- ${m.text} (ID: ${m.id})`).join('\n');
    messages.push(text('system', `## Long term memories related to the user's query\n ${found === '' ? 'No relevant long-term memories found.' : found}`));
  }
  messages.push(text('user', options.query));
  return messages;
}
