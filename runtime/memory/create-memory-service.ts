import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { parseRequest } from '../core/server/parse-request.js';
import { createBaseApp } from '../core/server/base-app.js';
import { errorResponse } from '../core/server/http-error.js';
import { readJsonBody } from '../core/server/read-json-body.js';
import { amsErrorDetail } from './ams-error-detail.js';
import { EditMemoryRequestSchema, ListSessionsQuerySchema, RecordScopeQuerySchema, type MemoryAccess } from './memory-edits.js';
import { MEMORY_AUTH_CHALLENGE, memoryTokenCheck, memoryUnauthorized } from './memory-auth.js';
import { mountMemoryMcp } from './memory-mcp-route.js';
import { mountUpkeepRoutes } from './memory-upkeep-routes.js';
import { MemoryPromptRequestSchema } from './memory-prompt.js';
import { IdentifierSchema, ScopeSchema } from './memory-records.js';
import { CreateMemoriesRequestSchema } from './memory-responses.js';
import { plainSearchRequest, SearchRequestSchema } from './memory-search.js';
import type { SystemMemory } from './system-memory.js';
import { WorkingMemoryUpdateSchema } from './working-memory.js';

export interface MemoryServiceOptions {
  memory: SystemMemory;
  logger?: Logger;
  /** Largest accepted request body; default 1 MiB (larger: 413). */
  maxBodyBytes?: number;
  /** Bearer tokens of the token mode (as the Agent Memory Server's); empty or absent: no authentication. Health stays open. */
  authTokens?: readonly string[];
}

export const DEFAULT_MEMORY_MAX_BODY_BYTES = 1024 * 1024;

const WORKING = '/v1/working-memory/:session_id';
const MEMORY_BY_ID = '/v1/long-term-memory/:memory_id';

// Query strings and the prompt's session are strict: a misspelt scope
// (`userid=`) must be refused, not dropped, or the request reads more than it asked for.
const SessionQuerySchema = z.strictObject({
  namespace: ScopeSchema,
  user_id: ScopeSchema,
  recent_messages_limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1).optional(),
  model_name: z.string().min(1).optional(),
  context_window_max: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').positive().optional(),
});

const OptimizeQuerySchema = z.strictObject({
  optimize_query: z
    .enum(['true', 'false', 'True', 'False', '1', '0'], { error: 'must be true or false' })
    .optional()
    .transform((value) => value === 'true' || value === 'True' || value === '1'),
});

const DeleteQuerySchema = z.strictObject({
  memory_ids: z.array(IdentifierSchema, { error: 'is required: the ids of the memories to delete' }).min(1, 'name at least one memory id'),
  // Our addition: delete only within this namespace / user.
  namespace: z.array(IdentifierSchema).max(1, 'give it once').optional(),
  user_id: z.array(IdentifierSchema).max(1, 'give it once').optional(),
});

/** A query string as one value per key; a key given twice is refused (which one would win is a guess). */
function singleValued(queries: Record<string, string[]>): Record<string, string> {
  const single: Record<string, string> = {};
  for (const [key, values] of Object.entries(queries)) {
    if (values.length > 1)
      throw new BadRequestError({ code: 'invalid_request', message: `Invalid query string: ${key} is given ${values.length} times; give it once.` });
    single[key] = values[0]!;
  }
  return single;
}

