import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { errorResponse } from '../core/server/http-error.js';
import { parseRequest } from '../core/server/parse-request.js';
import type { MemoryAccess } from './memory-edits.js';
import { ForgetQuerySchema, ForgetRequestSchema } from './memory-forgetting.js';
import { IdentifierSchema, ScopeSchema } from './memory-records.js';
import { CreateSummaryViewRequestSchema, PartitionQuerySchema, RunPartitionRequestSchema, RunViewRequestSchema } from './summary-views.js';
import type { SystemMemory } from './system-memory.js';

/** What the routes need from the service: the body and query readers and the caller's access. */
export interface UpkeepRouteHelpers {
  body: <S extends z.ZodType>(c: Context, schema: S, what: string) => Promise<z.output<S>>;
  query: <S extends z.ZodType>(c: Context, schema: S) => z.output<S>;
  access: (c: Context, scope?: { namespace?: string | undefined; user_id?: string | undefined }) => MemoryAccess;
}

const CompactQuerySchema = z.strictObject({ namespace: ScopeSchema, user_id: ScopeSchema, session_id: ScopeSchema });

/**
 * AMS's upkeep routes (mounted before the by-id routes, so `forget` and
 * `compact` are never read as memory ids):
 *
 * - `POST /v1/long-term-memory/forget?namespace=&user_id=&session_id=&limit=&dry_run=` `{policy, pinned_ids}` → `{scanned, deleted, deleted_ids, dry_run}` (dry run unless `dry_run=false`, as AMS)
 * - `POST /v1/long-term-memory/compact?namespace=&user_id=&session_id=` → `{status: "ok, N memories remaining after compaction"}`
 * - `GET|POST /v1/summary-views`, `GET|DELETE /v1/summary-views/{id}`, `POST /v1/summary-views/{id}/partitions/run` `{group}`,
 *   `GET /v1/summary-views/{id}/partitions?user_id=&namespace=&session_id=&memory_type=`, `POST /v1/summary-views/{id}/run` `{task_id?}` → a task
 * - `GET /v1/tasks/{id}` → the task (404 when unknown or expired)
 *
 * Each acts only on what the caller's token may reach (token mode).
 */
export function mountUpkeepRoutes(app: Hono, options: { memory: SystemMemory } & UpkeepRouteHelpers): void {
  const { memory, body, query, access } = options;
  const viewId = (c: Context) => parseRequest({ schema: IdentifierSchema, raw: c.req.param('view_id'), what: 'summary view id' });

  app.post('/v1/long-term-memory/forget', async (c) => {
    const q = query(c, ForgetQuerySchema);
    const request = await body(c, ForgetRequestSchema, 'forget request');
    return c.json(
      await memory.forget({
        policy: request.policy,
        pinnedIds: request.pinned_ids,
        scope: { namespace: q.namespace, userId: q.user_id, sessionId: q.session_id },
        limit: q.limit,
        dryRun: q.dry_run,
        access: access(c),
      }),
    );
  });
  app.post('/v1/long-term-memory/compact', async (c) => {
    const q = query(c, CompactQuerySchema);
    return c.json(await memory.compact({ scope: { namespace: q.namespace, userId: q.user_id, sessionId: q.session_id }, access: access(c) }));
  });

  app.get('/v1/summary-views', async (c) => {
    query(c, z.strictObject({}));
    return c.json(await memory.summaryViews.list(access(c)));
  });
  app.post('/v1/summary-views', async (c) =>
    c.json(await memory.summaryViews.create(await body(c, CreateSummaryViewRequestSchema, 'summary view'), access(c))),
  );
  app.get('/v1/summary-views/:view_id', async (c) => c.json(await memory.summaryViews.get(viewId(c), access(c))));
  app.delete('/v1/summary-views/:view_id', async (c) => c.json(await memory.summaryViews.delete(viewId(c), access(c))));
  app.post('/v1/summary-views/:view_id/partitions/run', async (c) => {
    const id = viewId(c);
    const { group } = await body(c, RunPartitionRequestSchema, 'partition run');
    return c.json(await memory.summaryViews.runPartition(id, group, access(c)));
  });
  app.get('/v1/summary-views/:view_id/partitions', async (c) => {
    const id = viewId(c);
    return c.json(await memory.summaryViews.listPartitions(id, query(c, PartitionQuerySchema), access(c)));
  });
  app.post('/v1/summary-views/:view_id/run', async (c) => {
    const id = viewId(c);
    const request = await body(c, RunViewRequestSchema, 'summary view run');
    return c.json(await memory.summaryViews.run(id, request.task_id ?? undefined, access(c)));
  });
  app.get('/v1/tasks/:task_id', async (c) => {
    const id = parseRequest({ schema: IdentifierSchema, raw: c.req.param('task_id'), what: 'task id' });
    const task = await memory.tasks.get(id, access(c));
    if (!task) throw new BadRequestError({ code: 'not_found', message: `Task ${id} not found` });
    return c.json(task);
  });

  for (const [route, allow] of [
    ['/v1/long-term-memory/forget', 'POST'],
    ['/v1/long-term-memory/compact', 'POST'],
    ['/v1/summary-views', 'GET, POST'],
    ['/v1/summary-views/:view_id', 'GET, DELETE'],
    ['/v1/summary-views/:view_id/partitions/run', 'POST'],
    ['/v1/summary-views/:view_id/partitions', 'GET'],
    ['/v1/summary-views/:view_id/run', 'POST'],
    ['/v1/tasks/:task_id', 'GET'],
  ] as const) {
    app.all(route, (c) =>
      errorResponse(new BadRequestError({ code: 'method_not_allowed', message: `${c.req.method} is not allowed on ${c.req.path}; use ${allow}.` }), {
        Allow: allow,
      }),
    );
  }
}
