import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, type Logger } from '../core/logger.js';
import { toPublicError } from '../core/public-error.js';
import { parseRequest } from '../core/server/parse-request.js';
import { EditMemoryRequestSchema, type MemoryAccess } from './memory-edits.js';
import { MemoryPromptRequestSchema } from './memory-prompt.js';
import { CreateMemoriesRequestSchema } from './memory-responses.js';
import { SearchRequestSchema } from './memory-search.js';
import type { SystemMemory } from './system-memory.js';
import { WorkingMemoryUpdateSchema } from './working-memory.js';

/** The AMS MCP tools served (AMS 0.15.2 `mcp.py`), by name. */
export const MEMORY_MCP_TOOLS = [
  'get_current_datetime',
  'create_long_term_memories',
  'search_long_term_memory',
  'memory_prompt',
  'set_working_memory',
  'get_working_memory',
  'get_long_term_memory',
  'edit_long_term_memory',
  'delete_long_term_memories',
  'compact_long_term_memories',
] as const;

// Tool inputs are plain JSON shapes (what the model sees); each is then checked by the REST schema of the same operation.
const filter = z.record(z.string(), z.unknown()).optional().describe('A tag filter such as {"eq": "value"} or {"any": ["a", "b"]}');
const dateFilter = z.record(z.string(), z.unknown()).optional().describe('A datetime filter such as {"gte": "2025-01-01T00:00:00Z"}');
const searchShape = {
  search_mode: z.enum(['semantic', 'keyword', 'hybrid']).optional(),
  session_id: filter,
  namespace: filter,
  topics: filter,
  entities: filter,
  user_id: filter,
  memory_type: filter,
  created_at: dateFilter,
  last_accessed: dateFilter,
  event_date: dateFilter,
  distance_threshold: z.number().optional(),
  hybrid_alpha: z.number().optional(),
  limit: z.number().int().optional(),
  offset: z.number().int().optional(),
  optimize_query: z.boolean().optional(),
  recency_boost: z.boolean().optional(),
  recency_semantic_weight: z.number().optional(),
  recency_recency_weight: z.number().optional(),
  recency_freshness_weight: z.number().optional(),
  recency_novelty_weight: z.number().optional(),
  recency_half_life_last_access_days: z.number().optional(),
  recency_half_life_created_days: z.number().optional(),
  server_side_recency: z.boolean().optional(),
};
const record = z.record(z.string(), z.unknown());

const defined = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));

/**
 * One MCP server (official SDK) with the Agent Memory Server's tools, each
 * running the same code as its REST route, acting with `access`. A failure
 * is a tool result with `isError` and the message, never a transport error.
 * Imported when the first session opens (see memory-mcp-route.ts).
 */