/**
 * The memory service: the part of the REST API of Redis's Agent Memory
 * Server that system memory needs, so AMS clients work against it.
 *
 * - `GET /v1/health` (also `/health`) → `{now, status, kv_store}`; 503 while Redis is down
 * - `GET|PUT|DELETE /v1/working-memory/{session_id}?namespace=&user_id=` (GET: 404 for a session never written;
 *   in token mode each token has its own sessions: another token's is not found)
 * - `POST /v1/long-term-memory/` `{memories, deduplicate}` → `{status, ids, deduplicated}`
 * - `POST /v1/long-term-memory/search[?optimize_query=true]` → `{memories, total, next_offset}` (semantic, keyword or hybrid; recency re-ranking)
 * - `DELETE /v1/long-term-memory?memory_ids=a&memory_ids=b[&namespace=&user_id=]` → `{status}`; only the
 *   caller's token's records in token mode, only that namespace / user when given
 * - `GET|PATCH /v1/long-term-memory/{id}` → the record (404 outside the caller's access)
 * - `GET /v1/working-memory/?limit=&offset=&namespace=&user_id=` → `{sessions, total}` (the caller's token's own in token mode)
 * - forget, compact, summary views and tasks: see memory-upkeep-routes.ts
 * - `/mcp`: AMS's MCP tools over Streamable HTTP (see memory-mcp.ts)
 * - `POST /v1/memory/prompt` `{query, session?, long_term_search?}` → `{messages, long_term_memories}`
 *
 * Errors are `{code, message, detail}` with the status of the error table
 * (400 bad input, 404, 413, 415, 503 `store_unavailable` or
 * `model_runtime_unavailable`).
 *
 * @example
 * const app = createMemoryService({ memory: new SystemMemory({ store, embedder }) });
 * const res = await app.request('/v1/health');
 */
export function createMemoryService(options: MemoryServiceOptions): Hono {
  const { memory } = options;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MEMORY_MAX_BODY_BYTES;
  const app = createBaseApp({
    logger: options.logger ?? silentLogger,
    notFoundHint:
      '; the memory service serves /v1/health, /v1/working-memory/{session_id}, /v1/long-term-memory/, /v1/long-term-memory/search, /v1/long-term-memory/{id}, /v1/long-term-memory/forget, /v1/long-term-memory/compact, /v1/memory/prompt, /v1/summary-views, /v1/tasks/{id} and MCP at /mcp',
  });
  app.use(amsErrorDetail());
  const tokens = memoryTokenCheck(options.authTokens ?? []);
  /** The owner fingerprint of each authenticated request (token mode). */
  const owners = new WeakMap<Request, string>();
  if (tokens.required) {
    app.use(async (c, next) => {
      if (c.req.method === 'GET' && (c.req.path === '/v1/health' || c.req.path === '/health')) return next();
      const owner = tokens.ownerOf(c.req.header('authorization'));
      if (owner !== undefined) {
        owners.set(c.req.raw, owner);
        return next();
      }
      return errorResponse(memoryUnauthorized(), MEMORY_AUTH_CHALLENGE);
    });
  }
  const body = async <S extends z.ZodType>(c: Context, schema: S, what: string) =>
    parseRequest({ schema, raw: await readJsonBody(c, { maxBytes, wellFormedText: true }), what });
  const query = <S extends z.ZodType>(c: Context, schema: S) => parseRequest({ schema, raw: singleValued(c.req.queries()), what: 'query string' });
  const session = (c: Context) => {
    const q = query(c, SessionQuerySchema);
    const sessionId = parseRequest({ schema: IdentifierSchema, raw: c.req.param('session_id'), what: 'session id' });
    return {
      sessionId,
      namespace: q.namespace,
      userId: q.user_id,
      // Token mode: the caller's own sessions only (another token's session of the same id is not found).
      owner: owners.get(c.req.raw),
      recentMessagesLimit: q.recent_messages_limit,
      modelName: q.model_name,
      contextWindowMax: q.context_window_max,
    };
  };

  const access = (c: Context, scope: { namespace?: string | undefined; user_id?: string | undefined } = {}): MemoryAccess => ({
    owner: owners.get(c.req.raw),
    namespace: scope.namespace,
    userId: scope.user_id,
  });
  const memoryId = (c: Context) => parseRequest({ schema: IdentifierSchema, raw: c.req.param('memory_id'), what: 'memory id' });

  for (const path of ['/v1/health', '/health']) {
    app.get(path, async (c) => {
      const { healthy, body: health } = await memory.health();
      return c.json(health, healthy ? 200 : 503);
    });
  }

  app.get('/v1/working-memory/', async (c) => {
    const q = query(c, ListSessionsQuerySchema);
    return c.json(await memory.listSessions({ namespace: q.namespace, userId: q.user_id, owner: owners.get(c.req.raw), limit: q.limit, offset: q.offset }));
  });
  app.get(WORKING, async (c) => c.json(await memory.getWorkingMemory(session(c))));
  app.put(WORKING, async (c) => {
    const { sessionId, namespace, userId, owner, modelName, contextWindowMax } = session(c);
    const update = await body(c, WorkingMemoryUpdateSchema, 'working memory');
    return c.json(await memory.putWorkingMemory({ sessionId, update, namespace, userId, owner, modelName, contextWindowMax }));
  });
  app.delete(WORKING, async (c) => c.json(await memory.deleteWorkingMemory(session(c))));

  for (const path of ['/v1/long-term-memory/', '/v1/long-term-memory']) {
    app.post(path, async (c) => c.json(await memory.createMemories(await body(c, CreateMemoriesRequestSchema, 'memories'), access(c))));
  }
  app.post('/v1/long-term-memory/search', async (c) => {
    const { optimize_query: optimizeQuery } = query(c, OptimizeQuerySchema);
    const raw = await readJsonBody(c, { maxBytes, wellFormedText: true });
    const search = plainSearchRequest(raw) ?? parseRequest({ schema: SearchRequestSchema, raw, what: 'search' });
    const { query_optimized: optimized, ...results } = await memory.search(search, { optimizeQuery, access: access(c) });
    // Says whether optimize_query rewrote the text (not for keyword/hybrid, as AMS, nor without a language model).
    if (optimizeQuery) c.header('X-Query-Optimized', optimized ? 'true' : 'false; this search mode or server does not rewrite queries');
    return c.json(results);
  });
  app.delete('/v1/long-term-memory', async (c) => {
    const q = parseRequest({ schema: DeleteQuerySchema, raw: c.req.queries(), what: 'query string' });
    return c.json(await memory.deleteMemories(q.memory_ids, access(c, { namespace: q.namespace?.[0], user_id: q.user_id?.[0] })));
  });
  app.post('/v1/memory/prompt', async (c) => {
    const { optimize_query: optimizeQuery } = query(c, OptimizeQuerySchema);
    return c.json(await memory.prompt(await body(c, MemoryPromptRequestSchema, 'memory prompt request'), { optimizeQuery, access: access(c) }));
  });

  for (const [route, allow] of [
    ['/v1/health', 'GET'],
    ['/health', 'GET'],
    ['/v1/working-memory/', 'GET'],
    [WORKING, 'GET, PUT, DELETE'],
    ['/v1/long-term-memory/', 'POST'],
    ['/v1/long-term-memory', 'POST, DELETE'],
    ['/v1/long-term-memory/search', 'POST'],
    ['/v1/memory/prompt', 'POST'],
  ] as const) {
    app.all(route, (c) =>
      errorResponse(new BadRequestError({ code: 'method_not_allowed', message: `${c.req.method} is not allowed on ${c.req.path}; use ${allow}.` }), {
        Allow: allow,
      }),
    );
  }
  mountUpkeepRoutes(app, { memory, body, query, access });
  // AMS's MCP tools at /mcp, behind the same token check; a session's tools act with the token that opened it.
  mountMemoryMcp(app, { memory, logger: options.logger ?? silentLogger, access: (request) => ({ owner: owners.get(request) }) });
  // After the routes above, so `/v1/long-term-memory/search` is never read as a memory id.
  app.get(MEMORY_BY_ID, async (c) => c.json(await memory.getMemory(memoryId(c), access(c, query(c, RecordScopeQuerySchema)))));
  app.patch(MEMORY_BY_ID, async (c) => {
    const id = memoryId(c);
    const scope = query(c, RecordScopeQuerySchema);
    return c.json(await memory.updateMemory(id, await body(c, EditMemoryRequestSchema, 'memory edit'), access(c, scope)));
  });
  app.all(MEMORY_BY_ID, (c) =>
    errorResponse(new BadRequestError({ code: 'method_not_allowed', message: `${c.req.method} is not allowed on ${c.req.path}; use GET, PATCH.` }), {
      Allow: 'GET, PATCH',
    }),
  );
  return app;
}