export function buildMemoryMcpServer(memory: SystemMemory, logger: Logger, access: MemoryAccess): McpServer {
  const server = new McpServer({ name: 'agent-memory', version: '0.15.2' });
  const run = async (tool: string, work: () => Promise<unknown>): Promise<CallToolResult> => {
    try {
      const result = (await work()) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      if (!FrameworkError.isInstance(error)) logger.error('memory tool failed', { tool, ...errorFields(error) });
      const { message } = toPublicError(error);
      return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error: message } };
    }
  };

  server.registerTool(
    'get_current_datetime',
    { description: 'The current date and time in UTC (to ground relative dates such as "yesterday" before storing memories).' },
    () =>
      run('get_current_datetime', async () => {
        const now = new Date();
        return { iso_utc: now.toISOString(), unix_ts: Math.floor(now.getTime() / 1000) };
      }),
  );

  server.registerTool(
    'create_long_term_memories',
    {
      description:
        'Stores long-term memories (each {id?, text, memory_type?, topics?, entities?, namespace?, user_id?, session_id?, event_date?}); an id is made when missing.',
      inputSchema: { memories: z.array(record), deduplicate: z.boolean().optional() },
    },
    ({ memories, deduplicate }) =>
      run('create_long_term_memories', () => {
        const request = parseRequest({
          schema: CreateMemoriesRequestSchema,
          raw: defined({ memories: memories.map((m) => ({ id: randomUUID(), ...m })), deduplicate }),
          what: 'memories',
        });
        return memory.createMemories(request, access);
      }),
  );

  server.registerTool(
    'search_long_term_memory',
    {
      description:
        'Searches long-term memory by meaning (semantic), words (keyword) or both (hybrid), with filters and recency re-ranking, as the Agent Memory Server.',
      inputSchema: { text: z.string().optional(), ...searchShape },
    },
    ({ optimize_query, ...args }) =>
      run('search_long_term_memory', async () => {
        const { query_optimized: _optimized, ...results } = await memory.search(
          parseRequest({ schema: SearchRequestSchema, raw: defined(args), what: 'search' }),
          {
            optimizeQuery: optimize_query === true,
            access,
          },
        );
        return results;
      }),
  );

  server.registerTool(
    'memory_prompt',
    {
      description: "The messages to send to a model for a query: the session's working memory and the related long-term memories.",
      inputSchema: {
        ...searchShape,
        query: z.string(),
        model_name: z.string().optional(),
        context_window_max: z.number().int().optional(),
        include_long_term_search: z.boolean().optional(),
      },
    },
    ({ query, session_id, model_name, context_window_max, include_long_term_search, optimize_query, namespace, user_id, ...search }) =>
      run('memory_prompt', () => {
        // As AMS's tool: session_id / namespace / user_id are filters; their `eq` values name the session.
        const eq = (f: Record<string, unknown> | undefined) => (typeof f?.eq === 'string' ? f.eq : undefined);
        const sessionId = eq(session_id);
        const request = parseRequest({
          schema: MemoryPromptRequestSchema,
          raw: defined({
            query,
            session: sessionId ? defined({ session_id: sessionId, namespace: eq(namespace), user_id: eq(user_id), model_name, context_window_max }) : undefined,
            long_term_search: include_long_term_search === false ? undefined : defined({ ...search, namespace, user_id }),
          }),
          what: 'memory prompt request',
        });
        return memory.prompt(request, { optimizeQuery: optimize_query === true, access });
      }),
  );

  server.registerTool(
    'set_working_memory',
    {
      description: "Replaces a session's working memory: messages, structured memories (promoted to long-term memory), context and data.",
      inputSchema: {
        session_id: z.string(),
        messages: z.array(record).optional(),
        memories: z.array(record).optional(),
        context: z.string().optional(),
        data: record.optional(),
        namespace: z.string().optional(),
        user_id: z.string().optional(),
        ttl_seconds: z.number().int().optional(),
      },
    },
    ({ session_id, namespace, user_id, ...update }) =>
      run('set_working_memory', () =>
        memory.putWorkingMemory({
          sessionId: session_id,
          namespace,
          userId: user_id,
          owner: access.owner,
          update: parseRequest({
            schema: WorkingMemoryUpdateSchema,
            raw: defined({ ...update, memories: update.memories?.map((m) => ({ id: randomUUID(), ...m })) }),
            what: 'working memory',
          }),
        }),
      ),
  );

  server.registerTool(
    'get_working_memory',
    {
      description: "A session's working memory (an empty one when the session does not exist, as AMS's tool).",
      inputSchema: {
        session_id: z.string(),
        namespace: z.string().optional(),
        user_id: z.string().optional(),
        recent_messages_limit: z.number().int().min(1).optional(),
      },
    },
    ({ session_id, namespace, user_id, recent_messages_limit }) =>
      run('get_working_memory', async () => {
        try {
          return await memory.getWorkingMemory({
            sessionId: session_id,
            namespace,
            userId: user_id,
            owner: access.owner,
            recentMessagesLimit: recent_messages_limit,
          });
        } catch (error) {
          if (FrameworkError.isInstance(error) && error.code === 'not_found') return { session_id, messages: [], memories: [] };
          throw error;
        }
      }),
  );

  server.registerTool('get_long_term_memory', { description: 'One long-term memory by id.', inputSchema: { memory_id: z.string() } }, ({ memory_id }) =>
    run('get_long_term_memory', () => memory.getMemory(memory_id, access)),
  );

  server.registerTool(
    'edit_long_term_memory',
    {
      description: 'Changes fields of a long-term memory (text, topics, entities, memory_type, namespace, user_id, session_id, event_date, pinned).',
      inputSchema: {
        memory_id: z.string(),
        text: z.string().optional(),
        topics: z.array(z.string()).optional(),
        entities: z.array(z.string()).optional(),
        memory_type: z.enum(['episodic', 'semantic', 'message']).optional(),
        namespace: z.string().optional(),
        user_id: z.string().optional(),
        session_id: z.string().optional(),
        event_date: z.string().optional(),
        pinned: z.boolean().optional(),
      },
    },
    ({ memory_id, ...edit }) =>
      run('edit_long_term_memory', () =>
        memory.updateMemory(memory_id, parseRequest({ schema: EditMemoryRequestSchema, raw: defined(edit), what: 'memory edit' }), access),
      ),
  );

  server.registerTool(
    'delete_long_term_memories',
    { description: 'Deletes long-term memories by id.', inputSchema: { memory_ids: z.array(z.string()).min(1) } },
    ({ memory_ids }) => run('delete_long_term_memories', () => memory.deleteMemories(memory_ids, access)),
  );

  server.registerTool(
    'compact_long_term_memories',
    {
      description:
        'Compacts long-term memories: exact duplicates kept once, near-duplicates merged by the generation model (when the server has one). Answers how many memories remain.',
      inputSchema: { namespace: z.string().optional(), user_id: z.string().optional(), session_id: z.string().optional() },
    },
    ({ namespace, user_id, session_id }) =>
      run('compact_long_term_memories', () =>
        memory.compact({ scope: { namespace: namespace || undefined, userId: user_id || undefined, sessionId: session_id || undefined }, access }),
      ),
  );
  return server;
}
